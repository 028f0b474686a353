"""``Crypto.Hash.{MD5,SHA1,SHA2*,SHA3_*,SHAKE*,BLAKE2*,RIPEMD160}`` served by OpenSSL.

The patch replaces each module's ``new`` (and 4.x's one-shot ``digest``).
For the common argument shapes it returns a thin object around an OpenSSL
hash object (``_hashlib``) that carries pycryptodome's attributes and rules
(``digest_size``, ``block_size``, ``oid``, ``new``, ``copy``, SHA-3's
``update_after_digest``, SHAKE's ``read``); anything else goes to the
original ``new``. Per call cost is what this module is about: SHA-256 on 64
bytes must stay near ``hashlib``'s own speed, so the fast paths are written
out flat (one Python frame for ``new``, one per method) and keep the
resolved provider's constructor at hand.

:data:`MODULES` is the table: each pycryptodome hash module, the primitive
(or, for SHA-512, the primitives of its truncations) that serves it, and the
kind of object it makes. The kinds' classes are module-level and read their
hash's facts from class attributes: :class:`MerkleDamgardHash` here (MD5,
SHA-1, SHA-2, RIPEMD-160), the SHA-3 and SHAKE classes in :mod:`._sha3`,
BLAKE2's in :mod:`._blake2`.

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
import importlib
import sys

from accel_agent import calibration, hooks, patching, registry, speedups
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome._hash_common import (
    WRAPPERS,
    Coercer,
    ResolvedProvider,
    install,
    native_class,
    patch_oneshot,
    plain,
)

# The set of the agent's hash and MAC classes, as this target's public name:
# shadow mode (accel_agent.instrument) adds the classes that follow them.
__all__ = ["WRAPPERS", "patch"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

# The kinds of hash object, each a patch function ("module:function", loaded when needed).
MERKLE_DAMGARD = "accel_agent.targets.pycryptodome.hashes:patch_merkle_damgard"
SHA512 = "accel_agent.targets.pycryptodome.hashes:patch_sha512"
SHA3 = "accel_agent.targets.pycryptodome._sha3:patch_sha3"
SHAKE = "accel_agent.targets.pycryptodome._sha3:patch_shake"
BLAKE2 = "accel_agent.targets.pycryptodome._blake2:patch_blake2"
ALIAS = "accel_agent.targets.pycryptodome.hashes:patch_alias"


class HashModule:
    """One pycryptodome hash module as the target serves it."""

    __slots__ = ("primitive", "kind", "variants", "alias_of")

    def __init__(
        self,
        primitive: str | None,
        kind: str,
        variants: dict | None = None,
        alias_of: str | None = None,
    ) -> None:
        self.primitive = primitive  # the catalog row that serves it
        self.kind = kind  # the patch function of its kind of object
        # SHA-512: truncate argument -> primitive ({None: "sha512", "224": ...})
        self.variants = variants
        self.alias_of = alias_of  # a module that re-exports another's ``new``


# pycryptodome module (without prefix) -> how it is served
MODULES: dict[str, HashModule] = {
    "Hash.MD5": HashModule("md5", MERKLE_DAMGARD),
    "Hash.SHA1": HashModule("sha1", MERKLE_DAMGARD),
    "Hash.SHA224": HashModule("sha224", MERKLE_DAMGARD),
    "Hash.SHA256": HashModule("sha256", MERKLE_DAMGARD),
    "Hash.SHA384": HashModule("sha384", MERKLE_DAMGARD),
    "Hash.SHA512": HashModule(
        "sha512", SHA512, {None: "sha512", "224": "sha512-224", "256": "sha512-256"}
    ),
    "Hash.SHA3_224": HashModule("sha3-224", SHA3),
    "Hash.SHA3_256": HashModule("sha3-256", SHA3),
    "Hash.SHA3_384": HashModule("sha3-384", SHA3),
    "Hash.SHA3_512": HashModule("sha3-512", SHA3),
    "Hash.SHAKE128": HashModule("shake128", SHAKE),
    "Hash.SHAKE256": HashModule("shake256", SHAKE),
    "Hash.BLAKE2b": HashModule("blake2b", BLAKE2),
    "Hash.BLAKE2s": HashModule("blake2s", BLAKE2),
    "Hash.RIPEMD160": HashModule("ripemd160", MERKLE_DAMGARD),
    # pycryptodome's deprecated alias: RIPEMD160's new, block_size, digest_size
    "Hash.RIPEMD": HashModule(None, ALIAS, alias_of="Hash.RIPEMD160"),
}


def _suffix(module: ModuleType) -> str:
    return module.__name__.split(".", 1)[1]


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` (and ``digest``) on one pycryptodome hash module."""
    entry = MODULES.get(_suffix(module))
    if entry is None:
        raise LookupError("no hash patch for %s" % module.__name__)
    module_name, _, function = entry.kind.partition(":")
    getattr(importlib.import_module(module_name), function)(module, entry)


