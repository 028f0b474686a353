"""Locks that a forked child gets back unlocked.

A fork while another thread holds a lock copies the lock held into the
child, where no thread will ever release it: the child's first attempt to
take it hangs. Every lock of the agent is therefore made by :func:`rlock`, which stores it
under a name in a namespace (a module's ``globals()``, or an object's
``vars()``) and, after a fork, puts a new unlocked one there in the child.
Callers use the lock through that name (``with _lock:``, ``with
self._lock:``), so they always get the current one, at the speed of a plain
``_thread.RLock``.

Stdlib only, and cheap to import: hooks and the registry use it at activation.
"""

from __future__ import annotations

import _thread
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (namespace, name) of every lock made here, renewed in a forked child.
_renewed: list[tuple[dict[str, Any], str]] = []


def rlock(namespace: dict[str, Any], name: str) -> Any:
    """A reentrant lock stored as ``namespace[name]``, replaced in a forked child."""
    lock = namespace[name] = _thread.RLock()
    _renewed.append((namespace, name))
    return lock


def _renew_in_child() -> None:
    for namespace, name in _renewed:
        namespace[name] = _thread.RLock()
    _importing.clear()  # the threads that were importing are not in the child


# Thread id -> depth, for the threads inside a first use that imports modules
# (a patch at its first call, a provider's load and self-check). A fork in the
# middle of an import hands the child the module half executed and its import
# lock held by a thread that is not there: the child's next use hangs for good.
# Native code imports nothing at its first call, so the agent must not open
# that window: a fork waits (a bounded time) for those imports to end.
_importing: dict[int, int] = {}
FORK_WAIT_SECONDS = 1.0
_CAN_WAIT = hasattr(os, "register_at_fork")
_registered_with = [-1]  # how many modules were imported when the wait was last registered


class ImportingFirstUse:
    """``with ImportingFirstUse():`` around work that imports modules at a first use.

    An entry registers the wait as a before-fork handler again when modules
    were imported since it last did. Python runs those handlers newest first,
    and another's may take a lock that the importing thread needs
    (``logging``'s takes its module lock, which an import hook that logs
    would wait for while holding the import lock): the wait must run before
    the handlers of every module imported until then, or the fork would
    deadlock. A first use is rare (once per primitive and per patch), and a
    handler with nobody importing returns at once.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        if _CAN_WAIT and _registered_with[0] != len(sys.modules):
            _registered_with[0] = len(sys.modules)
            os.register_at_fork(before=_wait_for_first_uses)
        ident = _thread.get_ident()
        _importing[ident] = _importing.get(ident, 0) + 1

    def __exit__(self, *exc_info: object) -> None:
        ident = _thread.get_ident()
        depth = _importing.pop(ident, 1) - 1
        if depth:
            _importing[ident] = depth


importing_first_use = ImportingFirstUse()


def _wait_for_first_uses() -> None:
    """Before a fork: let other threads' first uses finish their imports.

    At most :data:`FORK_WAIT_SECONDS`; a fork from inside one does not wait
    for itself, nor for an entry left by a thread that is gone (an exception
    raised into ``__exit__`` by a signal handler can leave one).
    """
    if not _importing:
        return
    import time

    me = _thread.get_ident()
    deadline = time.monotonic() + FORK_WAIT_SECONDS
    while time.monotonic() < deadline:
        alive = sys._current_frames()
        if not any(ident != me and ident in alive for ident in list(_importing)):
            return
        time.sleep(0.0005)


if _CAN_WAIT:
    os.register_at_fork(after_in_child=_renew_in_child)
