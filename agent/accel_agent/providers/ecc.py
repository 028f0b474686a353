"""Elliptic curves through OpenSSL (pyca/cryptography): ECDSA and ECDH on the NIST
curves P-256, P-384 and P-521, X25519 and X448 key agreement, NIST key generation.

As for RSA, a provider turns numbers into OpenSSL keys and runs one
operation; it knows nothing of pycryptodome. ECDSA signs a digest the
caller computed (``Prehashed``), with a random nonce or, where this OpenSSL
has it, the deterministic nonce of RFC 6979.
"""

from __future__ import annotations

from accel_agent.providers._digests import algorithms_by_oid, cryptography_module
from accel_agent.providers.base import ProviderUnavailable

# provider curve name -> pyca/cryptography curve class
NIST_CURVES = {"p256": "SECP256R1", "p384": "SECP384R1", "p521": "SECP521R1"}


def _curve(ec, curve: str):
    if curve not in NIST_CURVES:
        raise ValueError("unknown curve %r" % curve)
    return getattr(ec, NIST_CURVES[curve])()


class _NistKeys:
    """Loading NIST-curve keys from their numbers."""

    name = "openssl"

    def __init__(self, primitive: str, curve: str) -> None:
        self.primitive = primitive
        self._ec = cryptography_module("hazmat.primitives.asymmetric.ec")
        self.curve = _curve(self._ec, curve)

    def load_private(self, d: int):
        """The OpenSSL private key of scalar ``d`` (its public point computed by OpenSSL)."""
        return self._ec.derive_private_key(d, self.curve)

    def load_public(self, x: int, y: int):
        """The OpenSSL public key of point (x, y); ValueError when it is not on the curve."""
        return self._ec.EllipticCurvePublicNumbers(x, y, self.curve).public_key()


class EcdsaProvider(_NistKeys):
    """ECDSA on one NIST curve, over a digest; signatures as integers (r, s)."""

    def __init__(self, primitive: str, curve: str) -> None:
        super().__init__(primitive, curve)
        utils = cryptography_module("hazmat.primitives.asymmetric.utils")
        exceptions = cryptography_module("exceptions")
        self._InvalidSignature = exceptions.InvalidSignature
        self._decode = utils.decode_dss_signature
        self.encode_der = utils.encode_dss_signature
        self._by_oid = algorithms_by_oid()
        ecdsa = self._ec.ECDSA
        self._random = {oid: ecdsa(utils.Prehashed(a)) for oid, a in self._by_oid.items()}
        self._deterministic = self._deterministic_variants(ecdsa, utils)

    def _deterministic_variants(self, ecdsa, utils) -> dict[str, object]:
        """RFC 6979 signing (cryptography 44 and OpenSSL 3.2 or later), or {} where absent."""
        try:
            variants = {
                oid: ecdsa(utils.Prehashed(a), deterministic_signing=True)
                for oid, a in self._by_oid.items()
            }
            probe = self._ec.derive_private_key(1, self.curve)
            sha256 = "2.16.840.1.101.3.4.2.1"
            probe.sign(bytes(32), variants[sha256])
        except Exception:  # noqa: BLE001 - TypeError (old cryptography), UnsupportedAlgorithm
            return {}
        return variants

    @property
    def deterministic(self) -> bool:
        """Whether RFC 6979 deterministic signatures are available here."""
        return bool(self._deterministic)

    def algorithm(self, oid: str):
        return self._by_oid.get(oid)

    def sign(self, private_key, digest: bytes, oid: str, deterministic: bool = False) -> bytes:
        """A DER signature; the nonce is random, or RFC 6979's with ``deterministic``."""
        table = self._deterministic if deterministic else self._random
        return private_key.sign(digest, table[oid])

    def decode_der(self, signature: bytes) -> tuple[int, int]:
        """(r, s) of a DER signature; ValueError when it is not DER."""
        return self._decode(signature)

    def verify(self, public_key, r: int, s: int, digest: bytes, oid: str) -> bool:
        try:
            public_key.verify(self.encode_der(r, s), digest, self._random[oid])
        except self._InvalidSignature:
            return False
        return True


class EcdhProvider(_NistKeys):
    """ECDH on one NIST curve: the x coordinate of the shared point, as OpenSSL returns it."""

    def __init__(self, primitive: str, curve: str) -> None:
        super().__init__(primitive, curve)
        self._ecdh = self._ec.ECDH()

    def exchange(self, private_key, public_key) -> bytes:
        return private_key.exchange(self._ecdh, public_key)


# X25519 and X448: module, class prefix, key length
_XDH = {"x25519": ("x25519", "X25519", 32), "x448": ("x448", "X448", 56)}


class XdhProvider:
    """X25519 or X448 (RFC 7748): keys are raw little-endian strings."""

    name = "openssl"

    def __init__(self, primitive: str) -> None:
        module_name, prefix, self.key_size = _XDH[primitive]
        module = cryptography_module("hazmat.primitives.asymmetric." + module_name)
        self.primitive = primitive
        self._private = getattr(module, prefix + "PrivateKey")
        self._public = getattr(module, prefix + "PublicKey")
        try:
            self._private.generate()
        except Exception as exc:  # noqa: BLE001 - UnsupportedAlgorithm: OpenSSL without it
            raise ProviderUnavailable("%s is not available (%s)" % (prefix, exc)) from None

    def load_private(self, scalar: bytes):
        return self._private.from_private_bytes(scalar)

    def load_public(self, u: bytes):
        return self._public.from_public_bytes(u)

    def exchange(self, private_key, public_key) -> bytes:
        """The shared secret; ValueError when it is all zeros (a small-order point)."""
        return private_key.exchange(public_key)


class EccKeygenProvider:
    """New private keys on the NIST curves, as numbers and as the OpenSSL key itself."""

    name = "openssl"
    primitive = "ecc-keygen"

    def __init__(self) -> None:
        self._ec = cryptography_module("hazmat.primitives.asymmetric.ec")
        self._curves = {name: _curve(self._ec, name) for name in NIST_CURVES}

    def generate(self, curve: str):
        """(d, x, y, private key) of a new key on ``curve`` ("p256", "p384", "p521")."""
        key = self._ec.generate_private_key(self._curves[curve])
        numbers = key.private_numbers()
        public = numbers.public_numbers
        return numbers.private_value, public.x, public.y, key


def ecdsa_p256_provider() -> EcdsaProvider:
    return EcdsaProvider("ecdsa-p256", "p256")


def ecdsa_p384_provider() -> EcdsaProvider:
    return EcdsaProvider("ecdsa-p384", "p384")


def ecdsa_p521_provider() -> EcdsaProvider:
    return EcdsaProvider("ecdsa-p521", "p521")


def ecdh_p256_provider() -> EcdhProvider:
    return EcdhProvider("ecdh-p256", "p256")


def ecdh_p384_provider() -> EcdhProvider:
    return EcdhProvider("ecdh-p384", "p384")


def ecdh_p521_provider() -> EcdhProvider:
    return EcdhProvider("ecdh-p521", "p521")


def x25519_provider() -> XdhProvider:
    return XdhProvider("x25519")


def x448_provider() -> XdhProvider:
    return XdhProvider("x448")


def keygen_provider() -> EccKeygenProvider:
    return EccKeygenProvider()