class HashFront:
    """What one hash's objects need at hand: its slot, native's constructor, a maker.

    ``fresh(data)`` is a complete object, or a native one once the registry
    stopped accelerating (tests, recalibration); ``start(obj, data)`` fills
    in an object whose ``__init__`` runs (``type(h)(data)``).
    """

    __slots__ = ("slot", "native_new", "coerce", "maker", "last_provider", "truncate", "family")

    def __init__(self, slot: registry.Slot, native_new: Callable) -> None:
        self.slot = slot
        self.native_new = native_new
        self.coerce = Coercer(native_new)
        self.maker: Callable[[], Any] = object  # set once the class exists
        self.last_provider: Any = None  # the provider that made the first object
        self.truncate: Any = None  # SHA-512: this variant's truncate argument
        self.family: Sha512Family | None = None

    def start(self, obj: Any, data: Any) -> None:
        provider = self.slot.get() or self.last_provider
        obj._h = provider.new()
        if data:
            MerkleDamgardHash.update(obj, data)

    def fresh(self, data: Any) -> Any:
        slot = self.slot
        provider = slot.get()
        if provider is None:
            return self.native_new(data)
        if self.last_provider is None:
            self.last_provider = provider
        h = self.maker()
        if type(data) is bytes:
            h._h = provider.new(data)
        else:
            h._h = provider.new()
            if data:
                h.update(data)
        slot.calls += 1
        return h


class MerkleDamgardHash:
    """The methods of MD5, SHA-1, SHA-2 and RIPEMD-160 objects, shared by their classes.

    Each hash's class is made by :func:`speedups.hash_class` (in C where
    compiled: a ``HashCore`` holding the OpenSSL object in ``_h``, whose
    ``digest()`` and ``hexdigest()`` have no Python frame) with these
    functions and the hash's facts as class attributes: ``_front`` (its
    :class:`HashFront`), ``digest_size``, ``block_size``, ``oid``.
    """

    _front: HashFront
    _h: Any

    def update(self, data):
        if type(data) is bytes or plain(data):
            self._h.update(data)
        else:
            self._h.update(self._front.coerce(data))

    def copy(self):
        clone = self._front.maker()
        clone._h = self._h.copy()
        return clone

    def new(self, data=None):
        return self._front.fresh(data)

    def __init__(self, data=None):
        # MD5's, SHA-1's, SHA-2's: native's signature (SHA-512's is _sha512_init)
        self._front.start(self, data)


def _merkle_damgard_class(native_cls: type, native_obj: Any, front: HashFront, init: Any) -> type:
    """The class of one hash's objects (its maker set on ``front``), named as native's."""
    members = {
        "update": MerkleDamgardHash.update,
        "copy": MerkleDamgardHash.copy,
        "new": MerkleDamgardHash.new,
    }
    Hash = native_class(
        lambda namespace: speedups.hash_class(native_cls, namespace),
        native_cls,
        native_obj,
        front,
        init,
        members,
    )
    native_new = front.native_new
    _native_shape.install(Hash, ("_h",), lambda obj: native_new(), lambda cls: cls.__new__(cls))
    front.maker = speedups.blank(Hash)
    return Hash


def _installed_new(module: ModuleType, cls: type, slot: registry.Slot, slow_new: Callable):
    """``module.new(data=None)``: a bytes message flat, while the slot resolved; else ``slow_new``.

    Returns ``(installed, set_ctor)``: ``set_ctor(provider.new)`` arms the
    fast path (the compiled front's too), ``set_ctor(None)`` disarms it.
    """
    new_object = speedups.new_object
    ctor = None  # the provider's constructor, once the slot resolved to OpenSSL

    def new(data=None):
        if type(data) is bytes and ctor is not None:
            h = new_object(cls)
            h._h = ctor(data)
            slot.calls += 1
            return h
        return slow_new(data)

    installed = speedups.hash_new(cls, slot, new, module.new)

    def set_ctor(value: Callable | None) -> None:
        nonlocal ctor
        ctor = value
        if installed is not new:
            installed.ctor = value

    registry.reset_listeners.append(lambda: set_ctor(None))
    return installed, set_ctor


