"""SHA-3 and SHAKE for :mod:`accel_agent.targets.pycryptodome.hashes`: their own rules.

SHA-3's ``update`` returns the object and, after ``digest``, is refused
unless ``update_after_digest``; SHAKE's ``read`` squeezes on from where the
last read stopped, and ``update`` is refused after the first read. The
helpers (input coercion, class naming) are the hashes module's.
"""

from __future__ import annotations

import operator

from accel_agent import registry
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome.hashes import (
    _class_facts,
    _Coercer,
    _install,
    _name_like,
    _patch_oneshot,
    _plain,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any


# --------------------------------------------------------------------------- SHA-3


def patch_sha3(module: ModuleType, primitive: str) -> None:
    """SHA-3: ``update`` returns self; after ``digest`` only with ``update_after_digest``."""
    native_new = module.new
    native_obj = native_new()
    slot = registry.slot(primitive)
    coerce = _Coercer(native_new)

    def refuse_update() -> None:
        """Raise what native raises for ``update`` after ``digest`` (its message, its type)."""
        probe = native_new()
        probe.digest()
        probe.update(b"")
        raise TypeError("You can only call 'digest' or 'hexdigest' on this object")

    native_cls = type(native_obj)
    last_provider: list = []  # the provider that made the latest object

    class Hash(native_cls):
        # A subclass, for isinstance(); native __init__ runs only through ours.
        __slots__ = ("_h", "_done", "_after")

        def __init__(self, data, update_after_digest):
            provider = slot.get() or last_provider[0]
            self._h = provider.new()
            self._done = False
            self._after = update_after_digest
            if data:
                self.update(data)

        def update(self, data):
            if self._done and not self._after:
                refuse_update()
            if type(data) is bytes or _plain(data):
                self._h.update(data)
            else:
                self._h.update(coerce(data))
            return self

        def digest(self):
            self._done = True
            return self._h.digest()

        def hexdigest(self):
            return self.digest().hex()

        def copy(self):
            # As native: the clone starts with digest() not yet called.
            return _make(self._h.copy(), self._after)

        def new(self, data=None):
            return fresh(data, self._after)

    for name, value in _class_facts(native_obj).items():
        setattr(Hash, name, value)
    _name_like(Hash, native_cls)
    Hash.__init__.__qualname__ = "%s.__init__" % native_cls.__qualname__
    _native_shape.install(Hash, Hash.__slots__, lambda obj: native_new())
    blank = object.__new__

    def _make(h: Any, after: Any) -> Any:
        obj = blank(Hash)
        obj._h = h
        obj._done = False
        obj._after = after
        return obj

    def fresh(data: Any, after: Any) -> Any:
        provider = slot.get()
        if provider is None:
            return native_new(data, update_after_digest=after)
        if not last_provider:
            last_provider.append(provider)
        if type(data) is bytes:
            obj = _make(provider.new(data), after)
        else:
            obj = _make(provider.new(), after)
            if data:
                obj.update(data)
        slot.calls += 1
        return obj

    ctor = None  # the provider's constructor, once the slot resolved to OpenSSL

    def new(*args, **kwargs):
        if ctor is not None and not kwargs and len(args) == 1 and type(args[0]) is bytes:
            obj = blank(Hash)  # SHA3_256.new(data): the common shape, flat
            obj._h = ctor(args[0])
            obj._done = obj._after = False
            slot.calls += 1
            return obj
        return general_new(*args, **kwargs)

    def general_new(*args, **kwargs):
        nonlocal ctor
        if len(args) > 1 or not kwargs.keys() <= {"data", "update_after_digest"}:
            return native_new(*args, **kwargs)
        if "data" in kwargs:
            if args:
                return native_new(*args, **kwargs)
            data = kwargs["data"]
        else:
            data = args[0] if args else None
        after = kwargs.get("update_after_digest", False)
        if type(after) is not bool:
            return native_new(*args, **kwargs)
        provider = slot.get()
        if provider is None:
            return native_new(*args, **kwargs)
        ctor = provider.new
        return fresh(data, after)

    def forget() -> None:
        nonlocal ctor
        ctor = None

    registry.reset_listeners.append(forget)
    _install(module, "new", new)
    _patch_oneshot(module, slot, native_new)


# --------------------------------------------------------------------------- SHAKE


def patch_shake(module: ModuleType, primitive: str) -> None:
    """SHAKE128/256: ``read`` squeezes on from where the last read stopped."""
    native_new = module.new
    native_obj = native_new()
    native_cls = type(native_obj)
    slot = registry.slot(primitive)
    coerce = _Coercer(native_new)
    last_provider: list = []  # the provider that made the latest object

    def refuse_update(copied: bool) -> None:
        """Raise what native raises for ``update`` after a read (or on a copy made after one).

        A native copy of an XOF already read from is a fresh Python object
        over a squeezing C state: its ``update`` fails in C (a ``ValueError``
        in pycryptodome 4.4), not with the first-read ``TypeError``.
        """
        probe = native_new()
        probe.read(1)
        (probe.copy() if copied else probe).update(b"")
        raise TypeError("You cannot call 'update' after the first 'read'")

    def checked_length(xof: Any, length: Any) -> int:
        if type(length) is int and length >= 0:
            return length
        probe = native_new()
        try:
            probe.read(length)  # raises what pycryptodome raises for this length
        except Exception:
            # Some versions enter the squeezing state before they look at the
            # length: update is refused after a failed read there too.
            try:
                probe.update(b"")
            except TypeError:
                if xof._out is None:
                    xof._out = b""
            raise
        return operator.index(length)

    class Xof(native_cls):
        # A subclass, for isinstance() (eddsa checks it for SHAKE256); native
        # __init__ runs only through ours. _copied: made by copy() after a read.
        __slots__ = ("_h", "_out", "_pos", "_copied")

        def __init__(self, data=None):
            provider = slot.get() or last_provider[0]
            self._h = provider.new()
            self._out = None
            self._pos = 0
            self._copied = False
            if data:
                self.update(data)

        def update(self, data):
            if self._out is not None:
                refuse_update(self._copied)
            if type(data) is bytes or _plain(data):
                self._h.update(data)
            else:
                self._h.update(coerce(data))
            return self

        def read(self, length):
            if type(length) is not int or length < 0:
                length = checked_length(self, length)
            if self._copied:
                self._copied = False  # as natively: a read raises the copy's flag
            # The position moves on before any call: threads sharing an XOF
            # each get their own part of the stream, as natively.
            start = self._pos
            end = self._pos = start + length
            out = self._out
            if out is None:
                out = self._out = self._h.digest(end)
            elif len(out) < end:
                # OpenSSL's SHAKE digest starts over each time: squeeze ahead,
                # doubling, so that many small reads stay linear.
                out = self._out = self._h.digest(max(end, 2 * len(out)))
            return out[start:end] if start else out[:end]

        @property
        def _is_squeezing(self):
            # Read by pycryptodome's ML-DSA to refuse an XOF already read from;
            # natively a copy starts with the flag down, whatever its C state.
            return self._out is not None and not self._copied

        def copy(self):
            clone = blank(Xof)
            clone._h = self._h.copy()
            clone._out = self._out
            clone._pos = self._pos
            clone._copied = self._copied or self._out is not None
            return clone

        def new(self, data=None):
            return fresh(data)

    for name, value in _class_facts(native_obj).items():
        setattr(Xof, name, value)
    _name_like(Xof, native_cls)
    Xof.__init__.__qualname__ = "%s.__init__" % native_cls.__qualname__
    _native_shape.install(Xof, Xof.__slots__, lambda obj: native_new())
    blank = object.__new__

    def fresh(data: Any) -> Any:
        provider = slot.get()
        if provider is None:
            return native_new(data)
        if not last_provider:
            last_provider.append(provider)
        obj = blank(Xof)
        obj._out = None
        obj._pos = 0
        obj._copied = False
        if type(data) is bytes:
            obj._h = provider.new(data)
        else:
            obj._h = provider.new()
            if data:
                obj.update(data)
        slot.calls += 1
        return obj

    ctor = None  # the provider's constructor, once the slot resolved to OpenSSL

    def new(data=None):
        if ctor is not None and type(data) is bytes:
            obj = blank(Xof)
            obj._h = ctor(data)
            obj._out = None
            obj._pos = 0
            obj._copied = False
            slot.calls += 1
            return obj
        return slow_new(data)

    def slow_new(data: Any) -> Any:
        nonlocal ctor
        provider = slot.get()
        if provider is None:
            return native_new(data)
        ctor = provider.new
        return fresh(data)

    def forget() -> None:
        nonlocal ctor
        ctor = None

    registry.reset_listeners.append(forget)
    _install(module, "new", new)
