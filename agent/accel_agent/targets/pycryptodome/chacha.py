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

import functools
import os

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome._chacha_aead import ChaCha20Poly1305Cipher

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

KEY_SIZE = 32
BLOCK_SIZE = 64
NONCE_SIZES = (8, 12, 24)
AEAD_NONCE_SIZES = (8, 12, 24)
_NEW_KEYWORDS = frozenset(("key", "nonce"))
# pyca/cryptography's counter word has 32 bits: a context cannot cross a
# multiple of 2**32 blocks, so 8-byte-nonce streams re-open one there.
_SPAN_BYTES = BLOCK_SIZE << 32

ENCRYPT, DECRYPT = "encrypt", "decrypt"


class Backing:
    """What an accelerated object needs from its patch: its registry slot and the original new."""

    __slots__ = ("slot", "native_new")

    def __init__(self, primitive: str, native_new: Callable) -> None:
        self.slot = registry.slot(primitive)
        self.native_new = native_new


def patch_chacha20(module: ModuleType) -> None:
    """Install the fast ``new`` on one ChaCha20 module (``Crypto`` or ``Cryptodome``)."""
    original_new = module.new
    backing = Backing("chacha20", original_new)
    slot = backing.slot

    def new(*args: Any, **kwargs: Any) -> Any:
        if not args and kwargs.keys() <= _NEW_KEYWORDS:
            key = kwargs.get("key")
            nonce = kwargs.get("nonce")
            if (
                _buffers.is_plain(key)
                and len(key) == KEY_SIZE
                and (nonce is None or (_buffers.is_plain(nonce) and len(nonce) in NONCE_SIZES))
            ):
                provider = slot.get()
                if provider is not None:
                    nonce = os.urandom(8) if nonce is None else bytes(nonce)
                    return ChaCha20Cipher(backing, provider, bytes(key), nonce)
        return original_new(*args, **kwargs)

    functools.update_wrapper(new, original_new)
    patching.patch_attribute(module, "new", new)


def patch_chacha20_poly1305(module: ModuleType) -> None:
    """Install the fast ``new`` on one ChaCha20_Poly1305 module."""
    original_new = module.new
    backings = {
        False: Backing("chacha20-poly1305", original_new),
        True: Backing("xchacha20-poly1305", original_new),
    }
    slots = {extended: backing.slot for extended, backing in backings.items()}

    def new(*args: Any, **kwargs: Any) -> Any:
        if not args and kwargs.keys() <= _NEW_KEYWORDS:
            key = kwargs.get("key")
            nonce = kwargs.get("nonce")
            if (
                _buffers.is_plain(key)
                and len(key) == KEY_SIZE
                and (nonce is None or (_buffers.is_plain(nonce) and len(nonce) in AEAD_NONCE_SIZES))
            ):
                extended = nonce is not None and len(nonce) == 24
                provider = slots[extended].get()
                if provider is not None:
                    nonce = os.urandom(12) if nonce is None else bytes(nonce)
                    return ChaCha20Poly1305Cipher(backings[extended], provider, bytes(key), nonce)
        return original_new(*args, **kwargs)

    functools.update_wrapper(new, original_new)
    patching.patch_attribute(module, "new", new)


class ChaCha20Cipher:
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

    def __init__(self, backing: Any, provider: Any, key: bytes, nonce: bytes) -> None:
        self._backing = backing
        self._provider = provider
        self._key = key  # the key as given (XChaCha20's twin derives its subkey again)
        self.nonce = nonce
        if len(nonce) == 24:
            self._stream_key, self._stream_nonce = provider.extended(key, nonce)
        else:
            self._stream_key, self._stream_nonce = key, nonce
        # The counter has 32 bits with a 12-byte nonce (and XChaCha20's), 64 with
        # an 8-byte one. Calls that reach the last block go to a twin: native
        # decides what happens at the end of the key stream.
        # seek() into that last block is refused by pycryptodome 3.x, accepted by
        # 4.x: a twin decides that too.
        counter_bits = 64 if len(self._stream_nonce) == 8 else 32
        self._limit = BLOCK_SIZE * ((1 << counter_bits) - 1)

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        return self._process(ENCRYPT, plaintext, output)

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
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
        position = self._position
        end = position + len(data)
        context = self._context or self._open(position)
        boundary = (position // _SPAN_BYTES + 1) * _SPAN_BYTES
        if end <= boundary:
            result = context.update(data)
        else:  # only with an 8-byte nonce, past 256 GiB: OpenSSL's counter word is full
            split = boundary - position
            result = context.update(data[:split]) + self._open(boundary).update(data[split:])
        self._position = end
        return result

    def _open(self, position: int) -> Any:
        block, offset = divmod(position, BLOCK_SIZE)
        context = self._provider.keystream_context(self._stream_key, self._stream_nonce, block)
        if offset:
            context.update(bytes(offset))
        self._context = context
        return context

    def seek(self, position: int) -> None:
        if self._twin is None and type(position) is int and 0 <= position < self._limit:
            self._position = position
            self._context = None
            return None
        return self._switch_to_twin().seek(position)

    @property
    def _state(self) -> Any:
        """pycryptodome's C state: code reaching for it gets a native twin's, which takes over."""
        return self._switch_to_twin()._state

    def _switch_to_twin(self) -> Any:
        """Build the native twin at this object's position and order-rule state."""
        if self._twin is None:
            twin = self._backing.native_new(key=self._key, nonce=self.nonce)
            if self._position:
                twin.seek(self._position)
            if self._direction is not None:
                getattr(twin, self._direction)(b"")
            self._twin = twin
            self._context = None
        return self._twin
