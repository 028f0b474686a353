"""The savings report of one process: what the agent served, and what that saved.

Figures come from two places:

* the registry's slots count every call a provider served (exact, at no
  extra cost: they are counted anyway);
* :mod:`accel_agent.instrument` adds, for sampled calls, their data bytes and
  the agent's time, and in shadow mode native's time for the same work, the
  comparisons and the mismatches.

:func:`write_report` writes them as JSON to ``ACCEL_AGENT_REPORT`` (a file,
or a directory receiving ``accel-agent-<host>-<pid>.json``), at exit and
when called. The file holds names, counts, byte totals, nanoseconds, size
classes and reasons: never a key, nonce, tag, plaintext or any data
(docs/security.md).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REPORT_SCHEMA = 1
REPORT_KIND = "accel-agent savings report"


class Site:
    """One patched entry point (``Crypto.Cipher.AES.new``): its calls and samples."""

    __slots__ = ("name", "calls", "sampled", "native_routed")

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0  # shadow mode: every call through it; report only: the sampled ones
        self.sampled = 0  # sampled calls a provider served
        self.native_routed = 0  # sampled calls the replacement handed to native itself

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "sampled": self.sampled, "native_routed": self.native_routed}


class PrimitiveStats:
    """One primitive's sampled figures: a sample is a one-shot call or a whole object."""

    __slots__ = (
        "samples",
        "bytes",
        "agent_ns",
        "native_ns",
        "comparisons",
        "uncomparable",
        "unfollowed",
        "sizes",
        "mismatches",
    )

    def __init__(self) -> None:
        self.samples = 0
        self.bytes = 0  # data bytes of the sampled calls and followed objects
        self.agent_ns = 0
        self.native_ns = 0  # shadow mode only: native doing the same sampled work
        self.comparisons = 0
        self.uncomparable = 0  # native disagrees with itself (randomized output)
        self.unfollowed = 0  # sampled objects whose class could not be followed
        self.sizes: dict[str, int] = {}  # size class of the sampled calls' first data
        self.mismatches: list[dict[str, str]] = []

    def add_sample(self, size: int, agent_ns: int) -> None:
        from accel_agent import shadow

        self.samples += 1
        self.bytes += size
        self.agent_ns += agent_ns
        label = shadow.size_class(size)
        self.sizes[label] = self.sizes.get(label, 0) + 1

    def record_mismatch(self, method: str, size_class: str) -> None:
        self.mismatches.append({"method": method, "size_class": size_class})

    def as_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "sampled_bytes": self.bytes,
            "sampled_agent_ns": self.agent_ns,
            "sampled_native_ns": self.native_ns,
            "comparisons": self.comparisons,
            "uncomparable": self.uncomparable,
            "unfollowed": self.unfollowed,
            "size_classes": dict(self.sizes),
            "mismatches": list(self.mismatches),
        }


_sites: dict[str, Site] = {}
_primitives: dict[str, PrimitiveStats] = {}
_started = time.time()
_at_exit = {"registered": False, "path": None}
_baseline: dict[str, int] = {}  # slot counts inherited from a forked parent


def site(name: str) -> Site:
    existing = _sites.get(name)
    if existing is None:
        existing = _sites[name] = Site(name)
    return existing


def primitive(name: str) -> PrimitiveStats:
    existing = _primitives.get(name)
    if existing is None:
        existing = _primitives[name] = PrimitiveStats()
    return existing


def reset() -> None:
    """Forget every figure (tests)."""
    _sites.clear()
    _primitives.clear()
    _baseline.clear()


def shadow_summary() -> dict[str, Any]:
    """Shadow mode's facts for ``status()``: rate, comparisons, mismatches by primitive."""
    from accel_agent import instrument

    rate = instrument.shadow_rate()
    return {
        "on": rate is not None,
        "rate": rate,
        "comparisons": sum(stats.comparisons for stats in _primitives.values()),
        "uncomparable": sum(stats.uncomparable for stats in _primitives.values()),
        "mismatches": {
            name: list(stats.mismatches)
            for name, stats in sorted(_primitives.items())
            if stats.mismatches
        },
    }


