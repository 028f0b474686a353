"""OpenSSL-backed objects that behave like pycryptodome's classic mode objects, for any cipher.

Each class mirrors one pycryptodome class (``EcbMode``, ``CbcMode``,
``CtrMode``, ``CfbMode``, ``OfbMode``), which pycryptodome too shares
between its block ciphers: the classes here are generic, and
:func:`classes_for` makes, once per :class:`~accel_agent.providers.block_ciphers.BlockCipher`
record, the subclasses that carry that cipher's block size. The same public attributes, the same
order rules (``encrypt`` after ``decrypt`` is a ``TypeError``), the same
results. Plain calls (bytes-like input, ``output=`` of the right kind and
size) go to OpenSSL. Anything else goes to a *twin*: a native pycryptodome
object built from the same key and brought to exactly the state this object
is in (chaining block, counter position, order rules). From then on the
twin serves every call, so exotic inputs are processed, and errors raised,
by pycryptodome itself, word for word, whatever its version.
"""

from __future__ import annotations

import sys

from accel_agent import catalog, registry
from accel_agent.providers.block_ciphers import BlockCipher
from accel_agent.providers.contexts import is_busy, when_free
from accel_agent.speedups import (
    COUNTER_BLOCKS_SERVED,
    KEY,
    PROVIDER,
    STREAM_UPDATE_FROM,
    CounterStream,
    cfb_segments_decrypt,
    ecb_method,
    fresh,
    stream_update,
)
from accel_agent.targets.pycryptodome import _buffers, _first_use
from accel_agent.targets.pycryptodome._native_face import NativeFace, named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

MODE_ECB, MODE_CBC, MODE_CFB, MODE_OFB, MODE_CTR = 1, 2, 3, 5, 6

ENCRYPT, DECRYPT = "encrypt", "decrypt"


class _Tail:
    """The last 32 bytes of a stream, kept cheaply (a reference when the chunk is long)."""

    __slots__ = ("_data",)

    def __init__(self, initial: bytes = b"") -> None:
        self._data = initial

    def push(self, chunk: Any) -> None:
        if len(chunk) >= 32:
            self._data = chunk if type(chunk) is bytes else bytes(chunk[-32:])
        elif chunk:
            self._data = bytes(self._data[-32:]) + bytes(chunk)

    def last(self, count: int) -> bytes:
        return bytes(self._data[-count:]) if count else b""


class _BlockMode(NativeFace):
    """What the five classic modes share: key, provider, twin, and call counting.

    No ``__slots__``: class attributes give a fresh object its state, so
    creating one (once per message, typically) sets few attributes.
    ``block_size`` is the cipher's (set by :func:`classes_for`).
    """

    block_size: int
    _twin = None  # the native object serving every call, once there is one

    def __init__(self, backing: Any, provider: Any, key: bytes) -> None:
        self._backing = backing  # the registry slot and the original new
        self._provider = provider
        self._key = key

    def _switch_to_twin(self) -> Any:
        """Build the native twin in this object's exact state; it serves every later call."""
        if self._twin is None:
            with _first_use.FIRST_USE_LOCK:
                if self._twin is None:
                    self._twin = self._build_twin()
        return self._twin

    def _build_twin(self) -> Any:
        raise NotImplementedError

    def _new_native(self) -> Any:
        """A fresh native object of this mode and key (what ``_fresh_twin`` makes)."""
        return self._fresh_twin()

    def _fresh_twin(self) -> Any:
        raise NotImplementedError

    @property
    def _state(self) -> Any:
        """pycryptodome's C state: code reaching for it gets a native twin's, which takes over."""
        return self._switch_to_twin()._state


