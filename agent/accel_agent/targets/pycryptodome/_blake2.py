"""BLAKE2b and BLAKE2s for the hashes target: the unkeyed, full-size shape only.

OpenSSL's BLAKE2 has one digest size (the record's, in
:mod:`accel_agent.providers.hash_algorithms`) and no key; every other shape
stays native. The rules are SHA-3's (``update`` after ``digest`` only with
``update_after_digest``); there is no ``copy``, as natively; ``verify`` is
pycryptodome's own (a keyed BLAKE2 comparison) on this object's ``digest``.

The objects keep none of their input: OpenSSL's state is all there is, so
they have no pycryptodome C state (``_state``; one self-test of
pycryptodome's reaches it, see tests/suite/run_selftest.py). Calling the
class (``type(h)(data, key, digest_bytes, update_after_digest)``, native's
constructor) makes an object served by a native twin (:class:`Blake2Twin`),
since any key and size may be asked for.
"""

from __future__ import annotations

from accel_agent import hooks, registry
from accel_agent.providers import hash_algorithms
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome._hash_common import (
    Coercer,
    FlatConstructor,
    SealedAfterDigest,
    install,
    name_like,
    native_subclass,
    plain,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

_KEYWORDS = frozenset(("data", "digest_bytes", "digest_bits", "key", "update_after_digest"))
_blank = object.__new__


class Blake2Front(FlatConstructor):
    """One BLAKE2 module: its slot, native's constructor, the size OpenSSL's BLAKE2 has."""

    __slots__ = ("module", "slot", "native_new", "native_cls", "coerce", "size", "cls", "twin")

    def __init__(self, module: ModuleType, primitive: str) -> None:
        super().__init__()
        # The module objects' new() calls, as native's looks its new up at call
        # time (the patch may run on a copy of it: hooks.live).
        self.module = hooks.live(module)
        self.slot = registry.slot(primitive)
        native_new = self.native_new = module.new
        self.native_cls: type = type(native_new(data=None))
        self.coerce = Coercer(lambda: native_new(data=None))
        self.size: int = hash_algorithms.BY_PRIMITIVE[primitive].digest_size or 0
        self.cls: type = object
        self.twin: type = object

    def refuse_update(self) -> None:
        probe = self.native_new(data=None)
        probe.digest()
        probe.update(b"")
        raise TypeError("You can only call 'digest' or 'hexdigest' on this object")

    def default_shape(self, kwargs: dict) -> bool:
        """No key, the full digest size, a bool update_after_digest: what OpenSSL can serve."""
        if not kwargs.keys() <= _KEYWORDS:
            return False
        size = self.size
        key = kwargs.get("key", b"")
        digest_bytes = kwargs.get("digest_bytes")
        digest_bits = kwargs.get("digest_bits")
        return (
            type(key) is bytes
            and not key
            and type(kwargs.get("update_after_digest", False)) is bool
            and (digest_bytes is None or digest_bits is None)
            and (digest_bytes is None or (type(digest_bytes) is int and digest_bytes == size))
            and (digest_bits is None or (type(digest_bits) is int and digest_bits == 8 * size))
        )

    def general_new(self, args: tuple, kwargs: dict) -> Any:
        """``new(*args, **kwargs)``; ``ctor`` set when the provider served the call."""
        if args or not self.default_shape(kwargs):
            return self.native_new(*args, **kwargs)
        data = kwargs.get("data")
        if not (data is None or type(data) is bytes or plain(data)):
            return self.native_new(*args, **kwargs)
        provider = self.slot.get()
        if provider is None:
            return self.native_new(*args, **kwargs)
        obj = _blank(self.cls)
        obj._done = False
        obj._after = kwargs.get("update_after_digest", False)
        obj._h = provider.new(bytes(data)) if data else provider.new()
        self.slot.calls += 1
        self.ctor = provider.new
        return obj


class Blake2Hash(SealedAfterDigest):
    """BLAKE2 objects on OpenSSL; ``_front`` is the module's :class:`Blake2Front`."""

    __slots__ = ()
    _front: Blake2Front

    def __init__(self, data, key, digest_bytes, update_after_digest):
        front = self._front
        self._h = front.native_cls(data, key, digest_bytes, update_after_digest)
        self._done = False
        self._after = update_after_digest
        if type(self) is front.cls:
            self.__class__ = front.twin

    def new(self, **kwargs):
        if "digest_bytes" not in kwargs and "digest_bits" not in kwargs:
            kwargs["digest_bytes"] = self.digest_size
        return self._front.module.new(**kwargs)

    @property
    def _state(self):
        raise AttributeError("_state")


class Blake2Twin:
    """An object made by calling the class: every call is its native twin's."""

    __slots__ = ()

    def update(self, data):
        self._h.update(data)
        return self

    def digest(self):
        return self._h.digest()

    @property
    def _state(self):
        return self._h._state

    @property
    def digest_size(self):
        return self._h.digest_size

    @property
    def oid(self):
        return self._h.oid


def _classes(front: Blake2Front, native_obj: Any) -> type:
    """The module's class (on ``front``, with its twin), a subclass of native's."""
    native_cls = front.native_cls
    Hash = native_subclass(Blake2Hash, native_cls, native_obj, front, ("_h", "_done", "_after"))
    Twin = type(native_cls.__name__, (Blake2Twin, Hash), {"__slots__": ()})
    name_like(Twin, native_cls)
    native_new = front.native_new
    _native_shape.install(Hash, Hash.__slots__, lambda obj: native_new(data=None))
    front.cls, front.twin = Hash, Twin
    return Hash


def patch_blake2(module: ModuleType, entry: Any) -> None:
    """BLAKE2b-512 and BLAKE2s-256 without a key: the only parameters OpenSSL's BLAKE2 has.

    Any other digest size, a key, or an unusual argument goes to native code.
    """
    front = Blake2Front(module, entry.primitive)
    Hash = _classes(front, front.native_new(data=None))
    slot = front.slot
    general_new = front.general_new

    def new(*args, **kwargs):
        ctor = front.ctor
        if ctor is not None and not args and len(kwargs) == 1:
            data = kwargs.get("data")
            if type(data) is bytes and data:  # BLAKE2b.new(data=...): the common shape, flat
                obj = _blank(Hash)
                obj._h = ctor(data)
                obj._done = obj._after = False
                slot.calls += 1
                return obj
        return general_new(args, kwargs)

    install(module, "new", new)