def patch_merkle_damgard(module: ModuleType, entry: HashModule) -> None:
    """MD5, SHA-1, SHA-224/256/384, RIPEMD-160: ``new(data=None)``.

    Where calibration names a size from which native is faster
    (:func:`calibration.native_from_size`: RIPEMD-160 on OpenSSL 3.0), a
    one-shot message that long goes to native, and the flat fast path (which
    does not look at sizes) stays off.
    """
    native_new = module.new
    native_obj = native_new()
    slot = registry.slot(entry.primitive)
    front = HashFront(slot, native_new)
    cls = _merkle_damgard_class(type(native_obj), native_obj, front, MerkleDamgardHash.__init__)
    native_from = calibration.native_from_size(entry.primitive)

    def slow_new(data: Any) -> Any:
        provider = slot.get()
        if provider is None:
            return native_new(data)
        if native_from is None:
            set_ctor(provider.new)
        elif type(data) is bytes and len(data) >= native_from:
            return native_new(data)
        return front.fresh(data)

    installed, set_ctor = _installed_new(module, cls, slot, slow_new)
    patching.patch_attribute(module, "new", installed)  # named by hash_new
    patch_oneshot(module, slot, native_from)


def patch_alias(module: ModuleType, entry: HashModule) -> None:
    """A module that re-exports another's ``new`` (``Hash.RIPEMD``): the patched one.

    It imports the other module first, whose hook patched it then, so its
    ``new`` is the agent's already, or a stand-in waiting for the first
    call: that patch runs now, so that the alias holds what it installs.
    Either way the registry of originals records native's ``new`` for it
    (what ``restore_all`` puts back, and what a native run sees), and the
    agent's is installed.
    """
    prefix = module.__name__.split(".", 1)[0]
    source = sys.modules.get("%s.%s" % (prefix, entry.alias_of))
    if source is None:
        return
    try:
        original = patching.get_original(source.__name__, "new")
    except KeyError:
        return  # the source is not patched: nothing to follow
    if module.new is not original and module.new is not source.new:
        return  # the program replaced it: leave it be
    hooks.run_waiting(source.__name__)
    if not patching.is_patched(module.__name__, "new"):
        patching.set_value(module, "new", original)  # recorded as the original just below
    patching.patch_attribute(module, "new", source.new)


# --------------------------------------------------------------------------- SHA-512 and /t


def _sha512_init(self, data, truncate):
    """SHA-512's ``__init__``: another truncation makes an object of that variant, as natively."""
    front = self._front
    own = front.truncate
    if truncate is not own and truncate != own:
        family = front.family
        variant = family.classes.get(truncate) if type(truncate) in (str, type(None)) else None
        if variant is None:
            family.native_cls(data, truncate)  # raises what native raises for it
            raise ValueError("Incorrect truncation length. It must be '224' or '256'.")
        kind = type(self)
        # As natively, the object is of the class called, holding that variant.
        self.__class__ = variant if kind in family.ours else _retargeted(kind, variant)
        variant.__init__(self, data, truncate)
        return
    front.start(self, data)


@functools.cache
def _retargeted(kind: type, variant: type) -> type:
    """A subclass of a program's subclass ``kind`` that holds another SHA-512 variant.

    ``Mine(data, "256")``, where ``Mine`` subclasses the class of a full
    SHA-512 object: the object stays an instance of ``Mine`` with the
    SHA-512/256 facts and methods.
    """
    members = {
        name: vars(variant)[name]
        for name in ("digest_size", "oid", "update", "copy", "new", "_front")
    }
    cls = type(kind.__name__, (kind,), members)
    cls.__qualname__ = kind.__qualname__
    cls.__module__ = kind.__module__
    return cls


