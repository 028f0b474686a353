"""hashlib-compatible hash objects on pyca/cryptography's OpenSSL, for Pythons without _hashlib.

CPython falls back to its builtin hash modules (``_sha2``, ``_sha1``,
``_md5``, ``_sha3``) when it was built without OpenSSL. pyca/cryptography
carries its own OpenSSL: :func:`constructor` gives, for a hashlib name, a
``constructor(data=b"", *, usedforsecurity=True)`` whose objects have
hashlib's interface (``name``, ``digest_size``, ``block_size``, ``update``,
``digest``, ``hexdigest``, ``copy``; SHAKE: ``digest(length)``).

Setting up an OpenSSL context costs more than the builtin code needs for a
short message, so an object starts *pending*: it keeps what it is fed, up to
:data:`SWITCH_AT` bytes, and a digest of that much is the builtin's; past it,
the bytes go to OpenSSL and everything after them too. Either way the result
is the same bytes; what changes is which code computes them.
"""

from __future__ import annotations

from accel_agent.providers.base import ProviderUnavailable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# hashlib name -> pyca/cryptography class name (SHAKE: digest length given at the end)
ALGORITHMS = {
    "md5": "MD5",
    "sha1": "SHA1",
    "sha224": "SHA224",
    "sha256": "SHA256",
    "sha384": "SHA384",
    "sha512": "SHA512",
    "sha512_224": "SHA512_224",
    "sha512_256": "SHA512_256",
    "sha3_224": "SHA3_224",
    "sha3_256": "SHA3_256",
    "sha3_384": "SHA3_384",
    "sha3_512": "SHA3_512",
    "shake_128": "SHAKE128",
    "shake_256": "SHAKE256",
    # OpenSSL's names for its only BLAKE2 shapes (the agent's BLAKE2 providers)
    "blake2b512": "BLAKE2b",
    "blake2s256": "BLAKE2s",
}
# BLAKE2 classes take their (only) digest size as an argument.
DIGEST_SIZE_ARGUMENT = {"blake2b512": 64, "blake2s256": 32}
BLOCK_SIZES = {
    "md5": 64,
    "sha1": 64,
    "sha224": 64,
    "sha256": 64,
    "sha384": 128,
    "sha512": 128,
    "sha512_224": 128,
    "sha512_256": 128,
    "sha3_224": 144,
    "sha3_256": 136,
    "sha3_384": 104,
    "sha3_512": 72,
    "shake_128": 168,
    "shake_256": 136,
    "blake2b512": 128,
    "blake2s256": 64,
}
# Below this many bytes in total the builtin code is faster than setting up
# an OpenSSL context (measured: docs/performance.md, hashlib without _hashlib).
SWITCH_AT = 768


def _cryptography_hashes():
    try:
        from cryptography.hazmat.primitives import hashes
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None
    return hashes


def constructor(name: str, builtin: Callable | None = None) -> Callable | None:
    """A hashlib-style constructor for ``name`` on cryptography's OpenSSL, or None.

    ``builtin`` is the interpreter's own constructor for the same algorithm:
    short messages use it (see the module's docstring); without it every
    object goes to OpenSSL at once. SHAKE is not offered: OpenSSL fixes its
    output length when the context is made, hashlib asks for it at the end.
    """
    class_name = ALGORITHMS.get(name)
    if class_name is None or name.startswith("shake_"):
        return None
    hashes = _cryptography_hashes()
    algorithm_class = getattr(hashes, class_name, None)
    if algorithm_class is None:
        return None
    algorithm = algorithm_class(*_size_argument(name))
    try:
        hashes.Hash(algorithm)
    except Exception:  # noqa: BLE001 - UnsupportedAlgorithm in this OpenSSL build
        return None
    new_context = hashes.Hash
    digest_size = algorithm.digest_size
    block_size = BLOCK_SIZES[name]
    switch_at = SWITCH_AT if builtin is not None else 0

    class OpenSSLHash:
        """A hashlib hash object whose long messages are hashed by OpenSSL."""

        __slots__ = ("_pending", "_ctx")

        @property
        def name(self) -> str:
            return name

        @property
        def digest_size(self) -> int:
            return digest_size

        @property
        def block_size(self) -> int:
            return block_size

        def update(self, data: Any) -> None:
            if isinstance(data, str):
                raise TypeError("Strings must be encoded before hashing")
            view = memoryview(data)  # TypeError for what is not a buffer, as hashlib's
            ctx = self._ctx
            if ctx is None:
                if len(self._pending) + view.nbytes < switch_at:
                    self._pending += view.tobytes()
                    return
                ctx = self._ctx = new_context(algorithm)
                if self._pending:
                    ctx.update(self._pending)
                    self._pending = b""
            if view.ndim != 1 or view.format != "B":
                view = view.cast("B") if view.c_contiguous else view.tobytes()
            ctx.update(view)

        def digest(self) -> bytes:
            if self._ctx is None:
                return builtin(self._pending).digest()
            return self._ctx.copy().finalize()

        def hexdigest(self) -> str:
            return self.digest().hex()

        def copy(self) -> OpenSSLHash:
            clone = OpenSSLHash.__new__(OpenSSLHash)
            clone._pending = self._pending
            clone._ctx = self._ctx.copy() if self._ctx is not None else None
            return clone

    OpenSSLHash.__name__ = OpenSSLHash.__qualname__ = "openssl_" + name
    make = OpenSSLHash.__new__

    def new(data: Any = b"", *, usedforsecurity: bool = True, string: Any = None) -> Any:
        if string is not None:
            data = string
        if builtin is not None and type(data) is bytes and 0 < len(data) < switch_at:
            # A short one-shot message: the builtin code is the faster path.
            return builtin(data)
        h = make(OpenSSLHash)
        h._ctx = None if builtin is not None else new_context(algorithm)
        h._pending = b""
        if data:
            h.update(data)
        return h

    new.__name__ = new.__qualname__ = "openssl_" + name
    new.__doc__ = "Return a %s hash object (OpenSSL via pyca/cryptography)." % name
    return new


