"""A pycryptodome key's OpenSSL twin: made on first use, kept on the key object.

pycryptodome's ``RsaKey``, ``EccKey`` and ``DsaKey`` stay the user's objects (import,
export, attributes, equality: all native). The first accelerated operation
on a key converts it into the pyca/cryptography key with the same numbers
and stores it in the key's own ``__dict__``, so it lives and dies with the
key (never in a table that outlives it; the classes define ``__eq__``
without ``__hash__``, so a ``WeakKeyDictionary`` could not hold them
anyway). A key OpenSSL refuses (a size or exponent out of its limits,
inconsistent components) is remembered as refused, and its operations stay
native.

Private and public twins are kept apart: signing uses the private scalar or
seed, verifying uses the public point as the key object holds it (a key
built with a private value *and* a point is not checked for consistency by
pycryptodome, and its native code signs with one and verifies with the
other).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ATTRIBUTE = "_accel_agent_twins"


class Twins:
    """The twins of one key: None until made, False when OpenSSL refused.

    ``private_of`` and ``public_of`` are what a NIST-curve key's twins were
    made from (its ``_d`` object, its ``_point`` object or, for a public twin
    taken from the private one, ``_d``): a twin whose key no longer holds
    that object is made again, so a twin never outlives a change of its key.
    ``encoded`` keeps an EdDSA key's RFC 8032 public encoding, as native code
    computed it (:func:`remember_encoded_public`); ``domain`` a DSA key's q
    and size of p as Python ints (:func:`dsa_domain`).
    """

    __slots__ = ("private", "public", "private_of", "public_of", "encoded", "domain")

    def __init__(self, private: Any = None, public: Any = None, private_of: Any = None) -> None:
        self.private: Any = private
        self.public: Any = public
        self.private_of: Any = private_of
        self.public_of: Any = None
        self.encoded: Any = None
        self.domain: Any = None


_KEY_CLASSES = frozenset(("RsaKey", "EccKey", "DsaKey"))


def _twins(key: Any) -> Twins | None:
    """The key's twins; None for anything but pycryptodome's own key classes.

    A duck-typed key of the user's is served natively (and left untouched).
    """
    if type(key).__name__ not in _KEY_CLASSES:
        return None
    try:
        namespace = key.__dict__
    except AttributeError:  # a subclass with __slots__: no cache, no acceleration
        return None
    twins = namespace.get(ATTRIBUTE)
    if twins is None:
        twins = namespace.setdefault(ATTRIBUTE, Twins())
    return twins


def attach(key: Any, private: Any = None, public: Any = None) -> None:
    """Give a key made through OpenSSL (a generated one) its twins at once.

    A NIST-curve key's twin is bound to its ``_d`` (see :class:`Twins`).
    """
    if type(key).__name__ in _KEY_CLASSES:
        namespace = getattr(key, "__dict__", None)
        if namespace is not None:
            namespace[ATTRIBUTE] = Twins(private, public, namespace.get("_d"))


def _twin(key: Any, which: str, make: Any, *args: Any) -> Any:
    """The key's ``which`` twin ("private" or "public"), or None (not a
    pycryptodome key, or refused by OpenSSL).

    Made on first use as ``make(key, *args)`` (its loader, given the
    provider and what else the twin depends on) and kept, False when the
    loader raised: refused by OpenSSL, or not that kind of key.
    """
    twins = _twins(key)
    if twins is None:
        return None
    twin = getattr(twins, which)
    if twin is None:
        try:
            twin = make(key, *args)
        except Exception:  # noqa: BLE001 - refused by OpenSSL, or not that kind of key
            twin = False
        setattr(twins, which, twin)
    return twin or None


def encoded_public(key: Any) -> Any:
    """The public encoding kept by :func:`remember_encoded_public`, or None."""
    try:
        twins = key.__dict__.get(ATTRIBUTE)
    except AttributeError:
        return None
    return twins.encoded if twins is not None else None


def remember_encoded_public(key: Any, encoded: Any) -> None:
    twins = _twins(key)
    if twins is not None:
        twins.encoded = encoded


# --------------------------------------------------------------------------- RSA


def _load_rsa_private(key: Any, provider: Any) -> Any:
    return provider.load_private(
        int(key.n), int(key.e), int(key.d), int(key.p), int(key.q), int(key.u)
    )


def _load_rsa_public(key: Any, provider: Any) -> Any:
    return provider.load_public(int(key.n), int(key.e))


def rsa_private(key: Any, provider: Any) -> Any:
    """The OpenSSL private key of an ``RsaKey``, or None (public key, or refused)."""
    return _twin(key, "private", _load_rsa_private, provider)


def rsa_public(key: Any, provider: Any) -> Any:
    return _twin(key, "public", _load_rsa_public, provider)


# --------------------------------------------------------------------------- DSA


def _load_dsa_private(key: Any, provider: Any) -> Any:
    numbers = key._key
    return provider.load_private(*(int(numbers[name]) for name in "pqgyx"))


def _load_dsa_public(key: Any, provider: Any) -> Any:
    numbers = key._key
    return provider.load_public(*(int(numbers[name]) for name in "pqgy"))


def dsa_private(key: Any, provider: Any) -> Any:
    """The OpenSSL private key of a ``DsaKey`` (its domain, y and x), or None."""
    return _twin(key, "private", _load_dsa_private, provider)


def dsa_domain(key: Any) -> tuple[int, int] | None:
    """(q, bit length of p) of a ``DsaKey`` as Python ints, or None for another key.

    Converting pycryptodome's ``Integer`` components costs tens of
    microseconds each; the result is kept with the key and used while its
    q and p are the objects it was computed from. Raises what ``int()``
    raises for components that are not numbers.
    """
    twins = _twins(key)
    if twins is None:
        return None
    numbers = key._key
    q, p = numbers["q"], numbers["p"]
    cached = twins.domain
    if cached is not None and cached[0] is q and cached[1] is p:
        return cached[2]
    domain = (int(q), int(p).bit_length())
    twins.domain = (q, p, domain)
    return domain


def dsa_public(key: Any, provider: Any) -> Any:
    return _twin(key, "public", _load_dsa_public, provider)


# --------------------------------------------------------------------------- NIST curves


def _load_ec_private(key: Any, provider: Any) -> Any:
    return provider.load_private(int(key.d))


_NOTHING: dict = {}


def _ec_public_source(key: Any) -> Any:
    """What a NIST-curve key's public twin is made from: its point, or its ``_d`` without one."""
    namespace = getattr(key, "__dict__", _NOTHING)
    point = namespace.get("_point")
    return point if point is not None else namespace.get("_d")


