"""SHA-3 and SHAKE for the hashes target (:data:`.hashes.MODULES`): their own rules.

SHA-3's ``update`` returns the object and, after ``digest``, is refused
unless ``update_after_digest``; SHAKE's ``read`` squeezes on from where the
last read stopped, and ``update`` is refused after the first read.

The methods are module-level (:class:`Sha3Hash`, :class:`ShakeXof`); each
pycryptodome module gets a subclass of its native class with them, whose
``_front`` class attribute (:class:`Sha3Front`, :class:`ShakeFront`) holds
what they need of that hash: its slot, native's constructor, the input
coercion and how native refuses what it refuses.
"""

from __future__ import annotations

import operator

from accel_agent import registry
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome._hash_common import (
    Coercer,
    FlatConstructor,
    SealedAfterDigest,
    install,
    native_subclass,
    patch_oneshot,
    plain,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

_blank = object.__new__


def _subclass(methods: type, native_cls: type, native_obj: Any, front: Any, slots: tuple) -> type:
    """``methods`` on a subclass of ``native_cls`` (for isinstance), named as native's."""
    cls = native_subclass(methods, native_cls, native_obj, front, slots)
    native_new = front.native_new
    _native_shape.install(cls, slots, lambda obj: native_new())
    front.cls = cls
    return cls


class _Front(FlatConstructor):
    """A hash's slot and native constructor, and the provider of its first object."""

    __slots__ = ("slot", "native_new", "coerce", "cls", "last_provider")

    def __init__(self, module: ModuleType, primitive: str) -> None:
        super().__init__()
        self.slot = registry.slot(primitive)
        self.native_new: Callable = module.new
        self.coerce = Coercer(self.native_new)
        self.cls: type = object
        self.last_provider: Any = None

    def provider(self) -> Any:
        """The provider for an object whose ``__init__`` runs: the slot's, or the last one."""
        return self.slot.get() or self.last_provider

    def resolved(self) -> Any:
        provider = self.slot.get()
        if provider is not None and self.last_provider is None:
            self.last_provider = provider
        return provider


# --------------------------------------------------------------------------- SHA-3


class Sha3Front(_Front):
    __slots__ = ()

    def refuse_update(self) -> None:
        """Raise what native raises for ``update`` after ``digest`` (its message, its type)."""
        probe = self.native_new()
        probe.digest()
        probe.update(b"")
        raise TypeError("You can only call 'digest' or 'hexdigest' on this object")

    def make(self, h: Any, after: Any) -> Any:
        obj = _blank(self.cls)
        obj._h = h
        obj._done = False
        obj._after = after
        return obj

    def fresh(self, data: Any, after: Any) -> Any:
        provider = self.resolved()
        if provider is None:
            return self.native_new(data, update_after_digest=after)
        if type(data) is bytes:
            obj = self.make(provider.new(data), after)
        else:
            obj = self.make(provider.new(), after)
            if data:
                obj.update(data)
        self.slot.calls += 1
        return obj

    def general_new(self, args: tuple, kwargs: dict) -> Any:
        """``new(*args, **kwargs)``; ``ctor`` set when the provider served the call."""
        native_new = self.native_new
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
        provider = self.slot.get()
        if provider is None:
            return native_new(*args, **kwargs)
        obj = self.fresh(data, after)
        self.ctor = provider.new
        return obj


class Sha3Hash(SealedAfterDigest):
    """SHA-3 objects: ``update`` returns self; after ``digest`` only with ``update_after_digest``.

    Native ``__init__`` runs only through ours; ``_front`` is the hash's
    :class:`Sha3Front`.
    """

    __slots__ = ()
    _front: Sha3Front

    def __init__(self, data, update_after_digest):
        self._h = self._front.provider().new()
        self._done = False
        self._after = update_after_digest
        if data:
            self.update(data)

    def copy(self):
        # As native: the clone starts with digest() not yet called.
        return self._front.make(self._h.copy(), self._after)

    def new(self, data=None):
        return self._front.fresh(data, self._after)


def patch_sha3(module: ModuleType, entry: Any) -> None:
    """SHA3-224/256/384/512: ``new(data=None, update_after_digest=False)``."""
    front = Sha3Front(module, entry.primitive)
    native_new = front.native_new
    native_obj = native_new()
    Hash = _subclass(Sha3Hash, type(native_obj), native_obj, front, ("_h", "_done", "_after"))
    slot = front.slot
    general_new = front.general_new

    def new(*args, **kwargs):
        ctor = front.ctor
        if ctor is not None and not kwargs and len(args) == 1 and type(args[0]) is bytes:
            obj = _blank(Hash)  # SHA3_256.new(data): the common shape, flat
            obj._h = ctor(args[0])
            obj._done = obj._after = False
            slot.calls += 1
            return obj
        return general_new(args, kwargs)

    install(module, "new", new)
    patch_oneshot(module, slot)


# --------------------------------------------------------------------------- SHAKE


class ShakeFront(_Front):
    __slots__ = ()

    def refuse_update(self, copied: bool) -> None:
        """Raise what native raises for ``update`` after a read (or on a copy made after one).

        A native copy of an XOF already read from is a fresh Python object
        over a squeezing C state: its ``update`` fails in C (a ``ValueError``
        in pycryptodome 4.4), not with the first-read ``TypeError``.
        """
        probe = self.native_new()
        probe.read(1)
        (probe.copy() if copied else probe).update(b"")
        raise TypeError("You cannot call 'update' after the first 'read'")

    def checked_length(self, xof: Any, length: Any) -> int:
        if type(length) is int and length >= 0:
            return length
        probe = self.native_new()
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

    def make(self, h: Any) -> Any:
        obj = _blank(self.cls)
        obj._h = h
        obj._out = None
        obj._pos = 0
        obj._copied = False
        return obj

    def fresh(self, data: Any) -> Any:
        provider = self.resolved()
        if provider is None:
            return self.native_new(data)
        if type(data) is bytes:
            obj = self.make(provider.new(data))
        else:
            obj = self.make(provider.new())
            if data:
                obj.update(data)
        self.slot.calls += 1
        return obj


class ShakeXof:
    """SHAKE objects: ``read`` squeezes on from where the last read stopped.

    A subclass of native's class, for isinstance() (eddsa checks it for
    SHAKE256); native ``__init__`` runs only through ours. ``_copied``:
    made by ``copy()`` after a read.
    """

    __slots__ = ()
    _front: ShakeFront

    def __init__(self, data=None):
        self._h = self._front.provider().new()
        self._out = None
        self._pos = 0
        self._copied = False
        if data:
            self.update(data)

    def update(self, data):
        if self._out is not None:
            self._front.refuse_update(self._copied)
        if type(data) is bytes or plain(data):
            self._h.update(data)
        else:
            self._h.update(self._front.coerce(data))
        return self

    def read(self, length):
        if type(length) is not int or length < 0:
            length = self._front.checked_length(self, length)
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
        clone = _blank(type(self)._front.cls)
        clone._h = self._h.copy()
        clone._out = self._out
        clone._pos = self._pos
        clone._copied = self._copied or self._out is not None
        return clone

    def new(self, data=None):
        return self._front.fresh(data)


def patch_shake(module: ModuleType, entry: Any) -> None:
    """SHAKE128/256: ``new(data=None)``."""
    front = ShakeFront(module, entry.primitive)
    native_obj = front.native_new()
    slots = ("_h", "_out", "_pos", "_copied")
    Xof = _subclass(ShakeXof, type(native_obj), native_obj, front, slots)
    slot = front.slot
    fresh = front.fresh

    def new(data=None):
        ctor = front.ctor
        if ctor is not None and type(data) is bytes:
            obj = _blank(Xof)
            obj._h = ctor(data)
            obj._out = None
            obj._pos = 0
            obj._copied = False
            slot.calls += 1
            return obj
        provider = slot.get()
        if provider is None:
            return front.native_new(data)
        front.ctor = provider.new
        return fresh(data)

    install(module, "new", new)
