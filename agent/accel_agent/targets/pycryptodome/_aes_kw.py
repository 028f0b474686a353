"""OpenSSL-backed objects that behave like pycryptodome 4.x's ``KWMode`` and ``KWPMode``.

AES key wrap (RFC 3394, NIST SP 800-38F KW) and key wrap with padding (RFC
5649, KWP): pycryptodome runs the 6n rounds in Python over an ECB object;
pyca/cryptography's ``keywrap`` functions run them in one call. What the
fast path serves: bytes or bytearray of a length native accepts. Anything
else (another buffer type, a length native refuses, the object already used)
goes to a native object given this object's ``_done`` flag, so that
pycryptodome itself raises or answers, and the flag comes back.

The integrity check of an unwrap is OpenSSL's; its failure raises the
ValueError native raises, with native's message.
"""

from __future__ import annotations

from accel_agent.providers.block_ciphers import AES
from accel_agent.targets.pycryptodome._native_face import NativeFace, named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BLOCK_SIZE = AES.block_size  # the record's
MODE_KW, MODE_KWP = 13, 14
_PLAIN = (bytes, bytearray)
_MAX_LENGTH = 2**32  # native raises MessageTooLongError from here


class _KeyWrap(NativeFace):
    """``seal`` / ``unseal`` and the once-only flag both modes share."""

    block_size = BLOCK_SIZE
    _done = False  # native's flag: KW sets it after a seal or a good unseal, KWP never does
    _mode = MODE_KW
    _bad_unwrap = "Incorrect integrity check value"

    def __init__(self, backing: Any, provider: Any, key: bytes) -> None:
        self._backing = backing
        self._provider = provider
        self._key = key

    def _new_native(self) -> Any:
        return self._backing.native_new(self._key, self._mode)

    def _native(self, method: str, data: Any) -> Any:
        twin = self._backing.native_new(self._key, self._mode)
        twin._done = self._done
        try:
            return getattr(twin, method)(data)
        finally:
            self._done = twin._done

    def _sealable(self, length: int) -> bool:
        raise NotImplementedError

    def _unsealable(self, length: int) -> bool:
        raise NotImplementedError

    def seal(self, plaintext: Any) -> bytes:
        if type(plaintext) not in _PLAIN or self._done or not self._sealable(len(plaintext)):
            return self._native("seal", plaintext)
        wrapped = self._provider.wrap(self._key, bytes(plaintext))
        self._sealed()
        self._backing.slot.calls += 1
        return wrapped

    def unseal(self, ciphertext: Any) -> bytes:
        if type(ciphertext) not in _PLAIN or self._done or not self._unsealable(len(ciphertext)):
            return self._native("unseal", ciphertext)
        self._backing.slot.calls += 1
        try:
            key_data = self._provider.unwrap(self._key, bytes(ciphertext))
        except self._provider.InvalidUnwrap:
            raise ValueError(self._bad_unwrap) from None
        self._sealed()
        return key_data

    def _sealed(self) -> None:
        self._done = True


@named_as("KWMode")
class KwCipher(_KeyWrap):
    """pycryptodome's ``KWMode`` (RFC 3394), served by OpenSSL."""

    def _sealable(self, length: int) -> bool:
        return length % 8 == 0 and 16 <= length < _MAX_LENGTH

    def _unsealable(self, length: int) -> bool:
        return length % 8 == 0 and length >= 24


@named_as("KWPMode")
class KwpCipher(_KeyWrap):
    """pycryptodome's ``KWPMode`` (RFC 5649), served by OpenSSL."""

    _mode = MODE_KWP
    _bad_unwrap = "Incorrect decryption"

    def _sealable(self, length: int) -> bool:
        return 0 < length < _MAX_LENGTH

    def _unsealable(self, length: int) -> bool:
        return length % 8 == 0 and length >= 16

    def _sealed(self) -> None:
        pass  # native KWP never marks itself used
