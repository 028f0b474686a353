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

import functools

from accel_agent import hooks, patching, registry
from accel_agent.targets.keygen import bind, patch_generator
from accel_agent.targets.pycryptodome import _pubkey_twins as twins
from accel_agent.targets.pycryptodome._pubkey_common import with_curve_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

_RSA_PARAMETERS = ("bits", "randfunc", "e")
UNRESOLVED = registry.UNRESOLVED
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
    live = hooks.live(module)  # the key class and Integer are read at each call, as native's

    def make(provider: Any, arguments: tuple[int, int]) -> Any:
        try:
            generated = provider.generate(*arguments)
        except Exception:  # noqa: BLE001 - a size or exponent OpenSSL does not make
            generated = None
        if generated is None:
            return None
        n, e, d, p, q, u, private = generated
        integer = live.Integer
        key = live.RsaKey(
            n=integer(n), e=integer(e), d=integer(d), p=integer(p), q=integer(q), u=integer(u)
        )
        twins.attach(key, private, private.public_key())
        return key

    patch_generator(module, "generate", "rsa-keygen", _rsa_arguments, make)


_ECC_KEYWORDS = frozenset(("curve", "randfunc"))


def _ecc_arguments(args: tuple, kwargs: dict) -> tuple[str, str] | None:
    """(the provider's label, the curve's name) for ``generate(curve=...)`` on a NIST curve."""
    curve = kwargs.get("curve")
    if (
        not args
        and type(curve) is str
        and kwargs.get("randfunc") is None
        and kwargs.keys() <= _ECC_KEYWORDS
    ):
        label = NIST_LABELS.get(curve)
        if label:
            return label, curve
    return None


def patch_ecc(module: ModuleType) -> None:
    """Install ``ECC.generate`` through OpenSSL for the NIST curves.

    One flat function: the call's shape read inline, OpenSSL's key and its
    scalar, the key object from a template (:func:`_first_key`) with its
    twin. What is left per key besides OpenSSL's generation is what
    pycryptodome's key object and pyca/cryptography's API force: the
    scalar out of OpenSSL (``private_numbers()``, which converts the public
    point too) and pycryptodome's ``Integer`` of it (docs/per-call-cost.md).
    """
    templates: dict[str, tuple[dict, int]] = {}
    first = _first_key(module, templates)
    original = module.generate
    slot = registry.slot("ecc-keygen")
    ecc_key, from_bytes = module.EccKey, module.Integer.from_bytes
    new_twins, twins_attribute = twins.Twins, twins.ATTRIBUTE

    def generate(*args: Any, **kwargs: Any) -> Any:
        servable = _ecc_arguments(args, kwargs)
        if servable is not None:
            provider = slot.provider
            if provider is UNRESOLVED:
                provider = slot.get()
            if provider is not None:
                label, curve = servable
                try:
                    d, private = provider.generate_scalar(label)
                    template = templates.get(curve)
                    if template is None:
                        key = first(curve, d)
                        twins.attach(key, private)
                    else:  # the template's state, d, the twin bound to that d
                        key = object.__new__(ecc_key)
                        namespace = key.__dict__
                        namespace.update(template[0])
                        key._d = key_d = from_bytes(d.to_bytes(template[1], "big"))
                        namespace[twins_attribute] = new_twins(private, None, key_d)
                except Exception:  # noqa: BLE001 - native generates
                    key = None
                if key is not None:
                    slot.calls += 1
                    return key
        return original(*args, **kwargs)

    functools.update_wrapper(generate, original)
    patching.patch_attribute(module, "generate", generate)


# What a NIST-curve private EccKey holds in 3.x and 4.x: besides d, all of it
# depends on the curve name only.
_NIST_KEY_ATTRIBUTES = frozenset(("_d", "_seed", "_point", "_curve", "curve"))


def _first_key(module: ModuleType, templates: dict) -> Any:
    """``first(curve, d)``: native's EccKey of scalar d, kept in ``templates`` for later keys.

    Native's constructor spends most of native's whole ``generate`` (the
    curve's lookup by name, big-integer conversions and range checks) on
    what is the same for every key of a curve: the first key of a curve is
    built by the constructor, and later ones copy its state
    (``templates[curve]``: the state without ``_d``, and the order's length
    in bytes), with their own d (OpenSSL's, in range by construction), made
    from its big-endian bytes (``Integer.from_bytes``: in 4.x fewer steps
    than from an ``int``, in 3.x's GMP one import instead of a loop over
    32-bit words). The point is computed on first use, as native's is; the
    OpenSSL twin serves signing and ECDH without it.
    """
    ecc_key = module.EccKey

    def first(curve: str, d: int) -> Any:
        key = ecc_key(curve=curve, d=d)
        state = dict(vars(key))
        if state.keys() == _NIST_KEY_ATTRIBUTES and state["_seed"] is state["_point"] is None:
            del state["_d"]
            templates[curve] = (state, (int(key._curve.order).bit_length() + 7) // 8)
        return key

    return first


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
    live = hooks.live(module)  # the key class and Integer are read at each call, as native's

    def make(provider: Any, bits: int) -> Any:
        try:
            p, q, g, y, x, private = provider.generate(bits)
        except Exception:  # noqa: BLE001 - native generates
            return None
        if private is None:
            return None
        integer = live.Integer
        # The components in native's order, as Integers, as native builds them.
        key = live.DsaKey(
            {"y": integer(y), "g": integer(g), "p": integer(p), "q": integer(q), "x": integer(x)}
        )
        twins.attach(key, private, private.public_key())
        return key

    patch_generator(module, "generate", "dsa-keygen", _dsa_arguments, make)
