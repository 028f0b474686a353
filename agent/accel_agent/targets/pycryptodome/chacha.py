"""``Crypto.Cipher.ChaCha20`` and ``ChaCha20_Poly1305`` (and ``Cryptodome``'s) on OpenSSL.

Each patch replaces the module's ``new`` with a fast path for the common
shape, ``new(key=..., nonce=...)`` with plain buffers of valid lengths (or no
nonce), validated as pycryptodome validates it. Anything else (``threads``,
a positional argument, a wrong length or type) goes to the original ``new``,
so pycryptodome raises its own errors and serves its own extensions.

:class:`ChaCha20Cipher` mirrors pycryptodome's class of the same name. It
serves plain calls from an OpenSSL context positioned at its keystream
offset; anything else (an exotic buffer, an order-rule error, a ``seek`` out
of range, a call that would reach the last block of the counter space, where
pycryptodome raises and OpenSSL would carry into the nonce) goes to a native
twin brought to the same position with ``seek()``, which then serves every
later call. The AEAD object lives in :mod:`._chacha_aead`.
"""

from __future__ import annotations

import os

from accel_agent import patching, registry, speedups
from accel_agent.providers.contexts import when_free
from accel_agent.targets.pycryptodome import _buffers, _first_use
from accel_agent.targets.pycryptodome._chacha_aead import ChaCha20Poly1305Cipher
from accel_agent.targets.pycryptodome._native_face import NativeFace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

KEY_SIZE = 32
BLOCK_SIZE = 64
NONCE_SIZES = (8, 12, 24)
AEAD_NONCE_SIZES = (8, 12, 24)
_NEW_KEYWORDS = frozenset(("key", "nonce"))
_new_object = object.__new__
UNRESOLVED = registry.UNRESOLVED
_ABSENT = object()  # a keyword not given (None is a value pycryptodome accepts)
# pyca/cryptography's counter word has 32 bits: a context cannot cross a
# multiple of 2**32 blocks, so 8-byte-nonce streams re-open one there.
_SPAN_BYTES = BLOCK_SIZE << 32
_LIMIT_32 = BLOCK_SIZE * ((1 << 32) - 1)
_ZERO_COUNTER_32 = bytes(4)
_ZERO_COUNTER_64 = bytes(8)
_LIMIT_64 = BLOCK_SIZE * ((1 << 64) - 1)

ENCRYPT, DECRYPT = "encrypt", "decrypt"


class Backing:
    """What an accelerated object needs from its patch: its registry slot, the original
    new, and how a 24-byte nonce becomes XChaCha20's (subkey, 12-byte nonce)."""

    __slots__ = ("slot", "native_new", "extended", "hchacha20")

    def __init__(self, primitive: str, native_new: Callable, module: ModuleType) -> None:
        self.slot = registry.slot(primitive)
        self.native_new = native_new
        self.extended = native_extension(module)
        # native's _HChaCha20 itself, for new()'s flat path (no frame of extended's)
        hchacha20 = getattr(module, "_HChaCha20", None)
        self.hchacha20 = hchacha20 if callable(hchacha20) else None


def native_extension(module: ModuleType) -> Callable | None:
    """XChaCha20's (subkey, nonce) from pycryptodome's own HChaCha20, or None.

    Native XChaCha20 derives its subkey with ``_HChaCha20`` (its C code; the
    module's, or the one ``ChaCha20_Poly1305`` imports), so the subkey is
    native's by construction, in ~1.6 us where OpenSSL's ChaCha20 block
    costs ~3.3 us (a context per message). Without it the provider's
    ``extended`` (OpenSSL's block, self-checked) derives it.
    """
    hchacha20 = getattr(module, "_HChaCha20", None)
    if not callable(hchacha20):
        return None

    def extended(key: bytes, nonce24: bytes) -> tuple[bytes, bytes]:
        return bytes(hchacha20(key, nonce24[:16])), b"\x00\x00\x00\x00" + nonce24[16:]

    return extended


