"""``Crypto.Signature.{pkcs1_15, pss, DSS, eddsa}`` served by OpenSSL.

Each module's ``new`` returns an accelerated subclass of the native scheme
(see :mod:`._pubkey_common`). What goes to OpenSSL, and why it is exact:

* **Signing** goes to OpenSSL only where the result is the one native code
  would give: PKCS#1 v1.5, RFC 6979 ECDSA and pure EdDSA are deterministic
  and byte-identical; PSS (with MGF1 over the message's hash) and ECDSA
  ``fips-186-3``/``sec1`` are randomized, so OpenSSL draws the salt or
  nonce, which is done only when the scheme uses pycryptodome's default
  random source (a ``randfunc`` given by the user is honoured natively).
  ``low_s`` (4.x) is applied to OpenSSL's signature as native code applies
  it to its own.
* **Verifying**: a signature OpenSSL accepts is one native code accepts
  (each scheme's argument is in its method); OpenSSL's verdict "invalid"
  is never turned into an exception here: the native method then judges
  the signature again and raises its own ``ValueError`` with its own
  message (or accepts what only pycryptodome accepts, like a PKCS#1 v1.5
  ``DigestInfo`` without NULL parameters, or a signature valid under
  EdDSA's cofactored equation only). A failed verification thus costs
  OpenSSL's time plus native's; a valid one costs OpenSSL's.
* Anything else (a hash OpenSSL does not know, a custom mask function,
  EdDSA pre-hashed or with a context, secp256k1, a key OpenSSL refuses, an
  exception from OpenSSL) is served natively.
* DSA keys (:mod:`._dss_dsa`): random-nonce signing and verification;
  RFC 6979 DSA signing stays native.

Verification is constant-time where native is: OpenSSL compares the
encodings; none of these operations handle secrets besides signing.
"""

from __future__ import annotations

