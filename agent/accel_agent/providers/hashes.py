"""Hashes, HMAC and password KDFs through OpenSSL, as CPython's ``_hashlib`` exposes it.

A hash provider hands out OpenSSL hash objects (``update``, ``digest``,
``copy``) through :attr:`HashProvider.new`, the fastest constructor
``_hashlib`` has for the algorithm (``openssl_sha256``, or ``new`` with the
name bound). Where the interpreter has no ``_hashlib`` (a Python built
without it), the same objects come from pyca/cryptography through
:mod:`accel_agent.providers._openssl_hash`. The HMAC and KDF providers offer
one-shot functions on bytes. Nothing here knows pycryptodome.
"""

from __future__ import annotations

import functools

from accel_agent.providers.base import ProviderUnavailable

# primitive -> (OpenSSL/hashlib name, digest size, block size); SHAKE: digest size None
HASHES: dict[str, tuple[str, int | None, int]] = {
    "md5": ("md5", 16, 64),
    "sha1": ("sha1", 20, 64),
    "sha224": ("sha224", 28, 64),
    "sha256": ("sha256", 32, 64),
    "sha384": ("sha384", 48, 128),
    "sha512": ("sha512", 64, 128),
    "sha512-224": ("sha512_224", 28, 128),
    "sha512-256": ("sha512_256", 32, 128),
    "sha3-224": ("sha3_224", 28, 144),
    "sha3-256": ("sha3_256", 32, 136),
    "sha3-384": ("sha3_384", 48, 104),
    "sha3-512": ("sha3_512", 64, 72),
    "shake128": ("shake_128", None, 168),
    "shake256": ("shake_256", None, 136),
    # OpenSSL's BLAKE2 has one digest size and no key: the target uses it for
    # the default parameters only, everything else stays native.
    "blake2b": ("blake2b512", 64, 128),
    "blake2s": ("blake2s256", 32, 64),
}
HMAC_NAMES = frozenset(name for name, size, _ in HASHES.values() if size is not None)


def _hashlib_module():
    try:
        import _hashlib
    except ImportError:
        return None
    return _hashlib


def openssl_constructor(openssl_name: str):
    """The fastest OpenSSL-backed ``constructor(data=b"")`` for a hash, or None."""
    _hashlib = _hashlib_module()
    if _hashlib is not None:
        direct = getattr(_hashlib, "openssl_" + openssl_name, None)
        if direct is not None:
            return direct
        try:
            _hashlib.new(openssl_name)
        except ValueError:  # this OpenSSL lacks it (or FIPS forbids it)
            return None
        return functools.partial(_hashlib.new, openssl_name)
    from accel_agent.providers import _openssl_hash

    if openssl_name.startswith("shake_"):
        return _openssl_hash.shake_constructor(openssl_name)
    return _openssl_hash.constructor(openssl_name)


class HashProvider:
    """One hash algorithm: ``new(data=b"")`` gives an OpenSSL hash object."""

    name = "openssl"

    def __init__(self, primitive: str) -> None:
        openssl_name, digest_size, block_size = HASHES[primitive]
        new = openssl_constructor(openssl_name)
        if new is None:
            raise ProviderUnavailable("OpenSSL has no %s here" % openssl_name)
        self.primitive = primitive
        self.openssl_name = openssl_name
        self.digest_size = digest_size
        self.block_size = block_size
        self.new = new


class HmacProvider:
    """HMAC with any hash of :data:`HMAC_NAMES`: ``new(key, msg, name)`` and one-shot ``digest``."""

    name = "openssl"
    primitive = "hmac"

    def __init__(self) -> None:
        _hashlib = _hashlib_module()
        if _hashlib is None or not hasattr(_hashlib, "hmac_new"):
            # A Python without _hashlib: the same functions on pyca/cryptography.
            from accel_agent.providers import _openssl_hash

            self.new, self.digest, self.names = _openssl_hash.hmac_functions()
            return
        self.new = _hashlib.hmac_new  # (key, msg, digestmod name) -> object with update/digest/copy
        self.digest = _hashlib.hmac_digest  # (key, msg, digestmod name) -> bytes
        self.names = frozenset(n for n in HMAC_NAMES if _usable(_hashlib, n))


