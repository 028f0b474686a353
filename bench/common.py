"""Timing helpers shared by every benchmark under bench/: generic, stdlib only.

* :func:`interleaved` times several callables in rounds (A, B, C, A, B, C...),
  rotating the order each round, so that drift on a shared machine (CPU
  frequency, a neighbour's load, page cache) hits every case alike;
* :func:`paired_differences` compares each case with a baseline round by
  round, which is steadier than subtracting two medians;
* :class:`Table` prints rows within 80 columns; :func:`format_time` and
  :func:`format_ratio` give every benchmark the same units.

A crypto benchmark adds rows by timing ``lambda: cipher.encrypt(data)``
against ``lambda: native.encrypt(data)`` with :func:`interleaved` and
``inner`` set so that one sample lasts well above the timer's resolution.
"""

from __future__ import annotations

import math
import statistics
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

WIDTH = 80


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


def format_time(seconds: float) -> str:
    """Seconds in the unit that keeps three significant digits readable."""
    magnitude = abs(seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if magnitude >= scale or unit == "ns":
            value = seconds / scale
            digits = 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0
            return "%.*f %s" % (digits, value, unit)
    raise AssertionError("unreachable")


def format_ms(seconds: float, signed: bool = False) -> str:
    """Milliseconds with two decimals, e.g. ``"14.21"`` or ``"+0.08"``."""
    return ("%+.2f" if signed else "%.2f") % (seconds * 1e3)


def format_ratio(value: float) -> str:
    """``"1.02x"``; how many times the baseline a case takes (or runs, for speedups)."""
    if value >= 100:
        return "%.0fx" % value
    if value >= 10:
        return "%.1fx" % value
    return "%.2fx" % value


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


class Table:
    """Rows of text cells, printed aligned within :data:`WIDTH` columns.

    The first column is left-aligned and shortened with ``~`` when the table
    would overflow; the others are right-aligned (they hold numbers).
    """

    def __init__(self, headers: Sequence[str], width: int = WIDTH) -> None:
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.width = width

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.headers):
            raise ValueError("expected %d cells, got %d" % (len(self.headers), len(cells)))
        self.rows.append([str(cell) for cell in cells])

    def note(self, text: str) -> None:
        """A line printed as is among the rows (a skipped case, say); it sets no width."""
        self.rows.append([text])

    def render(self) -> str:
        cells = [row for row in self.rows if len(row) == len(self.headers)]
        everything = [self.headers] + cells
        widths = [max(len(row[i]) for row in everything) for i in range(len(self.headers))]
        overflow = sum(widths) + 2 * (len(widths) - 1) - self.width
        if overflow > 0:
            widths[0] = max(8, widths[0] - overflow)
        rule = "-" * min(self.width, sum(widths) + 2 * (len(widths) - 1))
        lines = [self._line(self.headers, widths), rule]
        lines += [
            self._line(row, widths) if len(row) == len(widths) else row[0][: self.width]
            for row in self.rows
        ]
        return "\n".join(lines)

    @staticmethod
    def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
        first = cells[0]
        if len(first) > widths[0]:
            first = first[: widths[0] - 1] + "~"
        parts = [first.ljust(widths[0])]
        parts += [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]
        return "  ".join(parts).rstrip()

    def print(self) -> None:
        print(self.render())
