"""starkbank-ecdsa under the agent against starkbank-ecdsa without it, on generated inputs.

Its signatures are hedged (RFC 6979 with fresh randomness mixed in), so two
runs never sign alike: a signature is checked by what must hold of every
one (its class and attribute names, low s, a recovery id that recovers the
nonce's point) and by verifying it both ways, the agent's natively and
native's under the agent. Verification verdicts, on valid, tampered and
malformed signatures and on bad arguments, are compared by
:func:`transparency_helpers.both`: same return value, same exception type
and message.
"""

from __future__ import annotations

import gc
import hashlib
import random

import pytest
from diff_strategies import scaled
from hypothesis import example, given
from hypothesis import strategies as st

from transparency_helpers import RAISED, accelerated_calls, acceleration, both, describe, natively

ellipticcurve = pytest.importorskip("ellipticcurve", reason="starkbank-ecdsa is not installed")
ecdsa_module = pytest.importorskip("ellipticcurve.ecdsa")
from ellipticcurve import Ecdsa, PrivateKey, PublicKey, Signature  # noqa: E402
from ellipticcurve import curve as curves  # noqa: E402
from ellipticcurve.math import Math  # noqa: E402
from ellipticcurve.point import Point  # noqa: E402

SETTINGS = scaled(0.25)
# curve name -> (primitive, whether signing is served)
CURVES = {"secp256k1": ("ecdsa-secp256k1", False), "prime256v1": ("ecdsa-p256", True)}
HASHES = {
    "default": None,
    "sha256": hashlib.sha256,
    "sha1": hashlib.sha1,
    "sha224": hashlib.sha224,
    "sha384": hashlib.sha384,
    "sha512": hashlib.sha512,
    "sha3_256": hashlib.sha3_256,
    "blake2b": hashlib.blake2b,
}


def _curve(name: str):
    return getattr(curves, name)


def _key(curve: str, secret: int) -> PrivateKey:
    order = _curve(curve).N
    return PrivateKey(curve=_curve(curve), secret=secret % (order - 1) + 1)


def _hash_kwargs(name: str) -> dict:
    return {} if HASHES[name] is None else {"hashfunc": HASHES[name]}


def _recovered_point(signature, message: str, public: PublicKey, hashfunc) -> Point:
    """The nonce point the recovery id names: s^-1 (z G + r Q), computed by the library's math."""
    curve = public.curve
    digest = hashfunc(message.encode()).digest()
    z = int.from_bytes(digest, "big") >> max(0, 8 * len(digest) - curve.nBitLength)
    inv = Math.inv(signature.s, curve.N)
    return Math.multiplyAndAdd(
        curve.G, (z * inv) % curve.N, public.point, (signature.r * inv) % curve.N, curve=curve
    )


def _check_signature(signature, message: str, public: PublicKey, hashfunc) -> None:
    curve = public.curve
    assert type(signature) is Signature
    assert sorted(vars(signature)) == ["r", "recoveryId", "s"]
    assert 1 <= signature.r < curve.N and 1 <= signature.s <= curve.N // 2
    assert signature.recoveryId in (0, 1, 2, 3)
    point = _recovered_point(signature, message, public, hashfunc)
    assert point.y & 1 == signature.recoveryId & 1
    assert (point.x >= curve.N) == bool(signature.recoveryId & 2)
    assert point.x % curve.N == signature.r


