"""The per-call measurement: pycryptodome native, under the agent, and pyca/cryptography.

``accel-agent bench`` (``accel_agent.bench.command``) and ``make bench``
run this one implementation.

For every row of every family (``accel_agent/bench/families/``) and message
size, three variants are timed in one process, interleaved: the
pycryptodome call with the agent uninstalled (``native``), the same call
with the agent active (``agent``: ``accel_agent.activate("quiet")``;
``accel_agent.uninstall()`` switches back), and the same work done with
pyca/cryptography directly (``direct``). Outputs are checked equal before
anything is timed. A row reports the median time per call of each variant,
``speedup`` (native time / agent time), ``direct_speedup`` (native time /
direct time) and ``fraction_of_direct`` (direct time / agent time). The
ratios are medians of per-repetition ratios: the samples of one repetition
are taken next to each other, so a slow phase of a shared machine cancels
out of them (:func:`accel_agent.bench.timing.paired_ratio`); they can differ
slightly from the ratio of the printed medians. Times are the thread's CPU
time by default (``clock="cpu"``), which other processes' time slices do not
inflate; ``"wall"`` uses ``time.perf_counter_ns``.

A row whose outputs differed from native pycryptodome's, or whose variant
raised, is a correctness bug: it is flagged (``outputs_differ``) or listed
in ``errors``, and the command exits non-zero.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import sys
import time

from accel_agent.bench import targets, timing
from accel_agent.bench.families import STANDARD_SIZES, flatten, load, size_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

NOISY_SPREAD = 0.20  # samples of one variant spreading over 20 % of their median

CLOCK_LABELS = {
    "cpu": "thread CPU time (time.thread_time_ns)",
    "wall": "wall clock (time.perf_counter_ns)",
}

# (repetitions, timing loops per sample, milliseconds per sample)
FULL = (11, 5, 10.0)
QUICK = (5, 3, 2.0)
# --quick measures two sizes (per-call overhead, and throughput) and leaves out
# rows whose one call takes longer than QUICK_MAX_CALL_NS (key generation,
# 600k-iteration PBKDF2): each would cost seconds, --quick promises < 30 s.
QUICK_SIZES = (64, 16 * 1024)
QUICK_MAX_CALL_NS = 20e6
# Import names whose distribution is called otherwise, for "X is not installed".
DISTRIBUTIONS = {"Crypto": "pycryptodome (Crypto)", "Cryptodome": "pycryptodomex (Cryptodome)"}


# --- the agent, switched on and off in this process ---------------------------------


class AgentSwitch:
    """Puts the process in the ``native`` or ``agent`` state, through the public API.

    Toggling re-patches modules imported before the activation, which the
    agent rightly reports on stderr; those lines are collected here instead,
    and any other line the agent prints is kept for the report.
    """

    EXPECTED = "was imported before the agent started; patched now"

    def __init__(self) -> None:
        import accel_agent

        self._agent = accel_agent
        self.version = accel_agent.__version__
        self.active_at_start = bool(accel_agent.status(resolve=False).get("active"))
        self.state = "agent" if self.active_at_start else "native"
        self.messages: list[str] = []

    def native(self) -> None:
        if self.state != "native":
            self._quietly(self._agent.uninstall)
            self.state = "native"

    def agent(self) -> None:
        if self.state != "agent":
            self._quietly(lambda: self._agent.activate("quiet"))
            self.state = "agent"

    def status(self, resolve: bool = False) -> dict:
        with self._captured():
            return self._agent.status(resolve=resolve)

    def served(self, primitive: str) -> tuple[str, int]:
        """(provider name, calls it served) for ``primitive``; ("native", 0) if undecided."""
        entry = self.status()["primitives"].get(primitive) or {}
        return str(entry.get("provider", "native")), int(entry.get("calls", 0))

    def _quietly(self, action) -> None:
        with self._captured():
            action()

    @contextlib.contextmanager
    def _captured(self):
        buffer = io.StringIO()
        with contextlib.redirect_stderr(buffer):
            yield
        for line in buffer.getvalue().splitlines():
            if line and self.EXPECTED not in line and line not in self.messages:
                self.messages.append(line)


# --- the machine ------------------------------------------------------------------------


def machine_facts() -> dict[str, object]:
    facts: dict[str, object] = {
        "cpu": "unknown",
        "cpu_flags": [],
        "cpus": os.cpu_count(),
        "python": "%s %s" % (platform.python_implementation(), platform.python_version()),
        "os": "%s %s" % (platform.system(), platform.machine()),
        "openssl_ia32cap": os.environ.get("OPENSSL_ia32cap"),  # noqa: SIM112 - OpenSSL's spelling
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            cpuinfo = handle.read()
    except OSError:
        cpuinfo = ""
    wanted = ("aes", "pclmulqdq", "avx2", "vaes", "vpclmulqdq", "sha_ni")
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "Model", "CPU part") and facts["cpu"] == "unknown":
            facts["cpu"] = value.strip()
        elif key in ("flags", "Features") and not facts["cpu_flags"]:
            present = set(value.split())
            facts["cpu_flags"] = [flag for flag in wanted if flag in present]
    facts.update(library_versions())
    facts["other_libraries"] = other_library_versions()
    return facts


# Other libraries the agent patches that have benchmark families (distribution names).
OTHER_LIBRARIES = ("ecdsa", "pyaes", "pyDes", "rsa")


def other_library_versions() -> dict[str, str]:
    """{distribution: version} of the other patched libraries installed here."""
    from importlib import metadata

    versions = {}
    for dist in OTHER_LIBRARIES:
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return versions


def library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    try:
        import Crypto

        versions["pycryptodome"] = Crypto.__version__
    except ImportError:
        versions["pycryptodome"] = None
    try:
        import cryptography
        from cryptography.hazmat.backends.openssl.backend import backend

        versions["cryptography"] = cryptography.__version__
        versions["openssl"] = backend.openssl_version_text()
    except Exception:  # noqa: BLE001 - a missing or broken binding is reported, not fatal
        versions.setdefault("cryptography", None)
        versions["openssl"] = None
    return versions


# --- running ----------------------------------------------------------------------------


class Settings:
    """How long and what to measure: a quick or full run, narrowed by families, rows, sizes."""

    __slots__ = ("reps", "loops", "sample_ns", "sizes", "row_filter", "clock", "max_call_ns")

    def __init__(
        self,
        quick: bool = False,
        reps: int | None = None,
        loops: int | None = None,
        sample_ms: float | None = None,
        sizes: Sequence[int] | None = None,
        rows: Sequence[str] | None = None,
        clock: str = timing.DEFAULT_CLOCK,
    ) -> None:
        default_reps, default_loops, default_ms = QUICK if quick else FULL
        self.reps = reps or default_reps
        self.loops = loops or default_loops
        self.sample_ns = (sample_ms or default_ms) * 1e6
        self.sizes = list(sizes or (QUICK_SIZES if quick else STANDARD_SIZES))
        self.row_filter = list(rows or ())
        if clock not in timing.CLOCKS:
            raise ValueError("unknown clock %r (known: %s)" % (clock, ", ".join(timing.CLOCKS)))
        self.clock = clock
        self.max_call_ns = QUICK_MAX_CALL_NS if quick else None

    def clocks(self) -> list[str]:
        """Every clock, the run's first: rows are timed on both at once."""
        return [self.clock] + [clock for clock in timing.CLOCKS if clock != self.clock]

    def describe(self) -> str:
        return (
            "medians of %d interleaved samples per variant, each the median of %d timing "
            "loops (~%.0f ms per sample); times per call, %s"
            % (self.reps, self.loops, self.sample_ns / 1e6, CLOCK_LABELS[self.clock])
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "reps": self.reps,
            "loops": self.loops,
            "sample_ms": self.sample_ns / 1e6,
            "sizes": self.sizes,
            "rows": self.row_filter,
            "clock": self.clock,
            "max_call_ms": self.max_call_ns / 1e6 if self.max_call_ns else None,
        }


