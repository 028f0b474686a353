"""What the replacements of key generators share: reading the call, the wrapper.

pycryptodome's ``RSA.generate``, ``ECC.generate`` and ``DSA.generate`` and
python-rsa's ``newkeys`` go to OpenSSL only for calls whose arguments they
can read the way the native function would; anything else goes to native
code, which raises its own errors.
"""

from __future__ import annotations

import functools

from accel_agent import patching, registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable


def bind(parameters: tuple[str, ...], args: tuple, kwargs: dict) -> dict | None:
    """``{name: value}`` of the arguments given, positionally or by name.

    None for a call the native function (those parameters, in that order,
    every one with a default) would refuse: too many positional arguments,
    an unknown name, or one given both ways.
    """
    if len(args) > len(parameters) or not kwargs.keys() <= set(parameters):
        return None
    values = dict(zip(parameters, args))
    for name, value in kwargs.items():
        if name in values:
            return None  # given twice: native raises its TypeError
        values[name] = value
    return values


def patch_generator(
    module: ModuleType,
    name: str,
    primitive: str,
    arguments: Callable[[tuple, dict], Any],
    make: Callable[[Any, Any], Any],
) -> None:
    """Install ``module.<name>`` through OpenSSL, counted on ``primitive``'s slot.

    ``arguments(args, kwargs)`` reads a call OpenSSL can serve (None: the
    native function serves it, and the provider is not even looked up);
    ``make(provider, what arguments read)`` returns the library's key (or
    keys) made from OpenSSL's numbers, or None when OpenSSL could not make
    them (native then generates).
    """
    original = getattr(module, name)
    slot = registry.slot(primitive)

    def generate(*args: Any, **kwargs: Any) -> Any:
        servable = arguments(args, kwargs)
        provider = servable is not None and slot.get()
        if provider:
            made = make(provider, servable)
            if made is not None:
                slot.calls += 1
                return made
        return original(*args, **kwargs)

    functools.update_wrapper(generate, original)
    patching.patch_attribute(module, name, generate)
