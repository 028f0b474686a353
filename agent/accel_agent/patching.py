"""The one registry of originals: what was patched, and how to put it back.

Modelled on gevent's ``monkey/_state.py``: a single mapping
``{module name: {attribute: original}}``, written only by
:func:`patch_attribute` and :func:`restore_all`; the first original wins, so
patching twice never loses the real one. Everything else asks
:func:`is_patched` / :func:`get_original`.

An attribute name may be a dotted path below the module (``"SigningKey.sign"``):
a method of a class the module defines, patched in place so that every
reference to the class, bound before or after, sees it. For a class the
original is what its own ``__dict__`` holds (a ``classmethod`` object, say),
and an inherited attribute is "missing": restoring deletes the override.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: this module is on the start-up path
    from types import ModuleType
    from typing import Any

_MISSING = object()
MISSING = _MISSING  # what set_value() takes to delete, and current_value() gives for absent
_originals: dict[str, dict[str, Any]] = {}
_ever_patched: set[str] = set()  # survives restore_all(), for messages only
# Called as listener(module, name, replacement, original) -> what to install
# instead; empty unless shadow mode or the savings report is on
# (accel_agent.instrument), so patching is unchanged when both are off.
patch_listeners: list = []


def owner_of(module: Any, name: str) -> tuple[Any, str]:
    """(object holding the attribute, its last name) for a possibly dotted ``name``."""
    holder = module
    *path, leaf = name.split(".")
    for part in path:
        holder = getattr(holder, part)
    return holder, leaf


def _current(holder: Any, leaf: str) -> Any:
    if isinstance(holder, type):
        return holder.__dict__.get(leaf, _MISSING)
    return getattr(holder, leaf, _MISSING)


def set_value(module: Any, name: str, value: Any) -> None:
    """Set the (possibly dotted) attribute ``name`` below ``module``; _MISSING deletes it."""
    holder, leaf = owner_of(module, name)
    if value is _MISSING:
        if leaf in vars(holder):
            delattr(holder, leaf)
    else:
        setattr(holder, leaf, value)


def current_value(module: Any, name: str) -> Any:
    """The (possibly dotted) attribute as it is now (a class's own ``__dict__`` entry)."""
    return _current(*owner_of(module, name))


def patch_attribute(module: ModuleType, name: str, replacement: Any) -> None:
    """Set ``module.name = replacement``, remembering the original once."""
    saved = _originals.setdefault(module.__name__, {})
    _ever_patched.add(module.__name__)
    if name not in saved:
        saved[name] = _current(*owner_of(module, name))
    for listener in patch_listeners:
        replacement = listener(module, name, replacement, saved[name])
    set_value(module, name, replacement)


# functools.WRAPPER_ASSIGNMENTS (3.12 added __type_params__; absent ones are skipped).
_WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__")
_WRAPPER_ASSIGNMENTS += ("__type_params__",)


def copy_attributes(source: Any, target: Any, names: tuple[str, ...]) -> None:
    """Set on ``target`` each attribute of ``names`` that ``source`` has; skip the others."""
    for name in names:
        try:
            value = getattr(source, name)
        except AttributeError:
            continue
        setattr(target, name, value)


def update_wrapper(wrapper: Any, wrapped: Any) -> Any:
    """``functools.update_wrapper(wrapper, wrapped)``, without importing functools.

    functools brings collections, operator, keyword and reprlib with it: a
    module whose native import loads none of them (pyaes) would pay ~1.5 ms
    for a patch's names.
    """
    copy_attributes(wrapped, wrapper, _WRAPPER_ASSIGNMENTS)
    wrapper.__dict__.update(getattr(wrapped, "__dict__", {}))
    wrapper.__wrapped__ = wrapped
    return wrapper


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


def saved_value(module_name: str, name: str) -> Any:
    """The original as recorded, with the marker for "did not exist" left in place."""
    return _originals[module_name][name]


def patched_names() -> dict[str, list[str]]:
    return {module: sorted(names) for module, names in _originals.items()}


def forget(module_name: str, name: str) -> None:
    """Stop recording ``name`` as patched, leaving its value as it is (it holds the original)."""
    saved = _originals.get(module_name)
    if saved is not None:
        saved.pop(name, None)
        if not saved:
            del _originals[module_name]


def restore_module(module_name: str) -> list[str]:
    """Put back every original of one module; returns the attribute names restored."""
    saved = _originals.pop(module_name, {})
    module = sys.modules.get(module_name)
    if module is not None:
        for name, original in saved.items():
            set_value(module, name, original)
    return sorted(saved)


def restore_all() -> list[str]:
    """Put every original back; returns the ``module.attribute`` names restored."""
    restored = []
    for module_name in list(_originals):
        restored += ["%s.%s" % (module_name, name) for name in restore_module(module_name)]
    return restored
