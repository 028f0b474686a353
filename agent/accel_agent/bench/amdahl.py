"""The share of an application workload's time spent in its crypto library (Amdahl's law).

An application gains from the agent only in the part of its time spent in
the crypto library the agent intercepts: with a share ``p`` of the time
there, and that part made ``s`` times faster, the whole runs
``1 / ((1 - p) + p / s)`` times faster, at most ``1 / (1 - p)``. The share
is measured natively, with :mod:`cProfile`: the own time of every function
defined in the library's package, plus the C functions those call (the
ciphers and hashes themselves). The profiler's per-call overhead inflates
Python-heavy code on both sides alike, so the figure is an estimate, given
to the nearest percent.
"""

from __future__ import annotations

import cProfile
import pstats
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

BUILTIN = "~"  # pstats' file name for C functions


def _in_packages(filename: str, packages: Sequence[str]) -> bool:
    parts = filename.replace("\\", "/").split("/")
    return any(package in parts for package in packages)


def crypto_share(
    function: Callable[[], object], packages: Sequence[str], min_seconds: float = 0.2
) -> float:
    """The fraction (0..1) of the time of repeated runs of ``function`` spent inside ``packages``.

    ``packages`` are top-level package names as they appear in file paths
    (``"Crypto"``, ``"Cryptodome"``, ``"rsa"``). The profiler reads the
    thread's CPU time, as the benchmark's default clock does, so other load
    on the machine does not shift the share; ``function`` runs at least
    three times and until ``min_seconds`` of CPU time were profiled.
    """
    profiler = cProfile.Profile(time.thread_time_ns, 1e-9)
    started = time.thread_time()
    runs = 0
    profiler.enable()
    try:
        while runs < 3 or time.thread_time() - started < min_seconds:
            function()
            runs += 1
    finally:
        profiler.disable()
    stats = pstats.Stats(profiler).stats  # {(file, line, name): (cc, nc, tt, ct, callers)}
    total = inside = 0.0
    for (filename, _line, _name), (_cc, _nc, own, _cum, callers) in stats.items():
        total += own
        if filename != BUILTIN:
            if _in_packages(filename, packages):
                inside += own
            continue
        # A C function: its time counts where it was called from.
        for (caller_file, _l, _n), (_c, _k, caller_own, _t) in callers.items():
            if caller_file != BUILTIN and _in_packages(caller_file, packages):
                inside += caller_own
    return inside / total if total > 0 else 0.0


def ceiling(share: float) -> float:
    """The most an infinitely fast crypto library could speed the whole up (1 / (1 - p))."""
    return float("inf") if share >= 1.0 else 1.0 / (1.0 - share)