import functools

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _buffers, _dss_dsa
from accel_agent.targets.pycryptodome import _pubkey_twins as twins
from accel_agent.targets.pycryptodome._pubkey_common import (
    accelerated_class,
    accepted,
    decode_signature,
    default_random,
    digest_and_oid,
    order_value,
    patch_new,
    remember_order,
    served,
    with_curve_names,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

# pycryptodome's canonical curve names -> primitives (every other name of a
# curve is added where the tables are used: _pubkey_common.CURVE_NAMES)
ECDSA_PRIMITIVES = {
    "NIST P-256": "ecdsa-p256",
    "NIST P-384": "ecdsa-p384",
    "NIST P-521": "ecdsa-p521",
}
EDDSA_PRIMITIVES = {"Ed25519": "ed25519", "Ed448": "ed448"}


# --------------------------------------------------------------------------- PKCS#1 v1.5


def patch_pkcs1_15(module: ModuleType) -> None:
    """``pkcs1_15.new`` returns a scheme whose sign/verify go to OpenSSL."""
    native_cls = module.PKCS115_SigScheme
    native_sign, native_verify = native_cls.sign, native_cls.verify
    slot = registry.slot("rsa-pkcs1v15-sign")

    def sign(self: Any, msg_hash: Any) -> bytes:
        # Deterministic: OpenSSL's signature is byte for byte native's. A key
        # too small for the DigestInfo makes OpenSSL raise; native then raises
        # its own TypeError.
        provider = slot.get()
        if provider is not None:
            found = digest_and_oid(provider, msg_hash)
            private = found and twins.rsa_private(self._key, provider)
            if private:
                signature = served(slot, provider.sign_pkcs1v15, private, found[0], found[1])
                if signature is not None:
                    return signature
        return native_sign(self, msg_hash)

    def verify(self: Any, msg_hash: Any, signature: Any) -> None:
        # OpenSSL accepts exactly EM = 00 01 FF..FF 00 DigestInfo(with NULL):
        # the first encoding native code compares with.
        provider = slot.get()
        if provider is not None:
            data = _buffers.plain_bytes(signature)
            found = data is not None and digest_and_oid(provider, msg_hash)
            public = found and twins.rsa_public(self._key, provider)
            if (
                public
                and len(data) == self._key.size_in_bytes()
                and accepted(slot, provider.verify_pkcs1v15, public, data, found[0], found[1])
            ):
                return None
        return native_verify(self, msg_hash, signature)

    accelerated = accelerated_class(native_cls, {"sign": sign, "verify": verify})
    patch_new(module, {native_cls: accelerated})


# --------------------------------------------------------------------------- PSS


def patch_pss(module: ModuleType) -> None:
    """``pss.new`` returns a scheme whose sign/verify go to OpenSSL (MGF1 over the same hash)."""
    native_cls = module.PSS_SigScheme
    native_sign, native_verify = native_cls.sign, native_cls.verify
    slot = registry.slot("rsa-pss")
    random_default = default_random()

    def _salt(self: Any, msg_hash: Any) -> int | None:
        salt = self._saltLen
        if salt is None:
            salt = msg_hash.digest_size
        return salt if type(salt) is int and salt >= 0 else None

    def sign(self: Any, msg_hash: Any) -> bytes:
        provider = slot.get()
        if provider is not None and self._mgfunc is None and self._randfunc is random_default:
            found = digest_and_oid(provider, msg_hash)
            salt = found and _salt(self, msg_hash)
            private = salt is not None and found and twins.rsa_private(self._key, provider)
            if private:  # OpenSSL raises for a salt too long for the key: native raises
                signature = served(slot, provider.sign_pss, private, found[0], found[1], salt)
                if signature is not None:
                    return signature
        return native_sign(self, msg_hash)

    def verify(self: Any, msg_hash: Any, signature: Any) -> None:
        # OpenSSL accepts an encoding with the 0xBC trailer, clear top bits,
        # PS zeros and 0x01 before exactly ``salt`` bytes of salt, and
        # H = Hash(0^8 || mHash || salt): what native's EMSA-PSS-VERIFY checks.
        provider = slot.get()
        if provider is not None and self._mgfunc is None:
            data = _buffers.plain_bytes(signature)
            found = data is not None and digest_and_oid(provider, msg_hash)
            salt = found and _salt(self, msg_hash)
            public = salt is not None and found and twins.rsa_public(self._key, provider)
            if (
                public
                and len(data) == self._key.size_in_bytes()
                and accepted(slot, provider.verify_pss, public, data, found[0], found[1], salt)
            ):
                return None
        return native_verify(self, msg_hash, signature)

    accelerated = accelerated_class(native_cls, {"sign": sign, "verify": verify})
    patch_new(module, {native_cls: accelerated})


# --------------------------------------------------------------------------- DSS (ECDSA)


def patch_dss(module: ModuleType) -> None:
    """``DSS.new`` returns ECDSA (P-256/384/521) and DSA schemes whose sign/verify go to OpenSSL.

    secp256k1 keys keep their native behaviour (the subclass serves only
    the curves it has a primitive for).
    """
    slots = with_curve_names({c: registry.slot(name) for c, name in ECDSA_PRIMITIVES.items()})
    dsa_slot = registry.slot("dsa")
    dsa_key = module.DsaKey
    classes = {}
    for class_name, deterministic in (
        ("DeterministicDsaSigScheme", True),
        ("FipsEcDsaSigScheme", False),
        ("FipsDsaSigScheme", False),
    ):
        native_cls = getattr(module, class_name)
        methods = _dss_methods(native_cls, slots, deterministic, dsa_slot, dsa_key)
        classes[native_cls] = accelerated_class(native_cls, methods)
    patch_new(module, classes)
    _install_fast_dss_new(
        module,
        {
            "fips-186-3": classes[module.FipsEcDsaSigScheme],
            "deterministic-rfc6979": classes[module.DeterministicDsaSigScheme],
        },
        slots,
        classes[module.FipsDsaSigScheme],
    )


# What a FIPS ECDSA scheme holds besides its key, in 3.x and 4.x: all of it
# depends on the curve and the encoding only.
_DSS_TEMPLATE_ATTRIBUTES = frozenset(
    ("_encoding", "_order", "_low_s", "_max_low_s", "_order_bits", "_order_bytes", "_randfunc")
)
# A deterministic scheme holds the same but the random function, and the
# key's private scalar last (``_private_key``: the key's own ``_d``, or None).
_DETERMINISTIC = "deterministic-rfc6979"


def _scheme_from_template(cls: type, key: Any, template: dict) -> Any:
    """A scheme of ``cls`` for ``key`` without running ``__init__``. The key is
    set first, as native's ``__init__`` sets it: a deepcopy meets the
    attributes in this order, and the key's error comes first."""
    scheme = object.__new__(cls)
    scheme._key = key
    scheme.__dict__.update(template)
    return scheme


def _scheme_state(scheme: Any) -> dict:
    """A native scheme's attributes but its key: a template's candidate."""
    state = dict(vars(scheme))
    del state["_key"]
    return state


def _keep_template(store: dict, shape: tuple, scheme: Any, cls: type, state: dict) -> None:
    """Keep ``state`` as the template of ``shape`` if native made a scheme of the
    accelerated class holding only the attributes a template may copy."""
    if type(scheme) is cls and state.keys() <= _DSS_TEMPLATE_ATTRIBUTES:
        store[shape] = state
        remember_order(state.get("_order"))


def _install_fast_dss_new(
    module: ModuleType, accelerated_ecc: dict[str, type], curves: dict, accelerated_dsa: type
) -> None:
    """``DSS.new(key, "fips-186-3" or "deterministic-rfc6979"[, encoding])`` without
    native's per-call arithmetic (``accelerated_ecc``: each ECDSA mode's class).

    The scheme's attributes other than its key are the same for every key
    of a curve (the order and its sizes, the encoding): the first native
    ``new`` for a curve and encoding is kept as a template, and later
    calls of that exact shape copy it (4.x's ``new`` spends several
    microseconds on big-integer arithmetic that ECDSA through OpenSSL
    otherwise takes less than a tenth of). A DSA key's scheme is the same
    for every key with its q and the size of its p (native's ``new`` checks
    that pair and converts q, about 45 us, a tenth of a DSA-2048 signature
    through OpenSSL): templates by (q, size of p, encoding), that pair
    converted to ints once per key (kept with its twins, as is the template
    order's int for verifying). Any other shape goes to ``new``.
    """
    wrapped_new = module.new
    ecc_key, dsa_key = module.EccKey, module.DsaKey
    templates: dict[tuple[str, str, str], dict] = {}
    dsa_templates: dict[tuple[int, int, str], dict] = {}

    def new_dsa(key: Any, encoding: Any) -> Any:
        try:
            domain = twins.dsa_domain(key)  # (q, size of p), kept with the key
        except Exception:  # noqa: BLE001 - components native code will judge
            domain = None
        if domain is None:
            return wrapped_new(key, "fips-186-3", encoding)
        shape = (domain[0], domain[1], encoding)
        template = dsa_templates.get(shape)
        if template is not None:
            return _scheme_from_template(accelerated_dsa, key, template)
        scheme = wrapped_new(key, "fips-186-3", encoding)
        _keep_template(dsa_templates, shape, scheme, accelerated_dsa, _scheme_state(scheme))
        return scheme

    def new(key: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            type(key) is dsa_key
            and mode == "fips-186-3"
            and type(mode) is str
            and not kwargs
            and (not args or (len(args) == 1 and args[0] in ("binary", "der")))
        ):
            return new_dsa(key, args[0] if args else "binary")
        accelerated = accelerated_ecc.get(mode) if type(mode) is str else None
        if type(key) is ecc_key and accelerated is not None and not kwargs:
            encoding = args[0] if len(args) == 1 else "binary" if not args else None
            template = templates.get((key.curve, encoding, mode))
            if template is not None:
                scheme = _scheme_from_template(accelerated, key, template)
                if mode == _DETERMINISTIC:  # last, as native's __init__ sets it
                    scheme._private_key = key._d if key.has_private() else None
                return scheme
            if encoding in ("binary", "der") and key.curve in curves:
                scheme = wrapped_new(key, mode, encoding)
                state = _scheme_state(scheme)
                if mode == _DETERMINISTIC and state.get("_private_key", False) is (
                    key._d if key.has_private() else None
                ):
                    del state["_private_key"]
                _keep_template(templates, (key.curve, encoding, mode), scheme, accelerated, state)
                return scheme
        return wrapped_new(key, mode, *args, **kwargs)

    functools.update_wrapper(new, patching.get_original(module.__name__, "new"))
    patching.patch_attribute(module, "new", new)


def _dss_methods(
    native_cls: type, slots: dict, deterministic: bool, dsa_slot: Any, dsa_key: type
) -> dict:
    native_sign, native_verify = native_cls.sign, native_cls.verify

    def sign(self: Any, msg_hash: Any) -> bytes:
        if type(self._key) is dsa_key:
            # RFC 6979 DSA stays native (see _dss_dsa); a randfunc of the user's too.
            provider = not deterministic and self._randfunc is None and dsa_slot.get()
            if provider:
                signature = _dss_dsa.sign(self, provider, msg_hash)
                if signature is not None:
                    dsa_slot.calls += 1
                    return signature
            return native_sign(self, msg_hash)
        slot = slots.get(getattr(self._key, "curve", None))
        provider = slot and slot.get()
        if provider and (provider.deterministic if deterministic else self._randfunc is None):
            signature = _ecdsa_sign(self, provider, msg_hash, deterministic)
            if signature is not None:
                slot.calls += 1
                return signature
        return native_sign(self, msg_hash)

    def verify(self: Any, msg_hash: Any, signature: Any) -> bool:
        if type(self._key) is dsa_key:
            provider = dsa_slot.get()
            if provider and _dss_dsa.verify(self, provider, msg_hash, signature):
                dsa_slot.calls += 1
                return False  # what native's verify returns for a valid signature
            return native_verify(self, msg_hash, signature)
        slot = slots.get(getattr(self._key, "curve", None))
        provider = slot and slot.get()
        if provider and _ecdsa_verify(self, provider, msg_hash, signature):
            slot.calls += 1
            return False  # what native's verify returns for a valid signature
        return native_verify(self, msg_hash, signature)

    return {"sign": sign, "verify": verify}


def _ecdsa_sign(self: Any, provider: Any, msg_hash: Any, deterministic: bool) -> bytes | None:
    """OpenSSL's signature in the scheme's encoding, or None for "native"."""
    # The checks native's sign makes first (a private key, a hash strong
    # enough for FIPS modes) decide natively: their errors are native's.
    if not self._valid_hash(msg_hash):
        return None
    found = digest_and_oid(provider, msg_hash)
    private = found and twins.ec_private(self._key, provider)
    if not private:
        return None
    try:
        der = provider.sign(private, found[0], found[1], deterministic)
        r, s = provider.decode_der(der)
    except Exception:  # noqa: BLE001
        return None
    if getattr(self, "_low_s", False) and s > self._max_low_s:  # pycryptodome 4.x
        s = int(self._order) - s
        der = None
    if self._encoding == "binary":
        size = self._order_bytes
        return r.to_bytes(size, "big") + s.to_bytes(size, "big")
    return der if der is not None else provider.encode_der(r, s)


_X_OVERFLOW_BOUNDS: dict[str, int] = {}  # curve -> p - n


def _x_overflow_bound(key: Any) -> int | None:
    """p - n of the key's curve (below it, r may stand for an x coordinate of r + n)."""
    bound = _X_OVERFLOW_BOUNDS.get(key.curve)
    if bound is None:
        try:
            curve = key._curve
            bound = _X_OVERFLOW_BOUNDS[key.curve] = int(curve.p) - int(curve.order)
        except Exception:  # noqa: BLE001 - a pycryptodome without these: native judges
            return None
    return bound


def _ecdsa_verify(self: Any, provider: Any, msg_hash: Any, signature: Any) -> bool:
    """True when OpenSSL accepts the signature and native code would too.

    Native code checks the encoding (binary length, strict DER), 0 < r, s
    < n, low-s (4.x), and the ECDSA equation with z from the leftmost
    bytes of the digest (for these curves, the same as OpenSSL's leftmost
    bits); 3.x compares r with the point's x coordinate unreduced, so an r
    below p - n is left to it. A DER signature goes to OpenSSL only when re-encoding its (r, s)
    gives it back byte for byte, so both sides read the same integers.
    """
    order = order_value(self._order)
    decoded = decode_signature(self, provider, msg_hash, signature, order)
    if decoded is None:
        return False
    digest, oid, r, s = decoded
    if getattr(self, "_low_s", False) and s > self._max_low_s:
        return False
    bound = _x_overflow_bound(self._key)
    if bound is None or r < bound:
        # The x coordinate of the verifying point may be r + n (it is < p):
        # OpenSSL reduces it mod n, pycryptodome 3.x does not, and rejects
        # such a valid signature (Wycheproof "k*G has a large x-coordinate").
        # Native judges these; random signatures get here with odds ~2^-128.
        return False
    public = twins.ec_public(self._key, provider)
    if not public:
        return False
    try:
        return provider.verify(public, r, s, digest, oid)
    except Exception:  # noqa: BLE001
        return False


# --------------------------------------------------------------------------- EdDSA


def patch_eddsa(module: ModuleType) -> None:
    """``eddsa.new`` returns a scheme whose pure Ed25519/Ed448 sign/verify go to OpenSSL.

    Pure EdDSA with an empty context is RFC 8032's Ed25519 and Ed448
    exactly, which is what OpenSSL offers; the pre-hashed variants
    (a SHA-512 or SHAKE256 object) and contexts stay native.
    """
    native_cls = module.EdDSASigScheme
    native_sign, native_verify = native_cls.sign, native_cls.verify
    slots = with_curve_names({c: registry.slot(name) for c, name in EDDSA_PRIMITIVES.items()})

    def sign(self: Any, msg_or_hash: Any) -> bytes:
        slot = slots.get(self._key.curve)
        provider = slot and slot.get()
        if provider and not self._context:
            message = _buffers.plain_bytes(msg_or_hash)
            private = message is not None and twins.eddsa_private(self._key, provider, self._A)
            if private:
                signature = served(slot, provider.sign, private, message)
                if signature is not None:
                    return signature
        return native_sign(self, msg_or_hash)

    def verify(self: Any, msg_or_hash: Any, signature: Any) -> None:
        # OpenSSL accepts when R == encode([s]B - [k]A) with s < L: then
        # [8s]B == [8]R + [8k]A, native's (cofactored) equation, and R is a
        # canonical encoding native decodes. OpenSSL rejects some signatures
        # native accepts (small-order components): native judges those.
        slot = slots.get(self._key.curve)
        provider = slot and slot.get()
        if provider and not self._context:
            message = _buffers.plain_bytes(msg_or_hash)
            data = message is not None and _buffers.plain_bytes(signature)
            if data and len(data) == provider.signature_size:
                public = twins.eddsa_public(self._key, provider, self._A)
                if public and accepted(slot, provider.verify, public, data, message):
                    return None
        return native_verify(self, msg_or_hash, signature)

    accelerated = accelerated_class(native_cls, {"sign": sign, "verify": verify})
    patch_new(module, {native_cls: accelerated})
    _install_fast_eddsa_new(module, accelerated, slots)


_EDDSA_ATTRIBUTES = frozenset(("_key", "_context", "_A", "_order"))


def _install_fast_eddsa_new(module: ModuleType, accelerated: type, curves: dict) -> None:
    """``eddsa.new(key, "rfc8032")`` without re-encoding the public key at every call.

    Native ``new`` stores the key, the context, the curve's order and the
    encoded public key, computed from the key's point each time (about as
    long as OpenSSL's whole Ed25519 signature). The encoding is a function
    of the key: it is computed natively once and kept with the key's twins.
    Any other shape (a context, another mode, anything but an EdDSA key)
    goes to ``new``.
    """
    wrapped_new = module.new
    ecc_key = module.EccKey
    checked: dict[str, bool] = {}  # curve -> native's objects hold exactly _EDDSA_ATTRIBUTES

    def new(key: Any, mode: Any, context: Any = None) -> Any:
        if (
            type(key) is ecc_key
            and mode == "rfc8032"
            and type(mode) is str
            and (context is None or (type(context) is bytes and not context))
        ):
            curve = key.curve
            encoded = twins.encoded_public(key) if checked.get(curve) else None
            if encoded is not None:
                scheme = object.__new__(accelerated)
                scheme.__dict__.update(_key=key, _context=b"", _A=encoded, _order=key._curve.order)
                return scheme
            scheme = wrapped_new(key, mode, context)
            if type(scheme) is accelerated and curve in curves:
                checked[curve] = vars(scheme).keys() == _EDDSA_ATTRIBUTES
                twins.remember_encoded_public(key, scheme._A)
            return scheme
        return wrapped_new(key, mode, context)

    functools.update_wrapper(new, patching.get_original(module.__name__, "new"))
    patching.patch_attribute(module, "new", new)
