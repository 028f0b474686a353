"""Elliptic curves through OpenSSL (pyca/cryptography): ECDSA and ECDH on the NIST
curves P-256, P-384 and P-521 (and ECDSA on P-192, P-224 and secp256k1, for
python-ecdsa), X25519 and X448 key agreement, key generation on those curves.

As for RSA, a provider turns numbers into OpenSSL keys and runs one
operation; it knows nothing of pycryptodome. ECDSA signs a digest the
caller computed (``Prehashed``), with a random nonce or, where this OpenSSL
has it, the deterministic nonce of RFC 6979.
"""

from __future__ import annotations

from functools import partial
from os import urandom as _urandom  # bound once: a stub of os.urandom later changes nothing

from accel_agent import speedups
from accel_agent.providers._dss import DssSignatures
from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers._raw_keys import RawKeys
from accel_agent.providers.base import ProviderUnavailable

# provider curve name -> pyca/cryptography curve class
NIST_CURVES = {"p256": "SECP256R1", "p384": "SECP384R1", "p521": "SECP521R1"}
# Curves served for python-ecdsa only (its default is P-192): ECDSA signing
# and verification, key generation. OpenSSL builds may lack them (P-192 and
# secp256k1 are optional in some distributions): the factory then refuses.
EXTRA_CURVES = {"p192": "SECP192R1", "p224": "SECP224R1", "secp256k1": "SECP256K1"}
CURVES = {**NIST_CURVES, **EXTRA_CURVES}

# The hash whose digest carries a message representative to OpenSSL (see
# EcdsaProvider.sign_number): SHA-512 is the longest digest OpenSSL's
# Prehashed takes, so every curve up to 512 bits gets the whole number.
_CARRIER_OID = "2.16.840.1.101.3.4.2.3"
_CARRIER_BYTES = 64


def _curve(ec, curve: str):
    if curve not in CURVES:
        raise ValueError("unknown curve %r" % curve)
    return getattr(ec, CURVES[curve])()


class _NistKeys:
    """Loading NIST-curve keys from their numbers."""

    name = "openssl"

    def __init__(self, primitive: str, curve: str) -> None:
        self.primitive = primitive
        self._ec = cryptography_module("hazmat.primitives.asymmetric.ec")
        self.curve = _curve(self._ec, curve)
        if curve in EXTRA_CURVES:
            try:
                self._ec.derive_private_key(1, self.curve)
            except Exception as exc:  # noqa: BLE001 - UnsupportedAlgorithm: not in this OpenSSL
                raise ProviderUnavailable(
                    "%s is not available (%s)" % (self.curve.name, type(exc).__name__)
                ) from None

    def load_private(self, d: int):
        """The OpenSSL private key of scalar ``d`` (its public point computed by OpenSSL)."""
        return self._ec.derive_private_key(d, self.curve)

    def load_public(self, x: int, y: int):
        """The OpenSSL public key of point (x, y); ValueError when it is not on the curve."""
        return self._ec.EllipticCurvePublicNumbers(x, y, self.curve).public_key()


