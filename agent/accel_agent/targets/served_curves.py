"""The curve objects of a pure-Python ECDSA library that the agent serves.

python-ecdsa and starkbank-ecdsa keep each curve as one module-level
object, which their keys and calls hold: a call is served when its curve
is that very object (found by identity, so a copy or a curve the user
built goes to native code).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable


class ServedCurves:
    """The library's curves the agent serves, each with its entry (its slot, its facts).

    An entry is ``make(curve, *facts)`` for each ``name: facts`` of the
    target's table whose curve the library's module has; it keeps the curve
    object as ``entry.curve``.
    """

    __slots__ = ("_entries",)

    def __init__(self, curves_module: ModuleType, table: dict, make: Callable[..., Any]) -> None:
        self._entries: dict[int, Any] = {}
        for name, facts in table.items():
            curve = getattr(curves_module, name, None)
            if curve is not None:
                self._entries[id(curve)] = make(curve, *facts)

    def get(self, curve: Any) -> Any:
        """The entry of this very curve object, or None (native serves it)."""
        entry = self._entries.get(id(curve))
        return entry if entry is not None and entry.curve is curve else None