def _plain_arguments(kwargs: dict, nonce_sizes: tuple[int, ...]) -> tuple[bytes, Any] | None:
    """(key, nonce or None) when ``new(**kwargs)`` has the common shape and valid values."""
    if not kwargs.keys() <= _NEW_KEYWORDS:
        return None
    key = kwargs.get("key")
    if type(key) is not bytes:
        if not _buffers.is_plain(key):
            return None
        key = bytes(key)
    if len(key) != KEY_SIZE:
        return None
    nonce = kwargs.get("nonce")
    if nonce is not None:
        if type(nonce) is not bytes:
            if not _buffers.is_plain(nonce):
                return None
            nonce = bytes(nonce)
        if len(nonce) not in nonce_sizes:
            return None
    return key, nonce


def _keyword_new(flat: Callable, general: Callable) -> Callable:
    """A ChaCha module's ``new(*args, key=..., nonce=..., **kwargs)``.

    The most frequent call, ``new(key=key, nonce=nonce)`` with ``bytes`` and
    a 32-byte key, goes to ``flat(key, nonce)``, which builds the object
    without its ``__init__`` frame (per message, Python calls are the
    agent's cost) or returns None. Anything else goes to ``general`` with
    ``key`` and ``nonce`` put back as keywords. They bind as keyword
    parameters of their own (no dictionary lookups); where they sit among
    other keywords changes nothing pycryptodome says: 3.x's ``new`` takes
    both out first, and Python's error for an unexpected keyword of 4.x's
    ``new(*, key, nonce)`` names the first one in the caller's order.
    Compiled, :func:`speedups.keyword_new` does the same in C (no frame of
    this function's, nor its ``**kwargs`` dictionary); this is its twin.
    """

    def new(*args: Any, key: Any = _ABSENT, nonce: Any = _ABSENT, **kwargs: Any) -> Any:
        if (
            type(key) is bytes
            and type(nonce) is bytes
            and len(key) == KEY_SIZE
            and not kwargs
            and not args
        ):
            cipher = flat(key, nonce)
            if cipher is not None:
                return cipher
        if key is not _ABSENT:
            kwargs["key"] = key
        if nonce is not _ABSENT:
            kwargs["nonce"] = nonce
        return general(*args, **kwargs)

    return new


def patch_chacha20(module: ModuleType) -> None:
    """Install the fast ``new`` on one ChaCha20 module (``Crypto`` or ``Cryptodome``)."""
    original_new = module.new
    backing = Backing("chacha20", original_new, module)
    slot = backing.slot

    def flat(key: bytes, nonce: bytes) -> Any:
        # An 8- or 12-byte nonce: the stores in __init__'s order. The context
        # waits for the first call: opening it here measured 0.82x native
        # for new(), seek(), then a call (a context opened for nothing).
        size = len(nonce)
        provider = slot.provider
        if (size == 12 or size == 8) and provider is not None and provider is not UNRESOLVED:
            cipher = _new_object(ChaCha20Cipher)
            cipher._backing = backing
            cipher._provider = provider
            cipher._key = key
            cipher.nonce = nonce
            cipher._stream_key = key
            cipher._stream_nonce = nonce
            # Both limits stored for either size, in one order: objects of one
            # layout only. 8-byte objects that alone stored them cost ~4k
            # instructions more per message once 12-byte ones had been made.
            if size == 8:
                cipher._limit = _LIMIT_64
                cipher._context_end = _SPAN_BYTES
            else:
                cipher._limit = cipher._context_end = _LIMIT_32
            return cipher
        return None

    def general(*args: Any, **kwargs: Any) -> Any:
        if not args:
            plain = _plain_arguments(kwargs, NONCE_SIZES)
            if plain is not None:
                provider = slot.get()
                if provider is not None:
                    key, nonce = plain
                    return ChaCha20Cipher(backing, provider, key, nonce or os.urandom(8))
        return original_new(*args, **kwargs)

    new = speedups.keyword_new(flat, general, _keyword_new(flat, general), original_new, KEY_SIZE)
    patching.patch_attribute(module, "new", new)


