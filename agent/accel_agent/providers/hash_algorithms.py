"""Every hash the providers serve, as a record of facts: one table, read by all of them.

A record says what OpenSSL calls the hash (its hashlib name, its
pyca/cryptography class), its digest and block sizes, and the object
identifier under which the public-key providers sign with it. The hash,
HMAC and KDF providers (:mod:`.hashes`), their twins on pyca/cryptography
(:mod:`._openssl_hash`) and the signature schemes' lookup by identifier
(:mod:`._digests`) all read this table; adding a hash is one record.
Nothing here knows pycryptodome, nor imports anything.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


class HashAlgorithm:
    """One hash as OpenSSL knows it."""

    __slots__ = (
        "primitive",
        "hashlib_name",
        "cryptography_name",
        "digest_size",
        "block_size",
        "signing_oid",
        "fixed_size",
        "optional",
    )

    def __init__(
        self,
        primitive: str,
        hashlib_name: str,
        cryptography_name: str,
        digest_size: int | None,
        block_size: int,
        signing_oid: str | None = None,
        fixed_size: bool = False,
        optional: bool = False,
    ) -> None:
        self.primitive = primitive  # the catalog's name: "sha512-256"
        self.hashlib_name = hashlib_name  # OpenSSL's, as hashlib.new takes it: "sha512_256"
        self.cryptography_name = cryptography_name  # class in cryptography's hashes: "SHA512_256"
        self.digest_size = digest_size  # None for an XOF (SHAKE)
        self.block_size = block_size
        # The identifier RSA/ECDSA providers sign under; None: they leave the hash to native.
        self.signing_oid = signing_oid
        # cryptography's class takes the digest size as an argument (BLAKE2's one size).
        self.fixed_size = fixed_size
        # Absent from some OpenSSL builds by design: there, native by choice.
        self.optional = optional

    def __repr__(self) -> str:
        return "HashAlgorithm(%r)" % self.primitive

    @property
    def xof(self) -> bool:
        return self.digest_size is None


_NIST = "2.16.840.1.101.3.4.2."

ALGORITHMS: tuple[HashAlgorithm, ...] = (
    HashAlgorithm("md5", "md5", "MD5", 16, 64),
    HashAlgorithm("sha1", "sha1", "SHA1", 20, 64, "1.3.14.3.2.26"),
    HashAlgorithm("sha224", "sha224", "SHA224", 28, 64, _NIST + "4"),
    HashAlgorithm("sha256", "sha256", "SHA256", 32, 64, _NIST + "1"),
    HashAlgorithm("sha384", "sha384", "SHA384", 48, 128, _NIST + "2"),
    HashAlgorithm("sha512", "sha512", "SHA512", 64, 128, _NIST + "3"),
    HashAlgorithm("sha512-224", "sha512_224", "SHA512_224", 28, 128, _NIST + "5"),
    HashAlgorithm("sha512-256", "sha512_256", "SHA512_256", 32, 128, _NIST + "6"),
    HashAlgorithm("sha3-224", "sha3_224", "SHA3_224", 28, 144, _NIST + "7"),
    HashAlgorithm("sha3-256", "sha3_256", "SHA3_256", 32, 136, _NIST + "8"),
    HashAlgorithm("sha3-384", "sha3_384", "SHA3_384", 48, 104, _NIST + "9"),
    HashAlgorithm("sha3-512", "sha3_512", "SHA3_512", 64, 72, _NIST + "10"),
    # In OpenSSL 3.0.7 and later's default provider (earlier 3.0: the legacy one
    # only); pyca/cryptography has no class for it. No signing entry: the
    # public-key providers leave RIPEMD-160 signatures to native code.
    HashAlgorithm("ripemd160", "ripemd160", "RIPEMD160", 20, 64, optional=True),
    HashAlgorithm("shake128", "shake_128", "SHAKE128", None, 168),
    HashAlgorithm("shake256", "shake_256", "SHAKE256", None, 136),
    # OpenSSL's BLAKE2 has one digest size and no key: the target uses it for
    # the default parameters only, everything else stays native.
    HashAlgorithm("blake2b", "blake2b512", "BLAKE2b", 64, 128, fixed_size=True),
    HashAlgorithm("blake2s", "blake2s256", "BLAKE2s", 32, 64, fixed_size=True),
)

BY_PRIMITIVE: dict[str, HashAlgorithm] = {a.primitive: a for a in ALGORITHMS}
BY_HASHLIB_NAME: dict[str, HashAlgorithm] = {a.hashlib_name: a for a in ALGORITHMS}


def fixed_length() -> Iterator[HashAlgorithm]:
    """The hashes with a digest size (all but the XOFs): those HMAC and the KDFs take."""
    return (a for a in ALGORITHMS if not a.xof)
