"""``Crypto.Cipher.AES`` (and ``Cryptodome.Cipher.AES``) served by OpenSSL.

The patch replaces the module's ``new`` with a fast path (design.md, "Cost
of being there"): the common argument shapes are validated exactly as
pycryptodome does and served by an OpenSSL-backed object that behaves like
pycryptodome's own; anything unusual goes to the original ``new``. Inside
an accelerated object, any call whose input pycryptodome would reject, or
that is exotic (a strided memoryview, say), is handed to a native twin
built from the same key, so errors are pycryptodome's own, word for word.
"""

from __future__ import annotations

import functools

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _buffers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

MODE_ECB = 1
KEY_SIZES = (16, 24, 32)
BLOCK_SIZE = 16


class EcbCipher:
    """Behaves as pycryptodome's ``EcbMode``; whole blocks go to OpenSSL."""

    __slots__ = (
        "block_size",
        "_key",
        "_provider",
        "_slot",
        "_encryptor",
        "_decryptor",
        "_native_new",
        "_twin",
    )

    def __init__(
        self, slot: registry.Slot, provider: Any, key: bytes, native_new: Callable
    ) -> None:
        self.block_size = BLOCK_SIZE
        self._key = key
        self._slot = slot
        self._provider = provider
        self._encryptor = None
        self._decryptor = None
        self._native_new = native_new
        self._twin = None

    def _native(self) -> Any:
        """A native ECB object with the same key: ECB has no state to keep in step."""
        if self._twin is None:
            self._twin = self._native_new(self._key, MODE_ECB)
        return self._twin

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if not _buffers.servable(plaintext, output, BLOCK_SIZE):
            return self._native().encrypt(plaintext, output=output)
        if self._encryptor is None:
            self._encryptor = self._provider.encryptor(self._key)
        self._slot.calls += 1
        return _buffers.deliver(self._encryptor.update(plaintext), output)

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if not _buffers.servable(ciphertext, output, BLOCK_SIZE):
            return self._native().decrypt(ciphertext, output=output)
        if self._decryptor is None:
            self._decryptor = self._provider.decryptor(self._key)
        self._slot.calls += 1
        return _buffers.deliver(self._decryptor.update(ciphertext), output)


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one AES module (``Crypto`` or ``Cryptodome``)."""
    original_new = module.new
    ecb_slot = registry.slot("aes-ecb")

    def new(key: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if mode == MODE_ECB and not args and not kwargs and _buffers.is_key(key, KEY_SIZES):
            provider = ecb_slot.get()
            if provider is not None:
                return EcbCipher(ecb_slot, provider, bytes(key), original_new)
        return original_new(key, mode, *args, **kwargs)

    functools.update_wrapper(new, original_new)
    patching.patch_attribute(module, "new", new)
