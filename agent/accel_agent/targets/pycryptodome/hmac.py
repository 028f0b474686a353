"""``Crypto.Hash.HMAC`` served by OpenSSL's HMAC (``_hashlib.hmac_new``).

``HMAC.new(key, msg, digestmod)`` with a plain key and message and, as
``digestmod``, a covered hash (a ``Crypto.Hash`` module such as ``SHA256``,
or a hash object made by one, accelerated or native) returns an object of a
subclass of pycryptodome's ``HMAC`` class whose state is an OpenSSL HMAC
context. What it does not override (``hexverify``, ``_pbkdf2_hmac_assist``)
is pycryptodome's own code running on top of it. Anything else (no
``digestmod``, another hash, exotic arguments) goes to the original ``new``.

``_inner`` and ``_outer``, the two hash states pycryptodome's ``PBKDF2``
hands to a hash module's C ``_pbkdf2_hmac_assist``, are rebuilt on demand as
native hash objects, while no message has been fed (PBKDF2 feeds none): the
object keeps the key for that until its first message bytes, and drops it
then (natively the object keeps the two hash states, derived from the key,
for its whole life).

With a SHA-3 ``digestmod``, ``update`` after ``digest`` raises as natively
(pycryptodome's SHA-3 inner hash refuses it); with SHA-1/2 it goes on.
Calling the class (``type(mac)(key, msg, digestmod)``) runs native's
constructor (:func:`._native_shape.native_constructor`).
"""

from __future__ import annotations

import functools
import sys

from accel_agent import patching, registry
from accel_agent.constant_time import compare_digest
from accel_agent.providers.hash_algorithms import BY_PRIMITIVE
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome._hash_common import WRAPPERS, Coercer, plain
from accel_agent.targets.pycryptodome.hashes import MERKLE_DAMGARD, MODULES, SHA3, SHA512

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

# pycryptodome hash module (without prefix) -> OpenSSL name, for the hashes HMAC takes
# (SHA-512: by digest size, below); from the hashes target's table and the records.
HASH_NAMES = {
    suffix: BY_PRIMITIVE[entry.primitive].hashlib_name
    for suffix, entry in MODULES.items()
    if entry.kind in (MERKLE_DAMGARD, SHA3)
}
# SHA-512's digest size -> (OpenSSL name, truncate argument)
SHA512_BY_SIZE = {
    BY_PRIMITIVE[primitive].digest_size: (BY_PRIMITIVE[primitive].hashlib_name, truncate)
    for entry in MODULES.values()
    if entry.kind == SHA512
    for truncate, primitive in (entry.variants or {}).items()
}
_ModuleType = type(sys)


class HashInfo:
    """What the HMAC fast path needs about one hash: its OpenSSL name and native constructor."""

    __slots__ = ("name", "native_new", "coerce", "seals")

    def __init__(self, name: str, native_new: Callable) -> None:
        self.name = name
        self.native_new = native_new  # builds native hash objects, even when the module is patched
        self.coerce = Coercer(native_new)
        # pycryptodome's SHA-3 objects refuse update() after digest(): so does their HMAC
        self.seals = name.startswith("sha3_")


_infos: dict[tuple[str, int], HashInfo | None] = {}


def hash_info(digestmod: Any) -> HashInfo | None:
    """The :class:`HashInfo` of a covered hash module or hash object, else None."""
    if type(digestmod) is _ModuleType:
        module_name = digestmod.__name__
    else:
        cls = type(digestmod)
        module_name = cls.__module__
        module = sys.modules.get(module_name)
        native_cls = getattr(module, cls.__name__, None) if module is not None else None
        if native_cls is None or not (cls is native_cls or cls in WRAPPERS):
            return None
    prefix, _, suffix = module_name.partition(".")
    if prefix not in ("Crypto", "Cryptodome"):
        return None
    try:
        size = digestmod.digest_size
    except AttributeError:
        return None
    key = (module_name, size)
    if key in _infos:
        return _infos[key]
    info = None
    if suffix in HASH_NAMES or (suffix == "Hash.SHA512" and size in SHA512_BY_SIZE):
        module = sys.modules[module_name]
        native_new = _original(module_name, "new", module.new)
        if suffix == "Hash.SHA512":
            name, truncate = SHA512_BY_SIZE[size]
            native_new = functools.partial(native_new, truncate=truncate)
        else:
            name = HASH_NAMES[suffix]
        info = HashInfo(name, native_new)
    _infos[key] = info
    return info