class EcdsaProvider(_NistKeys, DssSignatures):
    """ECDSA on one NIST curve, over a digest; signatures as integers (r, s).

    ``_prehashed`` (:class:`~._dss.DssSignatures`) signs with a random nonce.
    """

    def __init__(self, primitive: str, curve: str) -> None:
        _NistKeys.__init__(self, primitive, curve)
        # ec.ECDSA less its constructor's import of the OpenSSL backend (see there).
        from accel_agent.providers._ecdsa_algorithm import Ecdsa

        DssSignatures.__init__(self, Ecdsa)
        utils = cryptography_module("hazmat.primitives.asymmetric.utils")
        self._deterministic = self._deterministic_variants(Ecdsa, utils)
        self._order: int | None = None

    def _deterministic_variants(self, ecdsa, utils) -> dict[str, object]:
        """RFC 6979 signing (cryptography 44 and OpenSSL 3.2 or later), or {} where absent.

        Without the backend's answer (``ecdsa`` does not ask it), the test is
        two signatures of one digest: equal only when the nonce is RFC 6979's
        (a random one differs), and a cryptography that cannot refuses or
        raises. The self-check then compares one with RFC 6979's published
        signature.
        """
        try:
            variants = {
                oid: ecdsa(utils.Prehashed(a), deterministic_signing=True)
                for oid, a in self._by_oid.items()
            }
            probe = self._ec.derive_private_key(1, self.curve)
            sha256 = variants["2.16.840.1.101.3.4.2.1"]
            if probe.sign(bytes(32), sha256) != probe.sign(bytes(32), sha256):
                return {}
        except Exception:  # noqa: BLE001 - TypeError (old cryptography), UnsupportedAlgorithm
            return {}
        return variants

    @property
    def deterministic(self) -> bool:
        """Whether RFC 6979 deterministic signatures are available here."""
        return bool(self._deterministic)

    def sign(self, private_key, digest: bytes, oid: str, deterministic: bool = False) -> bytes:
        """A DER signature; the nonce is random, or RFC 6979's with ``deterministic``."""
        table = self._deterministic if deterministic else self._prehashed
        return private_key.sign(digest, table[oid])

    def multiply_generator(self, k: int) -> tuple[int, int]:
        """The affine coordinates of k·G, for 0 < k < n (ValueError otherwise).

        For a library that signs with its own nonce and needs the nonce's
        point itself (starkbank-ecdsa's recovery id is the parity of its y).
        OpenSSL's multiplication by the generator is constant-time.
        """
        # its private_numbers() give the point as integers: cheaper than its encoding
        point = self._ec.derive_private_key(k, self.curve).private_numbers().public_numbers
        return point.x, point.y

    def inverse_of_nonce(self, k: int) -> int:
        """k^-1 mod n, for 0 < k < n: the inverse of k·b, for a random b, times b.

        For a library that signs with its own nonce (starkbank-ecdsa). Neither
        the compiled inverse nor Python's ``pow`` takes the same time for every
        number; blinded, the time tells nothing of k. The compiled one
        (``speedups.inverse_mod``) takes 1.5-2 us on 256 bits with its
        conversions, ``pow`` 12 us.
        """
        order = self.order
        # at least 8 bytes more than the order: the reduction's bias is below 2^-64
        size = order.bit_length() // 8 + 9
        blind = int.from_bytes(_urandom(size), "big") % (order - 1) + 1
        return speedups.inverse_mod(k * blind % order, order) * blind % order

    # A library that reduces the digest to a number itself (python-ecdsa, with
    # its own truncation rules) hands over that number. ECDSA uses it only
    # modulo the group order n, so it travels as a SHA-512-sized digest from
    # which OpenSSL's truncation to the leftmost bits of n gives back e mod n.

    def _carrier(self, number: int) -> bytes | None:
        order = self.order
        e = number % order
        bits = order.bit_length()
        if bits <= 8 * _CARRIER_BYTES:
            return (e << (8 * _CARRIER_BYTES - bits)).to_bytes(_CARRIER_BYTES, "big")
        if e.bit_length() <= 8 * _CARRIER_BYTES:  # P-521: the digest is taken whole
            return e.to_bytes(_CARRIER_BYTES, "big")
        return None

    def sign_number(self, private_key, number: int) -> tuple[int, int] | None:
        """(r, s) over the message representative ``number`` (a non-negative integer),
        with a random nonce; None when it cannot be carried (over 512 bits on P-521)."""
        carrier = self._carrier(number)
        if carrier is None:
            return None
        return self._decode(private_key.sign(carrier, self._prehashed[_CARRIER_OID]))

    def verify_number(self, public_key, r: int, s: int, number: int) -> bool | None:
        """Whether (r, s) is valid over ``number``; None when it cannot be carried.

        ``r`` and ``s`` must be in [1, n - 1] (DER cannot hold a negative number).
        """
        carrier = self._carrier(number)
        if carrier is None:
            return None
        try:
            public_key.verify(self.encode_der(r, s), carrier, self._prehashed[_CARRIER_OID])
        except self._InvalidSignature:
            return False
        return True

    @property
    def order(self) -> int:
        """The order n of the curve's base point."""
        order = self._order
        if order is None:
            order = self._order = _ORDERS[self.curve.name]
        return order


