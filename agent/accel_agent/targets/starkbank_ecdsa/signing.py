"""starkbank-ecdsa (the ``ellipticcurve`` package, 2.3.1 and later) served by OpenSSL.

Patched in place on ``ellipticcurve.ecdsa.Ecdsa`` (so every reference to the
class, bound before or after, is served), on its curves that OpenSSL has:

* ``Ecdsa.verify``: the library's own steps (hashing with ``hashfunc``, the
  digest's truncation to the order's bit length, the range checks of r and
  s, the check that the public point is on the curve), then OpenSSL's ECDSA
  equation in place of the library's point arithmetic, on both curves. Its
  verdict is returned as the library's would be: ``True`` or ``False``, and
  never an exception of cryptography's. Both compute u1·G + u2·Q with u1 and
  u2 reduced mod n and compare its x coordinate mod n with r; on these
  curves (cofactor 1) every point on the curve is in the group, so the
  verdicts agree on every input that reaches OpenSSL.
* ``Ecdsa.sign`` on prime256v1: the library's own hedged RFC 6979 nonce
  (its ``RandomInteger.rfc6979``, fresh randomness included), then OpenSSL
  computes the nonce's point k·G, and s, the low-s rule and the recovery id
  are computed as the library computes them. The signature is the one the
  library would make with that nonce, a ``Signature`` of its own class:
  with the same randomness, the same signature. Two of the library's steps
  are computed faster to the same result, while its classes are as shipped
  (:class:`ShippedSteps`): the nonce with one-shot HMACs for the hashes of
  ``hashlib`` (:func:`hedged_nonces`), and the nonce's inverse blinded
  (``EcdsaProvider.inverse_of_nonce``).
  On secp256k1 signing stays native by choice: OpenSSL has no fast
  implementation of that curve, and its k·G (a key derivation, which also
  checks the key: about 650 us) is slower than the library's whole
  signature with its precomputed table (575-700 us).

Anything else goes to the library's own code: a curve object it does not
ship (or one the user built), an ``r``, ``s`` or coordinate that is not a
plain ``int``, a subclass's own ``sign``/``verify``, a failure of OpenSSL.

The OpenSSL public key made from a ``PublicKey`` is kept by weak reference
to that object (it lives no longer than the key), and used only while the
key's curve object and coordinates are the ones it was made from.
"""

from __future__ import annotations

import functools
import operator
import secrets
import weakref

from accel_agent import patching, registry
from accel_agent.targets.served_curves import ServedCurves

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

MIN_VERSION = (2, 3, 1)

# starkbank-ecdsa curve name -> (primitive, whether signing is served: see above)
CURVES = {
    "secp256k1": ("ecdsa-secp256k1", False),
    "prime256v1": ("ecdsa-p256", True),
}


def version() -> tuple[int, ...]:
    """The installed starkbank-ecdsa's version (its package has no ``__version__``)."""
    from importlib import metadata

    try:
        text = metadata.version("starkbank-ecdsa")
    except Exception:  # noqa: BLE001 - not installed as a distribution: unknown
        return ()
    parts = []
    for part in text.split("+")[0].split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


class _Curve:
    """A starkbank-ecdsa curve the agent serves, with its registry slot."""

    __slots__ = ("curve", "slot", "sign")

    def __init__(self, curve: Any, primitive: str, sign: bool) -> None:
        self.curve = curve
        self.slot = registry.slot(primitive)
        self.sign = sign


class PublicTwins:
    """OpenSSL public keys by ``PublicKey`` object, for as long as that object lives.

    An entry serves only while the key's curve object is the one it was made
    for and its point's coordinates are the ones it was made from (the
    library's keys and points are plain mutable objects).
    """

    def __init__(self) -> None:
        self._entries: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def get(self, key: Any, curve: Any, x: int, y: int, provider: Any) -> Any:
        try:
            entry = self._entries.get(key)
        except TypeError:  # unhashable (a subclass with __eq__) or not weakly referable
            entry = None
        if entry is not None and entry[0] is curve and entry[1] == x and entry[2] == y:
            return entry[3]
        try:
            twin = provider.load_public(x, y)
        except Exception:  # noqa: BLE001 - OpenSSL refuses the point: native judges
            return None
        try:
            self._entries[key] = (curve, x, y, twin)
        except TypeError:
            pass
        return twin

    def __len__(self) -> int:
        return len(self._entries)


