"""The compiled fast path (``accel_agent._speedups``) or its pure-Python equivalents.

A few per-message steps cost more in Python than the project's per-call
targets allow (docs/per-call-cost.md, "The compiled fast path"): the
``(ct, tag)`` split of an AEAD result, the call of ``AES.new`` for GCM, and
the frames of a hash module's ``new`` and ``digest``, and the copy a
streaming context's ``update`` makes of its result, and the counter
blocks of a CTR counter OpenSSL's CTR cannot follow, and the shift
registers of CFB decryption with segments OpenSSL lacks, and the modular
inverse of an ECDSA nonce computed outside OpenSSL. The wheel compiles
them where a C compiler is found (``hatch_build.py``); everywhere else the
functions and classes below do the same in Python, a little slower. Callers
use only the names defined here, never ``_speedups`` directly, so both
paths run the same code around them.

``COMPILED`` says which path this process uses (``status()`` reports
``STATE`` as ``speedups``); ``ACCEL_AGENT_SPEEDUPS=off``, read once when this module is
first imported, picks the pure-Python path where the compiled one exists.
Importing this module imports neither cryptography nor pycryptodome:
targets import it when they patch, never at start-up.
"""

from __future__ import annotations

import functools
import sys
import threading

from accel_agent import config, messages
from accel_agent.providers.contexts import is_busy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_allowed, _problem = config.speedups_choice()  # ACCEL_AGENT_SPEEDUPS=off: pure Python
if _problem:
    messages.problem(_problem)
_speedups = None
if _allowed:
    try:
        from accel_agent import _speedups
    except ImportError:  # not built here (no C compiler or no Python headers)
        _speedups = None

COMPILED = _speedups is not None
# What status() reports as "speedups": compiled, off (the setting), or not-built.
STATE = "compiled" if COMPILED else "not-built" if _allowed else "off"
TAG_SIZE = 16  # the tag pyca/cryptography's AEADs append
AEAD_MAX_SIZE = 2**31 - 1  # the most data pyca/cryptography's one-shot AEAD calls take


# Each STATE for people (describe(); verify's "fast path" row).
DESCRIPTIONS = {
    "compiled": "compiled (accel_agent._speedups)",
    "off": "pure Python (%s=off; slower per call)" % config.ENV_SPEEDUPS,
    "not-built": "pure Python (the C fast path was not built here; slower per call)",
}


def describe() -> str:
    """One line for people: which path this process uses."""
    return DESCRIPTIONS[STATE]


def _seal_split(encrypt: Callable, nonce: bytes, data: bytes, aad: Any, mac_len: int) -> tuple:
    """``encrypt(nonce, data, aad)`` (ct || tag) as ``(ct, tag[:mac_len])``."""
    sealed = encrypt(nonce, data, aad)
    tag = sealed[-TAG_SIZE:] if mac_len == TAG_SIZE else sealed[-TAG_SIZE : mac_len - TAG_SIZE]
    return sealed[:-TAG_SIZE], tag


def _open_joined(decrypt: Callable, nonce: bytes, ct: bytes, tag: bytes, aad: Any) -> bytes:
    """``decrypt(nonce, ct || tag, aad)``."""
    return decrypt(nonce, ct + tag, aad)


def _stream_update(context: Any, data: Any) -> bytes:
    """``context.update(data)`` (the compiled one saves the copy of its result)."""
    return context.update(data)


