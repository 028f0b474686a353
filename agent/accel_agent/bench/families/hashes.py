"""Hash, HMAC and KDF rows: pycryptodome's ``X.new(data).digest()``, ``HMAC.new(...)``, KDFs.

Every hash row makes a new hash object per message (``SHA256.new(data).digest()``),
as most code does; the direct column is what a ``hashlib`` user writes
(``hashlib.sha256(data).digest()``, ``hashlib.new("sha512_224", data)``).
HMAC rows use a 32-byte key; direct is ``hmac.digest(key, data, "sha256")``.
KDF rows derive 32 bytes with a 16-byte salt: PBKDF2-HMAC-SHA256 at 1,000
and 600,000 iterations (direct: ``hashlib.pbkdf2_hmac``), scrypt at
N=2^14, r=8, p=1 (direct: ``hashlib.scrypt``), HKDF-SHA256 (direct: two
``hmac.digest`` calls, RFC 5869). KDF rows have one size (the output);
their label says the work.
"""

from __future__ import annotations

import hashlib
import hmac

from Crypto.Cipher import AES
from Crypto.Hash import (
    CMAC,
    HMAC,
    MD5,
    RIPEMD160,
    SHA1,
    SHA3_256,
    SHA3_512,
    SHA224,
    SHA256,
    SHA384,
    SHA512,
    SHAKE128,
    SHAKE256,
    BLAKE2b,
    BLAKE2s,
)
from Crypto.Protocol.KDF import HKDF, PBKDF2, scrypt

from accel_agent.bench.families import Row, random_bytes

NAME = "hashes"
TITLE = "hashes, HMAC (32-byte key), AES-CMAC and KDFs; one new object per message"

KEY = random_bytes(32)
AES_KEY = random_bytes(16)
SALT = random_bytes(16)
PASSWORD = b"correct horse battery staple"
KDF_OUTPUT = 32


def _hash(module, hashlib_name: str, **kwargs):
    def build(size: int):
        data = random_bytes(size)

        def pycryptodome():
            return module.new(data, **kwargs).digest()

        def direct():
            return hashlib.new(hashlib_name, data).digest()

        return pycryptodome, direct

    return build


def _has_hashlib(name: str) -> bool:
    """Whether this interpreter's ``hashlib`` has ``name`` (RIPEMD-160: OpenSSL 3.0.7 and later)."""
    try:
        hashlib.new(name)
    except ValueError:
        return False
    return True


def _ripemd160(size: int):
    """RIPEMD-160; direct is hashlib's where its OpenSSL has it, else none (the row shows nan)."""
    pycryptodome, direct = _hash(RIPEMD160, "ripemd160")(size)
    return pycryptodome, direct if _has_hashlib("ripemd160") else None


def _hmac_ripemd160(size: int):
    pycryptodome, direct = _hmac(RIPEMD160, "ripemd160")(size)
    return pycryptodome, direct if _has_hashlib("ripemd160") else None


def _sha256(size: int):
    """SHA-256 written as each library's users write it (the goals' row)."""
    data = random_bytes(size)

    def pycryptodome():
        return SHA256.new(data).digest()

    def direct():
        return hashlib.sha256(data).digest()

    return pycryptodome, direct


def _blake2(module, hashlib_constructor):
    """Unkeyed, full size (the shape OpenSSL serves); direct: CPython's own BLAKE2."""

    def build(size: int):
        data = random_bytes(size)

        def pycryptodome():
            return module.new(data=data).digest()

        def direct():
            return hashlib_constructor(data).digest()

        return pycryptodome, direct

    return build


def _shake(module, hashlib_name: str, length: int):
    def build(size: int):
        data = random_bytes(size)

        def pycryptodome():
            return module.new(data).read(length)

        def direct():
            return hashlib.new(hashlib_name, data).digest(length)

        return pycryptodome, direct

    return build