public_twins = PublicTwins()


# The names the library's nonce code (its utils/integer.py) reads from its module
# at each call, besides RandomInteger and _randbelow.
_NONCE_HELPERS = ("hmacNew", "hexFromInt", "numberFromByteString", "byteStringFromHex")


def _is_secrets_randbelow(function: Any) -> bool:
    """Whether ``function`` is the standard library's ``secrets.randbelow`` itself.

    Told by its code's file and name, not by identity with what ``secrets``
    holds now: a stub put in ``secrets`` before the library was imported is
    what the library bound, and must not pass for the real function.
    """
    code = getattr(function, "__code__", None)
    return (
        code is not None
        and code.co_name == "randbelow"
        and code.co_filename == getattr(secrets, "__file__", None)
    )


class ShippedSteps:
    """The library's nonce and inverse steps, as shipped: when they may be computed faster.

    Its ``RandomInteger`` class, that class's ``rfc6979`` and ``between``,
    the helpers its nonce code calls (``hmacNew`` and its hexadecimal
    conversions) and ``Math.inv`` are taken when the patch is made; a call
    is served faster only while the library's modules still hold those same
    objects (a test that replaces one is honoured: the library's own code
    then runs). ``_randbelow`` is read at each call, as the library reads it.
    """

    def __init__(self, ecdsa_module: ModuleType, integer_module: ModuleType, math_class: type):
        random_integer = integer_module.RandomInteger
        self._namespace = ecdsa_module.__dict__
        integer_namespace = self._integer_namespace = integer_module.__dict__
        self._random_integer = random_integer
        self._nonce_methods = (
            random_integer.__dict__["rfc6979"],
            random_integer.__dict__["between"],
        )
        self._read_helpers = operator.itemgetter(*_NONCE_HELPERS)
        self._helpers = tuple(integer_namespace.get(name) for name in _NONCE_HELPERS)
        randbelow = integer_namespace.get("_randbelow")
        self._shipped_randbelow = randbelow if _is_secrets_randbelow(randbelow) else None
        self._math = math_class
        self._inverse = math_class.__dict__["inv"]

    def nonces_as_shipped(self) -> bool:
        """Whether the nonce is the library's ``RandomInteger.rfc6979`` as shipped."""
        random_integer = self._namespace["RandomInteger"]
        methods = random_integer.__dict__
        try:
            helpers = self._read_helpers(self._integer_namespace)
        except KeyError:  # one was deleted: the library's own code fails as it fails
            return False
        return (
            random_integer is self._random_integer
            and methods["rfc6979"] is self._nonce_methods[0]
            and methods["between"] is self._nonce_methods[1]
            and helpers == self._helpers  # functions compare by identity
        )

    def randbelow(self) -> Any:
        """The randomness the library's nonce takes: its module's ``_randbelow``.

        None while that is ``secrets.randbelow``, as shipped: the nonce then
        takes the same system randomness with ``secrets.token_bytes``
        (through the same ``random.SystemRandom``), without ``randbelow``'s
        rejection loop (``randbelow(2**256)`` draws 257 bits and throws
        half of the draws away).
        """
        randbelow = self._integer_namespace["_randbelow"]
        return None if randbelow is self._shipped_randbelow else randbelow

    def inverse_as_shipped(self) -> bool:
        """Whether the library's ``Math.inv`` is as shipped."""
        math = self._namespace["Math"]
        return math is self._math and math.__dict__["inv"] is self._inverse


# hashlib's constructors -> (their names, digest sizes): the hashes whose HMAC the
# agent computes for the nonce (any other hashfunc: the library's own nonce code)
def _hmac_names() -> dict:
    import hashlib

    names = ("sha1", "sha224", "sha256", "sha384", "sha512")
    return {getattr(hashlib, name): (name, hashlib.new(name).digest_size) for name in names}


