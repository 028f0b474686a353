"""DSA (FIPS 186) through OpenSSL (pyca/cryptography): signing with a random nonce,
verification, and new keys.

As for RSA and ECDSA, a provider turns numbers into OpenSSL keys and runs one
operation; it knows nothing of pycryptodome. Signatures are over a digest
the caller computed (``Prehashed``); OpenSSL takes the digest's leftmost
bytes up to the length of q, as FIPS 186 does.

Private keys are loaded from their traditional DER encoding (``SEQUENCE {0,
p, q, g, y, x}``), which OpenSSL reads as given: pyca/cryptography's
``DSAPrivateNumbers.private_key()`` checks the domain parameters (primality
tests of p and q) first, about 9 ms for DSA-2048, four times a whole
signature; the DER route takes microseconds. The caller's library has
validated its keys already (or signs with whatever it holds, as OpenSSL
then does).

pyca/cryptography has no deterministic (RFC 6979) DSA and no DSA signature
with a nonce of the caller's: RFC 6979 signatures are not served here.

pyca/cryptography 51 deprecates DSA: reading its DSA module's names and
loading a DSA key warn. The names are read once, and a key is loaded once
per pycryptodome key, with that warning silenced
(``without_deprecation_warnings``); signing and verifying do not warn.
"""

from __future__ import annotations

from accel_agent.providers._dss import DssSignatures
from accel_agent.providers._pyca import cryptography_module, without_deprecation_warnings

# (L, N): the bit lengths of p and q that FIPS 186-4 allows, and OpenSSL signs with
FIPS_SIZES = frozenset(((1024, 160), (2048, 224), (2048, 256), (3072, 256)))
# OpenSSL's DSA parameter generation by size of p -> the size of its q. Only the
# sizes where OpenSSL's q has the size pycryptodome's generator gives it (160
# for 1024, 256 for 3072): for 2048 bits OpenSSL makes a 256-bit q where
# pycryptodome makes a 224-bit one (signatures of another length).
GENERATED_SIZES = {1024: 160, 3072: 256}


def _der_length(length: int) -> bytes:
    if length < 0x80:
        return bytes((length,))
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes((0x80 | len(encoded),)) + encoded


def _der_integer(value: int) -> bytes:
    encoded = value.to_bytes(value.bit_length() // 8 + 1, "big")  # a leading 0 bit: positive
    return b"\x02" + _der_length(len(encoded)) + encoded


class _DsaNames:
    """pyca/cryptography's DSA names the providers use, read once (without its deprecation)."""

    def __init__(self) -> None:
        dsa = cryptography_module("hazmat.primitives.asymmetric.dsa")

        def read() -> tuple:
            return (
                dsa.DSAPrivateKey,
                dsa.DSAPublicNumbers,
                dsa.DSAParameterNumbers,
                dsa.generate_private_key,
            )

        (
            self.private_key_type,
            self.public_numbers,
            self.parameter_numbers,
            self.generate_private_key,
        ) = without_deprecation_warnings(read)


def traditional_der(p: int, q: int, g: int, y: int, x: int) -> bytes:
    """The OpenSSL traditional DSA private key encoding of these numbers (all positive)."""
    body = b"".join(_der_integer(v) for v in (0, p, q, g, y, x))
    return b"\x30" + _der_length(len(body)) + body


class DsaProvider(DssSignatures):
    """DSA signatures over a digest, as DER; verification of (r, s)."""

    name = "openssl"
    primitive = "dsa"

    def __init__(self) -> None:
        self._dsa = _DsaNames()
        self._serialization = cryptography_module("hazmat.primitives.serialization")
        DssSignatures.__init__(self)

    def load_private(self, p: int, q: int, g: int, y: int, x: int):
        """The OpenSSL private key of these numbers; ValueError when they are not a DSA key."""
        if min(p, q, g, y, x) <= 0 or (p.bit_length(), q.bit_length()) not in FIPS_SIZES:
            raise ValueError("not a FIPS 186 DSA key")
        key = without_deprecation_warnings(
            self._serialization.load_der_private_key, traditional_der(p, q, g, y, x), None
        )
        if not isinstance(key, self._dsa.private_key_type):
            raise ValueError("not a DSA key")
        return key

    def load_public(self, p: int, q: int, g: int, y: int):
        """The OpenSSL public key of these numbers; ValueError when they are not a DSA key."""
        if (p.bit_length(), q.bit_length()) not in FIPS_SIZES:
            raise ValueError("not a FIPS 186 DSA key")
        dsa = self._dsa
        return dsa.public_numbers(y, dsa.parameter_numbers(p, q, g)).public_key()

    def sign(self, private_key, digest: bytes, oid: str) -> bytes:
        """A DER signature with a random nonce (OpenSSL's)."""
        return private_key.sign(digest, self._prehashed[oid])


class DsaKeygenProvider:
    """New DSA keys: domain parameters and key pair, as numbers and as the OpenSSL key."""

    name = "openssl"
    primitive = "dsa-keygen"

    def __init__(self) -> None:
        self._dsa = _DsaNames()

    def generate(self, bits: int):
        """(p, q, g, y, x, private key) of a new key whose p has ``bits`` bits."""
        if bits not in GENERATED_SIZES:
            raise ValueError("OpenSSL makes no DSA key of %r bits here" % bits)
        key = self._dsa.generate_private_key(bits)
        numbers = key.private_numbers()
        public = numbers.public_numbers
        domain = public.parameter_numbers
        if (domain.p.bit_length(), domain.q.bit_length()) != (bits, GENERATED_SIZES[bits]):
            raise ValueError("OpenSSL made other sizes than FIPS 186's for %d bits" % bits)
        return domain.p, domain.q, domain.g, public.y, numbers.x, key

    def key_from_domain(self, p: int, q: int, g: int):
        """(y, x, private key) of a new key in the domain (p, q, g)."""
        dsa = self._dsa
        key = dsa.parameter_numbers(p, q, g).parameters().generate_private_key()
        numbers = key.private_numbers()
        return numbers.public_numbers.y, numbers.x, key


def dsa_provider() -> DsaProvider:
    return DsaProvider()


def keygen_provider() -> DsaKeygenProvider:
    return DsaKeygenProvider()