@named_as("EcbMode")
class EcbCipher(_BlockMode):
    """pycryptodome's ``EcbMode``: whole blocks, no state, no order rules.

    ECB has no state to keep in step, so a call OpenSSL should not serve (an
    unusual input, an error, or a message past the size from which native is
    faster) goes to a native object made from the same key, call by call.
    """

    _encryptor = None
    _decryptor = None
    _native_from = sys.maxsize  # set per process from calibration

    def _build_twin(self) -> Any:
        return self._backing.native_new(self._key, MODE_ECB)

    _fresh_twin = _build_twin

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if (
            not _buffers.servable(plaintext, output, self.block_size)
            or len(plaintext) >= self._native_from
        ):
            return self._switch_to_twin().encrypt(plaintext, output=output)
        if self._encryptor is None:
            self._encryptor = self._provider.encryptor(self._key)
        self._backing.slot.calls += 1
        try:
            result = self._encryptor.update(plaintext)
        except RuntimeError as exc:
            if not is_busy(exc):
                raise
            result = None
        if result is None:
            # Another thread is inside the shared context; ECB keeps no state
            # between blocks, so a context of this call's own does the same work
            # (outside the handler: nothing chained to what it may raise).
            result = self._provider.encryptor(self._key).update(plaintext)
        return _buffers.deliver(result, output)

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if (
            not _buffers.servable(ciphertext, output, self.block_size)
            or len(ciphertext) >= self._native_from
        ):
            return self._switch_to_twin().decrypt(ciphertext, output=output)
        if self._decryptor is None:
            self._decryptor = self._provider.decryptor(self._key)
        self._backing.slot.calls += 1
        try:
            result = self._decryptor.update(ciphertext)
        except RuntimeError as exc:
            if not is_busy(exc):
                raise
            result = None
        if result is None:
            result = self._provider.decryptor(self._key).update(ciphertext)  # as in encrypt
        return _buffers.deliver(result, output)


def _processing(direction: str) -> Callable:
    """A streaming mode's ``encrypt`` or ``decrypt``: the method itself, ``direction`` bound.

    One function per direction, not a shared ``_process(direction, ...)``
    called by both: a frame less per message.
    """

    def method(self: _StreamingMode, data: Any, output: Any = None) -> bytes | None:
        current = self._direction
        if self._twin is None and (current is direction or current is None):
            # bytes without output= is by far the most common call: checked inline.
            if (output is None and type(data) is bytes) or _buffers.servable(data, output):
                length = len(data)
                if not length % self._unit and (
                    self._position + length <= self._limit or self._extend(direction, length)
                ):
                    context = self._context
                    if context is None:
                        context = self._first_use(direction, length)
                    if context is not None:
                        if output is not None and not self._whole_blocks:
                            return self._process_into(context, data, output, direction)
                        try:
                            if length < STREAM_UPDATE_FROM:
                                result = context.update(data)
                            else:
                                result = stream_update(context, data)  # no copy of the result
                        except RuntimeError:
                            # Another thread is inside the context: wait for it
                            # (providers.contexts), as if the calls came in turn.
                            result = when_free(stream_update, context, data)
                        if self._keeps_tails:
                            # _record(), inline for the common chunk: a long bytes
                            # object is kept by reference (_Tail.push).
                            chunk = data if direction is DECRYPT else result
                            if len(chunk) >= 32 and type(chunk) is bytes:
                                self._ciphertext_tail._data = chunk
                            else:
                                self._record(data, result, direction)
                        self._position += length
                        self._backing.slot.calls += 1
                        if output is None:
                            return result
                        return _buffers.deliver(result, output)
            # pycryptodome fixes the direction before it validates the input
            # (unless another thread's first call fixed it just now).
            if self._direction is None:
                self._direction = direction
        twin = self._switch_to_twin()
        return getattr(twin, direction)(data, output=output)

    method.__name__ = direction
    method.__qualname__ = "_StreamingMode." + direction
    return method


