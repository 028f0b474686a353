"""``Crypto.Hash.{MD5,SHA1,SHA2*,SHA3_*,SHAKE*,BLAKE2*}`` served by OpenSSL.

The patch replaces each module's ``new`` (and 4.x's one-shot ``digest``).
For the common argument shapes it returns a thin object around an OpenSSL
hash object (``_hashlib``) that carries pycryptodome's attributes and rules
(``digest_size``, ``block_size``, ``oid``, ``new``, ``copy``, SHA-3's
``update_after_digest``, SHAKE's ``read``); anything else goes to the
original ``new``. Per call cost is what this module is about: SHA-256 on 64
bytes must stay near ``hashlib``'s own speed, so the fast paths are written
out flat (one Python frame for ``new``, one per method) and read the
registry slot's provider directly.

The objects stand in everywhere pycryptodome takes a hash and are shaped
as native ones: their class subclasses the native class (``isinstance``
holds, and ``eddsa`` checks it for its pre-hashed variants) and carries its
name and module, so ``PBKDF2`` finds the module's ``_pbkdf2_hmac_assist``
from an object as it does natively; the objects take attributes and weak
references; ``type(h)(data)`` runs a constructor with native's signature;
``copy.copy``, ``copy.deepcopy`` and ``pickle`` do what they do natively
(:mod:`._native_shape`).

Inputs the fast path does not take as they are (anything but bytes,
bytearray and plain byte memoryviews) are shown to a native object first,
so pycryptodome raises its own error for what it rejects; what it accepts is
hashed as the bytes its C code reads.
"""

from __future__ import annotations

import functools

from accel_agent import patching, registry, speedups
from accel_agent.targets.pycryptodome import _native_shape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

_UNRESOLVED = registry._UNRESOLVED

# pycryptodome module (without prefix) -> primitive
SIMPLE = {
    "Hash.MD5": "md5",
    "Hash.SHA1": "sha1",
    "Hash.SHA224": "sha224",
    "Hash.SHA256": "sha256",
    "Hash.SHA384": "sha384",
}
SHA3 = {
    "Hash.SHA3_224": "sha3-224",
    "Hash.SHA3_256": "sha3-256",
    "Hash.SHA3_384": "sha3-384",
    "Hash.SHA3_512": "sha3-512",
}
SHAKE = {"Hash.SHAKE128": "shake128", "Hash.SHAKE256": "shake256"}
# module -> (primitive, the digest size OpenSSL's BLAKE2 has)
BLAKE2 = {"Hash.BLAKE2b": ("blake2b", 64), "Hash.BLAKE2s": ("blake2s", 32)}
SHA512_TRUNCATIONS = {None: "sha512", "224": "sha512-224", "256": "sha512-256"}


