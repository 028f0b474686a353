"""The standard library's hashlib and hmac: which code serves them, and OpenSSL where missing.

* :func:`report` says, per hashlib algorithm, whether this interpreter serves
  it from OpenSSL (``_hashlib``) or from its builtin modules; ``status()``
  and ``accel-agent verify`` show it.
* :func:`patch_hashlib` (the hook of ``hashlib``): where the interpreter has
  no OpenSSL-backed constructor for an algorithm that pyca/cryptography's
  OpenSSL has (a Python built without ``_hashlib``, or whose OpenSSL lacks
  it), ``hashlib.<name>`` and ``hashlib.new(name)`` get a hashlib-compatible
  constructor on OpenSSL. It is cheap to install: at its first call it asks
  the registry for the hash's primitive (``sha256``...), so the four gates
  decide (platform, self-check, calibration, ``ACCEL_AGENT_EXCLUDE``): the
  provider that passed them serves, or the builtin code when none did.
* :func:`patch_hmac` (the hook of ``hmac``): ``hmac.new`` given a
  pycryptodome hash module or object as ``digestmod`` uses the algorithm's
  name, so CPython runs OpenSSL's HMAC instead of its pure Python one on
  top of pycryptodome's hash objects; only while the ``hmac`` primitive
  passed its gates and its provider has that hash. Any other call of
  ``hmac`` runs the standard library's code untouched.
"""

from __future__ import annotations

import functools
import sys

from accel_agent import patching

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

# What pyca/cryptography's OpenSSL can serve, measured faster than CPython's
# builtin code for messages past a couple of KiB (docs/performance.md).
# BLAKE2 stays builtin: OpenSSL's has neither keys nor other digest sizes.
OFFERED = (
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha3_224",
    "sha3_256",
    "sha3_384",
    "sha3_512",
)
OPENSSL, BUILTIN, AGENT = "openssl", "builtin", "openssl (accel-agent, via cryptography)"

_installed: dict[str, Callable] = {}  # hashlib name -> the constructor the agent installed
_builtin_served: set[str] = set()  # installed, but the gates left the builtin code serving


def report() -> dict[str, str]:
    """hashlib algorithm -> which code serves it here (imports hashlib: not for start-up)."""
    import hashlib

    openssl = getattr(hashlib, "_hashlib", None)
    openssl_names = set(getattr(openssl, "openssl_md_meth_names", ()) or ())
    result = {}
    for name in sorted(hashlib.algorithms_available | set(OFFERED)):
        constructor = getattr(hashlib, name, None)
        if constructor is not None and constructor is _installed.get(name):
            result[name] = BUILTIN if name in _builtin_served else AGENT
        elif constructor is not None:
            module = getattr(constructor, "__module__", "")
            result[name] = OPENSSL if module == "_hashlib" else BUILTIN
        elif name in openssl_names:
            result[name] = OPENSSL
        elif name in _installed:
            result[name] = AGENT
        elif name in hashlib.algorithms_available:
            result[name] = BUILTIN
    return result


def _served_by_openssl(hashlib: ModuleType, name: str) -> bool:
    openssl = getattr(hashlib, "_hashlib", None)
    if openssl is None:
        return False
    constructor = getattr(hashlib, name, None)
    if constructor is not None:
        return getattr(constructor, "__module__", "") == "_hashlib"
    return name in (getattr(openssl, "openssl_md_meth_names", ()) or ())


def patch_hashlib(module: ModuleType) -> None:
    """Install OpenSSL-backed constructors where this interpreter has builtin code only."""
    missing = [name for name in OFFERED if not _served_by_openssl(module, name)]
    if not missing:
        return
    builtin_new = module.new
    for name in missing:
        builtin = getattr(module, name, None)
        if builtin is None:
            builtin = functools.partial(builtin_new, name)
        constructor = _lazy_constructor(name, builtin)
        _installed[name] = constructor
        if hasattr(module, name):
            patching.patch_attribute(module, name, constructor)

    def new(name, data=b"", **kwargs):
        constructor = _installed.get(name) if type(name) is str else None
        if constructor is None:
            constructor = _installed.get(name.lower()) if type(name) is str else None
        if constructor is not None and kwargs.keys() <= {"usedforsecurity", "string"}:
            return constructor(data, **kwargs)
        return builtin_new(name, data, **kwargs)

    functools.update_wrapper(new, builtin_new)
    patching.patch_attribute(module, "new", new)


