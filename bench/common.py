"""Timing helpers shared by every benchmark under bench/: generic, stdlib only.

* :func:`interleaved` times several callables in rounds (A, B, C, A, B, C...),
  rotating the order each round, so that drift on a shared machine (CPU
  frequency, a neighbour's load, page cache) hits every case alike;
* :func:`paired_differences` compares each case with a baseline round by
  round, which is steadier than subtracting two medians;
* :class:`Table`, :func:`format_time`, :func:`format_ratio` and
  :func:`verdict` come from ``accel_agent.bench.table`` (the installed
  package, which ``accel-agent bench`` uses too): one implementation.

The per-call crypto benchmark is ``accel_agent.bench`` (``accel-agent
bench``); this directory keeps the start-up benchmark, which needs the
source tree's venvs.
"""

from __future__ import annotations

import math
import statistics
import time

from accel_agent.bench.table import WIDTH, Table, format_ratio, format_time, verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "WIDTH",
    "Table",
    "format_ms",
    "format_ratio",
    "format_time",
    "interleaved",
    "median",
    "paired_differences",
    "percentile",
    "verdict",
]


def interleaved(
    cases: dict[str, Callable[[], object]],
    runs: int,
    warmup: int = 3,
    inner: int = 1,
) -> dict[str, list[float]]:
    """Seconds per call of each case, ``runs`` samples each, taken in rotating rounds.

    Each sample is the time of ``inner`` consecutive calls divided by
    ``inner``. The first ``warmup`` rounds are run and thrown away.
    """
    if runs < 1 or inner < 1:
        raise ValueError("runs and inner must be at least 1")
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    clock = time.perf_counter
    for round_number in range(warmup + runs):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            function = cases[name]
            start = clock()
            for _ in range(inner):
                function()
            elapsed = (clock() - start) / inner
            if round_number >= warmup:
                samples[name].append(elapsed)
    return samples


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0..1), linearly interpolated."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def paired_differences(samples: dict[str, list[float]], baseline: str) -> dict[str, list[float]]:
    """For each case, its sample minus the baseline's sample of the same round."""
    base = samples[baseline]
    return {
        name: [value - base_value for value, base_value in zip(values, base)]
        for name, values in samples.items()
    }


def format_ms(seconds: float, signed: bool = False) -> str:
    """Milliseconds with two decimals, e.g. ``"14.21"`` or ``"+0.08"``."""
    return ("%+.2f" if signed else "%.2f") % (seconds * 1e3)