def selected_rows(family, settings: Settings) -> list[tuple[object, int]]:
    chosen = []
    for row in family.ROWS:
        if settings.row_filter and not any(part in row.label for part in settings.row_filter):
            continue
        chosen += [(row, size) for size in row.sizes_for(settings.sizes)]
    return chosen


class RowError(Exception):
    """A variant raised instead of returning: the row cannot be measured."""

    def __init__(self, variant: str, exc: BaseException) -> None:
        super().__init__("%s raised %s: %s" % (variant, type(exc).__name__, str(exc)[:120]))


class TooSlow(Exception):
    """--quick leaves this row out: one call takes longer than the quick run allows."""


def checked_call(
    variant: str, function: Callable[[], object], clock: Callable[[], int] = time.thread_time_ns
) -> tuple[bytes, float]:
    """(the call's output as bytes, nanoseconds it took on ``clock``)."""
    started = clock()
    try:
        output = flatten(function())
    except Exception as exc:  # noqa: BLE001 - reported as the row's error, the run goes on
        raise RowError(variant, exc) from exc
    return output, clock() - started


def run_row(family_name: str, row, size: int, switch: AgentSwitch, settings: Settings) -> dict:
    pycryptodome, direct = row.build(size)
    if direct is None:
        return run_application_row(family_name, row, size, pycryptodome, switch, settings)
    switch.native()
    clock = timing.CLOCKS[settings.clock]
    reference, native_call_ns = checked_call("native", pycryptodome, clock)
    if settings.max_call_ns is not None and native_call_ns > settings.max_call_ns:
        # The first call of a family can include lazy imports and loading a
        # shared library: judge by a second one.
        native_call_ns = min(native_call_ns, checked_call("native", pycryptodome, clock)[1])
        if native_call_ns > settings.max_call_ns:
            raise TooSlow("one native call takes %.0f ms" % (native_call_ns / 1e6))
    switch.agent()
    provider, calls_before = switch.served(row.primitive)
    agent_output, _ = checked_call("agent", pycryptodome)
    provider, calls_after = switch.served(row.primitive)
    via = provider if calls_after > calls_before else "native"
    direct_output, _ = checked_call("direct", direct)
    mismatches = [
        name
        for name, output in (("agent", agent_output), ("direct", direct_output))
        if output != reference
    ]
    by_clock = timing.measure_clocks(
        [
            timing.Variant("native", pycryptodome, switch.native),
            timing.Variant("agent", pycryptodome, switch.agent),
            timing.Variant("direct", direct),
        ],
        settings.reps,
        settings.loops,
        settings.sample_ns,
        settings.clocks(),
    )
    measured = by_clock[settings.clock]
    native_ns, agent_ns, direct_ns = (
        measured[name].median for name in ("native", "agent", "direct")
    )
    return {
        "family": family_name,
        "row": row.label,
        "agent_primitive": row.primitive,
        "size": size,
        "native_ns": native_ns,
        "agent_ns": agent_ns,
        "direct_ns": direct_ns,
        "speedup": timing.paired_ratio(measured["native"], measured["agent"]),
        "direct_speedup": timing.paired_ratio(measured["native"], measured["direct"]),
        "fraction_of_direct": timing.paired_ratio(measured["direct"], measured["agent"]),
        "by_clock": {clock: clock_figures(m) for clock, m in by_clock.items()},
        "via": via,
        "outputs_differ": mismatches,
        "noisy": max(m.spread for m in measured.values()) > NOISY_SPREAD,
        "measurements": {name: m.as_dict() for name, m in measured.items()},
    }


