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

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers.hash_algorithms import BY_HASHLIB_NAME, fixed_length

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# Below this many bytes in total the builtin code is faster than setting up
# an OpenSSL context (measured: docs/performance.md, hashlib without _hashlib).
SWITCH_AT = 768


def _cryptography_hashes():
    return cryptography_module("hazmat.primitives.hashes")


class OpenSSLHash:
    """A hashlib hash object whose long messages are hashed by OpenSSL.

    One subclass per algorithm (:func:`constructor`) sets the class
    attributes: the algorithm, its facts, the builtin constructor that
    serves short messages and the size from which OpenSSL takes over.
    """

    __slots__ = ("_pending", "_ctx")
    _algorithm: Any
    _name: str
    _digest_size: int
    _block_size: int
    _builtin: Callable | None
    _switch_at: int
    _new_context: Callable

    @property
    def name(self) -> str:
        return self._name

    @property
    def digest_size(self) -> int:
        return self._digest_size

    @property
    def block_size(self) -> int:
        return self._block_size

    def update(self, data: Any) -> None:
        if isinstance(data, str):
            raise TypeError("Strings must be encoded before hashing")
        view = memoryview(data)  # TypeError for what is not a buffer, as hashlib's
        ctx = self._ctx
        if ctx is None:
            if len(self._pending) + view.nbytes < self._switch_at:
                self._pending += view.tobytes()
                return
            ctx = self._ctx = self._new_context(self._algorithm)
            if self._pending:
                ctx.update(self._pending)
                self._pending = b""
        if view.ndim != 1 or view.format != "B":
            view = view.cast("B") if view.c_contiguous else view.tobytes()
        ctx.update(view)

    def digest(self) -> bytes:
        if self._ctx is None:
            return self._builtin(self._pending).digest()
        return self._ctx.copy().finalize()

    def hexdigest(self) -> str:
        return self.digest().hex()

    def copy(self) -> OpenSSLHash:
        cls = type(self)
        clone = cls.__new__(cls)
        clone._pending = self._pending
        clone._ctx = self._ctx.copy() if self._ctx is not None else None
        return clone


def constructor(name: str, builtin: Callable | None = None) -> Callable | None:
    """A hashlib-style constructor for ``name`` on cryptography's OpenSSL, or None.

    ``builtin`` is the interpreter's own constructor for the same algorithm:
    short messages use it (see the module's docstring); without it every
    object goes to OpenSSL at once. SHAKE is not offered: OpenSSL fixes its
    output length when the context is made, hashlib asks for it at the end.
    """
    record = BY_HASHLIB_NAME.get(name)
    if record is None or record.xof:
        return None
    hashes = _cryptography_hashes()
    algorithm = _algorithm(hashes, name)
    if algorithm is None:
        return None
    try:
        hashes.Hash(algorithm)
    except Exception:  # noqa: BLE001 - UnsupportedAlgorithm in this OpenSSL build
        return None
    switch_at = SWITCH_AT if builtin is not None else 0
    facts = {
        "__slots__": (),
        "_algorithm": algorithm,
        "_name": name,
        "_digest_size": algorithm.digest_size,
        "_block_size": record.block_size,
        "_builtin": builtin,
        "_switch_at": switch_at,
        "_new_context": hashes.Hash,
    }
    cls = type("openssl_" + name, (OpenSSLHash,), facts)
    return _new_function(cls, name)


def _new_function(cls: type, name: str) -> Callable:
    """hashlib's ``new(data=b"", *, usedforsecurity=True)`` for the objects of ``cls``."""
    builtin, switch_at, make = cls._builtin, cls._switch_at, cls.__new__
    new_context, algorithm = cls._new_context, cls._algorithm

    def new(data: Any = b"", *, usedforsecurity: bool = True, string: Any = None) -> Any:
        if string is not None:
            data = string
        if builtin is not None and type(data) is bytes and 0 < len(data) < switch_at:
            # A short one-shot message: the builtin code is the faster path.
            return builtin(data)
        h = make(cls)
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
    """cryptography's algorithm object for a hashlib name, or None where it lacks the class."""
    record = BY_HASHLIB_NAME.get(name)
    algorithm_class = getattr(hashes, record.cryptography_name, None) if record else None
    if algorithm_class is None:
        return None
    return algorithm_class(record.digest_size) if record.fixed_size else algorithm_class()


def shake_constructor(name: str) -> Callable | None:
    """``new(data=b"")`` with hashlib's SHAKE interface (``digest(length)``), or None."""
    hashes = _cryptography_hashes()
    xof_class = getattr(hashes, "XOFHash", None)  # cryptography 45+
    record = BY_HASHLIB_NAME.get(name)
    if xof_class is None or record is None or not record.xof:
        return None
    algorithm = getattr(hashes, record.cryptography_name)(digest_size=2**62)

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

    algorithms = {a.hashlib_name: _algorithm(hashes, a.hashlib_name) for a in fixed_length()}
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
