"""RSA through OpenSSL (pyca/cryptography): PKCS#1 v1.5 and PSS signatures, OAEP and
PKCS#1 v1.5 encryption, key generation.

A provider turns key numbers into OpenSSL keys and runs one operation on
them; it knows nothing of pycryptodome. Signatures are made over a digest
the caller computed (``Prehashed``), as pycryptodome's schemes take a hash
object, not the message. Every method either returns OpenSSL's answer or
raises: the caller then serves the call natively.
"""

from __future__ import annotations

import math

# The key sizes (bits of n) whose generation goes to OpenSSL: even sizes only,
# where both primes have bits/2 bits as in pycryptodome's own generator.
MIN_GENERATED_BITS = 1024
MAX_GENERATED_BITS = 16384
GENERATED_EXPONENTS = (3, 65537)  # what pyca/cryptography generates with
_GENERATE_ATTEMPTS = 8

# DigestInfo prefix of SHA-256 (RFC 8017, 9.2 note 1): the probe of a new private key.
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
# MD5 signs PKCS#1 v1.5 only (python-rsa's "MD5"); it is kept out of algorithm(), so
# the schemes that look a hash up there (pycryptodome's) still serve MD5 natively.
MD5_OID = "1.2.840.113549.2.5"


class RsaProvider:
    """One RSA primitive (``primitive`` names it); every RSA operation is here."""

    name = "openssl"

    def __init__(self, primitive: str) -> None:
        # Imported here: python-rsa's patch reads this module's constants at its
        # import, which then loads no provider machinery (docs/activation.md).
        from accel_agent.providers._digests import algorithms_by_oid
        from accel_agent.providers._pyca import cryptography_module

        self.primitive = primitive
        self._rsa = cryptography_module("hazmat.primitives.asymmetric.rsa")
        padding = cryptography_module("hazmat.primitives.asymmetric.padding")
        utils = cryptography_module("hazmat.primitives.asymmetric.utils")
        exceptions = cryptography_module("exceptions")
        hashes = cryptography_module("hazmat.primitives.hashes")
        self._padding = padding
        self._InvalidSignature = exceptions.InvalidSignature
        self._by_oid = algorithms_by_oid()
        self._prehashed = {oid: utils.Prehashed(alg) for oid, alg in self._by_oid.items()}
        self._prehashed[MD5_OID] = utils.Prehashed(hashes.MD5())
        self._pkcs1v15 = padding.PKCS1v15()
        self._pss: dict[tuple[str, int], object] = {}
        self._probe_algorithm = utils.Prehashed(hashes.SHA256())

    # -- hashes --------------------------------------------------------------

    def algorithm(self, oid: str):
        """The hash algorithm with this object identifier, or None (the caller goes native)."""
        return self._by_oid.get(oid)

    # -- keys ------------------------------------------------------------------

    def load_public(self, n: int, e: int):
        """An OpenSSL public key; raises ValueError when OpenSSL refuses it."""
        return self._rsa.RSAPublicNumbers(e, n).public_key()

    def load_private(self, n: int, e: int, d: int, p: int, q: int, u: int, probe: bool = True):
        """An OpenSSL private key from the components (``u`` is p^-1 mod q).

        OpenSSL's own validation (a primality test of both factors) costs tens
        of milliseconds per key, more than many uses of the key; it is replaced
        by the relations the CRT computation relies on, and one private
        operation checked with the public exponent. A key that fails raises
        ValueError: its owner keeps using native code, which reports faults
        its own way.

        ``probe=False`` leaves the private operation out: for the self-check's
        published keys, whose every check compares a private operation with
        its known answer (one 2048-bit signature less at a first use).
        """
        if p < 3 or q < 3 or p == q or p * q != n or not 1 < e < n or not 0 < d < n:
            raise ValueError("inconsistent RSA components")
        ed1 = e * d - 1
        if ed1 % (p - 1) or ed1 % (q - 1) or (p * u) % q != 1:
            raise ValueError("inconsistent RSA components")
        rsa = self._rsa
        numbers = rsa.RSAPrivateNumbers(
            p,
            q,
            d,
            rsa.rsa_crt_dmp1(d, p),
            rsa.rsa_crt_dmq1(d, q),
            pow(q, -1, p),  # rsa_crt_iqmp(p, q), whose inverse is in Python: 0.5 ms
            rsa.RSAPublicNumbers(e, n),
        )
        key = numbers.private_key(unsafe_skip_rsa_key_validation=True)
        if probe:
            self._probe(key, n, e)
        return key

    def _probe(self, key, n: int, e: int) -> None:
        """One PKCS#1 v1.5 signature, checked by raising it to ``e`` in Python."""
        k = (n.bit_length() + 7) // 8
        digest = bytes(range(32))
        encoded = _SHA256_DIGEST_INFO + digest
        if k < len(encoded) + 11:
            raise ValueError("RSA key too small for the probe")
        signature = key.sign(digest, self._pkcs1v15, self._probe_algorithm)
        expected = b"\x00\x01" + b"\xff" * (k - len(encoded) - 3) + b"\x00" + encoded
        if pow(int.from_bytes(signature, "big"), e, n) != int.from_bytes(expected, "big"):
            raise ValueError("RSA private key probe failed")

    # -- PKCS#1 v1.5 signatures ------------------------------------------------

    def sign_pkcs1v15(self, private_key, digest: bytes, oid: str) -> bytes:
        return private_key.sign(digest, self._pkcs1v15, self._prehashed[oid])

    def verify_pkcs1v15(self, public_key, signature: bytes, digest: bytes, oid: str) -> bool:
        """True when OpenSSL accepts the signature (DigestInfo with NULL parameters)."""
        try:
            public_key.verify(signature, digest, self._pkcs1v15, self._prehashed[oid])
        except self._InvalidSignature:
            return False
        return True

    def recover_pkcs1v15(self, public_key, signature: bytes) -> bytes | None:
        """What follows ``00 01 FF..FF 00`` in the signature raised to ``e``, or None.

        OpenSSL checks the block type 1 padding (at least eight FF bytes) and
        that the signature is below the modulus; the caller then judges the
        DigestInfo itself (python-rsa's ``verify`` finds the hash in it).
        """
        try:
            return public_key.recover_data_from_signature(signature, self._pkcs1v15, None)
        except self._InvalidSignature:
            return None

    # -- PSS -------------------------------------------------------------------

    def _pss_padding(self, oid: str, salt_length: int):
        key = (oid, salt_length)
        padding = self._pss.get(key)
        if padding is None:
            mgf = self._padding.MGF1(self._by_oid[oid])
            padding = self._pss[key] = self._padding.PSS(mgf=mgf, salt_length=salt_length)
        return padding

    def sign_pss(self, private_key, digest: bytes, oid: str, salt_length: int) -> bytes:
        """RSASSA-PSS with MGF1 over the message's hash, a random salt of ``salt_length``."""
        padding = self._pss_padding(oid, salt_length)
        return private_key.sign(digest, padding, self._prehashed[oid])

    def verify_pss(
        self, public_key, signature: bytes, digest: bytes, oid: str, salt_length: int
    ) -> bool:
        """True when OpenSSL accepts it with exactly ``salt_length`` bytes of salt."""
        padding = self._pss_padding(oid, salt_length)
        try:
            public_key.verify(signature, digest, padding, self._prehashed[oid])
        except self._InvalidSignature:
            return False
        return True

    # -- encryption ------------------------------------------------------------

    def _oaep(self, oid: str, label: bytes):
        algorithm = self._by_oid[oid]
        return self._padding.OAEP(
            mgf=self._padding.MGF1(algorithm), algorithm=algorithm, label=label or None
        )

    def encrypt_oaep(self, public_key, message: bytes, oid: str, label: bytes) -> bytes:
        return public_key.encrypt(message, self._oaep(oid, label))

    def decrypt_oaep(self, private_key, ciphertext: bytes, oid: str, label: bytes) -> bytes | None:
        """The message, or None when the padding is wrong (OpenSSL checks in constant time).

        Anything else raises (UnsupportedAlgorithm for a hash this OAEP lacks).
        """
        try:
            return private_key.decrypt(ciphertext, self._oaep(oid, label))
        except ValueError:
            return None

    def encrypt_pkcs1v15(self, public_key, message: bytes) -> bytes:
        return public_key.encrypt(message, self._pkcs1v15)

    # -- key generation --------------------------------------------------------

    def generate(self, bits: int, e: int):
        """(n, e, d, p, q, u, private key) of a new key, in pycryptodome's conventions.

        The numbers are :meth:`assemble`'s; every key is checked with one
        private operation (a pairwise-consistency test) before it is returned.
        A key from OpenSSL that misses one of pycryptodome's conditions (never
        seen) is replaced by another; None after a few, and the caller goes
        native.
        """
        if bits % 2 or not MIN_GENERATED_BITS <= bits <= MAX_GENERATED_BITS:
            raise ValueError("key size not generated through OpenSSL")
        if e not in GENERATED_EXPONENTS:
            raise ValueError("public exponent not generated through OpenSSL")
        for _ in range(_GENERATE_ATTEMPTS):
            key = self._rsa.generate_private_key(public_exponent=e, key_size=bits)
            numbers = key.private_numbers()
            assembled = self.assemble(numbers.p, numbers.q, e, bits)
            if assembled is not None:
                self._probe(key, assembled[0], e)
                return assembled + (key,)
        return None

    @staticmethod
    def assemble(p: int, q: int, e: int, bits: int) -> tuple[int, ...] | None:
        """(n, e, d, p, q, u) from two primes, or None if pycryptodome would not make them.

        pycryptodome's conventions: p < q, u = p^-1 mod q, d = e^-1 mod
        lcm(p-1, q-1). Its generator's conditions: n of exactly ``bits``
        bits, both primes of bits/2 bits and above sqrt(2)·2^(bits/2 - 1),
        |p - q| > 2^(bits/2 - 100), d of at least bits/2 bits.
        """
        p, q = sorted((p, q))
        half = bits // 2
        n = p * q
        lcm = (p - 1) * (q - 1) // math.gcd(p - 1, q - 1)
        if math.gcd(e, lcm) != 1:
            return None
        d = pow(e, -1, lcm)
        if (
            n.bit_length() != bits
            or p.bit_length() != half
            or q.bit_length() != half
            or p <= math.isqrt(1 << (bits - 1))
            or q - p <= 1 << (half - 100)
            or d < 1 << half
        ):
            return None
        return n, e, d, p, q, pow(p, -1, q)


def pkcs1v15_signature_provider() -> RsaProvider:
    return RsaProvider("rsa-pkcs1v15-sign")


def pss_provider() -> RsaProvider:
    return RsaProvider("rsa-pss")


def oaep_provider() -> RsaProvider:
    return RsaProvider("rsa-oaep")


def pkcs1v15_encryption_provider() -> RsaProvider:
    return RsaProvider("rsa-pkcs1v15-encrypt")


def keygen_provider() -> RsaProvider:
    return RsaProvider("rsa-keygen")