def clock_figures(measured: dict[str, timing.Measurement]) -> dict[str, float]:
    """A row's times and ratios on one clock (``run_row``'s ``by_clock`` entries)."""
    return {
        "native_ns": measured["native"].median,
        "agent_ns": measured["agent"].median,
        "direct_ns": measured["direct"].median,
        "speedup": timing.paired_ratio(measured["native"], measured["agent"]),
        "fraction_of_direct": timing.paired_ratio(measured["direct"], measured["agent"]),
    }


NAN = float("nan")


def run_application_row(
    family_name: str, row, size: int, work: Callable[[], object], switch: AgentSwitch,
    settings: Settings,
) -> dict:
    """A row with no direct variant (an application's own work): native and agent, both clocks.

    The run's clock gives the row's times; the other clock is read around
    the same timing loops, so the speed-up is reported on both. The share
    of the native time spent in the crypto library comes from
    :func:`accel_agent.bench.amdahl.crypto_share`.
    """
    from accel_agent.bench import amdahl

    switch.native()
    reference, _ = checked_call("native", work)
    switch.agent()
    provider, calls_before = switch.served(row.primitive)
    agent_output, _ = checked_call("agent", work)
    provider, calls_after = switch.served(row.primitive)
    via = provider if calls_after > calls_before else "native"
    variants = [
        timing.Variant("native", work, switch.native),
        timing.Variant("agent", work, switch.agent),
    ]
    by_clock = timing.measure_clocks(
        variants, settings.reps, settings.loops, settings.sample_ns, settings.clocks()
    )
    measured = by_clock[settings.clock]
    switch.native()
    packages = getattr(sys.modules[row.build.__module__], "CRYPTO_PACKAGES", {}).get(row.label, ())
    share = amdahl.crypto_share(work, packages) if packages else NAN
    return {
        "family": family_name,
        "row": row.label,
        "agent_primitive": row.primitive,
        "size": size,
        "native_ns": measured["native"].median,
        "agent_ns": measured["agent"].median,
        "direct_ns": NAN,
        "speedup": timing.paired_ratio(measured["native"], measured["agent"]),
        "direct_speedup": NAN,
        "fraction_of_direct": NAN,
        "speedup_by_clock": {
            clock: timing.paired_ratio(m["native"], m["agent"]) for clock, m in by_clock.items()
        },
        "by_clock": {
            clock: {
                "native_ns": m["native"].median,
                "agent_ns": m["agent"].median,
                "direct_ns": NAN,
                "speedup": timing.paired_ratio(m["native"], m["agent"]),
                "fraction_of_direct": NAN,
            }
            for clock, m in by_clock.items()
        },
        "crypto_share": share,
        "via": via,
        "outputs_differ": ["agent"] if agent_output != reference else [],
        "noisy": max(m.spread for m in measured.values()) > NOISY_SPREAD,
        "measurements": {name: m.as_dict() for name, m in measured.items()},
    }


