"""``Crypto.PublicKey.RSA.generate`` and ``Crypto.PublicKey.ECC.generate`` through OpenSSL.

The keys returned are pycryptodome's own ``RsaKey`` and ``EccKey``, built
from OpenSSL's numbers the way the native generators build theirs, with
their OpenSSL twins attached (see :mod:`._pubkey_twins`), so the first
operation does not convert them again.

* ``RSA.generate(bits, randfunc=None, e=65537)``: even sizes from 1024 to
  16384 bits and ``e`` of 3 or 65537 (what OpenSSL generates). The numbers
  follow pycryptodome's conventions (p < q, u = p^-1 mod q,
  d = e^-1 mod lcm(p-1, q-1)) and meet its generator's conditions
  (:meth:`accel_agent.providers.rsa.RsaProvider.generate`).
* ``ECC.generate(curve=...)`` on P-256, P-384 and P-521 (any of their
  names): OpenSSL draws ``d``. Ed25519, Ed448, X25519 and X448 keys are a
  random seed from which pycryptodome derives everything: they stay
  native, which is as fast.

* ``DSA.generate(bits)`` for 1024 and 3072 bits, without ``domain``:
  OpenSSL makes the domain (FIPS 186-4 A.1.1.2, q of 160 and 256 bits, as
  native's) and the key. 2048 bits stays native: OpenSSL's q has 256 bits
  there, pycryptodome's 224 (signatures of another length). A ``domain``
  given stays native (native checks it, with its own errors).

A ``randfunc`` given by the user is always honoured: the call is native.
"""

from __future__ import annotations

from accel_agent.targets.keygen import bind, patch_generator
from accel_agent.targets.pycryptodome import _pubkey_twins as twins
from accel_agent.targets.pycryptodome._pubkey_common import with_curve_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

_RSA_PARAMETERS = ("bits", "randfunc", "e")
NIST_LABELS = with_curve_names({"NIST P-256": "p256", "NIST P-384": "p384", "NIST P-521": "p521"})


def _rsa_arguments(args: tuple, kwargs: dict) -> tuple[int, int] | None:
    """(bits, e) when ``generate`` was called with OpenSSL's kind of arguments, else None."""
    values = bind(_RSA_PARAMETERS, args, kwargs)
    if values is None:
        return None
    bits, e = values.get("bits"), values.get("e", 65537)
    if values.get("randfunc") is not None or type(bits) is not int or type(e) is not int:
        return None
    return bits, e


def patch_rsa(module: ModuleType) -> None:
    """Install ``RSA.generate`` through OpenSSL."""

    def make(provider: Any, arguments: tuple[int, int]) -> Any:
        try:
            generated = provider.generate(*arguments)
        except Exception:  # noqa: BLE001 - a size or exponent OpenSSL does not make
            generated = None
        if generated is None:
            return None
        n, e, d, p, q, u, private = generated
        integer = module.Integer
        key = module.RsaKey(
            n=integer(n), e=integer(e), d=integer(d), p=integer(p), q=integer(q), u=integer(u)
        )
        twins.attach(key, private, private.public_key())
        return key

    patch_generator(module, "generate", "rsa-keygen", _rsa_arguments, make)


def _ecc_arguments(args: tuple, kwargs: dict) -> tuple[str, str] | None:
    """(the provider's label, the curve's name) for ``generate(curve=...)`` on a NIST curve."""
    curve = kwargs.get("curve")
    if (
        not args
        and kwargs.get("randfunc") is None
        and kwargs.keys() <= {"curve", "randfunc"}
        and type(curve) is str
    ):
        label = NIST_LABELS.get(curve)
        if label:
            return label, curve
    return None


def patch_ecc(module: ModuleType) -> None:
    """Install ``ECC.generate`` through OpenSSL for the NIST curves."""
    build = _key_builder(module)

    def make(provider: Any, arguments: tuple[str, str]) -> Any:
        label, curve = arguments
        try:
            d, _x, _y, private = provider.generate(label)
            key = build(curve, d)
        except Exception:  # noqa: BLE001 - native generates
            return None
        twins.attach(key, private)
        return key

    patch_generator(module, "generate", "ecc-keygen", _ecc_arguments, make)


# What a NIST-curve private EccKey holds in 3.x and 4.x: besides d, all of it
# depends on the curve name only.
_NIST_KEY_ATTRIBUTES = frozenset(("_d", "_seed", "_point", "_curve", "curve"))


def _key_builder(module: ModuleType):
    """``build(curve, d)``: the EccKey native's generator makes from d, its point left for later.

    Native's constructor spends most of native's whole ``generate`` (the
    curve's lookup by name, big-integer conversions and range checks) on
    what is the same for every key of a curve: the first key of a curve is
    built by the constructor, and later ones copy its state, with their own
    d (OpenSSL's, in range by construction). The point is computed on first
    use, as native's is; the OpenSSL twin serves signing and ECDH without it.
    """
    ecc_key, integer = module.EccKey, module.Integer
    templates: dict[str, dict] = {}

    def build(curve: str, d: int) -> Any:
        template = templates.get(curve)
        if template is not None:
            key = object.__new__(ecc_key)
            key.__dict__.update(template)
            key._d = integer(d)
            return key
        key = ecc_key(curve=curve, d=d)
        state = dict(vars(key))
        if state.keys() == _NIST_KEY_ATTRIBUTES and state["_seed"] is state["_point"] is None:
            del state["_d"]
            templates[curve] = state
        return key

    return build


# DSA sizes OpenSSL generates as pycryptodome does (see the module's docstring).
DSA_SIZES = frozenset((1024, 3072))
_DSA_PARAMETERS = ("bits", "randfunc", "domain")


def _dsa_arguments(args: tuple, kwargs: dict) -> int | None:
    """``bits`` for a call of :data:`DSA_SIZES` without ``randfunc`` or ``domain``, else None."""
    values = bind(_DSA_PARAMETERS, args, kwargs) or {}
    bits = values.get("bits")
    if (
        type(bits) is int
        and bits in DSA_SIZES
        and values.get("randfunc") is None
        and values.get("domain") is None
    ):
        return bits
    return None


def patch_dsa(module: ModuleType) -> None:
    """Install ``DSA.generate`` through OpenSSL for the sizes of :data:`DSA_SIZES`."""

    def make(provider: Any, bits: int) -> Any:
        try:
            p, q, g, y, x, private = provider.generate(bits)
        except Exception:  # noqa: BLE001 - native generates
            return None
        if private is None:
            return None
        integer = module.Integer
        # The components in native's order, as Integers, as native builds them.
        key = module.DsaKey(
            {"y": integer(y), "g": integer(g), "p": integer(p), "q": integer(q), "x": integer(x)}
        )
        twins.attach(key, private, private.public_key())
        return key

    patch_generator(module, "generate", "dsa-keygen", _dsa_arguments, make)