# pyca/cryptography curve name -> order of the base point (SEC 2, FIPS 186-4 D.1.2)
_ORDERS = {
    "secp192r1": int("ffffffffffffffffffffffff99def836146bc9b1b4d22831", 16),
    "secp224r1": int("ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d", 16),
    "secp256r1": int("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16),
    "secp256k1": int("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16),
    "secp384r1": int(
        "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf"
        "581a0db248b0a77aecec196accc52973",
        16,
    ),
    "secp521r1": int(
        "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
        "fa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
        16,
    ),
}


class EcdhProvider(_NistKeys):
    """ECDH on one NIST curve: the x coordinate of the shared point, as OpenSSL returns it."""

    def __init__(self, primitive: str, curve: str) -> None:
        super().__init__(primitive, curve)
        self._ecdh = self._ec.ECDH()

    def exchange(self, private_key, public_key) -> bytes:
        return private_key.exchange(self._ecdh, public_key)


# X25519 and X448: module, class prefix, key length
_XDH = {"x25519": ("x25519", "X25519", 32), "x448": ("x448", "X448", 56)}


class XdhProvider(RawKeys):
    """X25519 or X448 (RFC 7748): keys are raw little-endian strings."""

    def __init__(self, primitive: str) -> None:
        module_name, prefix, self.key_size = _XDH[primitive]
        RawKeys.__init__(self, primitive, module_name, prefix)

    def exchange(self, private_key, public_key) -> bytes:
        """The shared secret; ValueError when it is all zeros (a small-order point)."""
        return private_key.exchange(public_key)


class EccKeygenProvider:
    """New private keys on the NIST curves, as numbers and as the OpenSSL key itself."""

    name = "openssl"
    primitive = "ecc-keygen"

    def __init__(self) -> None:
        self._ec = cryptography_module("hazmat.primitives.asymmetric.ec")
        self._curves = {name: _curve(self._ec, name) for name in CURVES}

    def generate(self, curve: str):
        """(d, x, y, private key) of a new key on ``curve`` (a name of :data:`CURVES`)."""
        key = self._ec.generate_private_key(self._curves[curve])
        numbers = key.private_numbers()
        public = numbers.public_numbers
        return numbers.private_value, public.x, public.y, key

    def generate_scalar(self, curve: str):
        """(d, private key) of a new key on ``curve``: :meth:`generate` without the point."""
        key = self._ec.generate_private_key(self._curves[curve])
        return key.private_numbers().private_value, key


# The catalog's factories ("ecc:ecdsa_p256_provider"), one per primitive.
ecdsa_p256_provider = partial(EcdsaProvider, "ecdsa-p256", "p256")
ecdsa_p384_provider = partial(EcdsaProvider, "ecdsa-p384", "p384")
ecdsa_p521_provider = partial(EcdsaProvider, "ecdsa-p521", "p521")
ecdsa_p192_provider = partial(EcdsaProvider, "ecdsa-p192", "p192")
ecdsa_p224_provider = partial(EcdsaProvider, "ecdsa-p224", "p224")
ecdsa_secp256k1_provider = partial(EcdsaProvider, "ecdsa-secp256k1", "secp256k1")
ecdh_p256_provider = partial(EcdhProvider, "ecdh-p256", "p256")
ecdh_p384_provider = partial(EcdhProvider, "ecdh-p384", "p384")
ecdh_p521_provider = partial(EcdhProvider, "ecdh-p521", "p521")
x25519_provider = partial(XdhProvider, "x25519")
x448_provider = partial(XdhProvider, "x448")
keygen_provider = EccKeygenProvider