def patch_chacha20_poly1305(module: ModuleType) -> None:
    """Install the fast ``new`` on one ChaCha20_Poly1305 module."""
    original_new = module.new
    backing = Backing("chacha20-poly1305", original_new, module)
    extended_backing = Backing("xchacha20-poly1305", original_new, module)
    slot, extended_slot = backing.slot, extended_backing.slot

    def flat(key: bytes, nonce: bytes) -> Any:
        # A 12- or 24-byte nonce: the attributes in __init__'s order (shared keys).
        size = len(nonce)
        if size == 12:
            provider = slot.provider
            if provider is not None and provider is not UNRESOLVED:
                cipher = _new_object(ChaCha20Poly1305Cipher)
                cipher._backing = backing
                cipher._provider = provider
                cipher._key = key
                cipher.nonce = nonce
                cipher._fresh = [True]
                cipher._aead_key = key
                cipher._aead_nonce = nonce
                return cipher
        elif size == 24:
            # XChaCha20-Poly1305: the subkey here too (the general path's
            # argument check and __init__ were ~1.5 us of a 64-byte message).
            provider = extended_slot.provider
            if provider is not None and provider is not UNRESOLVED:
                cipher = _new_object(ChaCha20Poly1305Cipher)
                cipher._backing = extended_backing
                cipher._provider = provider
                cipher._key = key
                cipher.nonce = nonce
                cipher._fresh = [True]
                hchacha20 = extended_backing.hchacha20
                if hchacha20 is not None:  # as native_extension's, in this frame
                    cipher._aead_key = bytes(hchacha20(key, nonce[:16]))
                    cipher._aead_nonce = _ZERO_COUNTER_32 + nonce[16:]
                else:
                    cipher._aead_key, cipher._aead_nonce = provider.extended(key, nonce)
                return cipher
        return None

    def general(*args: Any, **kwargs: Any) -> Any:
        if not args:
            plain = _plain_arguments(kwargs, AEAD_NONCE_SIZES)
            if plain is not None:
                key, nonce = plain
                if nonce is None:
                    nonce = os.urandom(12)
                if len(nonce) == 24:
                    provider = extended_slot.get()
                    if provider is not None:
                        return ChaCha20Poly1305Cipher(extended_backing, provider, key, nonce)
                else:
                    provider = slot.get()
                    if provider is not None:
                        return ChaCha20Poly1305Cipher(backing, provider, key, nonce)
        return original_new(*args, **kwargs)

    new = speedups.keyword_new(flat, general, _keyword_new(flat, general), original_new, KEY_SIZE)
    patching.patch_attribute(module, "new", new)


