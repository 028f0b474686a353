"""The one registry of originals: what was patched, and how to put it back.

Modelled on gevent's ``monkey/_state.py``: a single mapping
``{module name: {attribute: original}}``, written only by
:func:`patch_attribute` and :func:`restore_all`; the first original wins, so
patching twice never loses the real one. Everything else asks
:func:`is_patched` / :func:`get_original`.

Besides modules, a target may patch the attributes of a class (pyaes's
mode classes): the registry names it ``"module:Qualname"`` (:func:`owner_key`),
and :func:`resolve` turns any name back into its module or class.
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


def owner_key(owner: ModuleType | type) -> str:
    """The registry's name for a module (``"pyaes.aes"``) or a class (``"pyaes.aes:AES"``)."""
    if isinstance(owner, type):
        return "%s:%s" % (owner.__module__, owner.__qualname__)
    return owner.__name__


def resolve(key: str) -> Any:
    """The module or class a registry name stands for, or None when it is gone."""
    module_name, _, qualname = key.partition(":")
    owner = sys.modules.get(module_name)
    for part in qualname.split(".") if qualname else ():
        owner = getattr(owner, part, None)
    return owner


def patch_attribute(module: ModuleType | type, name: str, replacement: Any) -> None:
    """Set ``module.name = replacement``, remembering the original once.

    ``module`` may be a class: its original is what the class itself defines
    (an inherited attribute counts as missing, so restoring deletes the
    replacement and inheritance shows through again).
    """
    key = owner_key(module)
    saved = _originals.setdefault(key, {})
    _ever_patched.add(key)
    if name not in saved:
        if isinstance(module, type):
            saved[name] = vars(module).get(name, _MISSING)
        else:
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
    module = resolve(module_name)
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
