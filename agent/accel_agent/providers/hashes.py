"""Hashes, HMAC and password KDFs through OpenSSL: CPython's ``_hashlib``, or pyca/cryptography.

Two providers serve each primitive, in the design's priority order:
``hashlib`` (CPython's own OpenSSL binding, ``_hashlib``: the cheapest per
call, no import of cryptography) and, for a Python built without
``_hashlib``, ``openssl`` (the same operations on pyca/cryptography, through
:mod:`accel_agent.providers._openssl_hash`). A hash provider hands out
OpenSSL hash objects (``update``, ``digest``, ``copy``) through
:attr:`HashProvider.new`; the HMAC and KDF providers offer functions on
bytes with ``_hashlib``'s signatures. Nothing here knows pycryptodome.
"""

from __future__ import annotations

import functools

from accel_agent.providers import hash_algorithms
from accel_agent.providers.base import AlgorithmAbsent, ProviderUnavailable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

HASHLIB, OPENSSL = "hashlib", "openssl"

HMAC_NAMES = frozenset(a.hashlib_name for a in hash_algorithms.fixed_length())


def _hashlib_module():
    try:
        import _hashlib
    except ImportError:
        raise ProviderUnavailable("this Python has no _hashlib (built without OpenSSL)") from None
    return _hashlib


def _openssl_hash():
    from accel_agent.providers import _openssl_hash  # a sibling, imported on first use

    return _openssl_hash


def openssl_constructor(openssl_name: str, backend: str = HASHLIB):
    """The fastest OpenSSL-backed ``constructor(data=b"")`` of ``backend`` for a hash, or None."""
    if backend == HASHLIB:
        _hashlib = _hashlib_module()
        direct = getattr(_hashlib, "openssl_" + openssl_name, None)
        if direct is not None:
            return direct
        try:
            template = _hashlib.new(openssl_name)
        except ValueError:  # this OpenSSL lacks it (or FIPS forbids it)
            return None
        return copying_constructor(template, functools.partial(_hashlib.new, openssl_name))
    if openssl_name.startswith("shake_"):
        return _openssl_hash().shake_constructor(openssl_name)
    return _openssl_hash().constructor(openssl_name)


_NO_DATA = object()


def copying_constructor(template, general: Callable) -> Callable:
    """``constructor(data=b"")`` as a copy of ``template``, an empty hash object never updated.

    ``_hashlib.new(name)`` looks the digest up by name on every call (CPython
    3.11: ~40 % of a 64-byte BLAKE2b or SHA-512/256 hash, docs/per-call-cost.md);
    copying a context that already has it skips the lookup. A call with
    hashlib's other keywords goes to ``general`` (``_hashlib.new`` of the name).
    The template is only ever copied, so threads may share it.
    """
    copy = template.copy

    def new(data=_NO_DATA, /, **kwargs):
        if kwargs:
            return general(**kwargs) if data is _NO_DATA else general(data, **kwargs)
        h = copy()
        if data is not _NO_DATA:
            h.update(data)  # a non-buffer raises the TypeError _hashlib.new raises
        return h

    return new


def hashlib_constructor(hashlib_name: str, builtin: Callable) -> Callable | None:
    """A constructor with hashlib's interface on pyca/cryptography's OpenSSL, or None.

    For a ``hashlib`` whose interpreter has no OpenSSL-backed constructor for
    the hash: ``builtin`` (the interpreter's own) still serves short messages
    (:data:`accel_agent.providers._openssl_hash.SWITCH_AT`).
    """
    return _openssl_hash().constructor(hashlib_name, builtin)


class HashProvider:
    """One hash algorithm: ``new(data=b"")`` gives an OpenSSL hash object."""

    def __init__(self, primitive: str, backend: str = HASHLIB) -> None:
        algorithm = hash_algorithms.BY_PRIMITIVE[primitive]
        openssl_name = algorithm.hashlib_name
        new = openssl_constructor(openssl_name, backend)
        if new is None:
            if algorithm.optional:
                raise AlgorithmAbsent("this OpenSSL has no %s" % openssl_name)
            raise ProviderUnavailable("OpenSSL has no %s here" % openssl_name)
        self.name = backend
        self.primitive = primitive
        self.openssl_name = openssl_name
        self.digest_size = algorithm.digest_size
        self.block_size = algorithm.block_size
        self.new = new


# CPython's _hashlib takes at most this many bytes of an HMAC key, a PBKDF2
# password or salt, or a scrypt password or salt, in one call (OverflowError
# past it); messages of any size are fed to OpenSSL in parts.
MAX_KEY_SIZE = 2**31 - 1


