"""AES through OpenSSL (pyca/cryptography).

Each factory returns a provider object whose methods take a key and give
OpenSSL cipher contexts; the pycryptodome target wraps them in objects that
behave like pycryptodome's own.
"""

from __future__ import annotations

from accel_agent.providers.base import ProviderUnavailable

KEY_SIZES = (16, 24, 32)
BLOCK_SIZE = 16


def _cryptography_ciphers():
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None
    return Cipher, algorithms, modes


class EcbProvider:
    """AES-ECB: whole blocks, no state between calls."""

    name = "openssl"
    primitive = "aes-ecb"

    def __init__(self) -> None:
        Cipher, algorithms, modes = _cryptography_ciphers()
        self._cipher = Cipher
        self._aes = algorithms.AES
        self._ecb = modes.ECB()

    def encryptor(self, key: bytes):
        """A context whose ``update(data)`` encrypts whole blocks."""
        return self._cipher(self._aes(key), self._ecb).encryptor()

    def decryptor(self, key: bytes):
        return self._cipher(self._aes(key), self._ecb).decryptor()


def ecb_provider() -> EcbProvider:
    return EcbProvider()