def _suffix(module: ModuleType) -> str:
    return module.__name__.split(".", 1)[1]


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` (and ``digest``) on one pycryptodome hash module."""
    suffix = _suffix(module)
    if suffix in SIMPLE:
        _patch_simple(module, SIMPLE[suffix])
    elif suffix == "Hash.SHA512":
        _patch_sha512(module)
    elif suffix in SHA3 or suffix in SHAKE:
        from accel_agent.targets.pycryptodome import _sha3  # its helpers are this module's

        if suffix in SHA3:
            _sha3.patch_sha3(module, SHA3[suffix])
        else:
            _sha3.patch_shake(module, SHAKE[suffix])
    elif suffix in BLAKE2:
        from accel_agent.targets.pycryptodome import _blake2

        _blake2.patch_blake2(module, *BLAKE2[suffix])
    else:
        raise LookupError("no hash patch for %s" % module.__name__)


# --------------------------------------------------------------------------- helpers


class _Coercer:
    """Turns an input the fast path does not take as is into what native code hashes.

    pycryptodome validates the input (a fresh native object's ``update``
    raises its own error); which bytes its C code then reads differs between
    versions for multi-byte memoryviews (3.x: ``len(data)`` bytes, 4.x: all
    of them), so that is asked of native code once, on first need.
    """

    def __init__(self, native_new: Callable) -> None:
        self._native_new = native_new
        self._whole_buffer: bool | None = None

    def __call__(self, data: Any) -> bytes:
        self._native_new().update(data)  # raises what pycryptodome raises
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else memoryview(data)
        if self._whole_buffer is None:
            self._whole_buffer = self._reads_whole_buffer()
        return bytes(view) if self._whole_buffer else bytes(view[: len(data)])

    def _reads_whole_buffer(self) -> bool:
        import array

        items = memoryview(array.array("H", [0x0101, 0x0202]))
        probe = self._native_new()
        probe.update(items)
        whole = self._native_new()
        whole.update(b"\x01\x01\x02\x02")
        if hasattr(probe, "read"):  # SHAKE
            return probe.read(16) == whole.read(16)
        return probe.digest() == whole.digest()


# Every class of accelerated hash objects, for the HMAC and KDF targets to recognise.
WRAPPERS: set[type] = set()


def _name_like(cls: type, native_cls: type) -> type:
    WRAPPERS.add(cls)
    cls.__name__ = native_cls.__name__
    cls.__qualname__ = native_cls.__qualname__
    cls.__module__ = native_cls.__module__
    cls.__doc__ = native_cls.__doc__
    return cls


def _class_facts(native_obj: Any) -> dict[str, Any]:
    facts = {}
    for name in ("digest_size", "block_size", "oid"):
        value = getattr(native_obj, name, None)
        if value is not None:
            facts[name] = value
    return facts


def _install(module: ModuleType, name: str, replacement: Callable) -> None:
    functools.update_wrapper(replacement, getattr(module, name))
    patching.patch_attribute(module, name, replacement)


def _plain(data: Any) -> bool:
    kind = type(data)
    return kind is bytearray or (
        kind is memoryview and data.ndim == 1 and data.c_contiguous and data.format == "B"
    )


# --------------------------------------------------------------------------- MD5, SHA-1, SHA-2


def _merkle_damgard_class(
    native_cls: type,
    facts: dict,
    slot: registry.Slot,
    native_new: Callable,
    init: Callable[[Callable], Callable],
) -> tuple[type, Callable, Callable]:
    """The object ``new`` returns for one hash, and how to make one.

    Returns (class, maker, fresh): ``maker()`` is an empty instance (no
    ``__init__`` runs); ``fresh(data)`` is a complete one, or a native object
    once the registry stopped accelerating (tests, recalibration).
    ``init(start)`` is the class's ``__init__``, with native's signature,
    given ``start(obj, data)`` which fills in an object ``__init__`` runs on.
    """
    coerce = _Coercer(native_new)
    last_provider: list = []  # the provider that made the latest object

    def update(self, data):
        if type(data) is bytes or _plain(data):
            self._h.update(data)
        else:
            self._h.update(coerce(data))

    def copy(self):
        clone = maker()
        clone._h = self._h.copy()
        return clone

    def new(self, data=None):
        return fresh(data)

    def start(obj: Any, data: Any) -> None:
        provider = slot.get() or last_provider[0]
        obj._h = provider.new()
        if data:
            update(obj, data)

    # A HashCore holds the OpenSSL object (``_h``); compiled, its digest() and
    # hexdigest() have no Python frame (accel_agent.speedups).
    namespace = {"update": update, "copy": copy, "new": new, "__init__": init(start), **facts}
    Hash = speedups.hash_class(native_cls, namespace)
    Hash.__init__.__qualname__ = "%s.__init__" % native_cls.__qualname__
    _native_shape.install(Hash, ("_h",), lambda obj: native_new(), lambda cls: cls.__new__(cls))
    maker = speedups.blank(Hash)

    def fresh(data: Any) -> Any:
        provider = slot.get()
        if provider is None:
            return native_new(data)
        if not last_provider:
            last_provider.append(provider)
        h = maker()
        if type(data) is bytes:
            h._h = provider.new(data)
        else:
            h._h = provider.new()
            if data:
                h.update(data)
        slot.calls += 1
        return h

    return _name_like(Hash, native_cls), maker, fresh


def _plain_init(start: Callable) -> Callable:
    """``__init__(self, data=None)``: MD5's, SHA-1's and SHA-2's (SHA-512 aside)."""

    def __init__(self, data=None):
        start(self, data)

    return __init__


def _patch_simple(module: ModuleType, primitive: str) -> None:
    native_new = module.new
    native_obj = native_new()
    slot = registry.slot(primitive)
    cls, maker, fresh = _merkle_damgard_class(
        type(native_obj), _class_facts(native_obj), slot, native_new, _plain_init
    )
    new_object = speedups.new_object

    ctor = None  # the provider's constructor, once the slot resolved to OpenSSL

    def new(data=None):
        if type(data) is bytes and ctor is not None:
            h = new_object(cls)
            h._h = ctor(data)
            slot.calls += 1
            return h
        return slow_new(data)

    installed = speedups.hash_new(cls, slot, new, native_new)

    def slow_new(data: Any) -> Any:
        provider = slot.get()
        if provider is None:
            return native_new(data)
        set_ctor(provider.new)
        return fresh(data)

    def set_ctor(value: Callable | None) -> None:
        nonlocal ctor
        ctor = value
        if installed is not new:
            installed.ctor = value

    registry.reset_listeners.append(lambda: set_ctor(None))
    patching.patch_attribute(module, "new", installed)  # named by hash_new
    _patch_oneshot(module, slot, native_new)


@functools.cache
def _retargeted(kind: type, variant: type) -> type:
    """A subclass of a program's subclass ``kind`` that holds another SHA-512 variant.

    ``Mine(data, "256")``, where ``Mine`` subclasses the class of a full
    SHA-512 object: the object stays an instance of ``Mine`` with the
    SHA-512/256 facts and methods.
    """
    members = {
        name: vars(variant)[name] for name in ("digest_size", "oid", "update", "copy", "new")
    }
    cls = type(kind.__name__, (kind,), members)
    cls.__qualname__ = kind.__qualname__
    cls.__module__ = kind.__module__
    return cls


def _patch_oneshot(module: ModuleType, slot: registry.Slot, native_new: Callable) -> None:
    """4.x's module-level ``digest(data)``: same bytes as ``new(data).digest()``."""
    native_digest = getattr(module, "digest", None)
    if native_digest is None or not callable(native_digest):
        return

    def digest(data):
        provider = slot._provider
        if provider is _UNRESOLVED:
            provider = slot.get()
        if provider is not None and type(data) is bytes:
            slot.calls += 1
            return provider.new(data).digest()
        return native_digest(data)

    _install(module, "digest", digest)


def _patch_sha512(module: ModuleType) -> None:
    """SHA-512 and its truncations (``truncate="224"`` or ``"256"``): three primitives."""
    native_new = module.new
    variants = {}
    classes: dict = {}  # truncate -> the class of that variant's objects

    def init_for(own: Any) -> Callable[[Callable], Callable]:
        def make_init(start: Callable) -> Callable:
            def __init__(self, data, truncate):
                if truncate is not own and truncate != own:
                    variant = classes.get(truncate) if type(truncate) in (str, type(None)) else None
                    if variant is None:
                        native_cls(data, truncate)  # raises what native raises for it
                        raise ValueError("Incorrect truncation length. It must be '224' or '256'.")
                    kind = type(self)
                    # As natively, the object is of the class called, holding that variant.
                    self.__class__ = variant if kind in ours else _retargeted(kind, variant)
                    variant.__init__(self, data, truncate)
                    return
                start(self, data)

            return __init__

        return make_init

    native_cls: type = type(native_new())
    ours: set = set()  # the three classes
    for truncate, primitive in SHA512_TRUNCATIONS.items():
        native_obj = native_new(None, truncate)
        slot = registry.slot(primitive)
        variant_new = functools.partial(native_new, truncate=truncate)
        cls, maker, fresh = _merkle_damgard_class(
            native_cls, _class_facts(native_obj), slot, variant_new, init_for(truncate)
        )
        variants[truncate] = (maker, slot, fresh)
        classes[truncate] = cls
        ours.add(cls)
    full = variants[None]

    full_cls, full_slot = classes[None], full[1]
    new_object = speedups.new_object
    ctor = None  # SHA-512's constructor, once its slot resolved to OpenSSL

    def new(data=None, truncate=None):
        if truncate is None and ctor is not None and type(data) is bytes:
            h = new_object(full_cls)  # SHA512.new(data): the common shape, flat
            h._h = ctor(data)
            full_slot.calls += 1
            return h
        return general_new(data, truncate)

    installed = speedups.hash_new(classes[None], full_slot, new, native_new)

    def set_ctor(value: Callable | None) -> None:
        nonlocal ctor
        ctor = value
        if installed is not new:
            installed.ctor = value

    def general_new(data: Any, truncate: Any) -> Any:
        if truncate is None:
            maker, slot, fresh = full
        elif type(truncate) is str and truncate in variants:
            maker, slot, fresh = variants[truncate]
        else:
            return native_new(data, truncate)
        provider = slot.get()
        if provider is None:
            return native_new(data, truncate)
        if truncate is None:
            set_ctor(provider.new)
        if type(data) is bytes:
            h = maker()
            h._h = provider.new(data)
            slot.calls += 1
            return h
        return fresh(data)

    registry.reset_listeners.append(lambda: set_ctor(None))
    patching.patch_attribute(module, "new", installed)  # named by hash_new
    native_digest = getattr(module, "digest", None)
    if native_digest is None or not callable(native_digest):
        return

    def digest(data, **kwargs):
        truncate = kwargs.get("truncate")
        entry = None
        if kwargs.keys() <= {"truncate"} and (truncate is None or type(truncate) is str):
            entry = variants.get(truncate)
        if entry is not None and type(data) is bytes:
            slot = entry[1]
            provider = slot._provider
            if provider is _UNRESOLVED:
                provider = slot.get()
            if provider is not None:
                slot.calls += 1
                return provider.new(data).digest()
        return native_digest(data, **kwargs)

    _install(module, "digest", digest)