class Sha512Family:
    """SHA-512 and its truncations (``truncate="224"`` or ``"256"``): three primitives."""

    def __init__(self, module: ModuleType, entry: HashModule) -> None:
        native_new = self.native_new = module.new
        self.native_cls: type = type(native_new())
        self.fronts: dict[Any, HashFront] = {}  # truncate -> its front
        self.classes: dict[Any, type] = {}  # truncate -> the class of that variant's objects
        for truncate, primitive in (entry.variants or {}).items():
            native_obj = native_new(None, truncate)
            front = HashFront(
                registry.slot(primitive), functools.partial(native_new, truncate=truncate)
            )
            front.truncate, front.family = truncate, self
            self.fronts[truncate] = front
            self.classes[truncate] = _merkle_damgard_class(
                self.native_cls, native_obj, front, _sha512_init
            )
        self.ours = frozenset(self.classes.values())
        # truncate -> (maker, slot, constructor) once its slot resolved to a provider:
        # new()'s flat path for SHA512.new(data, truncate="256") (cleared on a reset).
        self.truncated: dict[str, tuple] = {}
        self.set_ctor: Callable = lambda value: None
        # truncate -> set_ctor of the compiled front's variant (speedups.hash_variant)
        self.variant_ctors: dict[str, Callable] = {}

    def general_new(self, data: Any, truncate: Any) -> Any:
        if truncate is None or (type(truncate) is str and truncate in self.fronts):
            front = self.fronts[truncate]
        else:
            return self.native_new(data, truncate)
        slot = front.slot
        provider = slot.get()
        if provider is None:
            return self.native_new(data, truncate)
        if truncate is None:
            self.set_ctor(provider.new)
        else:
            self.truncated[truncate] = (front.maker, slot, provider.new)
            set_variant_ctor = self.variant_ctors.get(truncate)
            if set_variant_ctor is not None:
                set_variant_ctor(provider.new)
        if type(data) is bytes:
            h = front.maker()
            h._h = provider.new(data)
            slot.calls += 1
            return h
        return front.fresh(data)

    def oneshot(self, native_digest: Callable) -> Callable:
        """4.x's ``digest(data, truncate=...)``: the variant's provider for bytes data."""
        resolved = {t: ResolvedProvider(front.slot) for t, front in self.fronts.items()}

        def digest(data, **kwargs):
            truncate = kwargs.get("truncate")
            entry = None
            if kwargs.keys() <= {"truncate"} and (truncate is None or type(truncate) is str):
                entry = resolved.get(truncate)
            if entry is not None and type(data) is bytes:
                provider = entry.provider or entry.get()
                if provider is not None:
                    entry.slot.calls += 1
                    return provider.new(data).digest()
            return native_digest(data, **kwargs)

        return digest


def patch_sha512(module: ModuleType, entry: HashModule) -> None:
    """``SHA512.new(data=None, truncate=None)``: the full hash flat, the truncations general."""
    family = Sha512Family(module, entry)
    full_cls, full_slot = family.classes[None], family.fronts[None].slot
    new_object = speedups.new_object
    ctor = None  # SHA-512's constructor, once its slot resolved to OpenSSL
    general_new = family.general_new
    truncated = family.truncated

    def new(data=None, truncate=None):
        if type(data) is bytes:
            if truncate is None:
                if ctor is not None:
                    h = new_object(full_cls)  # SHA512.new(data): the common shape, flat
                    h._h = ctor(data)
                    full_slot.calls += 1
                    return h
            elif type(truncate) is str:
                flat = truncated.get(truncate)
                if flat is not None:  # SHA512.new(data, truncate="256"), flat too
                    maker, slot, truncated_ctor = flat
                    h = maker()
                    h._h = truncated_ctor(data)
                    slot.calls += 1
                    return h
        return general_new(data, truncate)

    installed = speedups.hash_new(full_cls, full_slot, new, family.native_new)

    def set_ctor(value: Callable | None) -> None:
        nonlocal ctor
        ctor = value
        if installed is not new:
            installed.ctor = value

    family.set_ctor = set_ctor
    # SHA512.new(data, truncate="256") in C too: without it that shape paid
    # new()'s Python frame, ~2.5k instructions of ~12k (SHA-384's ~8k).
    for truncate, cls in family.classes.items():
        if truncate is not None:
            family.variant_ctors[truncate] = speedups.hash_variant(
                installed, "truncate", truncate, cls, family.fronts[truncate].slot
            )

    def forget() -> None:
        set_ctor(None)
        truncated.clear()
        for set_variant_ctor in family.variant_ctors.values():
            set_variant_ctor(None)

    registry.reset_listeners.append(forget)
    patching.patch_attribute(module, "new", installed)  # named by hash_new
    native_digest = getattr(module, "digest", None)
    if native_digest is not None and callable(native_digest):
        install(module, "digest", family.oneshot(native_digest))