@SETTINGS
@given(
    curve=st.sampled_from(list(CURVES)),
    secret=st.integers(1, 2**256),
    message=st.text(max_size=200),
    hash_name=st.sampled_from(list(HASHES)),
)
@example("prime256v1", 1, "", "default")
@example("secp256k1", 1, "sample", "sha512")
def test_signatures_verify_both_ways(curve, secret, message, hash_name):
    key = _key(curve, secret)
    public = key.publicKey()
    kwargs = _hash_kwargs(hash_name)
    hashfunc = HASHES[hash_name] or hashlib.sha256
    with accelerated_calls() as made:
        ours = Ecdsa.sign(message, key, **kwargs)
    with natively():
        theirs = Ecdsa.sign(message, key, **kwargs)
        assert Ecdsa.verify(message, ours, public, **kwargs) is True
        assert Ecdsa.verify(message + "x", ours, public, **kwargs) is False
    assert Ecdsa.verify(message, theirs, public, **kwargs) is True
    assert Ecdsa.verify(message + "x", theirs, public, **kwargs) is False
    for signature in (ours, theirs):
        _check_signature(signature, message, public, hashfunc)
        # Its own encodings read back as the same state.
        again = Signature.fromBase64(signature.toBase64(withRecoveryId=True), recoveryByte=True)
        assert vars(again) == vars(signature)
    primitive, signs = CURVES[curve]
    if signs and acceleration(primitive)[0]:
        assert made.get(primitive) == 1


# ----------------------------------------------------------------- the same randomness

_integer = pytest.importorskip("ellipticcurve.utils.integer")
# the hashes whose nonce the agent computes itself (by hashlib's HMAC)
_SHA_NAMES = ("default", "sha256", "sha1", "sha224", "sha384", "sha512")


class _Randomness:
    """The library's randomness (``_randbelow``) or the agent's (``secrets.token_bytes``) replaced.

    Under the agent, the nonce takes ``secrets.token_bytes`` while
    ``_randbelow`` is as shipped; natively it calls ``_randbelow``. Both are
    made to give ``entropy``, so the two signatures must be the same.
    """

    def __init__(self, entropy: int, library: bool) -> None:
        self.entropy = entropy
        self.library = library  # replace the library's _randbelow (else token_bytes)

    def __enter__(self):
        import secrets

        self._saved = (_integer._randbelow, secrets.token_bytes)
        entropy = self.entropy
        if self.library:
            _integer._randbelow = lambda limit: entropy
        else:
            secrets.token_bytes = lambda size: entropy.to_bytes(size, "big")[-size:]
        return self

    def __exit__(self, *exc):
        import secrets

        _integer._randbelow, secrets.token_bytes = self._saved


def _signed(message, key, kwargs, randomness):
    try:
        with randomness:
            return ("returned", sorted(vars(Ecdsa.sign(message, key, **kwargs)).items()))
    except Exception as exc:  # noqa: BLE001 - compared with native's
        return ("raised", type(exc), str(exc))


@SETTINGS
@given(
    curve=st.sampled_from(list(CURVES)),
    secret=st.integers(1, 2**256),
    message=st.text(max_size=100),
    hash_name=st.sampled_from(list(HASHES)),
    entropy=st.one_of(
        st.integers(0, 2**256 - 1),
        st.sampled_from([0, 2**256 - 1, 2**256, 2**264 + 5, -1, True, 42.0]),
    ),
    library=st.booleans(),
)
@example("prime256v1", 1, "", "default", 0, True)
@example("prime256v1", 7, "sample", "sha512", 2**256 - 1, False)
def test_the_same_randomness_gives_the_librarys_own_signature(
    curve, secret, message, hash_name, entropy, library
):
    key = _key(curve, secret)
    kwargs = _hash_kwargs(hash_name)
    primitive, signs = CURVES[curve]
    if not signs or hash_name not in _SHA_NAMES or type(entropy) is not int or entropy < 0:
        # The library's own nonce code reads _randbelow (a curve signed
        # natively, a hash outside SHA-1/SHA-2), or what no bytes can stand for
        library = True
    with accelerated_calls() as made:
        ours = _signed(message, key, kwargs, _Randomness(entropy, library))
    with natively():
        theirs = _signed(message, key, kwargs, _Randomness(entropy, True))
    assert ours == theirs
    if signs and ours[0] == "returned" and acceleration(primitive)[0]:
        assert made.get(primitive) == 1


class _SmallCurve:
    """What the nonce code reads of a curve, with an order small enough to reject candidates."""

    def __init__(self, order: int) -> None:
        self.N = order
        self.nBitLength = order.bit_length()


