"""Text output shared by every benchmark: 80-column tables and units.

:class:`Table` prints rows aligned within :data:`WIDTH` columns (a terminal's
default width); :func:`format_time`, :func:`format_ms` and :func:`format_ratio` give every
benchmark the same units. Lives in the package so ``accel-agent bench`` has
it in an installed wheel; the repository's start-up benchmark uses it too.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

WIDTH = 80


def format_time(seconds: float) -> str:
    """Seconds in the unit that keeps three significant digits readable."""
    magnitude = abs(seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if magnitude >= scale or unit == "ns":
            value = seconds / scale
            digits = 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0
            return "%.*f %s" % (digits, value, unit)
    raise AssertionError("unreachable")


def format_ratio(value: float) -> str:
    """``"1.02x"``; how many times the baseline a case takes (or runs, for speedups)."""
    if value >= 100:
        return "%.0fx" % value
    if value >= 10:
        return "%.1fx" % value
    return "%.2fx" % value


def format_ms(seconds: float, signed: bool = False) -> str:
    """Milliseconds with two decimals, e.g. ``"14.21"`` or ``"+0.08"``."""
    return ("%+.2f" if signed else "%.2f") % (seconds * 1e3)


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


class Table:
    """Rows of text cells, printed aligned within :data:`WIDTH` columns.

    The first column is left-aligned and shortened with ``~`` when the table
    would overflow; the others are right-aligned (they hold numbers). A row's
    ``suffix`` (marks such as ``*``) follows its first cell and survives the
    shortening.
    """

    def __init__(self, headers: Sequence[str], width: int = WIDTH) -> None:
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.suffixes: dict[int, str] = {}
        self.width = width

    def add(self, *cells: object, suffix: str = "") -> None:
        if len(cells) != len(self.headers):
            raise ValueError("expected %d cells, got %d" % (len(self.headers), len(cells)))
        if suffix:
            self.suffixes[len(self.rows)] = " " + suffix
        self.rows.append([str(cell) for cell in cells])

    def note(self, text: str) -> None:
        """A line printed as is among the rows (a skipped case, say); it sets no width."""
        self.rows.append([text])

    def render(self) -> str:
        count = len(self.headers)
        everything = [(self.headers, "")] + [
            (row, self.suffixes.get(index, ""))
            for index, row in enumerate(self.rows)
            if len(row) == count
        ]
        widths = [max(len(row[0]) + len(suffix) for row, suffix in everything)]
        widths += [max(len(row[i]) for row, _ in everything) for i in range(1, count)]
        overflow = sum(widths) + 2 * (count - 1) - self.width
        if overflow > 0:
            widths[0] = max(8, widths[0] - overflow)
        rule = "-" * min(self.width, sum(widths) + 2 * (count - 1))
        lines = [self._line(self.headers, widths), rule]
        lines += [
            self._line(row, widths, self.suffixes.get(index, ""))
            if len(row) == count
            else row[0][: self.width]
            for index, row in enumerate(self.rows)
        ]
        return "\n".join(lines)

    @staticmethod
    def _line(cells: Sequence[str], widths: Sequence[int], suffix: str = "") -> str:
        first, room = cells[0], widths[0] - len(suffix)
        if len(first) > room:
            first = first[: room - 1] + "~"
        parts = [(first + suffix).ljust(widths[0])]
        parts += [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]
        return "  ".join(parts).rstrip()

    def print(self) -> None:
        print(self.render())
