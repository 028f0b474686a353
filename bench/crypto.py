"""The crypto benchmark: pycryptodome native, pycryptodome under the agent, and pyca/cryptography.

    python -m bench.crypto [--quick] [--family aes] [--rows gcm,ctr] [--sizes 64,1M]
                           [--check-goals] [--aesni-ab] [--clock cpu|wall]
                           [--csv PATH] [--json]
    python bench/crypto.py ...            (the same)

For every row of every family (``bench/families/``) and message size, three
variants are timed in one process, interleaved: the pycryptodome call with
the agent uninstalled (``native``), the same call with the agent active
(``agent``: ``accel_agent.activate("quiet")``; ``accel_agent.uninstall()``
switches back), and the same work done with pyca/cryptography directly
(``direct``). Outputs are checked equal before anything is timed. Printed
per row: the median time per call of each variant, ``agt/nat`` (native time
/ agent time: the agent's speed-up) and ``of dir`` (direct time / agent
time: the fraction of direct cryptography's speed the agent reaches). The
two ratios are medians of per-repetition ratios: the samples of one
repetition are taken next to each other, so a slow phase of a shared
machine cancels out of them (:func:`bench.timing.paired_ratio`); they can
differ slightly from the ratio of the printed medians. Times are the
thread's CPU time by default (``--clock cpu``), which other processes'
time slices do not inflate; ``--clock wall`` uses ``time.perf_counter_ns``.

``--check-goals`` reports the issue's goals as PASS/FAIL; the exit status
does not depend on them (the machine is noisy). It is 1 only when a row's
outputs differed from native pycryptodome's or a variant raised (a
correctness bug; such a row is flagged, or listed as not measured), and 2 on
a usage error.

``--aesni-ab`` reruns the AES rows in a child process whose OpenSSL has
AES-NI and PCLMULQDQ masked (``OPENSSL_ia32cap``) and prints OpenSSL with
and without them next to native pycryptodome, whose own AES-NI code does
not read that variable. The agent refuses AES there (its platform gate
fails), so the child's ``agent`` column is native.
"""

from __future__ import annotations

import os
import sys

if not __package__:  # run as a script: make the repository root importable, not bench/
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import argparse  # noqa: E402
import contextlib  # noqa: E402
import csv  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402

from bench import common, timing  # noqa: E402
from bench.families import (  # noqa: E402
    FAMILIES,
    KIB,
    MIB,
    STANDARD_SIZES,
    flatten,
    load,
    size_label,
)

WIDTH = common.WIDTH
NOT_SLOWER_TOLERANCE = 1.05  # "agent never slower than native", allowing 5 % of noise
NOISY_SPREAD = 0.20  # samples of one variant spreading over 20 % of their median
AESNI_MASK = "~0x200000200000000"  # OPENSSL_ia32cap: clear AES-NI (bit 57) and PCLMULQDQ (33)
CSV_FIELDS = (
    "family",
    "primitive",
    "size",
    "native_ns",
    "agent_ns",
    "direct_ns",
    "speedup",
    "fraction_of_direct",
)

CLOCK_LABELS = {
    "cpu": "thread CPU time (time.thread_time_ns)",
    "wall": "wall clock (time.perf_counter_ns)",
}

# (repetitions, timing loops per sample, milliseconds per sample)
FULL = (11, 5, 10.0)
QUICK = (5, 5, 4.0)

EXIT_BROKEN = 1  # outputs differed, or a variant raised: a correctness bug


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
    return facts


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
    __slots__ = ("reps", "loops", "sample_ns", "sizes", "row_filter", "clock")

    def __init__(self, args: argparse.Namespace) -> None:
        reps, loops, sample_ms = QUICK if args.quick else FULL
        self.reps = args.reps or reps
        self.loops = args.loops or loops
        self.sample_ns = (args.sample_ms or sample_ms) * 1e6
        self.sizes = args.sizes or list(STANDARD_SIZES)
        self.row_filter = args.rows
        self.clock = args.clock

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
            "clock": self.clock,
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


def checked_call(variant: str, function) -> bytes:
    try:
        return flatten(function())
    except Exception as exc:  # noqa: BLE001 - reported as the row's error, the run goes on
        raise RowError(variant, exc) from exc


