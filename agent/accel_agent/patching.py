"""The one registry of originals: what was patched, and how to put it back.

Modelled on gevent's ``monkey/_state.py``: a single mapping
``{module name: {attribute: original}}``, written only by
:func:`patch_attribute` and :func:`restore_all`; the first original wins, so
patching twice never loses the real one. Everything else asks
:func:`is_patched` / :func:`get_original`.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: this module is on the start-up path
    from types import ModuleType
    from typing import Any

_MISSING = object()
_originals: dict[str, dict[str, Any]] = {}
_ever_patched: set[str] = set()  # survives restore_all(), for messages only


def patch_attribute(module: ModuleType, name: str, replacement: Any) -> None:
    """Set ``module.name = replacement``, remembering the original once."""
    saved = _originals.setdefault(module.__name__, {})
    _ever_patched.add(module.__name__)
    if name not in saved:
        saved[name] = getattr(module, name, _MISSING)
    setattr(module, name, replacement)


def was_ever_patched(module_name: str) -> bool:
    """Whether this process patched the module at some point (uninstall() included)."""
    return module_name in _ever_patched


def is_patched(module_name: str, name: str | None = None) -> bool:
    saved = _originals.get(module_name, {})
    return bool(saved) if name is None else name in saved


def get_original(module_name: str, name: str) -> Any:
    """The value the attribute had before the agent; KeyError when not patched."""
    value = _originals[module_name][name]
    if value is _MISSING:
        raise KeyError("%s.%s did not exist before patching" % (module_name, name))
    return value


def patched_names() -> dict[str, list[str]]:
    return {module: sorted(names) for module, names in _originals.items()}


def restore_module(module_name: str) -> list[str]:
    """Put back every original of one module; returns the attribute names restored."""
    saved = _originals.pop(module_name, {})
    module = sys.modules.get(module_name)
    if module is not None:
        for name, original in saved.items():
            if original is _MISSING:
                if hasattr(module, name):
                    delattr(module, name)
            else:
                setattr(module, name, original)
    return sorted(saved)


def restore_all() -> list[str]:
    """Put every original back; returns the ``module.attribute`` names restored."""
    restored = []
    for module_name in list(_originals):
        restored += ["%s.%s" % (module_name, name) for name in restore_module(module_name)]
    return restored
