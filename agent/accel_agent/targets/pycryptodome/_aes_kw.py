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

from accel_agent import speedups
from accel_agent.providers.block_ciphers import AES
from accel_agent.targets.pycryptodome._native_face import NativeFace, named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BLOCK_SIZE = AES.block_size  # the record's
MODE_KW, MODE_KWP = 13, 14
_MAX_LENGTH = 2**32  # native raises MessageTooLongError from here

# The layout of a fresh KwCipher or KwpCipher from AES.new(key, mode): the
# attributes the builder stores, in its order (_aes_one_shot_builders). The
# compiled AES.new is given them with fresh_values() (speedups.add_shape) and
# makes the same stores; tests/test_speedups.py holds both paths to it.
FRESH_FIELDS = ("_backing", "_provider", "_key", "_done")


def fresh_values(backing: Any) -> tuple:
    """FRESH_FIELDS' values as the builder stores them (the per-call ones as placeholders)."""
    return (backing, speedups.PROVIDER, speedups.KEY, False)


def _one_shot_methods(seal_step: int, seal_least: int, unseal_least: int, once: bool):
    """``seal`` and ``unseal`` for a mode that serves plaintexts of a multiple of
    ``seal_step`` bytes from ``seal_least`` on, and wrapped keys of a multiple of
    8 bytes from ``unseal_least`` on; ``once``: a seal or a good unseal marks
    the object used (``_done``), as native KW does and KWP does not.

    The lengths are the closure's, not class attributes: an instance's lookup
    of a class attribute is a slow path of CPython's, and these checks run
    on every message.
    """

    def seal(self: Any, plaintext: Any) -> bytes:
        kind = type(plaintext)
        if (kind is bytes or kind is bytearray) and not self._done:
            length = len(plaintext)
            if length % seal_step == 0 and seal_least <= length < _MAX_LENGTH:
                wrapped = self._provider.wrap(
                    self._key, plaintext if kind is bytes else bytes(plaintext)
                )
                if once:
                    self._done = True
                self._backing.slot.calls += 1
                return wrapped
        return self._native("seal", plaintext)

    def unseal(self: Any, ciphertext: Any) -> bytes:
        kind = type(ciphertext)
        if (kind is bytes or kind is bytearray) and not self._done:
            length = len(ciphertext)
            if length % 8 == 0 and length >= unseal_least:
                self._backing.slot.calls += 1
                provider = self._provider
                try:
                    key_data = provider.unwrap(
                        self._key, ciphertext if kind is bytes else bytes(ciphertext)
                    )
                except provider.InvalidUnwrap:
                    key_data = None
                if key_data is None:  # raised outside the handler: no OpenSSL error chained
                    raise ValueError(self._bad_unwrap)
                if once:
                    self._done = True
                return key_data
        return self._native("unseal", ciphertext)

    return seal, unseal


class _KeyWrap(NativeFace):
    """What both modes share: the native twin that serves what OpenSSL does not.

    Objects are made by ``AES.new``'s builder
    (:mod:`._aes_one_shot_builders`), which stores ``_backing``, ``_provider``,
    ``_key`` and ``_done`` (native's once-only flag, False) without an
    ``__init__`` frame.
    """

    block_size = BLOCK_SIZE
    _mode = MODE_KW
    _bad_unwrap = "Incorrect integrity check value"

    def _new_native(self) -> Any:
        return self._backing.native_new(self._key, self._mode)

    def _native(self, method: str, data: Any) -> Any:
        twin = self._backing.native_new(self._key, self._mode)
        twin._done = self._done
        try:
            return getattr(twin, method)(data)
        finally:
            self._done = twin._done


@named_as("KWMode")
class KwCipher(_KeyWrap):
    """pycryptodome's ``KWMode`` (RFC 3394), served by OpenSSL: whole semiblocks, two or more."""

    seal, unseal = _one_shot_methods(8, 16, 24, once=True)


@named_as("KWPMode")
class KwpCipher(_KeyWrap):
    """pycryptodome's ``KWPMode`` (RFC 5649), served by OpenSSL: any non-empty length."""

    _mode = MODE_KWP
    _bad_unwrap = "Incorrect decryption"
    seal, unseal = _one_shot_methods(1, 1, 16, once=False)  # native KWP never marks itself used