def run_row(family_name: str, row, size: int, switch: AgentSwitch, settings: Settings) -> dict:
    pycryptodome, direct = row.build(size)
    switch.native()
    reference = checked_call("native", pycryptodome)
    switch.agent()
    provider, calls_before = switch.served(row.primitive)
    agent_output = checked_call("agent", pycryptodome)
    provider, calls_after = switch.served(row.primitive)
    via = provider if calls_after > calls_before else "native"
    direct_output = checked_call("direct", direct)
    mismatches = [
        name
        for name, output in (("agent", agent_output), ("direct", direct_output))
        if output != reference
    ]
    measured = timing.measure(
        [
            timing.Variant("native", pycryptodome, switch.native),
            timing.Variant("agent", pycryptodome, switch.agent),
            timing.Variant("direct", direct),
        ],
        settings.reps,
        settings.loops,
        settings.sample_ns,
        settings.clock,
    )
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
        "fraction_of_direct": timing.paired_ratio(measured["direct"], measured["agent"]),
        "via": via,
        "outputs_differ": mismatches,
        "noisy": max(m.spread for m in measured.values()) > NOISY_SPREAD,
        "measurements": {name: m.as_dict() for name, m in measured.items()},
    }


def run(families: list[str], settings: Settings, switch: AgentSwitch, progress: bool) -> dict:
    """Every selected row of every family; the agent is active when this returns."""
    switch.agent()  # families import pycryptodome with the agent's import hook in place
    modules = [load(name) for name in families]
    agent_status = switch.status(resolve=True)
    plan = [(m, row, size) for m in modules for row, size in selected_rows(m, settings)]
    results, errors = [], []
    for index, (module, row, size) in enumerate(plan, 1):
        if progress:
            sys.stderr.write(
                "\r\x1b[K[%d/%d] %s %s %s"
                % (index, len(plan), module.NAME, row.label, size_label(size))
            )
            sys.stderr.flush()
        try:
            results.append(run_row(module.NAME, row, size, switch, settings))
        except RowError as exc:
            errors.append("%s %s %s: %s" % (module.NAME, row.label, size_label(size), exc))
    if progress:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    switch.agent()
    used = sorted({row.primitive for m in modules for row in m.ROWS})
    primitives = agent_status.get("primitives", {})
    return {
        "families": families,
        "titles": {m.NAME: m.TITLE for m in modules},
        "goals": {m.NAME: list(getattr(m, "GOALS", ())) for m in modules},
        "agent": {
            "version": switch.version,
            "active_at_start": switch.active_at_start,
            "primitives": {name: primitives.get(name) for name in used},
            "messages": switch.messages,
        },
        "rows": results,
        "errors": errors,  # rows that could not be measured: a variant raised
    }


# --- goals ------------------------------------------------------------------------------


def check_goals(doc: dict) -> list[dict]:
    """Each goal's verdict; a goal whose row was not measured is SKIP."""
    by_key = {(r["family"], r["row"], r["size"]): r for r in doc["rows"]}
    verdicts = []
    for family, goals in doc["goals"].items():
        for goal in goals:
            row = by_key.get((family, goal.row, goal.size))
            name = "%s %s %s" % (family, goal.row, size_label(goal.size))
            if row is None:
                verdicts.append(
                    {"goal": name, "target": goal.describe(), "measured": "-", "verdict": "SKIP"}
                )
                continue
            passed, measured = goal.judge(row["fraction_of_direct"], row["speedup"])
            verdicts.append(
                {
                    "goal": name,
                    "target": goal.describe(),
                    "measured": measured,
                    "verdict": common.verdict(passed),
                }
            )
    slower = [r for r in doc["rows"] if r["speedup"] * NOT_SLOWER_TOLERANCE < 1.0]
    verdicts.append(
        {
            "goal": "every row",
            "target": "agent <= %.2f x native" % NOT_SLOWER_TOLERANCE,
            "measured": "%d/%d rows" % (len(doc["rows"]) - len(slower), len(doc["rows"])),
            "verdict": common.verdict(not slower),
            "slower_rows": [
                "%s %s %s (%.2f x)"
                % (r["family"], r["row"], size_label(r["size"]), 1.0 / r["speedup"])
                for r in slower
            ],
        }
    )
    return verdicts


# --- output -----------------------------------------------------------------------------