def _hmac_new() -> Any:
    """``new(key, msg, name)``, an object whose ``digest()`` is the HMAC.

    The agent's HMAC provider (CPython's ``_hashlib``, what ``hmac`` itself
    calls, without the ``hmac`` module's Python layer: 0.9 against 1.3 us
    here), else ``hmac.new``, which takes the same arguments.
    """
    from accel_agent.providers.base import ProviderUnavailable
    from accel_agent.providers.hashes import HmacProvider

    try:
        return HmacProvider().new
    except ProviderUnavailable:
        import hmac

        return hmac.new


def hedged_nonces(
    byte_message: bytes, secret: int, curve: Any, hash_name: str, digest_size: int,
    randbelow: Any, hmac_new: Any,
) -> Any:  # fmt: skip
    """The nonces of the library's ``RandomInteger.rfc6979``, computed to the same values.

    Its steps (RFC 6979 section 3.2, with its fresh ``extraEntropy`` in
    K's initialisation, section 3.6), on bytes and integers instead of its
    hexadecimal strings, and with ``hmac_new`` (:func:`_hmac_new`). For a
    ``secret`` of the order's size (the caller checks it) and a SHA digest
    (never empty). ``randbelow`` is the library's randomness, or None for
    ``secrets.token_bytes`` (see :meth:`ShippedSteps.randbelow`).
    """

    bits = curve.nBitLength
    size = (bits + 7) // 8
    order = curve.N
    number = int.from_bytes(byte_message, "big")
    excess = 8 * len(byte_message) - bits
    if excess > 0:
        number >>= excess
    if randbelow is None:  # secrets.randbelow(2**(8*size)): the same system randomness
        extra = secrets.token_bytes(size)
    elif type(entropy := randbelow(1 << (8 * size))) is int and 0 <= entropy < 1 << (8 * size):
        extra = entropy.to_bytes(size, "big")  # its between(0, 2**(8*size) - 1)
    else:  # a replaced randomness out of range, or no int: the library's own conversion
        from ellipticcurve.utils.binary import byteStringFromHex, hexFromInt

        extra = byteStringFromHex(hexFromInt(entropy).zfill(size * 2))
    seed = secret.to_bytes(size, "big") + (number % order).to_bytes(size, "big") + extra
    new = hmac_new
    v = b"\x01" * digest_size
    k = new(b"\x00" * digest_size, v + b"\x00" + seed, hash_name).digest()
    v = new(k, v, hash_name).digest()
    k = new(k, v + b"\x01" + seed, hash_name).digest()
    v = new(k, v, hash_name).digest()
    while True:
        t = b""
        while len(t) * 8 < bits:
            v = new(k, v, hash_name).digest()
            t += v
        candidate = int.from_bytes(t, "big")
        if len(t) * 8 > bits:
            candidate >>= len(t) * 8 - bits
        if 1 <= candidate <= order - 1:
            yield candidate
        k = new(k, v + b"\x00", hash_name).digest()
        v = new(k, v, hash_name).digest()


def patch_ecdsa(module: ModuleType) -> None:
    """Serve ``Ecdsa.sign`` and ``Ecdsa.verify`` of ``ellipticcurve.ecdsa`` through OpenSSL."""
    import sys

    if version() < MIN_VERSION:
        return  # an older release: its code differs from what is mirrored here
    served = ServedCurves(sys.modules["ellipticcurve.curve"], CURVES, _Curve)
    steps = ShippedSteps(
        module, sys.modules["ellipticcurve.utils.integer"], sys.modules["ellipticcurve.math"].Math
    )
    ecdsa_class = module.Ecdsa
    native_sign = ecdsa_class.__dict__["sign"].__func__
    native_verify = ecdsa_class.__dict__["verify"].__func__
    patching.patch_attribute(
        module, "Ecdsa.sign", classmethod(_sign(module, served, steps, native_sign))
    )
    patching.patch_attribute(
        module, "Ecdsa.verify", classmethod(_verify(module, served, native_verify))
    )


