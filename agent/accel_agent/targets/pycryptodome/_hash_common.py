"""What the hash and MAC targets share: input rules, class naming, installation.

The hash, SHA-3/SHAKE, BLAKE2, HMAC, CMAC and Poly1305 targets all take the
same inputs as they are (:func:`plain`), show anything else to native code
first (:class:`Coercer`), and name their classes as native's
(:func:`name_like`). This module owns those helpers; it imports none of the
targets, so none of them import each other for them.
"""

from __future__ import annotations

import functools
import types

from accel_agent import patching, registry
from accel_agent.constant_time import compare_digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable


def plain(data: Any) -> bool:
    """A bytearray or a 1-D, C-contiguous byte memoryview: hashed as it is, as bytes are."""
    kind = type(data)
    return kind is bytearray or (
        kind is memoryview and data.ndim == 1 and data.c_contiguous and data.format == "B"
    )


class Coercer:
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


def name_like(cls: type, native_cls: type) -> type:
    """Give ``cls`` native's name, module and documentation; count it among :data:`WRAPPERS`."""
    WRAPPERS.add(cls)
    cls.__name__ = native_cls.__name__
    cls.__qualname__ = native_cls.__qualname__
    cls.__module__ = native_cls.__module__
    cls.__doc__ = native_cls.__doc__
    return cls


def class_facts(native_obj: Any) -> dict[str, Any]:
    """``digest_size``, ``block_size`` and ``oid`` of a native object, those it has."""
    facts = {}
    for name in ("digest_size", "block_size", "oid"):
        value = getattr(native_obj, name, None)
        if value is not None:
            facts[name] = value
    return facts


def own_init(function: Callable, native_cls: type) -> Callable:
    """A copy of the ``__init__`` ``function`` named as native's (its argument errors read so).

    The module-level classes share one ``__init__`` between many hashes; each
    concrete class gets its own function object, so that "SHA256Hash.__init__()
    takes ..." names the class as natively.
    """
    copy = types.FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__qualname__ = "%s.__init__" % native_cls.__qualname__
    return copy


def native_class(
    make: Callable[[dict], type],
    native_cls: type,
    native_obj: Any,
    front: Any,
    init: Callable,
    members: dict | None = None,
) -> type:
    """The class of one hash's objects, ``make(namespace)``, named as ``native_cls``.

    What every hash kind's class holds besides its ``members``: its hash's
    ``front`` as ``_front``, native's facts (:func:`class_facts` of
    ``native_obj``) and a copy of ``init`` named as native's ``__init__``
    (:func:`own_init`). The class is counted among :data:`WRAPPERS`.
    """
    namespace = {
        **(members or {}),
        "__init__": own_init(init, native_cls),
        "_front": front,
        **class_facts(native_obj),
    }
    return name_like(make(namespace), native_cls)


def native_subclass(
    methods: type, native_cls: type, native_obj: Any, front: Any, slots: tuple
) -> type:
    """:func:`native_class`: ``methods`` on a subclass of ``native_cls`` (SHA-3, SHAKE, BLAKE2).

    The subclass keeps ``isinstance`` true; ``slots`` are its objects' own
    state, ``methods.__init__`` is native's constructor's signature.
    """
    return native_class(
        lambda namespace: type(native_cls.__name__, (methods, native_cls), namespace),
        native_cls,
        native_obj,
        front,
        methods.__init__,
        {"__slots__": slots},
    )


class SealedAfterDigest:
    """SHA-3's and BLAKE2's rule: ``update`` after ``digest`` only with ``update_after_digest``.

    A mixin of the module-level hash classes whose objects hold ``_h`` (the
    OpenSSL object), ``_done`` and ``_after``; their ``_front`` says how native
    refuses (``refuse_update``) and coerces (``coerce``).
    """

    __slots__ = ()
    _front: Any
    _h: Any
    _done: bool
    _after: bool

    def update(self, data):
        if self._done and not self._after:
            self._front.refuse_update()
        if type(data) is bytes or plain(data):
            self._h.update(data)
        else:
            self._h.update(self._front.coerce(data))
        return self

    def digest(self):
        self._done = True
        return self._h.digest()

    def hexdigest(self):
        return self.digest().hex()


class CheckedTag:
    """A MAC object's ``hexdigest`` and ``verify``, from its ``digest``.

    A bytes-like tag is compared here, in constant time; any other goes to
    ``_native_verify`` (a class attribute: the native class's ``verify``),
    which raises pycryptodome's own error for it.
    """

    __slots__ = ()
    _native_verify: Callable

    def hexdigest(self):
        return self.digest().hex()

    def verify(self, mac_tag):
        if type(mac_tag) is bytes or plain(mac_tag):
            if not compare_digest(mac_tag, self.digest()):
                raise ValueError("MAC check failed")
            return
        self._native_verify(mac_tag)


def install(module: ModuleType, name: str, replacement: Callable) -> None:
    """Put ``replacement`` in place of ``module.name``, named and documented as the original."""
    functools.update_wrapper(replacement, getattr(module, name))
    patching.patch_attribute(module, name, replacement)


class ResolvedProvider:
    """A slot's provider kept at hand for a hot path, forgotten when the registry resets.

    ``provider`` is None until :meth:`get` found one (and again after a
    reset); a hot path reads the attribute and calls :meth:`get` only while
    it is None.
    """

    __slots__ = ("slot", "provider")

    def __init__(self, slot: registry.Slot) -> None:
        self.slot = slot
        self.provider: Any = None
        registry.reset_listeners.append(self.forget)

    def get(self) -> Any:
        provider = self.provider = self.slot.get()
        return provider

    def forget(self) -> None:
        self.provider = None


class FlatConstructor:
    """A hash front's provider constructor, for the flat path of the module's ``new``.

    ``ctor`` is None until the general path served a call from the slot's
    provider (it sets ``ctor`` then) and again after a registry reset: the
    flat path, which reads the attribute and skips the slot, runs only while
    it is set.
    """

    __slots__ = ("ctor",)

    def __init__(self) -> None:
        self.ctor: Callable | None = None
        registry.reset_listeners.append(self.forget)

    def forget(self) -> None:
        self.ctor = None


def patch_oneshot(module: ModuleType, slot: registry.Slot, native_from: int | None = None) -> None:
    """4.x's module-level ``digest(data)``: same bytes as ``new(data).digest()``.

    ``native_from``: the message size from which native is faster, if any.
    """
    native_digest = getattr(module, "digest", None)
    if native_digest is None or not callable(native_digest):
        return
    resolved = ResolvedProvider(slot)
    limit = native_from if native_from is not None else float("inf")

    def digest(data):
        provider = resolved.provider or resolved.get()
        if provider is not None and type(data) is bytes and len(data) < limit:
            slot.calls += 1
            return provider.new(data).digest()
        return native_digest(data)

    install(module, "digest", digest)