class _StreamingMode(_BlockMode):
    """Modes with pycryptodome's order rule: after encrypt only encrypt, after decrypt only decrypt.

    ``_position`` counts the bytes processed; subclasses say how a twin is
    brought to the same point (:meth:`_fresh_twin` plus :meth:`_catch_up`).
    """

    _direction = None
    _context = None
    _position = 0
    _unit = 1  # the input length must be a multiple of this (CBC: the block size)
    _whole_blocks = False  # whether _unit is the block size (classes_for sets it)
    _limit = sys.maxsize  # bytes OpenSSL can serve in this stream (CTR: until the counter wraps)
    # Whether the ciphertext's last bytes are kept (_ciphertext_tail, by _record()): what
    # a twin of CBC or CFB is brought to this state with (OFB and CTR need nothing).
    _keeps_tails = False
    # A first call this long means a stream native serves faster (CFB-8).
    _native_from = sys.maxsize

    def _twin_for_copy(self) -> Any:
        if self._twin is None and self._direction is None:
            return self._switch_to_twin()  # a copy before the first call (NativeFace.__copy__)
        return None

    encrypt = _processing(ENCRYPT)
    decrypt = _processing(DECRYPT)

    def _first_use(self, direction: str, length: int) -> Any:
        """Open OpenSSL's context once, even when threads share a new object.

        Two contexts opened from the same IV would reuse the key stream, so
        the first call decides under a lock; None sends the call to a twin
        (the other direction won the race, or native is faster for this
        stream, CFB-8).
        """
        with _first_use.FIRST_USE_LOCK:
            if self._twin is None and self._context is None:
                self._direction = direction
                if length < self._native_from:
                    self._context = self._open(direction)
            if self._direction is not direction:
                return None
            return self._context

    def _extend(self, direction: str, length: int) -> bool:
        """Whether a call past ``_limit`` can still be served here (CTR past OpenSSL's wrap)."""
        return False

    def _process_into(self, context: Any, data: Any, output: Any, direction: str) -> None:
        """A servable call with ``output=`` in a key stream mode (CTR, OFB, CFB): OpenSSL
        writes into the caller's buffer.

        ``update_into`` asks for room beyond the data only for a context whose
        block size is more than one byte (ECB and CBC: those copy ``update``'s
        result in); ``servable`` let through only an ``output`` of the data's
        length that is the input's memory or none of it, and OpenSSL works in
        place. So a decryption's ciphertext tail (CFB's) is taken before the
        call: in place, the input holds the plaintext after it.

        pyca/cryptography 51 and later refuse (``ValueError``, before
        reading anything) a buffer that overlaps the data, in place too: an
        in-place call is served by ``update`` and a copy into ``output``.
        """
        if self._keeps_tails and direction is DECRYPT:
            # a plain buffer's last 32 bytes, or bytes by reference (_Tail.push's rule)
            tail = data if type(data) is bytes else bytes(data[-32:])
        if output is data:
            _buffers.deliver(when_free(context.update, data), output)
        else:
            try:
                try:
                    context.update_into(data, output)
                except RuntimeError:
                    when_free(context.update_into, data, output)  # another thread is inside
            except ValueError:
                # two views of one memory, in place (servable let no other overlap through)
                _buffers.deliver(when_free(context.update, data), output)
        if self._keeps_tails:
            # _Tail copies a buffer's last bytes
            self._ciphertext_tail.push(tail if direction is DECRYPT else output)
        self._position += len(data)
        self._backing.slot.calls += 1
        return None

    def _build_twin(self) -> Any:
        twin = self._fresh_twin()
        if self._direction is not None:
            self._catch_up(twin, getattr(twin, self._direction))
        return twin

    def _open(self, direction: str) -> Any:
        raise NotImplementedError

    def _record(self, data: Any, result: bytes, direction: str) -> None:
        """Keep the ciphertext's tail (the method does it inline for a long bytes chunk)."""
        self._ciphertext_tail.push(result if direction == ENCRYPT else data)

    def _fresh_twin(self) -> Any:
        raise NotImplementedError

    def _catch_up(self, twin: Any, method: Callable) -> None:
        """Bring a fresh twin to ``_position`` (the base case: nothing to replay)."""
        method(b"")