def _load_ec_public(key: Any, provider: Any) -> Any:
    if key.__dict__.get("_point") is None and key.has_private():
        private = ec_private(key, provider)
        if private is not None:
            return private.public_key()
    point = key.pointQ
    return provider.load_public(int(point.x), int(point.y))


def _bound_twin(key: Any, which: str, source: Any, make: Any, provider: Any) -> Any:
    """:func:`_twin`, made again when the key no longer holds the ``source`` it was made from."""
    twins = _twins(key)
    if twins is None:
        return None
    if getattr(twins, which + "_of") is not source:
        setattr(twins, which, None)
        setattr(twins, which + "_of", source)
    return _twin(key, which, make, provider)


def ec_private(key: Any, provider: Any) -> Any:
    """The OpenSSL private key of a NIST-curve ``EccKey``, from its scalar ``d``."""
    namespace = getattr(key, "__dict__", _NOTHING)
    twins, d = namespace.get(ATTRIBUTE), namespace.get("_d")
    if twins is not None and twins.private and twins.private_of is d:
        return twins.private  # the common case, without a call
    return _bound_twin(key, "private", d, _load_ec_private, provider)


def ec_public(key: Any, provider: Any) -> Any:
    """The OpenSSL public key of a NIST-curve ``EccKey``, from the point it holds.

    A private key whose point was never computed has the point d·G: the
    private twin's public key is that point, without computing it in Python.
    """
    return _bound_twin(key, "public", _ec_public_source(key), _load_ec_public, provider)


# --------------------------------------------------------------------------- EdDSA


def _load_eddsa_private(key: Any, provider: Any, encoded_public: bytes) -> Any:
    private = provider.load_private(bytes(key.seed))
    if provider.public_bytes(private) != bytes(encoded_public):
        raise ValueError("the key's point is not its seed's")
    return private


def _load_eddsa_public(key: Any, provider: Any, encoded_public: bytes) -> Any:
    return provider.load_public(bytes(encoded_public))


def eddsa_private(key: Any, provider: Any, encoded_public: bytes) -> Any:
    """The OpenSSL private key of an Ed25519/Ed448 ``EccKey``, from its seed.

    ``encoded_public`` is the public key pycryptodome signs with (the
    encoding of the key's point): a key whose point does not belong to its
    seed is refused, since native code would sign with that point.
    """
    return _twin(key, "private", _load_eddsa_private, provider, encoded_public)


def eddsa_public(key: Any, provider: Any, encoded_public: bytes) -> Any:
    return _twin(key, "public", _load_eddsa_public, provider, encoded_public)


# --------------------------------------------------------------------------- X25519, X448


def _load_xdh_private(key: Any, provider: Any) -> Any:
    return provider.load_private(bytes(key.seed))


def _load_xdh_public(key: Any, provider: Any) -> Any:
    return provider.load_public(int(key.pointQ.x).to_bytes(provider.key_size, "little"))


def xdh_private(key: Any, provider: Any) -> Any:
    return _twin(key, "private", _load_xdh_private, provider)


def xdh_public(key: Any, provider: Any) -> Any:
    """From the point's u coordinate, little-endian, as RFC 7748 encodes it."""
    return _twin(key, "public", _load_xdh_public, provider)
