"""AES-CMAC and Poly1305 through OpenSSL (pyca/cryptography).

A CMAC provider hands out OpenSSL CMAC contexts for an AES key
(``update``, ``copy``, ``finalize``); the Poly1305 provider hands out
contexts for a 32-byte one-time key ``r || s``. Nothing here knows
pycryptodome: how pycryptodome derives a Poly1305 key from a cipher and a
nonce stays in the target.
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable, key_reuse_enabled
from accel_agent.providers.block_ciphers import AES, algorithm_class

CMAC_KEY_SIZES = (16, 24, 32)


class CmacProvider:
    """AES-CMAC: ``new(key)`` is an OpenSSL context; ``finalize()`` gives the 16-byte tag.

    Making a CMAC context costs five times as much as copying one (1.06
    against 0.18 us here: ``algorithms.AES`` checks the key in Python, then
    OpenSSL sets the key and derives the subkeys). So, as the AEAD
    providers keep their key's context, this one keeps an empty context of
    the last key object, never updated, and hands out copies of it
    (``base.LastKeyReuse``: identity, not value; ``ACCEL_AGENT_KEY_REUSE=off``
    makes a context per call). Threads may copy it at once: a copy only
    reads it.
    """

    name = "openssl"
    primitive = "aes-cmac"

    def __init__(self) -> None:
        cmac = self._cmac = cryptography_module("hazmat.primitives.cmac").CMAC
        aes = algorithm_class(AES)
        self._aes = aes
        self._template = LastKeyReuse(lambda key: cmac(aes(key))).for_key

    def new(self, key: bytes):
        if key_reuse_enabled():
            return self._template(key).copy()
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