def document() -> dict[str, Any]:
    """This process's report, as JSON-ready data."""
    import socket
    import sys

    from accel_agent import __version__, activation, instrument, registry

    counts = {name: count - _baseline.get(name, 0) for name, count in registry.calls().items()}
    choices = {chosen.primitive: chosen for chosen in registry.decided()}
    names = sorted(set(counts) | set(_primitives) | set(choices))
    primitives = {}
    for name in names:
        chosen = choices.get(name)
        stats = _primitives.get(name) or PrimitiveStats()
        entry = {
            "calls": counts.get(name, 0),
            "provider": chosen.provider_name if chosen else None,
            "outcome": chosen.outcome if chosen else None,
            "native_reason": (chosen.reason if chosen and chosen.provider is None else None),
            **stats.as_dict(),
        }
        unused = not (
            entry["calls"] or entry["samples"] or entry["comparisons"] or entry["mismatches"]
        )
        if unused and entry["provider"] in (None, "native"):
            continue  # never used here: nothing to say
        primitives[name] = entry
    return {
        "kind": REPORT_KIND,
        "schema": REPORT_SCHEMA,
        "agent_version": __version__,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "mode": activation.current_mode(),
        "shadow_rate": instrument.shadow_rate(),
        "started": round(_started, 3),
        "written": round(time.time(), 3),
        "primitives": primitives,
        "entry_points": {name: s.as_dict() for name, s in sorted(_sites.items()) if s.calls},
    }


def report_file(path: str) -> str:
    """The file a report goes to: ``path`` itself, or a per-process name inside a directory."""
    if os.path.isdir(path):
        import socket

        host = "".join(c if c.isalnum() or c in "-_." else "_" for c in socket.gethostname())
        return os.path.join(path, "accel-agent-%s-%d.json" % (host or "host", os.getpid()))
    return path


def write_report(path: str | None = None) -> str | None:
    """Write this process's report (atomically); returns the file, or None without a path."""
    import json

    from accel_agent import config

    path = path or _at_exit["path"] or config.report_path()
    if not path:
        return None
    target = report_file(path)
    temporary = "%s.%d.tmp" % (target, os.getpid())
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(document(), handle, indent=1, sort_keys=True)
        os.replace(temporary, target)
    except OSError:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise
    return target


def write_at_exit(path: str) -> None:
    """Write the report to ``path`` when the process ends (once registered, stays)."""
    _at_exit["path"] = path
    if _at_exit["registered"]:
        return
    _at_exit["registered"] = True
    import atexit

    atexit.register(_write_at_exit)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_before_fork, after_in_child=_forget_parent)


class _ForkedWorker:
    """What multiprocessing's after-fork registry holds on to (it keeps weak references)."""


_forked_worker = _ForkedWorker()
_registered_with_multiprocessing = [False]


def _before_fork() -> None:
    """Have multiprocessing's forked workers write their report before their ``os._exit``.

    A forked ``multiprocessing`` worker clears the finalizers it inherited,
    runs the after-fork callbacks, and ends with ``os._exit`` after its own
    finalizers, never running ``atexit``: the callback registers one.
    """
    import sys

    process_tools = sys.modules.get("multiprocessing.util")
    if process_tools is None or _registered_with_multiprocessing[0]:
        return
    _registered_with_multiprocessing[0] = True
    process_tools.register_after_fork(_forked_worker, _finalize_worker)


def _finalize_worker(_: object) -> None:
    import sys

    sys.modules["multiprocessing.util"].Finalize(None, _write_at_exit, exitpriority=0)


def _forget_parent() -> None:
    """A forked child reports its own work: the parent's figures stay the parent's."""
    global _started
    from accel_agent import registry

    _started = time.time()
    _baseline.clear()
    _baseline.update(registry.calls())
    for existing in _sites.values():
        existing.calls = existing.sampled = existing.native_routed = 0
    for stats in _primitives.values():
        stats.__init__()  # in place: followed objects hold their primitive's figures


def _write_at_exit() -> None:
    from accel_agent import messages

    try:
        write_report()
    except Exception as exc:  # noqa: BLE001 - at exit a report must never turn into a traceback
        messages.problem("savings report not written (%s: %s)" % (type(exc).__name__, exc))
