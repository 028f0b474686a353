"""python-ecdsa (the ``ecdsa`` package, 0.18 and later) served by OpenSSL.

Patched in place, on the classes ``ecdsa.keys`` defines (so that every
reference to them, bound before or after, is served):

* ``SigningKey.sign_digest``: random-nonce ECDSA. ``sign`` hashes and calls
  it, so both are served. OpenSSL draws the nonce only when the caller gave
  neither ``entropy`` nor ``k`` (those are honoured natively).
* ``SigningKey.sign_digest_deterministic``: RFC 6979, byte-identical to
  native, where the nonce's hash (``hashfunc`` or the key's default) is one
  of hashlib's constructors that OpenSSL signs with, the digest has that
  hash's length, ``extra_entropy`` is empty, and this OpenSSL has
  deterministic ECDSA (3.2 and later, cryptography 44 and later).
  ``sign_deterministic`` hashes and calls it, so both are served.
* ``VerifyingKey.verify_digest``: ``verify`` hashes and calls it. A signature
  OpenSSL accepts returns True; anything else is judged by the native
  arithmetic (``Public_key.verifies``) and raises as native does.
* ``SigningKey.generate`` without ``entropy``: the key pair comes from
  OpenSSL, assembled as ``from_secret_exponent`` assembles it.

What stays the library's own, in every served call: the conversion of
arguments (``normalise_bytes``), the digest's truncation and ``BadDigestError``
(``_truncate_and_convert_digest``), the user's ``sigencode``/``sigdecode``
(called once, with the arguments native code gives them, their exceptions
propagating), and ``BadSignatureError`` for a malformed encoding. Curves
OpenSSL does not serve here (brainpool, the small SEC curves, Edwards
curves, a curve object of the user's) and subclasses that override what a
served method would bypass are served natively, call by call.

OpenSSL keys made from python-ecdsa keys are cached per key object, by weak
reference (the key objects are unhashable: their classes define ``__eq__``),
so they live no longer than the user's object and add no attribute to it.
"""

from __future__ import annotations

import functools
from _weakref import ref as weak_ref  # weakref.ref, without weakref.py's imports

from accel_agent import patching, registry
from accel_agent.targets.served_curves import ServedCurves

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

MIN_VERSION = (0, 18)

# python-ecdsa's curve objects (names in ecdsa.curves) -> (primitive, provider curve name)
CURVES = {
    "NIST192p": ("ecdsa-p192", "p192"),
    "NIST224p": ("ecdsa-p224", "p224"),
    "NIST256p": ("ecdsa-p256", "p256"),
    "NIST384p": ("ecdsa-p384", "p384"),
    "NIST521p": ("ecdsa-p521", "p521"),
    "SECP256k1": ("ecdsa-secp256k1", "secp256k1"),
}

# hashlib constructor names -> (object identifier, digest size): the nonce
# hashes of RFC 6979 that OpenSSL's deterministic ECDSA takes.
_NIST = "2.16.840.1.101.3.4.2."
HASHES = {
    "sha1": ("1.3.14.3.2.26", 20),
    "sha224": (_NIST + "4", 28),
    "sha256": (_NIST + "1", 32),
    "sha384": (_NIST + "2", 48),
    "sha512": (_NIST + "3", 64),
    "sha3_224": (_NIST + "7", 28),
    "sha3_256": (_NIST + "8", 32),
    "sha3_384": (_NIST + "9", 48),
    "sha3_512": (_NIST + "10", 64),
}


def version() -> tuple[int, ...]:
    """The installed python-ecdsa's version, read while ``ecdsa/__init__`` is still running
    (it sets ``__version__`` after importing ``ecdsa.keys``)."""
    import importlib

    try:
        text = importlib.import_module("ecdsa._version").get_versions()["version"]
    except Exception:  # noqa: BLE001 - a build without versioneer's module
        return ()
    parts = []
    for part in str(text).split("+")[0].split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