def wrapped(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def print_header(machine: dict, doc: dict, settings: Settings) -> None:
    print("accel-agent crypto benchmark")
    flags = " ".join(machine["cpu_flags"]) or "none"
    print(wrapped("cpu: %s (%s CPUs; %s)" % (machine["cpu"], machine["cpus"], flags)))
    print(
        wrapped(
            "%s on %s; pycryptodome %s; cryptography %s; %s"
            % (
                machine["python"],
                machine["os"],
                machine["pycryptodome"],
                machine["cryptography"],
                machine["openssl"],
            )
        )
    )
    if machine["openssl_ia32cap"]:
        print("OPENSSL_ia32cap=%s" % machine["openssl_ia32cap"])
    agent = doc["agent"]
    print(
        wrapped("accel-agent %s: %s" % (agent["version"], primitive_summary(agent["primitives"])))
    )
    if agent["active_at_start"]:
        print(wrapped("note: the agent was already active at start-up (ACCEL_AGENT or -X accel)"))
    print(wrapped(settings.describe()))


def primitive_summary(primitives: dict[str, dict | None]) -> str:
    parts = []
    for name, entry in primitives.items():
        if entry is None:
            parts.append("%s not in the agent's catalog (native)" % name)
        elif entry.get("accelerated"):
            parts.append("%s accelerated (%s)" % (name, entry.get("provider")))
        else:
            parts.append("%s native (%s)" % (name, entry.get("reason")))
    return "; ".join(parts) or "no primitives"


def format_ns(ns: float) -> str:
    return common.format_time(ns * 1e-9)


def format_mbps(size: int, ns: float) -> str:
    mbps = size * 1e3 / ns  # bytes per ns is GB/s
    return "%.0f" % mbps if mbps >= 10 else "%.1f" % mbps


def print_tables(doc: dict) -> None:
    for family in doc["families"]:
        rows = [r for r in doc["rows"] if r["family"] == family]
        if not rows:
            continue
        print()
        print(wrapped(doc["titles"][family]))
        table = common.Table(
            [family, "size", "native", "agent", "direct", "agt/nat", "of dir", "MB/s"]
        )
        for r in rows:
            mark = ("!" if r["outputs_differ"] else "") + ("*" if r["via"] == "native" else "")
            mark += "~" if r["noisy"] else ""
            table.add(
                "%s%s" % (r["row"], " " + mark if mark else ""),
                size_label(r["size"]),
                format_ns(r["native_ns"]),
                format_ns(r["agent_ns"]),
                format_ns(r["direct_ns"]),
                common.format_ratio(r["speedup"]),
                "%.2fx" % r["fraction_of_direct"],
                format_mbps(r["size"], r["agent_ns"]),
            )
        table.print()
    rows = doc["rows"]
    notes = []
    if any(r["via"] == "native" for r in rows):
        notes.append(
            "* the agent served the row natively (primitive not accelerated yet, or this "
            "call shape declined): ~1.00x expected"
        )
    if any(r["noisy"] for r in rows):
        notes.append("~ noisy: samples of a variant spread over %d %%" % (NOISY_SPREAD * 100))
    for r in rows:
        if r["outputs_differ"]:
            notes.append(
                "! OUTPUTS DIFFER from native pycryptodome's, row not comparable: %s %s (%s)"
                % (r["row"], size_label(r["size"]), ", ".join(r["outputs_differ"]))
            )
    for error in doc["errors"]:
        notes.append("ERROR, not measured: %s" % error)
    notes.append(
        "agt/nat = native time / agent time; of dir = direct time / agent time (medians "
        "of paired per-repetition ratios); MB/s under the agent"
    )
    print()
    for note in notes:
        print(wrapped(note))
    for message in doc["agent"]["messages"]:
        print(wrapped("agent said: %s" % message))


def print_goals(verdicts: list[dict]) -> None:
    print()
    print("Goals (reported, not enforced)")
    table = common.Table(["goal", "target", "measured", "verdict"])
    for v in verdicts:
        table.add(v["goal"], v["target"], v["measured"], v["verdict"])
    table.print()
    for v in verdicts:
        for slower in v.get("slower_rows", ()):
            print(wrapped("  slower than native: %s" % slower))


def write_csv(path: str, rows: list[dict]) -> None:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_FIELDS)
        for r in rows:
            writer.writerow(
                [
                    r["family"],
                    r["row"],
                    r["size"],
                    "%.1f" % r["native_ns"],
                    "%.1f" % r["agent_ns"],
                    "%.1f" % r["direct_ns"],
                    "%.3f" % r["speedup"],
                    "%.3f" % r["fraction_of_direct"],
                ]
            )