def _lazy_constructor(name: str, builtin: Callable) -> Callable:
    """hashlib.<name>: the first call asks the registry's gates and builds the real constructor.

    The choice is kept until the registry resets (tests, recalibration).
    """
    real: list = []
    from accel_agent import registry

    registry.reset_listeners.append(real.clear)

    def constructor(data=b"", *, usedforsecurity=True, string=None):
        if not real:
            real.append(_build(name, builtin))
        return real[0](data, usedforsecurity=usedforsecurity, string=string)

    constructor.__name__ = constructor.__qualname__ = "openssl_" + name
    constructor.__doc__ = "Return a %s hash object (OpenSSL via pyca/cryptography)." % name
    return constructor


def _build(name: str, builtin: Callable) -> Callable:
    """The constructor the gated provider of ``name``'s primitive gives, else the builtin."""
    built = None
    provider = _gated_provider(name)
    if provider is not None:
        from accel_agent.providers import hashes

        if provider.name == hashes.HASHLIB:
            built = provider.new  # _hashlib's own constructor: hashlib's signature
        else:
            try:
                built = hashes.hashlib_constructor(name, builtin)
            except Exception:  # noqa: BLE001 - cryptography unusable: the builtin serves
                built = None
    if built is None:
        _builtin_served.add(name)

        def built(data=b"", *, usedforsecurity=True, string=None):
            return builtin(string if string is not None else data)

    else:
        _builtin_served.discard(name)
    return built


def _gated_provider(name: str) -> Any:
    """The provider of the primitive of hashlib's ``name`` that passed the four gates, or None."""
    from accel_agent import registry
    from accel_agent.providers import hash_algorithms

    algorithm = hash_algorithms.BY_HASHLIB_NAME.get(name)
    if algorithm is None:
        return None
    try:
        return registry.slot(algorithm.primitive).get()
    except Exception:  # noqa: BLE001 - never let the agent break hashlib
        return None


def patch_hmac(module: ModuleType) -> None:
    """``hmac.new`` with a pycryptodome digestmod: OpenSSL's HMAC by name.

    The patch is ``HMAC._init_old``, the method CPython's ``HMAC.__init__``
    calls only for a digestmod that is neither a name nor one of
    ``_hashlib``'s constructors (3.10 and later): every other call of
    ``hmac.new`` runs exactly the standard library's code, at its own cost.
    A wrapper of ``hmac.new`` itself measured +300 ns per call (a quarter
    of an HMAC of 64 bytes) for every program, to speed up the rare one
    that passes a pycryptodome module. For the same reason ``hmac.digest``
    is not patched: it has no such method, so a pycryptodome digestmod
    there runs the standard library's Python HMAC over pycryptodome's hash
    objects (which the agent serves), as it did natively. Python 3.9's
    ``HMAC`` has no ``_init_old`` and is left alone.
    """
    hmac_class = getattr(module, "HMAC", None)
    original = getattr(hmac_class, "_init_old", None)
    openssl = getattr(module, "_hashopenssl", None)
    if original is None or openssl is None:
        return
    unsupported = getattr(openssl, "UnsupportedDigestmodError", ValueError)

    def _init_old(self, key, msg, digestmod):
        name = digestmod if _too_long(key) else _by_name(digestmod)
        if type(name) is str:
            try:
                return self._init_hmac(key, msg, name)
            except unsupported:
                pass
        return original(self, key, msg, digestmod)

    functools.update_wrapper(_init_old, original)
    patching.patch_attribute(module, "HMAC._init_old", _init_old)


# CPython's _hashlib.hmac_new takes at most this many bytes of key
# (OverflowError past it).
_MAX_ONE_CALL = 2**31 - 1


def _too_long(key: Any) -> bool:
    """Whether a key is past what OpenSSL's HMAC by name takes in one call.

    Such calls keep the digestmod they were given: with a pycryptodome hash,
    the standard library's Python HMAC serves them, as without the agent.
    """
    try:
        return memoryview(key).nbytes > _MAX_ONE_CALL
    except TypeError:
        return False  # None, or not a buffer: hmac raises what it raises


def _by_name(digestmod: Any) -> Any:
    """The hashlib name of a pycryptodome hash module or object; anything else unchanged."""
    if isinstance(digestmod, str) or callable(digestmod) or digestmod is None:
        return digestmod
    if "Crypto" not in sys.modules and "Cryptodome" not in sys.modules:
        return digestmod  # not pycryptodome's: nothing to look up
    from accel_agent import registry
    from accel_agent.targets.pycryptodome.hmac import hash_info

    info = hash_info(digestmod)
    if info is None:
        return digestmod
    provider = registry.slot("hmac").get()  # the four gates of the hmac primitive
    if provider is None or info.name not in provider.names:
        return digestmod
    return info.name
