"""The agent's one way of talking to the user: one prefixed line on stderr per problem.

Problems are printed in every mode, quiet included (design.md: "problems
still go to stderr"), each distinct line once per process. While patches are
being applied, lines are queued and printed together at the end (gevent's
practice), so a warning never lands between two halves of a patch.

Callers must never put key material, plaintext, nonces or tags in a message;
messages carry names of algorithms, modules and exception types only.
"""

from __future__ import annotations

import sys

PREFIX = "accel-agent: "

_seen: set[str] = set()
_queue: list[str] = []
_queue_depth = 0
history: list[str] = []  # every problem reported in this process, for status()


def problem(text: str) -> None:
    """Report one problem line (deduplicated), now or at the end of the current batch."""
    if text in _seen:
        return
    _seen.add(text)
    history.append(text)
    if _queue_depth:
        _queue.append(text)
    else:
        _write(PREFIX + text)


def status_line(text: str) -> None:
    """Print a status line as is (the caller decides whether the mode wants it)."""
    _write(text)


class batch:
    """Context manager: queue problem lines until the outermost batch ends."""

    def __enter__(self) -> batch:
        global _queue_depth
        _queue_depth += 1
        return self

    def __exit__(self, *exc_info: object) -> None:
        global _queue_depth
        _queue_depth -= 1
        if _queue_depth == 0:
            pending = _queue[:]
            del _queue[:]
            for text in pending:
                _write(PREFIX + text)


def _write(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass  # no usable stderr (pythonw, closed stream): nothing more to do


def reset() -> None:
    """Forget what was printed (tests, and uninstall followed by a new activation)."""
    _seen.clear()
    del _queue[:]
    del history[:]
