"""EdDSA through OpenSSL (pyca/cryptography): pure Ed25519 and pure Ed448 (RFC 8032).

OpenSSL, as pyca/cryptography exposes it, signs the message itself with no
context string: Ed25519 and Ed448 with an empty context. The pre-hashed
variants (Ed25519ph, Ed448ph) and contexts are not expressible here; the
caller keeps them native.
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers._raw_keys import RawKeys

# primitive -> (module, class prefix, private key (seed) size, signature size)
_CURVES = {"ed25519": ("ed25519", "Ed25519", 32, 64), "ed448": ("ed448", "Ed448", 57, 114)}


class EddsaProvider(RawKeys):
    """Pure EdDSA on one curve: private keys are seeds, public keys RFC 8032 encodings."""

    def __init__(self, primitive: str) -> None:
        module_name, prefix, self.seed_size, self.signature_size = _CURVES[primitive]
        self._InvalidSignature = cryptography_module("exceptions").InvalidSignature
        RawKeys.__init__(self, primitive, module_name, prefix)

    @staticmethod
    def public_bytes(private_key) -> bytes:
        """The RFC 8032 encoding of a private key's public key."""
        return private_key.public_key().public_bytes_raw()

    @staticmethod
    def sign(private_key, message: bytes) -> bytes:
        return private_key.sign(message)

    def verify(self, public_key, signature: bytes, message: bytes) -> bool:
        try:
            public_key.verify(signature, message)
        except self._InvalidSignature:
            return False
        return True


def ed25519_provider() -> EddsaProvider:
    return EddsaProvider("ed25519")


def ed448_provider() -> EddsaProvider:
    return EddsaProvider("ed448")