def _usable(_hashlib, name: str) -> bool:
    try:
        _hashlib.hmac_digest(b"k", b"", name)
    except (ValueError, TypeError):
        return False
    return True


class Pbkdf2Provider:
    """PBKDF2-HMAC: ``derive(hash name, password, salt, iterations, length)``."""

    name = "openssl"
    primitive = "pbkdf2"

    def __init__(self) -> None:
        _hashlib = _hashlib_module()
        if _hashlib is None or not hasattr(_hashlib, "pbkdf2_hmac"):
            from accel_agent.providers import _openssl_hash

            self.derive = _openssl_hash.pbkdf2_function()
            return
        self.derive = _hashlib.pbkdf2_hmac  # (name, password, salt, iterations, dklen)


class ScryptProvider:
    """scrypt: ``derive(password, salt, n, r, p, length)``."""

    name = "openssl"
    primitive = "scrypt"
    MAX_MEMORY = 2**31 - 1  # what _hashlib accepts for maxmem

    def __init__(self) -> None:
        _hashlib = _hashlib_module()
        if _hashlib is None or not hasattr(_hashlib, "scrypt"):
            from accel_agent.providers import _openssl_hash

            self._scrypt = _openssl_hash.scrypt_function()
            return
        self._scrypt = _hashlib.scrypt

    def memory(self, n: int, r: int, p: int) -> int:
        """OpenSSL's own estimate of what scrypt(n, r, p) needs, plus slack."""
        return 128 * r * (n + p + 2) + 64 * 1024

    def derive(self, password: bytes, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
        return self._scrypt(
            password, salt=salt, n=n, r=r, p=p, maxmem=self.memory(n, r, p), dklen=length
        )


class HkdfProvider:
    """HKDF (RFC 5869) on OpenSSL's HMAC: ``derive(name, digest size, ikm, salt, info, length)``."""

    name = "openssl"
    primitive = "hkdf"

    def __init__(self) -> None:
        self._hmac = HmacProvider()
        self.names = self._hmac.names

    def derive(
        self, name: str, digest_size: int, ikm: bytes, salt: bytes, info: bytes, length: int
    ) -> bytes:
        # hmac_new(...).digest() is cheaper than the one-shot hmac_digest in
        # CPython 3.11/OpenSSL 3.0 (which looks the digest up on every call).
        hmac_new = self._hmac.new
        prk = hmac_new(salt, ikm, name).digest()
        if length <= digest_size:
            return hmac_new(prk, info + b"\x01", name).digest()[:length]
        blocks = []
        previous = b""
        for counter in range(1, -(-length // digest_size) + 1):
            previous = hmac_new(prk, previous + info + bytes((counter,)), name).digest()
            blocks.append(previous)
        return b"".join(blocks)[:length]


def _hash_factory(primitive: str):
    def factory() -> HashProvider:
        return HashProvider(primitive)

    factory.__name__ = primitive.replace("-", "_") + "_provider"
    return factory


md5_provider = _hash_factory("md5")
sha1_provider = _hash_factory("sha1")
sha224_provider = _hash_factory("sha224")
sha256_provider = _hash_factory("sha256")
sha384_provider = _hash_factory("sha384")
sha512_provider = _hash_factory("sha512")
sha512_224_provider = _hash_factory("sha512-224")
sha512_256_provider = _hash_factory("sha512-256")
sha3_224_provider = _hash_factory("sha3-224")
sha3_256_provider = _hash_factory("sha3-256")
sha3_384_provider = _hash_factory("sha3-384")
sha3_512_provider = _hash_factory("sha3-512")
shake128_provider = _hash_factory("shake128")
shake256_provider = _hash_factory("shake256")
blake2b_provider = _hash_factory("blake2b")
blake2s_provider = _hash_factory("blake2s")


def hmac_provider() -> HmacProvider:
    return HmacProvider()


def pbkdf2_provider() -> Pbkdf2Provider:
    return Pbkdf2Provider()


def scrypt_provider() -> ScryptProvider:
    return ScryptProvider()


def hkdf_provider() -> HkdfProvider:
    return HkdfProvider()