def _original(module_name: str, attribute: str, current: Any) -> Any:
    try:
        return patching.get_original(module_name, attribute)
    except KeyError:
        return current


class HmacMethods:
    """The methods of the agent's HMAC objects, on a subclass of pycryptodome's ``HMAC``.

    A subclass, so that isinstance(h, HMAC.HMAC) holds; native ``__init__``
    runs only when the class is called. The class of one HMAC module carries
    ``_target`` (its :class:`HmacTarget`); one subclass per hash (see
    :meth:`HmacTarget.kind_of`) carries ``digest_size``, ``oid``, ``_info``.
    ``_key``: None once a message was fed.
    """

    __slots__ = ()
    _target: HmacTarget
    _info: HashInfo

    def update(self, msg):
        if type(msg) is not bytes and not plain(msg):
            msg = self._info.coerce(msg)  # raises what native raises
        if msg and self._key is not None:
            self._key = None  # _inner and _outer can no longer be rebuilt
        self._mac.update(msg)
        return self

    def copy(self):
        clone = _blank(type(self))
        clone._mac = self._mac.copy()
        clone._key = self._key
        clone._digestmod = self._digestmod
        return clone

    def digest(self):
        return self._mac.digest()

    def hexdigest(self):
        return self._mac.hexdigest()

    def verify(self, mac_tag):
        if type(mac_tag) is bytes or plain(mac_tag):
            if not compare_digest(mac_tag, self.digest()):
                raise ValueError("MAC check failed")
            return
        self._target.native_verify(self, mac_tag)  # pycryptodome's own errors for anything else

    @property
    def _inner(self):
        return self._native_state(0x36)

    @property
    def _outer(self):
        return self._native_state(0x5C)

    def _native_state(self, pad: int) -> Any:
        key = self._key
        if key is None:
            raise AttributeError("the hash state of an OpenSSL HMAC after a message")
        info = self._info
        block_size = self._digestmod.block_size
        if len(key) > block_size:
            key = info.native_new(key).digest()
        key = key.ljust(block_size, b"\x00")
        return info.native_new(bytes(b ^ pad for b in key))


class SealingHmacMethods(HmacMethods):
    """With SHA-3: ``update`` after ``digest`` raises, as pycryptodome's SHA-3 does."""

    __slots__ = ()

    def update(self, msg):
        if self._sealed:
            self._target.refuse_update(self)
        return HmacMethods.update(self, msg)

    def copy(self):
        clone = HmacMethods.copy(self)
        clone._sealed = False  # as natively: the copy's inner hash starts unsealed
        return clone

    def digest(self):
        self._sealed = True
        return self._mac.digest()

    def hexdigest(self):
        self._sealed = True
        return self._mac.hexdigest()


_blank = object.__new__