class HmacProvider:
    """HMAC with any hash of :data:`HMAC_NAMES`: ``new(key, msg, name)`` and one-shot ``digest``.

    ``new`` takes keys of at most :data:`MAX_KEY_SIZE` bytes: a longer key is
    first shortened with :meth:`shorten` (RFC 2104 hashes any key longer
    than the hash's block, so the MAC is the same).
    """

    primitive = "hmac"
    max_key_size = MAX_KEY_SIZE

    def shorten(self, name: str, key: bytes) -> bytes:
        """The key HMAC uses in place of a key longer than the block: its hash."""
        import hashlib

        return hashlib.new(name, key).digest()

    def __init__(self, backend: str = HASHLIB) -> None:
        self.name = backend
        if backend == OPENSSL:
            self.new, self.digest, self.names = _openssl_hash().hmac_functions()
            return
        _hashlib = _hashlib_module()
        if not hasattr(_hashlib, "hmac_new"):
            raise ProviderUnavailable("this Python's _hashlib has no HMAC")
        self.new = _hashlib.hmac_new  # (key, msg, digestmod name) -> object with update/digest/copy
        self.digest = _hashlib.hmac_digest  # (key, msg, digestmod name) -> bytes
        self.names = frozenset(n for n in HMAC_NAMES if _usable(_hashlib, n))


def _usable(_hashlib, name: str) -> bool:
    try:
        _hashlib.hmac_digest(b"k", b"", name)
    except (ValueError, TypeError):
        return False
    return True


def _kdf(backend: str, name: str, twin: str, absent: str) -> Callable:
    """``_hashlib``'s KDF function ``name``, or ProviderUnavailable(``absent``) where it has none.

    The ``openssl`` backend: the same function on pyca/cryptography, which
    ``_openssl_hash``'s function ``twin`` makes.
    """
    if backend == OPENSSL:
        return getattr(_openssl_hash(), twin)()
    function = getattr(_hashlib_module(), name, None)
    if function is None:
        raise ProviderUnavailable(absent)
    return function


class Pbkdf2Provider:
    """PBKDF2-HMAC: ``derive(hash name, password, salt, iterations, length)``.

    Passwords and salts longer than :data:`MAX_KEY_SIZE` are the caller's to serve otherwise.
    """

    primitive = "pbkdf2"
    max_input_size = MAX_KEY_SIZE

    def __init__(self, backend: str = HASHLIB) -> None:
        self.name = backend
        absent = "this Python's _hashlib has no PBKDF2"
        # (name, password, salt, iterations, dklen)
        self.derive = _kdf(backend, "pbkdf2_hmac", "pbkdf2_function", absent)


class ScryptProvider:
    """scrypt: ``derive(password, salt, n, r, p, length)``.

    Passwords and salts longer than :data:`MAX_KEY_SIZE` are the caller's to serve otherwise.
    """

    primitive = "scrypt"
    max_input_size = MAX_KEY_SIZE
    MAX_MEMORY = 2**31 - 1  # what _hashlib accepts for maxmem

    def __init__(self, backend: str = HASHLIB) -> None:
        self.name = backend
        absent = "this Python's OpenSSL has no scrypt"
        self._scrypt = _kdf(backend, "scrypt", "scrypt_function", absent)

    def memory(self, n: int, r: int, p: int) -> int:
        """OpenSSL's own estimate of what scrypt(n, r, p) needs, plus slack."""
        return 128 * r * (n + p + 2) + 64 * 1024

    def derive(self, password: bytes, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
        return self._scrypt(
            password, salt=salt, n=n, r=r, p=p, maxmem=self.memory(n, r, p), dklen=length
        )


class HkdfProvider:
    """HKDF (RFC 5869) on OpenSSL's HMAC: ``derive(name, digest size, ikm, salt, info, length)``."""

    primitive = "hkdf"
    max_key_size = MAX_KEY_SIZE  # the salt is the first HMAC's key

    def __init__(self, backend: str = HASHLIB) -> None:
        self.name = backend
        self._hmac = HmacProvider(backend)
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


def _factory(cls, *args):
    """A factory the catalog names: ``sha256_provider``, ``sha256_openssl_provider``..."""

    def factory():
        return cls(*args)

    return factory


_g = globals()
for _primitive in hash_algorithms.BY_PRIMITIVE:
    _stem = _primitive.replace("-", "_")
    _g[_stem + "_provider"] = _factory(HashProvider, _primitive, HASHLIB)
    _g[_stem + "_openssl_provider"] = _factory(HashProvider, _primitive, OPENSSL)
for _stem, _cls in (
    ("hmac", HmacProvider),
    ("pbkdf2", Pbkdf2Provider),
    ("scrypt", ScryptProvider),
    ("hkdf", HkdfProvider),
):
    _g[_stem + "_provider"] = _factory(_cls, HASHLIB)
    _g[_stem + "_openssl_provider"] = _factory(_cls, OPENSSL)
del _g, _primitive, _stem, _cls
