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


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_in_child)