class NullProgress:
    """What :func:`run` reports progress to when nobody watches."""

    def waiting(self, label: str) -> None:
        pass

    def start(self, total: int) -> None:
        pass

    def step(self, label: str) -> None:
        pass

    def finish(self) -> None:
        pass


def load_families(names: Sequence[str]) -> tuple[list, dict[str, str]]:
    """(the family modules that import here, {name: why not} for those that do not).

    A family measures a library the user may not have installed (pycryptodome,
    python-rsa, pyaes...): its import fails, and the family is left out with
    the reason instead of ending the run.
    """
    modules, skipped = [], {}
    for name in names:
        try:
            modules.append(load(name))
        except ImportError as exc:
            missing = (exc.name or "").partition(".")[0]
            if missing:
                label = DISTRIBUTIONS.get(missing, missing)
                skipped[name] = "%s is not installed" % label
            else:
                skipped[name] = str(exc)
    return modules, skipped


def run(families: Sequence[str], settings: Settings, switch: AgentSwitch, progress=None) -> dict:
    """Every selected row of every family; the agent is active when this returns.

    ``progress`` gets ``waiting(label)`` while the families load, then
    ``start(total)``, ``step(label)`` before each row and ``finish()``
    (:class:`accel_agent.bench.progress.ProgressBar`).
    """
    progress = progress or NullProgress()
    progress.waiting("loading the families, running the agent's self-checks...")
    switch.agent()  # families import pycryptodome with the agent's import hook in place
    modules, skipped_families = load_families(families)
    agent_status = switch.status(resolve=True)
    plan = [(m, row, size) for m in modules for row, size in selected_rows(m, settings)]
    results, errors, too_slow = [], [], []
    progress.start(len(plan))
    try:
        for module, row, size in plan:
            name = "%s %s %s" % (module.NAME, row.label, size_label(size))
            progress.step(name)
            try:
                results.append(run_row(module.NAME, row, size, switch, settings))
            except RowError as exc:
                errors.append("%s: %s" % (name, exc))
            except TooSlow as exc:
                too_slow.append("%s (%s)" % (name, exc))
    finally:
        progress.finish()
    switch.agent()
    used = sorted({row.primitive for m in modules for row in m.ROWS})
    primitives = agent_status.get("primitives", {})
    return {
        "families": [m.NAME for m in modules],
        "skipped_families": skipped_families,
        "titles": {m.NAME: m.TITLE for m in modules},
        "goals": {m.NAME: list(targets.for_family(m.NAME)) for m in modules},
        "agent": {
            "version": switch.version,
            "active_at_start": switch.active_at_start,
            "primitives": {name: primitives.get(name) for name in used},
            "messages": switch.messages,
        },
        "rows": results,
        "errors": errors,  # rows that could not be measured: a variant raised
        "too_slow": too_slow,  # rows --quick left out
        "settings": settings.as_dict(),
    }


def broken(doc: dict) -> bool:
    """Whether a row's outputs differed from native, or a variant raised: a correctness bug."""
    return bool(doc["errors"]) or any(r["outputs_differ"] for r in doc["rows"])
