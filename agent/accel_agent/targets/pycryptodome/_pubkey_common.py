"""What the public-key patches share: accelerated subclasses, ``new`` wrappers, hash lookup.

pycryptodome's signature and RSA cipher objects (``PKCS115_SigScheme``,
``PSS_SigScheme``, the DSS schemes, ``EdDSASigScheme``,
``PKCS1OAEP_Cipher``, ``PKCS115_Cipher``) are made by their module's
``new``, which validates the arguments and stores them on the object. The
patch keeps all of that native: the patched ``new`` calls the original one
and turns the object it returns into an instance of an *accelerated
subclass* (``obj.__class__ = ...``: same attributes, same name, module and
docstring, ``isinstance`` of the native class), whose methods serve plain
calls through OpenSSL and hand anything else to the native method, which
then raises pycryptodome's own errors.

Patching ``new`` rather than the class attribute keeps the switch in one
place per module: ``uninstall()`` puts the original ``new`` back, and an
object made before stays what it is.
"""

from __future__ import annotations

import copy
import functools
import os
import sys

from accel_agent import patching
from accel_agent.targets.pycryptodome import _buffers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable


# pycryptodome's names for each curve the agent serves (``EccKey.curve`` is
# the canonical one from 3.16 on; 3.15 keeps the name the key was made with).
CURVE_NAMES: dict[str, tuple[str, ...]] = {
    "NIST P-256": ("NIST P-256", "p256", "P-256", "prime256v1", "secp256r1", "nistp256"),
    "NIST P-384": ("NIST P-384", "p384", "P-384", "prime384v1", "secp384r1", "nistp384"),
    "NIST P-521": ("NIST P-521", "p521", "P-521", "prime521v1", "secp521r1", "nistp521"),
    "Ed25519": ("Ed25519", "ed25519"),
    "Ed448": ("Ed448", "ed448"),
    "Curve25519": ("Curve25519", "curve25519", "X25519"),
    "Curve448": ("Curve448", "curve448", "X448"),
}
CANONICAL_CURVES = {name: canonical for canonical, names in CURVE_NAMES.items() for name in names}


def with_curve_names(table: dict) -> dict:
    """``table`` keyed by canonical curve names, extended to every name of each curve."""
    return {name: value for canonical, value in table.items() for name in CURVE_NAMES[canonical]}


def accelerated_class(native_cls: type, methods: dict[str, Callable]) -> type:
    """A subclass of ``native_cls`` overriding ``methods``, dressed as the native class."""
    namespace = dict(methods)
    namespace["__module__"] = native_cls.__module__
    namespace["__qualname__"] = native_cls.__qualname__
    namespace["__doc__"] = native_cls.__doc__
    namespace["_accel_native_class"] = native_cls
    for name, method in _NATIVE_COPYING.items():
        namespace.setdefault(name, method)
    cls = type(native_cls.__name__, (native_cls,), namespace)
    for name, method in methods.items():
        native_method = getattr(native_cls, name, None)
        if native_method is not None:
            functools.update_wrapper(method, native_method)
    return cls


def _native_twin(obj: Any) -> Any:
    """An object of the native class with ``obj``'s attributes (pickling and copying ask it)."""
    twin = object.__new__(type(obj)._accel_native_class)
    twin.__dict__.update(obj.__dict__)
    return twin


def _copy(self):
    clone = object.__new__(type(self))
    clone.__dict__.update(self.__dict__)
    return clone


def _deepcopy(self, memo):
    clone = copy.deepcopy(_native_twin(self), memo)  # raises what native raises (its key)
    clone.__class__ = type(self)
    return clone


def _reduce_ex(self, protocol):
    # Pickled as the native object it stands for: the same error where the key
    # refuses (every pycryptodome key does), a native object where it would not.
    import pickle  # here, not at the patch: ~2 ms of a key module's import

    data = pickle.dumps(_native_twin(self), protocol)
    return pickle.loads, (data,)


# Copies, deep copies and pickles of accelerated objects as natively: the class
# is the agent's, so pickle's lookup by name would otherwise refuse it first.
_NATIVE_COPYING = {"__copy__": _copy, "__deepcopy__": _deepcopy, "__reduce_ex__": _reduce_ex}


def patch_new(module: ModuleType, classes: dict[type, type], name: str = "new") -> None:
    """Make ``module.new`` return accelerated objects for the native classes in ``classes``."""
    original_new = getattr(module, name)

    def new(*args: Any, **kwargs: Any) -> Any:
        obj = original_new(*args, **kwargs)
        accelerated = classes.get(type(obj))
        if accelerated is not None:
            obj.__class__ = accelerated
        return obj

    functools.update_wrapper(new, original_new)
    patching.patch_attribute(module, name, new)