class _Curve:
    """A python-ecdsa curve the agent serves, with what a served call needs of it."""

    __slots__ = ("curve", "slot", "name", "order", "qlen")

    def __init__(self, curve: Any, primitive: str, name: str) -> None:
        self.curve = curve
        self.slot = registry.slot(primitive)
        self.name = name  # the provider's curve name
        self.order = int(curve.order)
        self.qlen = self.order.bit_length()


class _KeyCache:
    """OpenSSL keys by python-ecdsa key object, for as long as that object lives.

    An entry is used only while what it was made from is unchanged: the
    curve object and the secret (signing), or the curve and the point object
    (verifying). Entries go when the key object is collected.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple] = {}

    def get(self, obj: Any, curve: Any, material: Any) -> Any:
        entry = self._entries.get(id(obj))
        if entry is None or entry[0]() is not obj or entry[1] is not curve:
            return None
        if entry[2] is not material and entry[2] != material:
            return None
        return entry[3]

    def put(self, obj: Any, curve: Any, material: Any, key: Any) -> None:
        entries = self._entries
        ident = id(obj)

        def forget(ref: weak_ref, ident: int = ident) -> None:
            current = entries.get(ident)
            if current is not None and current[0] is ref:
                entries.pop(ident, None)

        entries[ident] = (weak_ref(obj, forget), curve, material, key)

    def __len__(self) -> int:
        return len(self._entries)


signing_keys = _KeyCache()
verifying_keys = _KeyCache()


def patch_keys(module: ModuleType) -> None:
    """Serve ``SigningKey``/``VerifyingKey`` of ``ecdsa.keys`` through OpenSSL."""
    import hashlib
    import sys

    if version() < MIN_VERSION:
        return  # an older python-ecdsa: its code differs from what is mirrored here
    served = ServedCurves(sys.modules["ecdsa.curves"], CURVES, _Curve)
    nonce_hashes: dict[Any, tuple[str, int]] = {}
    for name, facts in HASHES.items():
        constructor = getattr(hashlib, name, None)
        if constructor is not None:
            nonce_hashes[constructor] = facts
        if patching.is_patched("hashlib", name):  # the agent's own, and the one it replaced
            try:
                nonce_hashes[patching.get_original("hashlib", name)] = facts
            except KeyError:
                pass
    _Patch(module, served, nonce_hashes).apply()


class _Patch:
    """The replacement methods of one ``ecdsa.keys`` module, and their installation."""

    def __init__(self, module: ModuleType, served: ServedCurves, nonce_hashes: dict) -> None:
        self.module = module
        self.served = served
        self.signing_class = module.SigningKey
        self.verifying_class = module.VerifyingKey
        self.keygen_slot = registry.slot("ecc-keygen")
        self._nonce_hashes = nonce_hashes

    # ------------------------------------------------------------------ shared steps

    def _curve(self, key: Any) -> _Curve | None:
        return self.served.get(key.curve)

    def _private_key(self, key: Any, entry: _Curve, provider: Any) -> Any:
        """The OpenSSL key of a SigningKey (cached), or None when OpenSSL refuses it."""
        secret = key.privkey.secret_multiplier
        found = signing_keys.get(key, entry.curve, secret)
        if found is None:
            if type(secret) is not int or not 0 < secret < entry.order:
                return None
            try:
                found = provider.load_private(secret)
            except Exception:  # noqa: BLE001 - native decides
                return None
            signing_keys.put(key, entry.curve, secret, found)
        return found

    def _public_key(self, key: Any, entry: _Curve, provider: Any) -> Any:
        point = key.pubkey.point
        found = verifying_keys.get(key, entry.curve, point)
        if found is None:
            try:
                found = provider.load_public(int(point.x()), int(point.y()))
            except Exception:  # noqa: BLE001 - off the curve (validate_point=False): native
                return None
            verifying_keys.put(key, entry.curve, point, found)
        return found

    def _overrides(self, key: Any, names: tuple[str, ...]) -> bool:
        """Whether a subclass replaced a method that native code would call here."""
        cls = type(key)
        if cls is self.signing_class or cls is self.verifying_class:
            return False
        base = self.signing_class if isinstance(key, self.signing_class) else self.verifying_class
        return any(getattr(cls, name) is not getattr(base, name) for name in names)

    # ------------------------------------------------------------------ the methods

    def apply(self) -> None:
        module = self.module
        util = module.sigencode_string, module.sigdecode_string
        methods = {
            "SigningKey.sign_digest": self._sign_digest(*util),
            "SigningKey.sign_digest_deterministic": self._sign_digest_deterministic(*util),
            "VerifyingKey.verify_digest": self._verify_digest(*util),
            "SigningKey.generate": self._generate(),
        }
        for name, method in methods.items():
            patching.patch_attribute(module, name, method)

    def _sign_digest(self, sigencode_string: Any, _sigdecode: Any) -> Any:
        module = self.module
        native = self.signing_class.sign_digest
        normalise_bytes = module.normalise_bytes
        truncate = module._truncate_and_convert_digest

        def sign_digest(
            self_, digest, entropy=None, sigencode=sigencode_string, k=None, allow_truncate=False
        ):
            entry = provider = private = None
            if entropy is None and k is None:
                try:
                    entry = self._curve(self_)
                    provider = entry and entry.slot.get()
                    private = (
                        provider
                        and not self._overrides(self_, ("sign_number",))
                        and self._private_key(self_, entry, provider)
                    )
                except Exception:  # noqa: BLE001 - not a key as python-ecdsa makes them
                    private = None
            if not private:
                return native(self_, digest, entropy, sigencode, k, allow_truncate)
            # Native's own steps, then OpenSSL where native would call sign_number.
            digest = normalise_bytes(digest)
            number = truncate(digest, self_.curve, allow_truncate)
            try:
                signature = provider.sign_number(private, number)
            except Exception:  # noqa: BLE001 - native decides
                signature = None
            if signature is None:
                r, s = self_.sign_number(number, entropy, k)
            else:
                entry.slot.calls += 1
                r, s = signature
            return sigencode(r, s, self_.privkey.order)

        functools.update_wrapper(sign_digest, native)
        return sign_digest

    def _sign_digest_deterministic(self, sigencode_string: Any, _sigdecode: Any) -> Any:
        module = self.module
        native = self.signing_class.sign_digest_deterministic
        normalise_bytes = module.normalise_bytes

        def sign_digest_deterministic(
            self_,
            digest,
            hashfunc=None,
            sigencode=sigencode_string,
            extra_entropy=b"",
            allow_truncate=False,
        ):
            served = None
            try:
                served = self._deterministic_call(
                    self_, digest, hashfunc, extra_entropy, allow_truncate, normalise_bytes
                )
            except Exception:  # noqa: BLE001 - an argument native code will judge
                served = None
            if served is None:
                return native(self_, digest, hashfunc, sigencode, extra_entropy, allow_truncate)
            entry, r, s = served
            entry.slot.calls += 1
            return sigencode(r, s, self_.privkey.order)

        functools.update_wrapper(sign_digest_deterministic, native)
        return sign_digest_deterministic

    def _deterministic_call(
        self,
        key: Any,
        digest: Any,
        hashfunc: Any,
        extra_entropy: Any,
        allow_truncate: bool,
        normalise_bytes: Any,
    ) -> tuple[_Curve, int, int] | None:
        """(curve, r, s) from OpenSSL's RFC 6979, or None where it would not be native's."""
        entry = self._curve(key)
        provider = entry and entry.slot.get()
        if not provider or not provider.deterministic:
            return None
        facts = self._nonce_hashes.get(hashfunc or key.default_hashfunc)
        if facts is None or len(normalise_bytes(extra_entropy)):
            return None
        data = bytes(normalise_bytes(digest))
        # RFC 6979 takes the digest's leftmost qlen bits, as OpenSSL does; native
        # without allow_truncate uses the whole number (or raises BadDigestError).
        if len(data) != facts[1] or (not allow_truncate and 8 * len(data) > entry.qlen):
            return None
        if self._overrides(key, ("sign_digest", "sign_number")):
            return None
        private = self._private_key(key, entry, provider)
        if private is None:
            return None
        r, s = provider.decode_der(provider.sign(private, data, facts[0], True))
        return entry, r, s

    def _verify_digest(self, _sigencode: Any, sigdecode_string: Any) -> Any:
        module = self.module
        native = self.verifying_class.verify_digest
        normalise_bytes = module.normalise_bytes
        truncate = module._truncate_and_convert_digest
        der, ecdsa_module = module.der, module.ecdsa
        malformed = (der.UnexpectedDER, module.MalformedSignature)
        bad_signature = module.BadSignatureError

        def verify_digest(
            self_, signature, digest, sigdecode=sigdecode_string, allow_truncate=False
        ):
            entry = provider = None
            try:
                entry = self._curve(self_)
                provider = entry and entry.slot.get()
            except Exception:  # noqa: BLE001
                provider = None
            if not provider:
                return native(self_, signature, digest, sigdecode, allow_truncate)
            # Native's own steps; OpenSSL stands in for Public_key.verifies only
            # when it accepts (a rejection is judged, and raised, natively).
            digest = normalise_bytes(digest)
            number = truncate(digest, self_.curve, allow_truncate)
            try:
                r, s = sigdecode(signature, self_.pubkey.order)
            except malformed as e:
                raise bad_signature("Malformed formatting of signature", e)  # noqa: B904
            if type(r) is int and type(s) is int and 0 < r < entry.order and 0 < s < entry.order:
                public = self._public_key(self_, entry, provider)
                try:
                    valid = public is not None and provider.verify_number(public, r, s, number)
                except Exception:  # noqa: BLE001
                    valid = False
                if valid:
                    entry.slot.calls += 1
                    return True
            sig = ecdsa_module.Signature(r, s)
            if self_.pubkey.verifies(number, sig):
                return True
            raise bad_signature("Signature verification failed")

        functools.update_wrapper(verify_digest, native)
        return verify_digest

    def _generate(self) -> Any:
        module = self.module
        signing_class = self.signing_class
        original = signing_class.__dict__["generate"]
        native_from_secret_exponent = signing_class.__dict__["from_secret_exponent"]
        native_keygen = signing_class.__dict__["_weierstrass_keygen"]
        default_curve = module.NIST192p
        default_hash = module.sha1
        keygen_slot = self.keygen_slot
        served = self.served

        def generate(
            cls: Any, curve: Any = default_curve, entropy: Any = None, hashfunc: Any = default_hash
        ) -> Any:
            entry = served.get(curve) if entropy is None else None
            provider = None
            if entry is not None and entry.slot.get() is not None:
                provider = keygen_slot.get()
            # A subclass's own key generation or assembly is its to run.
            if (
                provider is None
                or cls._weierstrass_keygen.__func__ is not native_keygen.__func__
                or cls.from_secret_exponent.__func__ is not native_from_secret_exponent.__func__
            ):
                return original.__func__(cls, curve, entropy, hashfunc)
            try:
                generated = provider.generate(entry.name)
            except Exception:  # noqa: BLE001 - native decides (outside the handler)
                generated = None
            if generated is None:
                return original.__func__(cls, curve, entropy, hashfunc)
            secret, x, y, private = generated
            key = _assemble(module, cls, curve, hashfunc, secret, x, y)
            signing_keys.put(key, curve, secret, private)
            keygen_slot.calls += 1
            return key

        functools.update_wrapper(generate, original.__func__)
        return classmethod(generate)


def _assemble(module: Any, cls: Any, curve: Any, hashfunc: Any, secret: int, x: int, y: int) -> Any:
    """What ``from_secret_exponent`` builds, with OpenSSL's public point (already scaled,
    as native's ``(curve.generator * secexp).scale()``: z = 1, the group order kept)."""
    point = module.PointJacobi(curve.curve, x, y, 1, curve.order)
    key = cls(_error__please_use_generate=True)
    key.curve = curve
    key.default_hashfunc = hashfunc
    key.baselen = curve.baselen
    key.verifying_key = module.VerifyingKey.from_public_point(point, curve, hashfunc, False)
    key.privkey = module.ecdsa.Private_key(key.verifying_key.pubkey, secret)
    key.privkey.order = curve.order
    return key