class ChaCha20Cipher(NativeFace):
    """pycryptodome's ``ChaCha20Cipher`` (ChaCha20 and XChaCha20), served by OpenSSL.

    No ``__slots__``: class attributes are a fresh object's state, so that
    creating one (once per message, typically) sets few attributes.
    """

    block_size = 1
    _threads = 1
    _twin = None  # the native ChaCha20Cipher serving every call, once there is one
    _direction = None  # pycryptodome's order rule: the first of encrypt/decrypt wins
    _context = None  # OpenSSL's context, positioned at _position
    _position = 0  # the offset in the keystream, in bytes
    # The counter has 32 bits with a 12-byte nonce (and XChaCha20's), 64 with
    # an 8-byte one. Calls that reach the last block go to a twin: native
    # decides what happens at the end of the key stream (and seek() into that
    # last block is refused by pycryptodome 3.x, accepted by 4.x).
    _limit = _LIMIT_32
    # Where the current OpenSSL context must stop: the limit, or for 8-byte
    # nonces the next multiple of 2**32 blocks (pyca/cryptography does not
    # carry into the high counter word).
    _context_end = _LIMIT_32

    def __init__(self, backing: Any, provider: Any, key: bytes, nonce: bytes) -> None:
        self._backing = backing
        self._provider = provider
        self._key = key  # the key as given (XChaCha20's twin derives its subkey again)
        self.nonce = nonce
        size = len(nonce)
        if size == 24:
            extended = backing.extended or provider.extended
            self._stream_key, self._stream_nonce = extended(key, nonce)
        else:
            self._stream_key, self._stream_nonce = key, nonce
        if size == 8:  # the same stores as flat's, in its order (one layout)
            self._limit = _LIMIT_64
            self._context_end = _SPAN_BYTES
        else:
            self._limit = self._context_end = _LIMIT_32

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if output is None and type(plaintext) is bytes and self._twin is None:
            end = self._position + len(plaintext)
            if end <= self._context_end and self._direction is not DECRYPT:
                self._direction = ENCRYPT
                context = self._context or self._open(self._position)
                self._position = end
                self._backing.slot.calls += 1
                try:
                    return context.update(plaintext)
                except RuntimeError:  # another thread is inside the context: wait for it
                    pass
                return when_free(context.update, plaintext)  # outside the handler
        return self._process(ENCRYPT, plaintext, output)

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if output is None and type(ciphertext) is bytes and self._twin is None:
            end = self._position + len(ciphertext)
            if end <= self._context_end and self._direction is not ENCRYPT:
                self._direction = DECRYPT
                context = self._context or self._open(self._position)
                self._position = end
                self._backing.slot.calls += 1
                try:
                    return context.update(ciphertext)
                except RuntimeError:  # another thread is inside the context: wait for it
                    pass
                return when_free(context.update, ciphertext)  # outside the handler
        return self._process(DECRYPT, ciphertext, output)

    def _process(self, direction: str, data: Any, output: Any) -> bytes | None:
        if self._twin is None and self._direction in (None, direction):
            # pycryptodome fixes the direction before it validates the input.
            self._direction = direction
            if _buffers.servable(data, output) and self._position + len(data) <= self._limit:
                result = self._keystream_xor(data)
                self._backing.slot.calls += 1
                return _buffers.deliver(result, output)
        return getattr(self._switch_to_twin(), direction)(data, output=output)

    def _keystream_xor(self, data: Any) -> bytes:
        """Any amount of data from the current position (re-opening at counter-word ends)."""
        result = b""
        view = memoryview(data) if len(data) > self._context_end - self._position else data
        while True:
            position = self._position
            context = self._context or self._open(position)
            room = self._context_end - position
            if len(view) <= room:
                self._position = position + len(view)
                return result + when_free(context.update, view) if result else when_free(
                    context.update, view
                )
            result += when_free(context.update, view[:room])
            view = view[room:]
            self._position = position + room
            self._context = None

    def _open(self, position: int) -> Any:
        """OpenSSL's context from ``position``, opened once even when threads share the object."""
        with _first_use.FIRST_USE_LOCK:
            context = self._context
            if context is None:
                if position:
                    return self._open_at(position)
                # The common case, a new message, in this frame (_context_end is set already).
                nonce = self._stream_nonce
                iv = (_ZERO_COUNTER_32 if len(nonce) == 12 else _ZERO_COUNTER_64) + nonce
                context = self._context = self._provider.context(self._stream_key, iv)
            return context

    def _open_at(self, position: int) -> Any:
        """A context at a nonzero ``position`` (after ``seek``, or past a counter-word end)."""
        block, offset = divmod(position, BLOCK_SIZE)
        context = self._provider.keystream_context(self._stream_key, self._stream_nonce, block)
        if offset:
            context.update(bytes(offset))
        if self._limit != _LIMIT_32:
            self._context_end = min(self._limit, (position // _SPAN_BYTES + 1) * _SPAN_BYTES)
        self._context = context
        return context

    def _new_native(self) -> Any:
        return self._backing.native_new(key=self._key, nonce=self.nonce)

    def seek(self, position: int) -> None:
        if self._twin is None and type(position) is int and 0 <= position < self._limit:
            self._position = position
            self._context = None
            if self._limit != _LIMIT_32:
                self._context_end = min(self._limit, (position // _SPAN_BYTES + 1) * _SPAN_BYTES)
            return None
        return self._switch_to_twin().seek(position)

    @property
    def _state(self) -> Any:
        """pycryptodome's C state: code reaching for it gets a native twin's, which takes over."""
        return self._switch_to_twin()._state

    def _twin_for_copy(self) -> Any:
        if self._twin is None and self._direction is None:
            return self._switch_to_twin()  # a copy before the first call (NativeFace.__copy__)
        return None

    def _switch_to_twin(self) -> Any:
        """Build the native twin at this object's position and order-rule state."""
        if self._twin is None:
            twin = self._backing.native_new(key=self._key, nonce=self.nonce)
            position = self._position
            if self._direction is None:
                if position:
                    twin.seek(position)  # below the last block: every version accepts it
            else:
                # Data has flowed: the position may be the start of the last
                # block, where 3.x refuses to seek. Seek a block earlier, then
                # process the rest in this object's direction.
                start = max(0, (position // BLOCK_SIZE - 1) * BLOCK_SIZE)
                if start:
                    twin.seek(start)
                getattr(twin, self._direction)(bytes(position - start))
            self._twin = twin
            self._context = None
        return self._twin
