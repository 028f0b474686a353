"""AES-CMAC and Poly1305 through OpenSSL (pyca/cryptography).

A CMAC provider hands out OpenSSL CMAC contexts for an AES key
(``update``, ``copy``, ``finalize``); the Poly1305 provider hands out
contexts for a 32-byte one-time key ``r || s``. Nothing here knows
pycryptodome: how pycryptodome derives a Poly1305 key from a cipher and a
nonce stays in the target.
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable
from accel_agent.providers.block_ciphers import AES, algorithm_class

CMAC_KEY_SIZES = (16, 24, 32)


class CmacProvider:
    """AES-CMAC: ``new(key)`` is an OpenSSL context; ``finalize()`` gives the 16-byte tag."""

    name = "openssl"
    primitive = "aes-cmac"

    def __init__(self) -> None:
        self._cmac = cryptography_module("hazmat.primitives.cmac").CMAC
        self._aes = LastKeyReuse(algorithm_class(AES)).for_key  # base.LastKeyReuse

    def new(self, key: bytes):
        return self._cmac(self._aes(key))


class Poly1305Provider:
    """Poly1305: ``new(key32)`` is an OpenSSL context (``update``, ``finalize``)."""

    name = "openssl"
    primitive = "poly1305"

    def __init__(self) -> None:
        Poly1305 = cryptography_module("hazmat.primitives.poly1305").Poly1305
        try:
            Poly1305(bytes(32))
        except Exception as exc:  # noqa: BLE001 - UnsupportedAlgorithm on some OpenSSL builds
            raise ProviderUnavailable(
                "OpenSSL has no Poly1305 here (%s)" % type(exc).__name__
            ) from None
        self.new = Poly1305
        self.tag = Poly1305.generate_tag  # (key32, data) -> 16 bytes


def cmac_provider() -> CmacProvider:
    return CmacProvider()


def poly1305_provider() -> Poly1305Provider:
    return Poly1305Provider()
