"""Shadow mode's proofs for randomized outputs: what native checks instead of byte equality.

A PSS or random-``k`` signature, an OAEP or PKCS#1 v1.5 ciphertext and a
generated key differ from native's on the same inputs, natively too (the
salt, ``k``, the seed and the key are drawn). Byte equality proves nothing
there; native's own checks do:

* a **signature**: native's signer, the agent object's twin, verifies the
  agent's signature, and the agent's own ``verify`` of it agrees with
  native's verdict;
* a **ciphertext**: native's cipher decrypts the agent's ciphertext to the
  caller's plaintext (only with a private key: a public key alone cannot
  open it, and the call stays uncomparable);
* a **generated key**: native builds the same key again from its numbers with
  its consistency checks (RSA's ``construct``, ECC's private and public
  match, DSA's), and the key has native's size, exponent or curve.

Each check answers True (holds), False (a mismatch) or None (nothing it can
prove: uncomparable). Native's side runs through ``native``, which keeps it
native all through (:func:`accel_agent.instrument`'s native side). Nothing
here names a key, nonce, plaintext or tag in any message: the checks only
answer.
"""

from __future__ import annotations

import inspect
import sys

from accel_agent import shadow

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Native = Callable[[Callable, tuple, dict], "shadow.Outcome"]

_SIGNING = "sign"
_ENCRYPTING = "encrypt"
_KEY_KINDS = ("RsaKey", "EccKey", "DsaKey")


def _arguments(method: Callable, args: tuple, kwargs: dict) -> dict | None:
    try:
        return dict(inspect.signature(method).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return None


def randomized_call(
    obj: Any,
    twin: Any,
    name: str,
    args: tuple,
    kwargs: dict,
    agent: Any,
    runners: tuple[Native, Native],
) -> bool | None:
    """Whether the agent's randomized ``name`` result on ``obj`` holds up under native's checks.

    ``runners``: how native's side runs, and how the agent's own check runs
    (uncounted: the program's call counts stay its own calls).
    """
    native = runners[0]
    if name == _SIGNING and callable(getattr(twin, "verify", None)):
        return _signature_holds(obj, twin, args, kwargs, agent, runners)
    if name == _ENCRYPTING and callable(getattr(twin, "decrypt", None)):
        return _ciphertext_opens(twin, args, kwargs, agent, native)
    return None


def _signature_holds(
    obj: Any, twin: Any, args: tuple, kwargs: dict, signature: Any, runners: tuple
) -> bool | None:
    native, uncounted = runners
    bound = _arguments(twin.sign, args, kwargs)
    if bound is None or len(bound) != 1 or not isinstance(signature, bytes):
        return None
    (message,) = bound.values()
    theirs = native(twin.verify, (message, signature), {})
    mine = uncounted(obj.verify, (message, signature), {})
    # The agent's verdict is native's, and native's is "valid".
    return theirs.error is None and mine.error is None


def _ciphertext_opens(
    twin: Any, args: tuple, kwargs: dict, ciphertext: Any, native: Native
) -> bool | None:
    key = getattr(twin, "_key", None)
    has_private = getattr(key, "has_private", None)
    if not callable(has_private) or not has_private() or not isinstance(ciphertext, bytes):
        return None  # a public key cannot open it: nothing to prove
    bound = _arguments(twin.encrypt, args, kwargs)
    if bound is None or len(bound) != 1:
        return None
    (message,) = bound.values()
    try:
        plaintext = bytes(memoryview(message))
    except TypeError:
        return None
    decrypt = twin.decrypt
    sentinel = object()
    extra = (sentinel,) if "sentinel" in inspect.signature(decrypt).parameters else ()
    opened = native(decrypt, (ciphertext,) + extra, {})
    return opened.error is None and shadow.same_outcome(
        shadow.Outcome(opened.value, None), shadow.Outcome(plaintext, None), []
    )


def is_key(value: Any) -> bool:
    """Whether ``value`` is a private key of pycryptodome's kinds (what a generator returns)."""
    has_private = getattr(value, "has_private", None)
    return type(value).__name__ in _KEY_KINDS and callable(has_private)


def generated_key(
    mine: Any, theirs: Any, function: Callable, args: tuple, kwargs: dict, native: Native
) -> bool | None:
    """Whether the agent's generated key passes native's checks, and is of native's shape.

    ``theirs`` is the key native generated from the same arguments: the shape
    the caller asked for (size, exponent, curve, domain).
    """
    if type(mine).__name__ != type(theirs).__name__ or not mine.has_private():
        return False
    module = sys.modules.get(type(theirs).__module__)
    construct = getattr(module, "construct", None)
    if construct is None:
        return None
    kind = type(mine).__name__
    try:
        if kind == "RsaKey":
            numbers = tuple(int(getattr(mine, part)) for part in ("n", "e", "d", "p", "q", "u"))
            same_shape = mine.size_in_bits() == theirs.size_in_bits() and mine.e == theirs.e
            rebuilt = native(construct, (numbers,), {"consistency_check": True})
        elif kind == "DsaKey":
            numbers = tuple(int(getattr(mine, part)) for part in ("y", "g", "p", "q", "x"))
            same_shape = all(
                int(getattr(mine, part)).bit_length() == int(getattr(theirs, part)).bit_length()
                for part in "pq"
            )
            bound = _arguments(function, args, kwargs) or {}
            if bound.get("domain") is not None:
                same_shape = same_shape and all(
                    int(getattr(mine, part)) == int(getattr(theirs, part)) for part in "pqg"
                )
            rebuilt = native(construct, (numbers,), {"consistency_check": True})
        else:
            same_shape = mine.curve == theirs.curve
            rebuilt = native(construct, (), _ecc_numbers(mine))
    except (AttributeError, TypeError, ValueError):
        return False  # the agent's key lacks what native's has
    if rebuilt.error is not None or not same_shape:
        return False
    return rebuilt.value.has_private()


def _ecc_numbers(key: Any) -> dict:
    point = key.pointQ
    numbers: dict = {"curve": key.curve, "point_x": int(point.x)}
    if hasattr(point, "y"):
        numbers["point_y"] = int(point.y)
    seed = getattr(key, "seed", None)
    if isinstance(seed, bytes):
        numbers["seed"] = seed  # Ed25519, Ed448, X25519, X448: the point is the seed's
    else:
        numbers["d"] = int(key.d)  # the NIST curves and secp256k1: G * d must be the point
    return numbers
