"""A one-line progress bar on stderr: ``[#####.....] 12/95  0:08 left  aes gcm enc 1 KiB``.

Drawn only on a terminal (a log or a pipe gets nothing, so CSV and JSON on
stdout stay clean), redrawn in place with ``\\r``, and erased when the run
ends, so the tables that follow start on a clean line. The time left is
the average time per row so far times the rows to go: rows cost about the
same (each is a fixed number of samples of fixed length), so it settles
after a few rows.
"""

from __future__ import annotations

import shutil
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

BAR_CELLS = 20


class ProgressBar:
    """``start(total)``, then ``step(label)`` before each item, then ``finish()``."""

    def __init__(self, stream: TextIO | None = None, prefix: str = "", enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.prefix = prefix
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = 0
        self.done = 0
        self.started = 0.0

    def waiting(self, label: str) -> None:
        """Say what happens before the first item (imports, self-checks)."""
        if self.enabled:
            width = shutil.get_terminal_size((80, 24)).columns - 1
            self.stream.write(("\r\x1b[K%s%s" % (self.prefix, label))[:width])
            self.stream.flush()

    def start(self, total: int) -> None:
        self.total, self.done, self.started = total, 0, time.monotonic()

    def step(self, label: str) -> None:
        """Show that the item ``label`` starts now (the items before it are done)."""
        if self.enabled:
            self._draw(label)
        self.done += 1

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def line(self, label: str) -> str:
        """The text of the bar with ``self.done`` items finished (no control characters)."""
        total = max(self.total, 1)
        filled = BAR_CELLS * self.done // total
        bar = "[%s%s]" % ("#" * filled, "." * (BAR_CELLS - filled))
        text = "%s%s %d/%d" % (self.prefix, bar, self.done + 1, self.total)
        if self.done:
            elapsed = time.monotonic() - self.started
            left = elapsed / self.done * (self.total - self.done)
            text += "  %d:%02d left" % divmod(int(left + 0.5), 60)
        return "%s  %s" % (text, label)

    def _draw(self, label: str) -> None:
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self.stream.write("\r\x1b[K" + self.line(label)[:width])
        self.stream.flush()