@named_as("CbcMode")
class CbcCipher(_StreamingMode):
    """pycryptodome's ``CbcMode``; the chaining state is the last ciphertext block."""

    _whole_blocks = True
    _keeps_tails = True

    def __init__(self, backing: Any, provider: Any, key: bytes, iv: bytes) -> None:
        _BlockMode.__init__(self, backing, provider, key)
        self.iv = self.IV = iv
        self._ciphertext_tail = _Tail(iv)

    def _open(self, direction: str) -> Any:
        if direction == ENCRYPT:
            return self._provider.encryptor(self._key, self.iv)
        return self._provider.decryptor(self._key, self.iv)

    def _fresh_twin(self) -> Any:
        return self._backing.native_new(
            self._key, MODE_CBC, iv=self._ciphertext_tail.last(self.block_size)
        )


@named_as("CfbMode")
class CfbCipher(_StreamingMode):
    """pycryptodome's ``CfbMode`` (any input length).

    Segments of 8 bits and of the block run in OpenSSL's CFB. Other segment
    sizes (16 to 120 bits for AES) have no OpenSSL mode: their decryption
    runs batched over ECB (:class:`SegmentsDecryptor`), their encryption
    natively (each segment's register holds the ciphertext just made, so
    there is nothing to batch, and a call into OpenSSL per segment costs more
    than native's whole segment).

    Only ciphertext is kept (the last 32 bytes' worth, for a twin's shift
    register): a twin that must continue a partial CFB-128 segment while
    encrypting is given the plaintext that yields those ciphertext bytes,
    computed from the key stream then, never kept.
    """

    _cfb8_native_from = sys.maxsize  # set per process from calibration
    _keeps_tails = True

    def __init__(
        self, backing: Any, provider: Any, key: bytes, iv: bytes, segment_size: int
    ) -> None:
        _BlockMode.__init__(self, backing, provider, key)
        self.iv = self.IV = iv
        self._segment_size = segment_size
        if segment_size == 8:
            self._native_from = self._cfb8_native_from
        self._ciphertext_tail = _Tail(iv)

    def _open(self, direction: str) -> Any:
        # OpenSSL's CFB of this segment size, asked directly (not through the
        # provider's encryptor(key, iv, segment_size)): a frame less per message.
        segments = self._provider.by_segment.get(self._segment_size)
        if segments is None:
            # A segment size OpenSSL lacks: decryption batched over ECB,
            # encryption (serial by nature) native, through a twin.
            if direction == ENCRYPT:
                return None
            context = self._provider.block_encryptor(self._key)
            return SegmentsDecryptor(context, self.iv, self._segment_size // 8)
        if direction == ENCRYPT:
            return segments.encryptor(self._key, self.iv)
        return segments.decryptor(self._key, self.iv)

    def _partial(self) -> int:
        return self._position % (self._segment_size // 8)

    def _register(self) -> bytes:
        # The shift register holds the last block of ciphertext before the
        # current (partial) segment; CFB-8 segments are never partial.
        size = self.block_size
        return self._ciphertext_tail.last(size + self._partial())[:size]

    def _fresh_twin(self) -> Any:
        return self._backing.native_new(
            self._key, MODE_CFB, iv=self._register(), segment_size=self._segment_size
        )

    def _catch_up(self, twin: Any, method: Callable) -> None:
        partial = self._partial()
        ciphertext = self._ciphertext_tail.last(partial)
        if method.__name__ == ENCRYPT and partial:
            # The plaintext of the partial segment: its ciphertext XOR the key
            # stream block E(register).
            stream = self._backing.native_new(self._key, MODE_ECB).encrypt(self._register())
            method(bytes(c ^ k for c, k in zip(ciphertext, stream)))
        else:
            method(ciphertext)


class SegmentsDecryptor:
    """CFB decryption with a segment size OpenSSL lacks, as a context (``update``, ``update_into``).

    Every segment's shift register is a block of IV || ciphertext, all known
    before decrypting: ``speedups.cfb_segments_decrypt`` has one ECB context
    encrypt them in bulk. Kept: IV || ciphertext from the start of the
    current segment (at most a block and a segment).
    """

    __slots__ = ("_context", "_segment", "_history", "_position")

    def __init__(self, context: Any, iv: bytes, segment: int) -> None:
        self._context = context
        self._segment = segment
        self._history = iv
        self._position = 0

    def update(self, data: Any) -> bytes:
        return self._decrypt(data)

    def update_into(self, data: Any, buffer: Any) -> int:
        return self._decrypt(data, buffer)

    def _decrypt(self, data: Any, *into: Any) -> Any:
        segment, history = self._segment, self._history
        skip = self._position % segment
        window = history + data
        result = cfb_segments_decrypt(self._context, window, segment, skip, data, *into)
        self._position += len(data)
        # from the start of the (new) current segment: a block and its offset in it
        block_size = len(history) - skip
        self._history = window[len(window) - block_size - self._position % segment :]
        return result


@named_as("OfbMode")
class OfbCipher(_StreamingMode):
    """pycryptodome's ``OfbMode``; the state is the keystream block and the offset in it.

    Nothing of the data is kept: OFB's key stream depends on key and IV only,
    so a twin is brought to the same point by running it over as many zero
    bytes.
    """

    _keeps_tails = False

    def __init__(self, backing: Any, provider: Any, key: bytes, iv: bytes) -> None:
        _BlockMode.__init__(self, backing, provider, key)
        self.iv = self.IV = iv

    def _open(self, direction: str) -> Any:
        if direction == ENCRYPT:
            return self._provider.encryptor(self._key, self.iv)
        return self._provider.decryptor(self._key, self.iv)

    def _fresh_twin(self) -> Any:
        return self._backing.native_new(self._key, MODE_OFB, iv=self.iv)

    def _catch_up(self, twin: Any, method: Callable) -> None:
        _run_over_zeros(method, self._position)


def _run_over_zeros(method: Callable, count: int) -> None:
    """Move a native keystream object ``count`` bytes on (in steps of at most 1 MiB)."""
    method(b"")
    while count:
        step = min(count, 1 << 20)
        method(bytes(step))
        count -= step


class CounterBlock:
    """A CTR counter block as pycryptodome lays it out: prefix || counter field || suffix.

    Only the field counts, from ``start``, modulo ``2**(8*counter_len)``,
    big- or little-endian; the key stream would repeat after that many
    blocks, where pycryptodome raises. ``from_counter`` says whether it came
    as a ``Counter`` dict (a twin is made from one) or as ``nonce`` and
    ``initial_value``. The values are copied when the object is made, as
    native's ``new`` reads them then: a ``Counter`` dict reused for another
    cipher, or changed later, changes nothing here.
    """

    __slots__ = (
        "prefix",
        "counter_len",
        "suffix",
        "start",
        "little_endian",
        "from_counter",
        "openssl_follows",
    )

    def __init__(
        self,
        prefix: bytes,
        counter_len: int,
        suffix: bytes = b"",
        start: int = 0,
        little_endian: bool = False,
        from_counter: bool = False,
    ) -> None:
        self.prefix = prefix
        self.counter_len = counter_len
        self.suffix = suffix
        self.start = start
        self.little_endian = little_endian
        self.from_counter = from_counter
        # Whether OpenSSL's CTR (the whole block, big-endian) agrees until the
        # field wraps; an attribute, as every CTR object reads it twice.
        self.openssl_follows = not little_endian and not suffix

    def block(self, blocks_on: int = 0) -> bytes:
        """The counter block ``blocks_on`` blocks after the first."""
        width = self.counter_len
        value = (self.start + blocks_on) % (1 << (8 * width))
        order = "little" if self.little_endian else "big"
        return self.prefix + value.to_bytes(width, order) + self.suffix

    def native_arguments(self) -> dict:
        """What native's ``new`` is given for this counter (a fresh ``Counter`` dict, or nonce)."""
        if not self.from_counter:
            return {"nonce": self.prefix, "initial_value": self.start}
        return {
            "counter": {
                "counter_len": self.counter_len,
                "prefix": self.prefix,
                "suffix": self.suffix,
                "initial_value": self.start,
                "little_endian": self.little_endian,
            }
        }


def fresh_layout(cls: type, backing: Any, *args: Any) -> tuple[tuple[str, ...], tuple]:
    """The attributes ``cls(backing, provider, key, *args)`` sets, in its order, and their values.

    ``cls.__init__`` run once on the placeholders ``PROVIDER`` and ``KEY``
    (and whatever ``args`` hold: ``NONCE`` for an IV), so the compiled
    ``AES.new`` (``speedups.add_shape``) makes exactly what the builder
    makes; a ciphertext tail or a counter block, an object per message,
    becomes ``fresh``.
    """
    probe = object.__new__(cls)
    cls.__init__(probe, backing, PROVIDER, KEY, *args)
    fields, values = [], []
    for name, value in vars(probe).items():
        kind = type(value)
        if kind is _Tail or kind is CounterBlock:
            slots = kind.__slots__
            value = fresh(kind, slots, tuple(getattr(value, slot) for slot in slots))
        fields.append(name)
        values.append(value)
    return tuple(fields), tuple(values)


# The layout of a fresh CtrCipher, __init__'s stores in its order for a
# counter without a suffix (AES.new(key, AES.MODE_CTR, nonce=nonce)). The
# compiled AES.new makes the same stores (CtrBuilder.fresh_values,
# speedups.add_shape); tests/test_speedups.py holds both paths to it.
CTR_FRESH_FIELDS = ("_backing", "_provider", "_key", "_counter", "nonce", "_cycle", "_limit")


@named_as("CtrMode")
class CtrCipher(_StreamingMode):
    """pycryptodome's ``CtrMode``, for any counter block it takes.

    A big-endian counter without a suffix runs in OpenSSL's CTR until its
    field would wrap (OpenSSL carries into the prefix where pycryptodome
    wraps the field alone). Any other counter, and such a stream from the
    wrap on, runs on counter blocks this side makes and OpenSSL's ECB
    encrypts in bulk (``speedups.CounterStream``). A call that would go past
    the point where the key stream repeats goes to a twin, which raises
    native's error.
    """

    _keeps_tails = False  # a twin is rebuilt from the counter position alone

    def __init__(self, backing: Any, provider: Any, key: bytes, counter: CounterBlock) -> None:
        self._backing = backing  # _BlockMode.__init__, inline: once per message
        self._provider = provider
        self._key = key
        self._counter = counter
        if not counter.suffix:
            self.nonce = counter.prefix  # native has no nonce where there is a suffix
        field_blocks = 1 << (8 * counter.counter_len)
        # bytes before the key stream would repeat (pycryptodome raises there)
        self._cycle = field_blocks * self.block_size
        if counter.openssl_follows:
            # bytes OpenSSL's CTR serves before the field wraps
            self._limit = (field_blocks - counter.start) * self.block_size
        else:
            self._limit = self._cycle

    def _open(self, direction: str) -> Any:
        counter = self._counter
        if counter.openssl_follows:
            # counter.block(), inline: the start value fits its field (checked at new)
            block = counter.prefix + counter.start.to_bytes(counter.counter_len, "big")
            if direction == ENCRYPT:
                return self._provider.encryptor(self._key, block)
            return self._provider.decryptor(self._key, block)
        return self._counter_stream()

    def _counter_stream(self) -> Any:
        """Counter blocks for ECB from ``_position`` on (either direction: CTR is symmetric)."""
        counter = self._counter
        blocks_on, into_block = divmod(self._position, self.block_size)
        provider = self._provider
        stream = CounterStream(
            provider.block_encryptor(self._key),  # shared with the key's other streams
            counter.block(blocks_on),
            len(counter.prefix),
            counter.counter_len,
            counter.little_endian,
            provider.own_block_encryptor,  # where another thread is inside it
            self._key,
        )
        if into_block:
            stream.update(bytes(into_block))
        return stream

    def _extend(self, direction: str, length: int) -> bool:
        """Serve on past OpenSSL's wrap from counter blocks, up to where the key stream repeats."""
        if self._position + length > self._cycle or not COUNTER_BLOCKS_SERVED:
            return False
        with _first_use.FIRST_USE_LOCK:
            if self._twin is not None or self._direction not in (None, direction):
                return False
            self._direction = direction
            self._context = self._counter_stream()
            self._limit = self._cycle
        return True

    def _fresh_twin(self) -> Any:
        # Always from the original counter value: pycryptodome's wrap-around
        # check is relative to it.
        return self._backing.native_new(self._key, MODE_CTR, **self._counter.native_arguments())

    def _catch_up(self, twin: Any, method: Callable) -> None:
        _run_over_zeros(method, self._position)


# The generic classes, by pycryptodome's mode constant (the same in every cipher module).
GENERIC_CLASSES: dict[int, type] = {
    MODE_ECB: EcbCipher,
    MODE_CBC: CbcCipher,
    MODE_CFB: CfbCipher,
    MODE_OFB: OfbCipher,
    MODE_CTR: CtrCipher,
}
_CLASSES: dict[str, dict[int, type]] = {}


def classes_for(cipher: BlockCipher) -> dict[int, type]:
    """The mode classes of ``cipher`` (made once): the generic ones with its block size.

    Class attributes, not instance ones: a message pays no store for them,
    and the hot paths read them as they read any other class default.
    """
    made = _CLASSES.get(cipher.name)
    if made is None:
        made = {}
        for mode, generic in GENERIC_CLASSES.items():
            sized = {"block_size": cipher.block_size, "__module__": __name__}
            if getattr(generic, "_whole_blocks", False):
                sized["_unit"] = cipher.block_size
            made[mode] = type(generic.__name__, (generic,), sized)
        _compiled_ecb(made[MODE_ECB], cipher)
        made = _CLASSES.setdefault(cipher.name, made)
    return made


def _compiled_ecb(cls: type, cipher: BlockCipher) -> None:
    """``encrypt`` and ``decrypt`` of bytes in C, where the compiled path is built.

    A one-block call on a kept object (AES-KDF's million rounds) is mostly
    the method's own Python otherwise. Every object of ``cls`` is made by
    the ECB builder, whose backing has the slot of the cipher's ECB
    primitive: the calls served in C are counted there.
    """
    name = cipher.name + "-ecb"
    if name not in catalog.BY_NAME:
        return
    slot = registry.slot(name)
    for method, context_name in ((ENCRYPT, "_encryptor"), (DECRYPT, "_decryptor")):
        function = getattr(EcbCipher, method)
        setattr(cls, method, ecb_method(function, context_name, cipher.block_size, slot))


def apply_calibration(cipher: BlockCipher) -> None:
    """Sizes from which native pycryptodome is faster (calibration.NATIVE_FROM_SIZE).

    ECB calls from that size, and CFB-8 streams whose first call is that
    long, go to native.
    """
    from accel_agent import calibration

    classes = classes_for(cipher)
    ecb_from = calibration.native_from_size(cipher.name + "-ecb")
    cfb8_from = calibration.native_from_size(cipher.name + "-cfb8")
    classes[MODE_ECB]._native_from = ecb_from or sys.maxsize
    classes[MODE_CFB]._cfb8_native_from = cfb8_from or sys.maxsize