class HmacTarget:
    """One HMAC module (``Crypto`` or ``Cryptodome``): its classes, and one class per hash."""

    def __init__(self, module: ModuleType) -> None:
        self.native_new = module.new
        native_cls = self.native_cls = module.HMAC
        self.native_verify = native_cls.verify
        self.slot = registry.slot("hmac")
        self.oids = _hmac_oids(module)
        name = native_cls.__name__
        self.cls = type(
            name,
            (HmacMethods, native_cls),
            {"__slots__": ("_mac", "_key", "_digestmod"), "_target": self},
        )
        self.sealing_cls = type(name, (SealingHmacMethods, self.cls), {"__slots__": ("_sealed",)})
        for cls in (self.cls, self.sealing_cls):
            cls.__qualname__ = native_cls.__name__
            cls.__module__ = native_cls.__module__
        _native_shape.install_native_constructor(self.cls, native_cls)
        native_new = self.native_new
        _native_shape.install(
            self.cls,
            ("_mac", "_key", "_digestmod", "_sealed"),
            lambda mac: native_new(b"", b"", mac._digestmod),
        )

    def refuse_update(self, mac: Any) -> None:
        probe = self.native_new(b"", b"", mac._digestmod)
        probe.digest()
        probe.update(b"")  # raises pycryptodome's own error
        raise TypeError("You can only call 'digest' or 'hexdigest' on this object")

    def kind_of(self, digestmod: Any) -> Any:
        """(the class of HMAC objects with this hash, its :class:`HashInfo`), or None."""
        info = hash_info(digestmod)
        if info is None:
            return None
        attributes = {"digest_size": digestmod.digest_size, "_info": info, "__slots__": ()}
        oid = self.oids.get(getattr(digestmod, "oid", None))
        if oid is not None:
            attributes["oid"] = oid
        native_cls = self.native_cls
        base = self.sealing_cls if info.seals else self.cls
        cls = type(native_cls.__name__, (base,), attributes)
        cls.__qualname__ = native_cls.__qualname__
        cls.__module__ = native_cls.__module__
        return cls, info


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one HMAC module (``Crypto`` or ``Cryptodome``)."""
    new = _new_function(HmacTarget(module))
    functools.update_wrapper(new, module.new)
    patching.patch_attribute(module, "new", new)


def _new_function(target: HmacTarget) -> Callable:
    """``HMAC.new(key, msg=b"", digestmod=None)``: a covered hash on OpenSSL, flat."""
    native_new, slot, kind_of = target.native_new, target.slot, target.kind_of
    # digestmod (a module), or (type, digest size) of a hash object -> (class, info) or None
    kinds: dict = {}
    ctor = None  # OpenSSL's hmac_new, once the slot resolved to OpenSSL
    names: frozenset = frozenset()
    max_key_size = 0  # OpenSSL's call takes at most this many bytes of key
    shorten = None  # (name, key) -> the hash that stands for a longer key

    def new(key, msg=b"", digestmod=None):
        if type(digestmod) is _ModuleType:
            index = digestmod
        else:
            index = (type(digestmod), getattr(digestmod, "digest_size", None))
        kind = kinds.get(index, _MISSING)
        if kind is _MISSING:
            kind = kinds[index] = kind_of(digestmod) if digestmod is not None else None
        if (
            kind is not None
            and (type(key) is bytes or plain(key))
            and (type(msg) is bytes or msg is None or plain(msg))
        ):
            cls, info = kind
            if ctor is None:
                resolve()
            if ctor is not None and info.name in names:
                if len(key) > max_key_size:  # past what OpenSSL's call takes: its hash
                    key = shorten(info.name, key)
                key = bytes(key)
                mac = _blank(cls)
                mac._mac = ctor(key, msg or b"", info.name)
                mac._key = None if msg else key
                mac._digestmod = digestmod
                if info.seals:
                    mac._sealed = False
                slot.calls += 1
                return mac
        return native_new(key, msg, digestmod)

    def resolve() -> None:
        nonlocal ctor, names, max_key_size, shorten
        provider = slot.get()
        if provider is not None:
            ctor, names, max_key_size = provider.new, provider.names, provider.max_key_size
            shorten = provider.shorten

    def forget() -> None:
        nonlocal ctor
        ctor = None

    registry.reset_listeners.append(forget)
    return new


_MISSING = object()


def _hmac_oids(module: ModuleType) -> dict:
    """Hash OID -> HMAC OID, from pycryptodome itself (absent in old versions: none then)."""
    return dict(getattr(module, "_hash2hmac_oid", {}))