# --- the AES-NI A/B -----------------------------------------------------------------------


def run_masked_child(args: argparse.Namespace) -> dict:
    """The AES rows again, in a child whose OpenSSL cannot use AES-NI or PCLMULQDQ."""
    command = [sys.executable, "-m", "bench.crypto", "--family", "aes", "--json"]
    command += ["--clock", args.clock]
    if args.quick:
        command.append("--quick")
    for option, value in (
        ("--reps", args.reps),
        ("--loops", args.loops),
        ("--sample-ms", args.sample_ms),
    ):
        if value:
            command += [option, str(value)]
    if args.sizes:
        command += ["--sizes", ",".join(str(s) for s in args.sizes)]
    if args.rows:
        command += ["--rows", ",".join(args.rows)]
    env = dict(os.environ, OPENSSL_ia32cap=AESNI_MASK, ACCEL_AGENT="off")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    completed = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE, check=False)
    if completed.returncode not in (0, EXIT_BROKEN):
        raise RuntimeError("the masked run failed with exit status %d" % completed.returncode)
    return json.loads(completed.stdout)


def aesni_rows(doc: dict, masked: dict) -> list[dict]:
    """Each AES row measured in both runs: OpenSSL with AES-NI (here) and without (the child)."""
    masked_rows = {(r["row"], r["size"]): r for r in masked["rows"]}
    rows = []
    for r in doc["rows"]:
        other = masked_rows.get((r["row"], r["size"]))
        if r["family"] != "aes" or other is None:
            continue
        rows.append(
            {
                "row": r["row"],
                "size": r["size"],
                "native_ns": r["native_ns"],
                "direct_ns": r["direct_ns"],
                "masked_native_ns": other["native_ns"],
                "masked_agent_ns": other["agent_ns"],
                "masked_direct_ns": other["direct_ns"],
                "masked_speedup": other["speedup"],
                "aesni_gain": other["direct_ns"] / r["direct_ns"],
                # both measured in the child, interleaved: native / OpenSSL without AES-NI
                "masked_direct_vs_native": other["native_ns"] / other["direct_ns"],
            }
        )
    return rows


def print_aesni(rows: list[dict], masked: dict) -> None:
    print()
    print(
        wrapped(
            "AES-NI A/B: OpenSSL as is (NI), and with OPENSSL_ia32cap=%s masking AES-NI "
            "and PCLMULQDQ (no-NI, a child process)" % AESNI_MASK
        )
    )
    table = common.Table(
        ["aes", "size", "native", "dir NI", "dir no-NI", "NI gain", "no-NI/nat", "agt -NI"]
    )
    for r in rows:
        table.add(
            r["row"],
            size_label(r["size"]),
            format_ns(r["masked_native_ns"]),
            format_ns(r["direct_ns"]),
            format_ns(r["masked_direct_ns"]),
            common.format_ratio(r["aesni_gain"]),
            "%.2fx" % r["masked_direct_vs_native"],
            "%.2fx" % r["masked_speedup"],
        )
    table.print()
    notes = [
        "native: pycryptodome in the no-NI run (its own AES-NI code ignores "
        "OPENSSL_ia32cap). NI gain = direct time no-NI / NI. no-NI/nat = native time / "
        "direct time no-NI (below 1: pycryptodome beats OpenSSL without AES-NI). "
        "agt -NI = native time / agent time in the no-NI run (the agent refuses AES "
        "there: ~1.00x expected)."
    ]
    if rows:
        notes.append(
            "NI gain %s; %s. native no-NI run / NI run: %.2f x (median)."
            % (
                gain_range([r for r in rows if r["size"] >= 16 * KIB], "from 16 KiB"),
                gain_range([r for r in rows if r["size"] < 16 * KIB], "below 16 KiB"),
                statistics.median(r["masked_native_ns"] / r["native_ns"] for r in rows),
            )
        )
    slower = [r for r in rows if r["masked_speedup"] * NOT_SLOWER_TOLERANCE < 1.0]
    notes.append(
        "no-NI run, agent slower than native (agent > %.2f x native): %d/%d rows%s"
        % (
            NOT_SLOWER_TOLERANCE,
            len(slower),
            len(rows),
            (": " + ", ".join("%s %s" % (r["row"], size_label(r["size"])) for r in slower))
            if slower
            else "",
        )
    )
    notes.append("no-NI run, agent: %s" % primitive_summary(masked["agent"]["primitives"]))
    print()
    for note in notes:
        print(wrapped(note))