def _sign(module: ModuleType, served: ServedCurves, steps: ShippedSteps, native: Any) -> Any:
    # The library's module globals, read at call time as its own code reads
    # them (a test that replaces RandomInteger or Signature is honoured).
    namespace = module.__dict__
    (default_hash,) = native.__defaults__
    hmac_names = _hmac_names()
    hmac_new = _hmac_new()

    def sign(cls: Any, message: Any, privateKey: Any, hashfunc: Any = default_hash) -> Any:  # noqa: N803 - the library's names
        curve = privateKey.curve
        entry = served.get(curve)
        provider = entry is not None and entry.sign and entry.slot.get()
        if not provider:
            return native(cls, message, privateKey, hashfunc)
        # The library's steps, in its order; only k·G is OpenSSL's.
        byte_message = hashfunc(namespace["toBytes"](message)).digest()
        number_message = namespace["numberFromByteString"](byte_message, curve.nBitLength)
        order = curve.N
        secret = privateKey.secret
        r, s, point = 0, 0, None
        try:
            hmac_name = hmac_names.get(hashfunc)
        except TypeError:  # an unhashable callable: the library's own nonce code
            hmac_name = None
        if (
            hmac_name is not None
            and type(secret) is int
            and 0 <= secret < 1 << (8 * ((curve.nBitLength + 7) // 8))
            and steps.nonces_as_shipped()
        ):
            nonces = hedged_nonces(
                byte_message, secret, curve, *hmac_name, steps.randbelow(), hmac_new
            )
        else:
            nonces = namespace["RandomInteger"].rfc6979(byte_message, secret, curve, hashfunc)
        blinded_inverse = steps.inverse_as_shipped()
        served_point = True
        while r == 0 or s == 0:
            nonce = next(nonces)
            try:
                x, y = provider.multiply_generator(nonce)
                refused = False
            except Exception:  # noqa: BLE001 - a nonce OpenSSL refuses: the library's arithmetic
                refused = True
            if refused:  # outside the handler: nothing chained to what the library raises
                served_point = False
                point = namespace["Math"].multiplyGenerator(curve, nonce)
                x, y = point.x, point.y
            r = x % order
            if blinded_inverse and served_point:  # 0 < nonce < n: OpenSSL took it
                inverse = provider.inverse_of_nonce(nonce)
            else:
                inverse = namespace["Math"].inv(nonce, order)
            s = ((number_message + r * secret) * inverse) % order
        recovery_id = y & 1
        if x >= order:
            recovery_id += 2
        if s > order // 2:
            s = order - s
            recovery_id ^= 1
        if served_point:
            entry.slot.calls += 1
        return namespace["Signature"](r=r, s=s, recoveryId=recovery_id)

    functools.update_wrapper(sign, native)
    return sign


def _verify(module: ModuleType, served: ServedCurves, native: Any) -> Any:
    namespace = module.__dict__
    (default_hash,) = native.__defaults__

    def verify(
        cls: Any,
        message: Any,
        signature: Any,
        publicKey: Any,
        hashfunc: Any = default_hash,  # noqa: N803
    ) -> Any:
        curve = publicKey.curve
        entry = served.get(curve)
        provider = entry is not None and entry.slot.get()
        if not provider:
            return native(cls, message, signature, publicKey, hashfunc)
        byte_message = hashfunc(namespace["toBytes"](message)).digest()
        number_message = namespace["numberFromByteString"](byte_message, curve.nBitLength)
        r = signature.r
        s = signature.s
        if not 1 <= r <= curve.N - 1:
            return False
        if not 1 <= s <= curve.N - 1:
            return False
        point = publicKey.point
        if not curve.contains(point):
            return False
        x, y = point.x, point.y
        if type(r) is int and type(s) is int and type(x) is int and type(y) is int:
            public = public_twins.get(publicKey, curve, x, y, provider)
            valid = None
            if public is not None:
                try:
                    valid = provider.verify_number(public, r, s, number_message)
                except Exception:  # noqa: BLE001 - the library's arithmetic decides
                    valid = None
            if valid is not None:
                entry.slot.calls += 1
                return valid
        # The library's own arithmetic, as its verify ends.
        math = namespace["Math"]
        inv = math.inv(s, curve.N)
        v = math.multiplyAndAdd(
            curve.G, (number_message * inv) % curve.N,
            point, (r * inv) % curve.N,
            curve=curve,
        )  # fmt: skip
        if v.isAtInfinity():
            return False
        return v.x % curve.N == r

    functools.update_wrapper(verify, native)
    return verify
