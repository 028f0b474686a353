"""EdDSA through OpenSSL (pyca/cryptography): pure Ed25519 and pure Ed448 (RFC 8032).

OpenSSL, as pyca/cryptography exposes it, signs the message itself with no
context string: Ed25519 and Ed448 with an empty context. The pre-hashed
variants (Ed25519ph, Ed448ph) and contexts are not expressible here; the
caller keeps them native.
"""

from __future__ import annotations

from accel_agent.providers._digests import cryptography_module
from accel_agent.providers.base import ProviderUnavailable

# primitive -> (module, class prefix, private key (seed) size, signature size)
_CURVES = {"ed25519": ("ed25519", "Ed25519", 32, 64), "ed448": ("ed448", "Ed448", 57, 114)}


class EddsaProvider:
    name = "openssl"

    def __init__(self, primitive: str) -> None:
        module_name, prefix, self.seed_size, self.signature_size = _CURVES[primitive]
        module = cryptography_module("hazmat.primitives.asymmetric." + module_name)
        self._InvalidSignature = cryptography_module("exceptions").InvalidSignature
        self.primitive = primitive
        self._private = getattr(module, prefix + "PrivateKey")
        self._public = getattr(module, prefix + "PublicKey")
        try:
            self._private.generate()
        except Exception as exc:  # noqa: BLE001 - UnsupportedAlgorithm: OpenSSL without it
            raise ProviderUnavailable("%s is not available (%s)" % (prefix, exc)) from None

    def load_private(self, seed: bytes):
        return self._private.from_private_bytes(seed)

    def load_public(self, encoded: bytes):
        """The public key of its RFC 8032 encoding; ValueError when it is not a point."""
        return self._public.from_public_bytes(encoded)

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