def default_random() -> Callable:
    """What pycryptodome's ``Random.get_random_bytes`` is: the interpreter's own ``urandom``
    (``posix.urandom``, which ``os.urandom`` is unless replaced).

    A scheme whose random function is this one may take its randomness from
    OpenSSL instead; any other function (the user's, or a replacement of
    ``get_random_bytes`` installed by a test) is honoured by native code.
    Not the function the module holds when the patch runs: that is at the
    first call, which may come while a test's replacement is in place.
    """
    return sys.modules[os.name].urandom


def served(slot: Any, operation: Callable, *args: Any) -> Any:
    """What OpenSSL's ``operation(*args)`` returns (a signature, a ciphertext),
    counted as a call ``slot`` served; None, for native code to decide (and
    raise its own errors), when it returned None or raised."""
    try:
        result = operation(*args)
    except Exception:  # noqa: BLE001 - native decides
        return None
    if result is not None:
        slot.calls += 1
    return result


def accepted(slot: Any, verify: Callable, *args: Any) -> bool:
    """Whether OpenSSL's ``verify(*args)`` accepts the signature (counted as a
    call ``slot`` served). False when it rejects or raises: the native method
    then judges the signature again, and raises its own error."""
    try:
        valid = verify(*args)
    except Exception:  # noqa: BLE001
        return False
    if valid:
        slot.calls += 1
        return True
    return False


def digest_and_oid(provider: Any, msg_hash: Any) -> tuple[bytes, str] | None:
    """(digest, object identifier) of a pycryptodome hash object OpenSSL knows, else None.

    Only the public hash-object API is used (``oid``, ``digest()``,
    ``digest_size``), so accelerated hash objects serve as well as native ones.
    """
    try:
        oid = msg_hash.oid
        algorithm = provider.algorithm(oid)
        if algorithm is None:
            return None
        digest = msg_hash.digest()
    except Exception:  # noqa: BLE001 - not a hash object as expected: native decides
        return None
    if type(digest) is not bytes or len(digest) != algorithm.digest_size:
        return None
    return digest, oid


# id(an Integer) -> (that Integer, its value): the orders of the DSS scheme
# templates (signature._install_fast_dss_new), shared by every scheme made
# from a template, so verifying need not convert them at each call.
_orders: dict[int, tuple[Any, int]] = {}


def remember_order(order: Any) -> None:
    """Keep ``int(order)`` for a template scheme's ``_order`` (a pycryptodome Integer)."""
    try:
        value = int(order)
    except Exception:  # noqa: BLE001 - no order, or not a number: converted at each call
        return
    _orders[id(order)] = (order, value)


def order_value(order: Any) -> int:
    """``int(order)``, without the conversion for a template's order."""
    entry = _orders.get(id(order))
    if entry is not None and entry[0] is order:
        return entry[1]
    return int(order)


def decode_signature(
    scheme: Any, provider: Any, msg_hash: Any, signature: Any, order: int
) -> tuple[bytes, str, int, int] | None:
    """(digest, object identifier, r, s) of a DSS signature native code would go on to check.

    For DSA and ECDSA schemes alike, native's checks before its equation:
    the encoding (``binary``: r and s on the length of the order each;
    ``der``: strict DER, in bytes only, as native's decoder takes, read
    here only when re-encoding its (r, s) gives it back byte for byte, so
    both sides read the same integers), a FIPS hash the scheme accepts,
    and 0 < r, s < ``order``. None when any fails or the hash is unknown to
    OpenSSL: native then judges, and raises its own ``ValueError``.
    """
    if scheme._encoding == "binary":
        data = _buffers.plain_bytes(signature)
    else:  # native's strict DER decoder takes bytes only (it finds no DER in a bytearray)
        data = signature if type(signature) is bytes else None
    if data is None or not scheme._valid_hash(msg_hash):
        return None
    found = digest_and_oid(provider, msg_hash)
    if not found:
        return None
    if scheme._encoding == "binary":
        size = scheme._order_bytes
        if len(data) != 2 * size:
            return None
        r = int.from_bytes(data[:size], "big")
        s = int.from_bytes(data[size:], "big")
    else:
        try:
            r, s = provider.decode_der(data)
            if provider.encode_der(r, s) != data:
                return None
        except Exception:  # noqa: BLE001 - not DER: native's message
            return None
    if not (0 < r < order and 0 < s < order):
        return None
    return found[0], found[1], r, s
