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
  library would make with that nonce, a ``Signature`` of its own class.
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


def patch_ecdsa(module: ModuleType) -> None:
    """Serve ``Ecdsa.sign`` and ``Ecdsa.verify`` of ``ellipticcurve.ecdsa`` through OpenSSL."""
    import sys

    if version() < MIN_VERSION:
        return  # an older release: its code differs from what is mirrored here
    served = ServedCurves(sys.modules["ellipticcurve.curve"], CURVES, _Curve)
    ecdsa_class = module.Ecdsa
    native_sign = ecdsa_class.__dict__["sign"].__func__
    native_verify = ecdsa_class.__dict__["verify"].__func__
    patching.patch_attribute(module, "Ecdsa.sign", classmethod(_sign(module, served, native_sign)))
    patching.patch_attribute(
        module, "Ecdsa.verify", classmethod(_verify(module, served, native_verify))
    )


def _sign(module: ModuleType, served: ServedCurves, native: Any) -> Any:
    # The library's module globals, read at call time as its own code reads
    # them (a test that replaces RandomInteger or Signature is honoured).
    namespace = module.__dict__
    (default_hash,) = native.__defaults__

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
        r, s, point = 0, 0, None
        nonces = namespace["RandomInteger"].rfc6979(
            byte_message, privateKey.secret, curve, hashfunc
        )
        served_point = True
        while r == 0 or s == 0:
            nonce = next(nonces)
            try:
                x, y = provider.multiply_generator(nonce)
            except Exception:  # noqa: BLE001 - a nonce OpenSSL refuses: the library's arithmetic
                served_point = False
                point = namespace["Math"].multiplyGenerator(curve, nonce)
                x, y = point.x, point.y
            r = x % order
            s = (
                (number_message + r * privateKey.secret) * namespace["Math"].inv(nonce, order)
            ) % order
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