@pytest.mark.parametrize("order", [2, 3, 257, 0x8001, 0xFFFF, (1 << 161) + 7, (1 << 521) - 1])
@pytest.mark.parametrize("hash_name", ["sha1", "sha224", "sha256", "sha384", "sha512"])
def test_hedged_nonces_are_the_librarys_nonce_after_nonce(order, hash_name):
    from ellipticcurve.utils.integer import RandomInteger

    from accel_agent.targets.starkbank_ecdsa.signing import hedged_nonces

    hashfunc = getattr(hashlib, hash_name)
    curve = _SmallCurve(order)
    size = (curve.nBitLength + 7) // 8
    rng = random.Random(order ^ len(hash_name))
    hmac_new = __import__("hmac").new
    for _ in range(5):
        digest = hashfunc(rng.randbytes(20)).digest()
        secret = rng.randrange(1 << (8 * size))
        entropy = rng.randrange(1 << (8 * size))
        with _Randomness(entropy, library=True):
            theirs = RandomInteger.rfc6979(digest, secret, curve, hashfunc)
            expected = [next(theirs) for _ in range(6)]
        ours = hedged_nonces(
            digest, secret, curve, hash_name, hashfunc().digest_size, lambda limit, e=entropy: e,
            hmac_new,
        )  # fmt: skip
        assert [next(ours) for _ in range(6)] == expected