def gain_range(rows: list[dict], label: str) -> str:
    if not rows:
        return "%s: not measured" % label
    gains = [r["aesni_gain"] for r in rows]
    return "%s: %.1fx to %.1fx (median %.1fx)" % (
        label,
        min(gains),
        max(gains),
        statistics.median(gains),
    )


# --- command line -----------------------------------------------------------------------


def parse_size(text: str) -> int:
    text = text.strip().upper().replace("IB", "").replace("B", "")
    scale = 1
    if text.endswith("K"):
        scale, text = KIB, text[:-1]
    elif text.endswith("M"):
        scale, text = MIB, text[:-1]
    return int(text) * scale


def comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.crypto",
        description="pycryptodome native vs under accel-agent vs pyca/cryptography.",
    )
    p.add_argument("--quick", action="store_true", help="fewer, shorter samples (< 30 s)")
    p.add_argument(
        "--family",
        action="append",
        metavar="NAME",
        help="only these families (repeat or comma-separate; known: %s)" % ", ".join(FAMILIES),
    )
    p.add_argument("--rows", type=comma_list, help="only rows whose label contains one of these")
    p.add_argument(
        "--sizes",
        type=lambda text: [parse_size(part) for part in comma_list(text)],
        help="message sizes, e.g. 64,1K,16K,1M (default: all four)",
    )
    p.add_argument("--reps", type=int, help="interleaved samples per variant")
    p.add_argument("--loops", type=int, help="timing loops per sample (their median)")
    p.add_argument("--sample-ms", type=float, help="approximate duration of one sample")
    p.add_argument(
        "--clock",
        choices=sorted(timing.CLOCKS),
        default=timing.DEFAULT_CLOCK,
        help="cpu: the thread's CPU time, immune to other processes' time slices "
        "(default); wall: time.perf_counter_ns",
    )
    p.add_argument("--csv", metavar="PATH", help="also write the rows as CSV")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--check-goals", action="store_true", help="report the goals as PASS/FAIL")
    p.add_argument(
        "--aesni-ab",
        action="store_true",
        help="also rerun AES with AES-NI masked for OpenSSL and compare",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    args = parser().parse_args(argv)
    families = [name for value in args.family or [] for name in comma_list(value)]
    families = families or list(FAMILIES)
    if args.aesni_ab and "aes" not in families:
        families.append("aes")
    unknown = [name for name in families if name not in FAMILIES]
    if unknown:
        parser().error("unknown family %s (known: %s)" % (", ".join(unknown), ", ".join(FAMILIES)))
    settings = Settings(args)
    switch = AgentSwitch()
    machine = machine_facts()
    doc = run(families, settings, switch, progress=sys.stderr.isatty())
    doc["machine"] = machine
    doc["settings"] = settings.as_dict()
    verdicts = check_goals(doc) if args.check_goals else None
    masked = run_masked_child(args) if args.aesni_ab else None
    if args.csv:
        write_csv(args.csv, doc["rows"])
    elapsed = time.perf_counter() - started
    if args.json:
        out = dict(doc, goals=verdicts, run_seconds=elapsed)
        if masked is not None:
            out["aesni_ab"] = {"masked_run": masked, "rows": aesni_rows(doc, masked)}
        json.dump(out, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        print_header(machine, doc, settings)
        print_tables(doc)
        if verdicts is not None:
            print_goals(verdicts)
        if masked is not None:
            print_aesni(aesni_rows(doc, masked), masked)
        print()
        print("run time: %.1f s" % elapsed)
    broken = doc["errors"] or any(r["outputs_differ"] for r in doc["rows"])
    return EXIT_BROKEN if broken else 0


if __name__ == "__main__":
    sys.exit(main())