def _hmac(module, hashlib_name: str):
    def build(size: int):
        data, key = random_bytes(size), KEY
        return (
            lambda: HMAC.new(key, data, digestmod=module).digest(),
            lambda: hmac.digest(key, data, hashlib_name),
        )

    return build


def _cmac(size: int):
    from cryptography.hazmat.primitives.ciphers import algorithms
    from cryptography.hazmat.primitives.cmac import CMAC as OpenSSLCMAC

    data = random_bytes(size)
    key = AES_KEY

    def pycryptodome():
        return CMAC.new(key, data, ciphermod=AES).digest()

    def direct():
        mac = OpenSSLCMAC(algorithms.AES(key))
        mac.update(data)
        return mac.finalize()

    return pycryptodome, direct


def _pbkdf2(iterations: int):
    def build(size: int):
        def pycryptodome():
            return PBKDF2(PASSWORD, SALT, size, iterations, hmac_hash_module=SHA256)

        def direct():
            return hashlib.pbkdf2_hmac("sha256", PASSWORD, SALT, iterations, size)

        return pycryptodome, direct

    return build


def _scrypt(log_n: int):
    n = 2**log_n

    def build(size: int):
        def pycryptodome():
            return scrypt(PASSWORD, SALT, size, n, 8, 1)

        def direct():
            return hashlib.scrypt(PASSWORD, salt=SALT, n=n, r=8, p=1, dklen=size, maxmem=2**26)

        return pycryptodome, direct

    return build


def _hkdf(size: int):
    master = random_bytes(32)

    def pycryptodome():
        return HKDF(master, size, SALT, SHA256)

    def direct():
        prk = hmac.digest(SALT, master, "sha256")
        return hmac.digest(prk, b"\x01", "sha256")[:size]

    return pycryptodome, direct


ROWS = (
    Row("md5", "md5", _hash(MD5, "md5")),
    Row("sha1", "sha1", _hash(SHA1, "sha1")),
    Row("sha224", "sha224", _hash(SHA224, "sha224")),
    Row("sha256", "sha256", _sha256),
    Row("sha384", "sha384", _hash(SHA384, "sha384")),
    Row("sha512", "sha512", _hash(SHA512, "sha512")),
    Row("sha512/256", "sha512-256", _hash(SHA512, "sha512_256", truncate="256")),
    Row("ripemd160", "ripemd160", _ripemd160),
    Row("sha3-256", "sha3-256", _hash(SHA3_256, "sha3_256")),
    Row("sha3-512", "sha3-512", _hash(SHA3_512, "sha3_512")),
    Row("blake2b", "blake2b", _blake2(BLAKE2b, hashlib.blake2b)),
    Row("blake2s", "blake2s", _blake2(BLAKE2s, hashlib.blake2s)),
    Row("shake128/32", "shake128", _shake(SHAKE128, "shake_128", 32)),
    Row("shake256/64", "shake256", _shake(SHAKE256, "shake_256", 64)),
    Row("hmac-sha1", "hmac", _hmac(SHA1, "sha1")),
    Row("hmac-sha256", "hmac", _hmac(SHA256, "sha256")),
    Row("hmac-sha512", "hmac", _hmac(SHA512, "sha512")),
    Row("hmac-sha3-256", "hmac", _hmac(SHA3_256, "sha3_256")),
    Row("hmac-ripemd160", "hmac", _hmac_ripemd160),
    Row("aes-cmac", "aes-cmac", _cmac),
    Row("pbkdf2-sha256 1k it", "pbkdf2", _pbkdf2(1000), sizes=(KDF_OUTPUT,)),
    Row("pbkdf2-sha256 600k it", "pbkdf2", _pbkdf2(600_000), sizes=(KDF_OUTPUT,)),
    Row("scrypt N=2^14", "scrypt", _scrypt(14), sizes=(KDF_OUTPUT,)),
    Row("hkdf-sha256", "hkdf", _hkdf, sizes=(KDF_OUTPUT,)),
)