# --------------------------------------------------------------------------- without _hashlib
# The agent's own providers (for pycryptodome) when CPython has no _hashlib:
# the same interfaces as _hashlib's, on pyca/cryptography.


def _algorithm(hashes, name: str):
    class_name = ALGORITHMS.get(name)
    algorithm_class = getattr(hashes, class_name, None) if class_name else None
    return algorithm_class(*_size_argument(name)) if algorithm_class is not None else None


def _size_argument(name: str) -> tuple:
    size = DIGEST_SIZE_ARGUMENT.get(name)
    return (size,) if size is not None else ()


def shake_constructor(name: str) -> Callable | None:
    """``new(data=b"")`` with hashlib's SHAKE interface (``digest(length)``), or None."""
    hashes = _cryptography_hashes()
    xof_class = getattr(hashes, "XOFHash", None)  # cryptography 45+
    class_name = ALGORITHMS.get(name)
    if xof_class is None or class_name is None or not name.startswith("shake_"):
        return None
    algorithm = getattr(hashes, class_name)(digest_size=2**62)

    class OpenSSLShake:
        __slots__ = ("_ctx",)
        name = property(lambda self: name)

        def update(self, data: Any) -> None:
            self._ctx.update(data)

        def digest(self, length: int) -> bytes:
            return self._ctx.copy().squeeze(length)

        def hexdigest(self, length: int) -> str:
            return self.digest(length).hex()

        def copy(self) -> OpenSSLShake:
            clone = OpenSSLShake()
            clone._ctx = self._ctx.copy()
            return clone

    def new(data: Any = b"") -> OpenSSLShake:
        h = OpenSSLShake()
        h._ctx = xof_class(algorithm)
        if data:
            h._ctx.update(data)
        return h

    return new


def hmac_functions() -> tuple[Callable, Callable, frozenset]:
    """(``hmac_new(key, msg, name)``, ``hmac_digest(key, msg, name)``, names), as _hashlib's."""
    hashes = _cryptography_hashes()
    from cryptography.hazmat.primitives import hmac as crypto_hmac

    algorithms = {
        name: _algorithm(hashes, name) for name in ALGORITHMS if not name.startswith("shake")
    }
    algorithms = {name: algorithm for name, algorithm in algorithms.items() if algorithm}

    class OpenSSLHmac:
        __slots__ = ("_ctx",)

        def update(self, msg: Any) -> None:
            self._ctx.update(msg)

        def digest(self) -> bytes:
            return self._ctx.copy().finalize()

        def hexdigest(self) -> str:
            return self.digest().hex()

        def copy(self) -> OpenSSLHmac:
            clone = OpenSSLHmac()
            clone._ctx = self._ctx.copy()
            return clone

    def hmac_new(key: Any, msg: Any = b"", digestmod: str = "") -> OpenSSLHmac:
        mac = OpenSSLHmac()
        mac._ctx = crypto_hmac.HMAC(bytes(key), algorithms[digestmod])
        if msg:
            mac._ctx.update(msg)
        return mac

    def hmac_digest(key: Any, msg: Any, digest: str) -> bytes:
        ctx = crypto_hmac.HMAC(bytes(key), algorithms[digest])
        ctx.update(msg)
        return ctx.finalize()

    return hmac_new, hmac_digest, frozenset(algorithms)


def pbkdf2_function() -> Callable:
    """``pbkdf2_hmac(name, password, salt, iterations, dklen)``, as _hashlib's."""
    hashes = _cryptography_hashes()
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    def pbkdf2_hmac(name: str, password: bytes, salt: bytes, iterations: int, dklen: int) -> bytes:
        algorithm = _algorithm(hashes, name)
        kdf = PBKDF2HMAC(algorithm=algorithm, length=dklen, salt=salt, iterations=iterations)
        return kdf.derive(password)

    return pbkdf2_hmac


def scrypt_function() -> Callable:
    """``scrypt(password, *, salt, n, r, p, maxmem, dklen)``, as _hashlib's."""
    _cryptography_hashes()
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    def scrypt(password: bytes, *, salt: bytes, n: int, r: int, p: int, maxmem: int, dklen: int):
        return Scrypt(salt=salt, length=dklen, n=n, r=r, p=p).derive(password)

    return scrypt