class _CounterStream:
    """CTR's key stream for any counter block layout, from an ECB context (see the C type).

    The counter block is prefix || counter field || suffix; only the field
    counts, modulo ``2**(8*counter_len)``, little- or big-endian, as in
    pycryptodome. A call's counter blocks are encrypted in one call of the
    ECB context's ``update``; the data is XORed with them as big integers.
    A second thread calling in meanwhile is refused with "Already
    borrowed", as a busy pyca/cryptography context refuses. A shared ECB
    context another thread is inside is replaced by ``fresh(fresh_arg)``,
    one of the stream's own, and the call made again.
    """

    __slots__ = (
        "_context", "_fresh", "_prefix", "_suffix", "_value", "_width", "_order", "_rest",
        "_lock",
    )  # fmt: skip

    def __init__(
        self, context: Any, block: bytes, counter_offset: int, counter_len: int,
        little_endian: bool, fresh: Callable | None = None, fresh_arg: Any = None,
    ) -> None:
        end = counter_offset + counter_len
        self._context = context
        self._fresh = None if fresh is None else (fresh, fresh_arg)
        self._prefix = bytes(block[:counter_offset])
        self._suffix = bytes(block[end:])
        self._order = "little" if little_endian else "big"
        self._value = int.from_bytes(block[counter_offset:end], self._order)
        self._width = counter_len
        self._rest = b""  # the unused key stream of the last block
        self._lock = threading.Lock()

    def update(self, data: Any) -> bytes:
        if not self._lock.acquire(False):
            raise RuntimeError("Already borrowed")
        try:
            return self._crypt(bytes(data))
        finally:
            self._lock.release()

    def update_into(self, data: Any, buffer: Any) -> int:
        result = self.update(data)
        memoryview(buffer).cast("B")[: len(result)] = result
        return len(result)

    def _crypt(self, data: bytes) -> bytes:
        length = len(data)
        stream = self._rest
        if length > len(stream):
            size = len(self._prefix) + self._width + len(self._suffix)
            blocks = -(-(length - len(stream)) // size)
            value, width, order = self._value, self._width, self._order
            modulus = 1 << (8 * width)
            prefix, suffix = self._prefix, self._suffix
            counters = b"".join(
                [
                    prefix + ((value + i) % modulus).to_bytes(width, order) + suffix
                    for i in range(blocks)
                ]
            )
            try:
                stream += self._context.update(counters)
            except RuntimeError as exc:
                if self._fresh is None or not is_busy(exc):
                    raise
                fresh, fresh_arg = self._fresh
                self._context, self._fresh = fresh(fresh_arg), None
                stream += self._context.update(counters)
            self._value = (value + blocks) % modulus
        self._rest = stream[length:]
        if not length:
            return b""
        mixed = int.from_bytes(data, "big") ^ int.from_bytes(stream[:length], "big")
        return mixed.to_bytes(length, "big")


def _cfb_segments_decrypt(
    context: Any, window: bytes, segment: int, skip: int, data: Any, out: Any = None
) -> bytes | int:
    """CFB decryption with any segment size, batched (see the C function).

    ``window`` is IV || ciphertext from the start of the segment holding
    ``data[0]``, ``skip`` that byte's offset in its segment: every segment's
    shift register is a block of ``window``, so one ECB call encrypts them all.
    Given ``out``, the result is written there and its length returned.
    """
    data = bytes(data)
    size = len(window) - skip - len(data)
    segments = -(-(skip + len(data)) // segment)
    registers = b"".join([window[i * segment : i * segment + size] for i in range(segments)])
    stream = context.update(registers)
    pad = b"".join([stream[i * size : i * size + segment] for i in range(segments)])[skip:]
    result = b""
    if data:
        mixed = int.from_bytes(data, "big") ^ int.from_bytes(pad[: len(data)], "big")
        result = mixed.to_bytes(len(data), "big")
    if out is None:
        return result
    memoryview(out).cast("B")[: len(result)] = result
    return len(result)


def _inverse_mod(a: int, m: int) -> int:
    """``a**-1 mod m`` (ValueError when there is none), by Python's own ``pow``."""
    return pow(a, -1, m)


def _compiled_inverse_mod(a: int, m: int) -> int:
    """``a**-1 mod m``: the compiled binary algorithm where it applies, else ``pow``.

    The compiled one takes an odd ``m`` of at most 576 bits and ``0 < a < m``
    (every ECDSA order and a nonce); its time depends on ``a``, so callers
    pass blinded values (``providers/ecc.py``).
    """
    if type(a) is int and type(m) is int and 0 < a < m and m & 1 and m.bit_length() <= 576:
        size = (m.bit_length() + 7) // 8
        inverse = _speedups.inverse_mod(a.to_bytes(size, "little"), m.to_bytes(size, "little"))
        if inverse is None:
            raise ValueError("base is not invertible for the given modulus")
        return int.from_bytes(inverse, "little")
    return pow(a, -1, m)


class _HashCore:
    """The base of the agent's hash objects: the OpenSSL hash object in ``_h``."""

    __slots__ = ("_h",)

    def digest(self) -> bytes:
        return self._h.digest()

    def hexdigest(self) -> str:
        return self._h.hexdigest()


if _speedups is not None:
    seal_split = _speedups.seal_split
    open_joined = _speedups.open_joined
    stream_update = _speedups.stream_update
    # From this many bytes stream_update() is cheaper than update(); callers
    # test it inline, so that shorter data pays no extra call.
    STREAM_UPDATE_FROM: int = _speedups.STREAM_COPY_SAVED_FROM
    HashCore: type = _speedups.HashCore
    CounterStream: type = _speedups.CounterStream
    cfb_segments_decrypt = _speedups.cfb_segments_decrypt
    # (left out of builds without 128-bit integers: pow there)
    inverse_mod = _compiled_inverse_mod if hasattr(_speedups, "inverse_mod") else _inverse_mod
    # Whether CTR counters OpenSSL's CTR cannot follow are served from
    # counter blocks (CounterStream). Compiled: 2.5-3x native at 1 KiB (most
    # of it native's new()), even with native's AES-NI CTR at 1 MiB. The
    # pure-Python blocks are slower than native from 1 KiB (measured: 1 KiB
    # 22.9 us against 14.7, 1 MiB 16.6 ms against 0.30), so they serve none.
    COUNTER_BLOCKS_SERVED = True
    # Whether CFB decryption with segments OpenSSL lacks is served, batched
    # (cfb_segments_decrypt): compiled only, as for the counter blocks.
    CFB_SEGMENTS_SERVED = True
else:
    seal_split = _seal_split
    open_joined = _open_joined
    stream_update = _stream_update
    STREAM_UPDATE_FROM = sys.maxsize  # the twin saves nothing
    HashCore = _HashCore
    CounterStream = _CounterStream
    cfb_segments_decrypt = _cfb_segments_decrypt
    inverse_mod = _inverse_mod
    COUNTER_BLOCKS_SERVED = False
    CFB_SEGMENTS_SERVED = False


def hash_class(native_cls: type, namespace: dict) -> type:
    """The class of the agent's objects for one hash: ``namespace`` on a ``HashCore``.

    It subclasses ``native_cls`` too, so ``isinstance`` against pycryptodome's
    class holds, and its objects have an instance dictionary and weak
    references, as native ones do. Compiled, it is made in C with a lean
    dealloc (``_speedups.hash_class``); otherwise it is an ordinary Python
    class. Either way it is named later by the caller
    (``targets/pycryptodome/hashes.py``).
    """
    members = {"digest": HashCore.digest, "hexdigest": HashCore.hexdigest, **namespace}
    if _speedups is None:
        return type(native_cls.__name__, (native_cls, HashCore), {"__slots__": (), **members})
    name = "%s.%s" % (native_cls.__module__, native_cls.__qualname__)
    cls = _speedups.hash_class(name, native_cls)
    for key, value in members.items():
        setattr(cls, key, value)
    return cls


# new_object(cls): an empty object of a hash_class class, no __init__ run (the
# cheapest way to make one in Python: object.__new__ where the base is Python).
new_object: Callable[[type], Any] = HashCore.__new__ if _speedups is not None else object.__new__


def blank(cls: type) -> Callable[[], Any]:
    """A maker of empty objects of a ``hash_class`` class: no ``__init__`` runs."""
    return functools.partial(new_object, cls)


def _named_like(original: Callable, fallback: Callable, make_front: Callable) -> Any:
    """``fallback``, or the compiled front ``make_front()`` builds on it; named as ``original``.

    Both carry the native function's name, documentation and ``__wrapped__``
    (``functools.update_wrapper``): the fallback's argument errors then read
    "new() takes ..." as native's do.
    """
    functools.update_wrapper(fallback, original)
    if _speedups is None:
        return fallback
    front = make_front()
    functools.update_wrapper(front, original)
    return front


def hash_new(cls: type, slot: Any, fallback: Callable, original: Callable) -> Any:
    """A hash module's ``new``: ``fallback`` itself, or a compiled front for its common shape.

    The compiled front serves ``new(data)`` with ``bytes`` data itself once
    its ``ctor`` attribute is the provider's constructor (None: every call
    goes to ``fallback``); ``fallback`` is the Python ``new`` with the same
    signature, which serves everything else. Without the compiled path the
    Python ``new`` is returned as it is. Either is named as ``original``.
    """

    def make_front() -> Any:
        front = _speedups.HashNew(cls, slot, fallback)
        slot.counters.append(front)  # it counts the calls it serves itself
        return front

    return _named_like(original, fallback, make_front)


def hash_variant(
    front: Any, keyword: str, value: str, cls: type, slot: Any
) -> Callable[[Callable | None], None]:
    """Have a compiled hash ``new`` (``hash_new``'s front) serve one variant too.

    ``new(data, value)`` and ``new(data, keyword=value)``, with bytes data
    and ``value`` an exact ``str``, make a ``cls`` around the variant's
    constructor, counted for ``slot`` (SHA-512's ``truncate="256"``).
    Returns ``set_ctor``: the constructor arms it, None disarms it (every
    such call then goes to the Python ``new``). Without the compiled path
    the Python ``new`` serves the variant itself and ``set_ctor`` does nothing.
    """
    if _speedups is None or type(front) is not _speedups.HashNew:
        return lambda ctor: None
    variant = _speedups.HashNew(cls, slot, front.fallback)
    slot.counters.append(variant)  # it counts the calls it serves
    front.add_variant(keyword, value, variant)

    def set_ctor(ctor: Callable | None) -> None:
        variant.ctor = ctor

    return set_ctor


def keyword_new(
    flat: Callable, general: Callable, python_new: Callable, original: Callable, key_size: int
) -> Any:
    """A ChaCha module's ``new``: ``python_new`` itself, or a compiled front doing the same.

    ``python_new`` (``targets/pycryptodome/chacha.py``'s ``_keyword_new``)
    hands ``new(key=key, nonce=nonce)``, bytes with a ``key_size`` key, to
    ``flat(key, nonce)`` and takes its object unless it is None; every other
    call goes to ``general(*args, **kwargs)``. The compiled front
    (``_speedups.KeywordNew``) does that without ``python_new``'s frame.
    Either is named as ``original``.
    """
    return _named_like(
        original, python_new, lambda: _speedups.KeywordNew(flat, general, key_size)
    )


def gcm_new(
    cls: type,
    fields: tuple[str, ...],
    backing: Any,
    slot: Any,
    unresolved: object,
    fallback: Callable,
    original: Callable,
    shape: tuple[int, tuple[int, ...], range],
) -> Any:
    """``AES.new``: ``fallback`` itself, or a compiled front for its GCM shape.

    ``shape`` is (the mode's constant, the cipher's key sizes, the nonce
    sizes), from the records. The compiled front serves ``new(key, mode,
    nonce=nonce)`` with bytes key and nonce of those sizes, while ``slot.provider`` is a provider,
    the way the Python fast path at the top of ``fallback`` does (see
    ``targets/pycryptodome/aes.py``); every other call goes to ``fallback``.
    It makes a ``cls`` and sets the five attributes ``fields`` names (the
    class's ``__init__`` order) to backing, provider, key, nonce and the
    one-shot token. Either is named as ``original``.
    """
    return _named_like(
        original,
        fallback,
        lambda: _speedups.GcmNew(
            cls, fields, backing, slot, unresolved, fallback,
            mode=shape[0], key_sizes=tuple(shape[1]),
            nonce_min=min(shape[2]), nonce_max=max(shape[2]),
        ),  # fmt: skip
    )


# The compiled methods' type (ecb_method), which code that wraps an object's
# methods (shadow mode's followers) takes for methods, as it takes functions.
METHOD_TYPES: tuple[type, ...] = (_speedups.EcbMethod,) if _speedups is not None else ()

# Placeholders in the values of an added AES.new shape (add_shape): what each
# call puts there. Plain objects without the compiled path, where nothing reads them.
if _speedups is not None:
    PROVIDER, KEY, NONCE, KEYWORDS, _FRESH = (
        _speedups.PROVIDER, _speedups.KEY, _speedups.NONCE, _speedups.KEYWORDS, _speedups.FRESH
    )
else:
    PROVIDER, KEY, NONCE, KEYWORDS, _FRESH = object(), object(), object(), object(), object()


def fresh(cls: type, fields: tuple[str, ...], values: tuple) -> tuple:
    """A value of an added shape (add_shape) that is itself a fresh ``cls`` per call.

    Its ``fields`` are set, in that order, to ``values`` (placeholders
    filled, no further ``fresh`` inside): CTR's counter block.
    """
    return (_FRESH, cls, fields, values)


def add_shape(
    front: Any,
    mode: int,
    cls: type,
    fields: tuple[str, ...],
    values: tuple | Callable[[int], tuple],
    slot: Any,
    nonce_sizes: range | None = None,
    keyword: str = "nonce",
) -> None:
    """Have a compiled ``AES.new`` (``gcm_new``) serve ``new(key, mode, nonce=nonce)`` too
    (``iv=iv`` with ``keyword="iv"``).

    For bytes key and nonce of those sizes (``nonce_sizes`` None:
    ``new(key, mode)``, no keyword), while ``slot.provider`` is a provider,
    it makes a ``cls`` and sets ``fields``, in that order, to ``values``
    (or ``values(nonce size)``; ``values(0)`` without a nonce), where
    ``PROVIDER``, ``KEY`` and ``NONCE`` stand for the call's, ``KEYWORDS``
    for a new ``{"nonce": nonce}`` (``new``'s own keywords) and ``fresh()``
    for an object made per call. It must make exactly what the mode's
    Python path makes for that call. The first shape added for a mode
    stays; without the compiled path (the front is then the Python ``new``,
    which serves these calls itself) nothing changes and ``values`` is not
    called.
    """
    if _speedups is None or type(front) is not _speedups.GcmNew:
        return
    sizes = (0,) if nonce_sizes is None else nonce_sizes
    per_size = tuple(values if type(values) is tuple else values(size) for size in sizes)
    if nonce_sizes is None:
        front.add_shape(mode, cls, fields, per_size, slot)
    else:
        if list(nonce_sizes) != list(range(min(nonce_sizes), max(nonce_sizes) + 1)):
            raise ValueError("add_shape: the nonce sizes must be consecutive")
        front.add_shape(
            mode, cls, fields, per_size, slot,
            nonce_min=min(nonce_sizes), nonce_max=max(nonce_sizes), keyword=keyword,
        )  # fmt: skip


def ecb_method(function: Callable, context_name: str, block_size: int, slot: Any) -> Any:
    """An ECB class's ``encrypt`` or ``decrypt``: ``function``, or a compiled front for bytes.

    The compiled one (``_speedups.EcbMethod``) calls the context in the
    object's ``context_name`` attribute for bytes of whole blocks without
    ``output=``, shorter than the object's ``_native_from``, once that
    context is open, and counts those calls for ``slot`` (every object of
    the class is served through that slot); it hands every other call,
    and a context another thread is inside, to ``function``.
    """
    if _speedups is None:
        return function
    method = _speedups.EcbMethod(function, context_name, block_size)
    functools.update_wrapper(method, function)
    slot.counters.append(method)
    return method


def seal_one_shot_limit(copying_limit: int) -> int:
    """Up to what size a whole AEAD encryption should go to the one-shot call.

    The one-shot call returns ``ct || tag``: compiled, ``seal_split`` cuts it
    in place, so any size pyca/cryptography takes is cheaper than a stream;
    in Python the ciphertext is copied out, which past ``copying_limit``
    costs more than streaming.
    """
    return AEAD_MAX_SIZE if _speedups is not None else copying_limit
