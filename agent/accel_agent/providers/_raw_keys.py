"""What the X25519/X448 and Ed25519/Ed448 providers share: keys that are raw strings.

pyca/cryptography has, for each of these curves, a ``<Name>PrivateKey``
and a ``<Name>PublicKey`` class in ``hazmat.primitives.asymmetric.<name>``,
loaded from the key's raw bytes (RFC 7748's scalars and u coordinates,
RFC 8032's seeds and encoded points).
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers.base import ProviderUnavailable


class RawKeys:
    """Loading one curve's keys from their raw bytes; refused where this OpenSSL lacks it."""

    name = "openssl"

    def __init__(self, primitive: str, module: str, prefix: str) -> None:
        """``prefix``: the classes' name before ``PrivateKey`` (``"X25519"``), in ``module``."""
        classes = cryptography_module("hazmat.primitives.asymmetric." + module)
        self.primitive = primitive
        self._private = getattr(classes, prefix + "PrivateKey")
        self._public = getattr(classes, prefix + "PublicKey")
        try:
            self._private.generate()
        except Exception as exc:  # noqa: BLE001 - UnsupportedAlgorithm: OpenSSL without it
            raise ProviderUnavailable("%s is not available (%s)" % (prefix, exc)) from None

    def load_private(self, private: bytes):
        """The private key of its raw bytes (X25519's scalar, Ed25519's seed)."""
        return self._private.from_private_bytes(private)

    def load_public(self, public: bytes):
        """The public key of its raw bytes; ValueError when they are not one (for EdDSA,
        not the encoding of a point)."""
        return self._public.from_public_bytes(public)
