"""BLAKE2b and BLAKE2s for the hashes target: the unkeyed, full-size shape only.

OpenSSL's BLAKE2 has one digest size and no key; every other shape stays
native. The helpers (input coercion, class naming) are the hashes module's.
"""

from __future__ import annotations

from accel_agent import registry
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome.hashes import (
    _class_facts,
    _Coercer,
    _install,
    _name_like,
    _plain,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType


# --------------------------------------------------------------------------- BLAKE2

_BLAKE2_KEYWORDS = frozenset(("data", "digest_bytes", "digest_bits", "key", "update_after_digest"))


def patch_blake2(module: ModuleType, primitive: str, size: int) -> None:
    """BLAKE2b-512 and BLAKE2s-256 without a key: the only parameters OpenSSL's BLAKE2 has.

    Any other digest size, a key, or an unusual argument goes to native code.
    The rules are SHA-3's (``update`` after ``digest`` only with
    ``update_after_digest``); there is no ``copy``, as natively; ``verify`` is
    pycryptodome's own (a keyed BLAKE2 comparison) on this object's ``digest``.

    The objects keep none of their input: OpenSSL's state is all there is,
    so they have no pycryptodome C state (``_state``; one self-test of
    pycryptodome's reaches it, see tests/suite/run_selftest.py). Calling the
    class (``type(h)(data, key, digest_bytes, update_after_digest)``, native's
    constructor) makes an object served by a native twin, since any key and
    size may be asked for.
    """
    native_new = module.new
    native_obj = native_new(data=None)
    native_cls = type(native_obj)
    slot = registry.slot(primitive)
    coerce = _Coercer(lambda: native_new(data=None))

    def refuse_update() -> None:
        probe = native_new(data=None)
        probe.digest()
        probe.update(b"")
        raise TypeError("You can only call 'digest' or 'hexdigest' on this object")

    class Hash(native_cls):
        # A subclass, for isinstance(); native __init__ runs only through ours.
        __slots__ = ("_h", "_done", "_after")

        def __init__(self, data, key, digest_bytes, update_after_digest):
            self._h = native_cls(data, key, digest_bytes, update_after_digest)
            self._done = False
            self._after = update_after_digest
            if type(self) is Hash:
                self.__class__ = Twin

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

        def new(self, **kwargs):
            if "digest_bytes" not in kwargs and "digest_bits" not in kwargs:
                kwargs["digest_bytes"] = self.digest_size
            return module.new(**kwargs)

        @property
        def _state(self):
            raise AttributeError("_state")

    class Twin(Hash):
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

    for name, value in _class_facts(native_obj).items():
        setattr(Hash, name, value)
    _name_like(Hash, native_cls)
    _name_like(Twin, native_cls)
    Hash.__init__.__qualname__ = "%s.__init__" % native_cls.__qualname__
    _native_shape.install(Hash, Hash.__slots__, lambda obj: native_new(data=None))
    blank = object.__new__

    def default_shape(kwargs: dict) -> bool:
        """No key, the full digest size, a bool update_after_digest: what OpenSSL can serve."""
        if not kwargs.keys() <= _BLAKE2_KEYWORDS:
            return False
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

    ctor = None  # the provider's constructor, once the slot resolved to OpenSSL

    def new(*args, **kwargs):
        if ctor is not None and not args and len(kwargs) == 1:
            data = kwargs.get("data")
            if type(data) is bytes and data:  # BLAKE2b.new(data=...): the common shape, flat
                obj = blank(Hash)
                obj._h = ctor(data)
                obj._done = obj._after = False
                slot.calls += 1
                return obj
        return general_new(*args, **kwargs)

    def general_new(*args, **kwargs):
        nonlocal ctor
        if args or not default_shape(kwargs):
            return native_new(*args, **kwargs)
        data = kwargs.get("data")
        if not (data is None or type(data) is bytes or _plain(data)):
            return native_new(*args, **kwargs)
        provider = slot.get()
        if provider is None:
            return native_new(*args, **kwargs)
        ctor = provider.new
        obj = blank(Hash)
        obj._done = False
        obj._after = kwargs.get("update_after_digest", False)
        obj._h = provider.new(bytes(data)) if data else provider.new()
        slot.calls += 1
        return obj

    def forget() -> None:
        nonlocal ctor
        ctor = None

    registry.reset_listeners.append(forget)
    _install(module, "new", new)