class _UnhashableSha256:
    """A hash function the library takes (it only calls it) that no dict can hold."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other):
        return isinstance(other, _UnhashableSha256)

    def __call__(self, data=b""):
        return hashlib.sha256(data)


def test_an_unhashable_hash_function_signs_as_natively():
    key = _key("prime256v1", 31)
    hashfunc = _UnhashableSha256()
    entropy = 2**200 + 12345
    with accelerated_calls() as made:
        ours = _signed("unhashable", key, {"hashfunc": hashfunc}, _Randomness(entropy, True))
    with natively():
        theirs = _signed("unhashable", key, {"hashfunc": hashfunc}, _Randomness(entropy, True))
    assert ours[0] == "returned" and ours == theirs
    if acceleration("ecdsa-p256")[0]:
        assert made.get("ecdsa-p256") == 1


def test_a_stub_bound_before_the_import_is_the_librarys_randomness():
    """``secrets.randbelow`` replaced before the library is imported: it is what signs."""
    from helpers import clean_environment, run_python

    script = (
        "import secrets; secrets.randbelow = lambda limit: 42\n"
        "from ellipticcurve import Ecdsa, PrivateKey, curve\n"
        "key = PrivateKey(curve=curve.prime256v1, secret=12345)\n"
        "one, two = Ecdsa.sign('m', key), Ecdsa.sign('m', key)\n"
        "print(vars(one) == vars(two), sorted(vars(one).items()))\n"
    )
    outputs = {}
    for mode in ("off", "quiet"):
        result = run_python("-c", script, env=clean_environment(ACCEL_AGENT=mode))
        assert result.returncode == 0, result.stderr
        outputs[mode] = result.stdout
    assert outputs["quiet"].startswith("True ")
    assert outputs["quiet"] == outputs["off"]


def test_replaced_nonce_and_inverse_code_is_honoured(monkeypatch):
    from ellipticcurve.utils.integer import RandomInteger

    key = _key("prime256v1", 99)
    fixed = 0x1234567890ABCDEF << 128

    def rfc6979(cls, hashBytes, secret, curve, hashfunc):  # noqa: N803 - the library's names
        yield fixed

    monkeypatch.setattr(RandomInteger, "rfc6979", classmethod(rfc6979))
    inverses = []
    shipped_inverse = Math.inv

    def counted_inverse(x, n):
        inverses.append(x)
        return shipped_inverse(x, n)

    monkeypatch.setattr(Math, "inv", staticmethod(counted_inverse))
    with accelerated_calls() as made:
        ours = Ecdsa.sign("honoured", key)
    assert inverses == [fixed]
    with natively():
        theirs = Ecdsa.sign("honoured", key)
    assert vars(ours) == vars(theirs)
    if acceleration("ecdsa-p256")[0]:
        assert made.get("ecdsa-p256") == 1


def test_the_nonce_inverse_is_blinded(monkeypatch):
    from accel_agent import speedups

    if not acceleration("ecdsa-p256")[0]:
        pytest.skip("ecdsa-p256 is not accelerated here: %s" % acceleration("ecdsa-p256")[1])
    provider = registry_provider("ecdsa-p256")
    order = _curve("prime256v1").N
    seen = []
    shipped = speedups.inverse_mod

    def spy(a, m):
        seen.append(a)
        return shipped(a, m)

    monkeypatch.setattr(speedups, "inverse_mod", spy)
    nonces = [1, 2, order - 1, random.Random(5).randrange(1, order)]
    for nonce in nonces:
        assert provider.inverse_of_nonce(nonce) == pow(nonce, -1, order)
    assert len(seen) == len(nonces)
    assert all(blinded != nonce for blinded, nonce in zip(seen, nonces))


def registry_provider(primitive: str):
    from accel_agent import registry

    return registry.slot(primitive).get()


def _tampered(signature, how: str, order: int):
    r, s = signature.r, signature.s
    return {
        "valid": Signature(r, s),
        "high-s": Signature(r, order - s),
        "r+1": Signature(r + 1, s),
        "s+1": Signature(r, s + 1),
        "r=0": Signature(0, s),
        "s=0": Signature(r, 0),
        "r=n": Signature(order, s),
        "s=n": Signature(r, order),
        "r+n": Signature(r + order, s),
        "negative": Signature(-r, s),
        "swapped": Signature(s, r),
        "r-str": Signature(str(r), s),
        "s-float": Signature(r, float(s)),
        "r-bool": Signature(True, s),
        "none": Signature(None, s),
    }[how]


TAMPERING = ("valid", "high-s", "r+1", "s+1", "r=0", "s=0", "r=n", "s=n", "r+n", "negative",
             "swapped", "r-str", "s-float", "r-bool", "none")  # fmt: skip


def _verify_scenario(rec, module, curve, secret, message, hash_name, how, other_message):
    key = _key(curve, secret)
    public = key.publicKey()
    kwargs = _hash_kwargs(hash_name)
    signature = _tampered(SIGNATURES[(curve, secret % 7, hash_name)], how, _curve(curve).N)
    signed = "signed message %d" % (secret % 7)
    rec.call("verify", module.Ecdsa.verify, other_message if message else signed, signature,
             public, **kwargs)  # fmt: skip


class _Signatures(dict):
    """One native signature per (curve, key, hash), made on first use."""

    def __missing__(self, item):
        curve, index, hash_name = item
        with natively():
            signature = Ecdsa.sign(
                "signed message %d" % index, _key(curve, index), **_hash_kwargs(hash_name)
            )
        self[item] = signature
        return signature


SIGNATURES = _Signatures()


@SETTINGS
@given(
    curve=st.sampled_from(list(CURVES)),
    secret=st.integers(0, 6),
    message=st.booleans(),
    hash_name=st.sampled_from(list(HASHES)),
    how=st.sampled_from(TAMPERING),
    other_message=st.text(max_size=50),
)
@example("prime256v1", 3, False, "default", "valid", "")
@example("secp256k1", 3, False, "sha1", "high-s", "")
def test_verify_verdicts_are_identical(curve, secret, message, hash_name, how, other_message):
    both(_verify_scenario, ecdsa_module, curve, secret, message, hash_name, how, other_message)


@pytest.mark.parametrize("curve", list(CURVES))
def test_valid_signatures_are_verified_by_openssl(curve):
    primitive = CURVES[curve][0]
    if not acceleration(primitive)[0]:
        pytest.skip("%s is not accelerated here: %s" % (primitive, acceleration(primitive)[1]))
    comparison = both(_verify_scenario, ecdsa_module, curve, 2, False, "default", "valid", "")
    assert comparison.accelerated(primitive) == 1
    assert comparison.agent.steps == [("verify", "returned", describe(True))]


# ----------------------------------------------------------------- bad arguments


def _bad_call(rec, module, case):
    key = _key("prime256v1", 5)
    public = key.publicKey()
    signature = SIGNATURES[("prime256v1", 5, "default")]
    off_curve = PublicKey(Point(public.point.x, public.point.y + 1), public.curve)
    infinity = PublicKey(Point(0, 0), public.curve)
    float_point = PublicKey(Point(float(public.point.x), public.point.y), public.curve)

    def raising_hash(data=b""):
        raise RuntimeError("the caller's hash refused")

    calls = {
        "bytes message sign": lambda: module.Ecdsa.sign(b"signed message 5", key),
        "bytes message verify": lambda: module.Ecdsa.verify(b"m", signature, public),
        "none key sign": lambda: module.Ecdsa.sign("m", None),
        "none key verify": lambda: module.Ecdsa.verify("m", signature, None),
        "public key signs": lambda: module.Ecdsa.sign("m", public),
        "none signature": lambda: module.Ecdsa.verify("m", None, public),
        "off-curve point": lambda: module.Ecdsa.verify("signed message 5", signature, off_curve),
        "point at infinity": lambda: module.Ecdsa.verify("signed message 5", signature, infinity),
        "float coordinate": lambda: module.Ecdsa.verify("signed message 5", signature, float_point),
        "hash raises sign": lambda: module.Ecdsa.sign("m", key, hashfunc=raising_hash),
        "hash raises verify": lambda: module.Ecdsa.verify("m", signature, public, raising_hash),
        "hash not callable": lambda: module.Ecdsa.verify("m", signature, public, hashfunc=3),
        "positional hash": lambda: module.Ecdsa.verify(
            "signed message 5", signature, public, hashlib.sha256
        ),
    }
    result = rec.call(case, calls[case])
    if result is not RAISED and case.endswith("sign"):
        rec.note("signed", type(result).__name__)


@pytest.mark.parametrize(
    "case",
    ["bytes message sign", "bytes message verify", "none key sign", "none key verify",
     "public key signs", "none signature", "off-curve point", "point at infinity",
     "float coordinate", "hash raises sign", "hash raises verify", "hash not callable",
     "positional hash"],
)  # fmt: skip
def test_bad_arguments_fail_as_natively(case):
    both(_bad_call, ecdsa_module, case)


# ----------------------------------------------------------------- twins and objects


def test_public_twins_live_no_longer_than_the_key():
    from accel_agent.targets.starkbank_ecdsa import signing

    if not acceleration("ecdsa-p256")[0]:
        pytest.skip("ecdsa-p256 is not accelerated here: %s" % acceleration("ecdsa-p256")[1])
    key = _key("prime256v1", 11)
    public = key.publicKey()
    signature = Ecdsa.sign("twins", key)
    before = len(signing.public_twins)
    assert Ecdsa.verify("twins", signature, public) is True
    assert len(signing.public_twins) == before + 1
    # A point changed in place is not the point the twin was made from.
    other = _key("prime256v1", 12).publicKey()
    public.point = other.point
    assert Ecdsa.verify("twins", signature, public) is False
    with natively():
        assert Ecdsa.verify("twins", signature, public) is False
    del public
    gc.collect()
    assert len(signing.public_twins) == before


def test_a_users_curve_is_served_natively():
    prime = _curve("prime256v1")
    copy = curves.CurveFp(
        A=prime.A, B=prime.B, P=prime.P, N=prime.N, Gx=prime.G.x, Gy=prime.G.y,
        name="mine", oid=[1, 2, 3],
    )  # fmt: skip
    key = PrivateKey(curve=copy, secret=random.Random(1).randrange(1, prime.N))
    with accelerated_calls() as made:
        signature = Ecdsa.sign("mine", key)
        assert Ecdsa.verify("mine", signature, key.publicKey()) is True
    assert not made


def test_patched_methods_keep_the_librarys_face():
    native_sign = ecdsa_module.Ecdsa.__dict__["sign"]
    assert isinstance(native_sign, classmethod)
    assert Ecdsa.sign.__name__ == "sign" and Ecdsa.verify.__name__ == "verify"

    class Mine(Ecdsa):
        pass

    key = _key("prime256v1", 3)
    signature = Mine.sign("sub", key)
    assert Mine.verify("sub", signature, key.publicKey()) is True
