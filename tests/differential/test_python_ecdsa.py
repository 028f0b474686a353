"""python-ecdsa under the agent against python-ecdsa without it, on generated inputs.

Each scenario drives ``ecdsa.keys`` (the module whose classes the agent
patches) and is run by :func:`transparency_helpers.both` with the agent and
natively. Deterministic results must be byte-identical: RFC 6979 signatures
in every ``sigencode``, verification verdicts, exceptions (type and
message, ``BadSignatureError``'s wrapped cause included), and whatever the
caller's own ``sigencode``/``sigdecode``/``hashfunc`` saw. Randomized
results (random-nonce signatures, generated keys) are compared by shape,
verified in the same run, and checked across: what the agent made, native
code accepts. Calls the agent declines (a caller's ``k`` or ``entropy``,
``extra_entropy``, a hash OpenSSL's RFC 6979 does not take, curves OpenSSL
does not serve here) are compared all the same.
"""

from __future__ import annotations

import hashlib
import pickle
import random
from functools import cache

import pytest
from diff_strategies import make_input, scaled
from hypothesis import example, given
from hypothesis import strategies as st

from transparency_helpers import RAISED, Shape, acceleration, both, count_delta, natively

ecdsa = pytest.importorskip("ecdsa", reason="python-ecdsa is not installed")
keys_module = pytest.importorskip("ecdsa.keys")
from ecdsa import curves, util  # noqa: E402

SETTINGS = scaled(0.25)

# python-ecdsa curve name -> the agent's primitive (None: served natively)
CURVES = {
    "NIST192p": "ecdsa-p192",
    "NIST224p": "ecdsa-p224",
    "NIST256p": "ecdsa-p256",
    "NIST384p": "ecdsa-p384",
    "NIST521p": "ecdsa-p521",
    "SECP256k1": "ecdsa-secp256k1",
    "BRAINPOOLP256r1": None,
    "SECP112r1": None,
}
SERVED = [name for name, primitive in CURVES.items() if primitive]


def _curve(name: str):
    return getattr(curves, name)


class Spy:
    """A caller's sigencode/sigdecode/hashfunc: what it was given is part of the transcript."""

    def __init__(self, function, raises: BaseException | None = None) -> None:
        self.function = function
        self.raises = raises
        self.seen: list = []

    def __call__(self, *args):
        self.seen.append(tuple(_plain(a) for a in args))
        if self.raises is not None:
            raise self.raises
        return self.function(*args)


def _plain(value):
    if isinstance(value, (int, bytes)):
        return value
    try:
        return bytes(value)
    except Exception:  # noqa: BLE001 - a str, None, a tuple: recorded by repr
        return repr(value)


ENCODERS = {
    "string": lambda: util.sigencode_string,
    "strings": lambda: util.sigencode_strings,
    "der": lambda: util.sigencode_der,
    "string_canonize": lambda: util.sigencode_string_canonize,
    "strings_canonize": lambda: util.sigencode_strings_canonize,
    "der_canonize": lambda: util.sigencode_der_canonize,
    "spy": lambda: Spy(util.sigencode_der),
    "raising": lambda: Spy(util.sigencode_der, ValueError("the caller's encoder refused")),
}
DECODERS = {"string": util.sigdecode_string, "strings": util.sigdecode_strings}
DECODERS["der"] = util.sigdecode_der
HASHES = {
    "default": None,
    "sha1": hashlib.sha1,
    "sha224": hashlib.sha224,
    "sha256": hashlib.sha256,
    "sha384": hashlib.sha384,
    "sha512": hashlib.sha512,
    "sha3_256": hashlib.sha3_256,
    "md5": hashlib.md5,  # OpenSSL's ECDSA does not take it: native
    "blake2b": hashlib.blake2b,  # neither
    "wrapped-sha256": lambda data=b"": hashlib.sha256(data),  # a caller's function: native
}


@cache
def signing_key(curve: str, secret: int | None = None):
    """One key per (curve, secret), made natively from its secret (or a seeded one)."""
    order = _curve(curve).order
    if secret is None:
        secret = random.Random(curve).randrange(1, order)
    with natively():
        return keys_module.SigningKey.from_secret_exponent(secret % (order - 1) + 1, _curve(curve))


def _digest(seed: int, length: int) -> bytes:
    return random.Random(seed).randbytes(length)


# ----------------------------------------------------------------- RFC 6979


def _deterministic(rec, keys, curve, secret, kind, blob, hash_name, encoder, extra, digest_len,
                   allow_truncate, through_digest):  # fmt: skip
    key = signing_key(curve, secret)
    hashfunc = HASHES[hash_name]
    sigencode = ENCODERS[encoder]()
    if through_digest:
        result = rec.call(
            "sign_digest_deterministic",
            key.sign_digest_deterministic,
            make_input(kind, _digest(blob, digest_len)),
            hashfunc=hashfunc,
            sigencode=sigencode,
            extra_entropy=extra,
            allow_truncate=allow_truncate,
        )
    else:
        result = rec.call(
            "sign_deterministic",
            key.sign_deterministic,
            make_input(kind, _digest(blob, digest_len)),
            hashfunc=hashfunc,
            sigencode=sigencode,
            extra_entropy=extra,
        )
    if isinstance(sigencode, Spy):
        rec.note("sigencode saw", sigencode.seen)
    if result is not RAISED and encoder == "der":
        rec.call(
            "verify",
            key.verifying_key.verify,
            result,
            make_input(kind, _digest(blob, digest_len)),
            hashfunc=hashfunc,
            sigdecode=util.sigdecode_der,
        )


@SETTINGS
@given(
    curve=st.sampled_from(list(CURVES)),
    secret=st.none() | st.integers(1, 2**521),
    kind=st.sampled_from(("bytes", "bytearray", "memoryview", "str", "None")),
    blob=st.integers(0, 2**32),
    hash_name=st.sampled_from(list(HASHES)),
    encoder=st.sampled_from(list(ENCODERS)),
    extra=st.sampled_from((b"", b"", b"", b"extra")),
    digest_len=st.sampled_from((0, 1, 16, 20, 24, 28, 32, 48, 64, 66, 67, 100)),
    allow_truncate=st.booleans(),
    through_digest=st.booleans(),
)
@example("NIST256p", None, "bytes", 1, "sha256", "der", b"", 32, False, True)
@example("NIST192p", None, "bytes", 1, "sha256", "string", b"", 32, False, True)  # BadDigestError
@example("NIST521p", None, "bytes", 1, "sha512", "string", b"", 64, False, True)
@example("NIST521p", 1, "bytes", 1, "sha1", "der", b"", 20, True, True)
def test_deterministic_signatures_are_identical(
    curve, secret, kind, blob, hash_name, encoder, extra, digest_len, allow_truncate,
    through_digest,
):  # fmt: skip
    both(_deterministic, keys_module, curve, secret, kind, blob, hash_name, encoder, extra,
         digest_len, allow_truncate, through_digest)  # fmt: skip


@pytest.mark.parametrize("curve", SERVED)
@pytest.mark.parametrize("hash_name", ["default", "sha256", "sha384", "sha512", "sha3_256"])
def test_deterministic_signing_goes_through_openssl(curve, hash_name):
    primitive = CURVES[curve]
    if not acceleration(primitive)[0]:
        pytest.skip("%s is not accelerated here: %s" % (primitive, acceleration(primitive)[1]))
    if not _provider(primitive).deterministic:
        pytest.skip("this OpenSSL/cryptography has no deterministic ECDSA: served natively")
    comparison = both(
        _deterministic, keys_module, curve, None, "bytes", 7, hash_name, "der", b"", 40, True,
        False,
    )  # fmt: skip
    assert comparison.accelerated(primitive) == 2  # the signature and its verification


def _provider(primitive):
    from accel_agent import registry

    return registry.slot(primitive).get()


# ----------------------------------------------------------------- random nonces


def _random_signing(rec, keys, curve, kind, blob, hash_name, encoder, digest_len, allow_truncate,
                    through_digest, nonce):  # fmt: skip
    key = signing_key(curve)
    sigencode = ENCODERS[encoder]()
    extra = {}
    if nonce == "k":
        extra["k"] = random.Random(blob).randrange(1, _curve(curve).order)
    elif nonce == "entropy":
        extra["entropy"] = random.Random(blob).randbytes
    data = make_input(kind, _digest(blob, digest_len))
    made = []

    def signed(function, *args, **kwargs):
        # Recorded as it is when the caller chose the nonce; by shape when it is random.
        made.append(function(*args, **kwargs))
        return made[-1] if nonce is not None else _random_shape(made[-1], encoder)

    if through_digest:
        label, call = "sign_digest", (key.sign_digest, data)
        kwargs = {"sigencode": sigencode, "allow_truncate": allow_truncate, **extra}
    else:
        label, call = "sign", (key.sign, data)
        kwargs = {"hashfunc": HASHES[hash_name], "sigencode": sigencode, **extra}
    if rec.call(label, signed, *call, **kwargs) is RAISED:
        if isinstance(sigencode, Spy):
            rec.note("sigencode calls", len(sigencode.seen))
        return
    result = made[0]
    if isinstance(sigencode, Spy):
        # r and s are random unless the caller chose the nonce: the calls and the order only.
        rec.note("sigencode calls", len(sigencode.seen))
        rec.note("order given", [seen[2] for seen in sigencode.seen])
    if encoder in ("der", "string", "strings", "der_canonize", "string_canonize"):
        decoder = DECODERS[encoder.split("_")[0]]
        verify_digest = key.verifying_key.verify_digest
        if through_digest:
            rec.call("verify", verify_digest, result, data, decoder, allow_truncate)
        else:
            rec.call(
                "verify", key.verifying_key.verify, result, data, HASHES[hash_name], decoder
            )


def _random_shape(result, encoder: str):
    """What is not random in a random-nonce signature: the fixed-size encodings' lengths."""
    if encoder in ("string", "string_canonize"):
        return Shape(result)
    if encoder in ("strings", "strings_canonize"):
        return tuple(Shape(part) for part in result)
    return type(result).__name__  # DER's length depends on r and s


@SETTINGS
@given(
    curve=st.sampled_from(list(CURVES)),
    kind=st.sampled_from(("bytes", "bytearray", "memoryview", "memoryview-strided", "int")),
    blob=st.integers(0, 2**32),
    hash_name=st.sampled_from(list(HASHES)),
    encoder=st.sampled_from(list(ENCODERS)),
    digest_len=st.sampled_from((0, 1, 20, 24, 28, 32, 48, 64, 66, 67, 100)),
    allow_truncate=st.booleans(),
    through_digest=st.booleans(),
    nonce=st.sampled_from((None, None, "k", "entropy")),
)
@example("NIST521p", "bytes", 3, "sha512", "der", 66, False, True, None)
@example("NIST521p", "bytes", 3, "sha512", "der", 100, True, True, None)
@example("NIST256p", "bytes", 3, "sha512", "der", 64, False, True, None)  # BadDigestError
def test_random_signatures_verify_and_errors_are_identical(
    curve, kind, blob, hash_name, encoder, digest_len, allow_truncate, through_digest, nonce
):
    both(_random_signing, keys_module, curve, kind, blob, hash_name, encoder, digest_len,
         allow_truncate, through_digest, nonce)  # fmt: skip


@pytest.mark.parametrize("curve", SERVED)
@pytest.mark.parametrize("encoder", ["string", "der"])
def test_what_the_agent_signs_native_code_accepts(curve, encoder):
    primitive = CURVES[curve]
    key = signing_key(curve)
    before = _calls()
    signatures = [key.sign(b"message %d" % i, sigencode=ENCODERS[encoder]()) for i in range(5)]
    if acceleration(primitive)[0]:
        assert count_delta(before, _calls()).get(primitive) == 5
    assert len(set(signatures)) == 5  # a fresh nonce each time
    with natively():
        for i, signature in enumerate(signatures):
            assert key.verifying_key.verify(
                signature, b"message %d" % i, sigdecode=DECODERS[encoder]
            )
    # and what native code signs, the agent accepts
    with natively():
        signature = key.sign(b"native", sigencode=ENCODERS[encoder]())
    before = _calls()
    assert key.verifying_key.verify(signature, b"native", sigdecode=DECODERS[encoder]) is True
    if acceleration(primitive)[0]:
        assert count_delta(before, _calls()).get(primitive) == 1


def _calls():
    from transparency_helpers import call_counts

    return call_counts()


# ----------------------------------------------------------------- verification


def _tamper(signature: bytes, how: str, order: int, size: int):
    r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
    width = max(size, (order.bit_length() + 8) // 8)
    if how == "none":
        return signature
    if how == "flip":
        return signature[:-1] + bytes([signature[-1] ^ 1])
    if how == "truncate":
        return signature[:-1]
    if how == "extend":
        return signature + b"\x00"
    if how == "r=0":
        return bytes(size) + signature[size:]
    if how == "s=0":
        return signature[:size] + bytes(size)
    if how == "r=n":
        return order.to_bytes(width, "big")[-size:] + signature[size:]
    if how == "s=n-s":
        return signature[:size] + ((order - s) % 2 ** (8 * size)).to_bytes(size, "big")
    if how == "s+n":
        return signature[:size] + ((s + order) % 2 ** (8 * size)).to_bytes(size, "big")
    if how == "swap":
        return signature[size:] + signature[:size]
    if how == "r=s=1":
        return (1).to_bytes(size, "big") * 2
    if how == "empty":
        return b""
    if how == "str":
        return signature.hex()
    if how == "None":
        return None
    return (r, s)  # a tuple: sigdecode_string cannot take it


TAMPERING = ("none", "none", "none", "flip", "truncate", "extend", "r=0", "s=0", "r=n", "s=n-s",
             "s+n", "swap", "r=s=1", "empty", "str", "None", "tuple")  # fmt: skip


def _decoder(name: str):
    if name == "malformed":
        return Spy(util.sigdecode_string, util.MalformedSignature("the caller's decoder"))
    if name == "unexpected-der":
        return Spy(util.sigdecode_string, ecdsa.der.UnexpectedDER("the caller's decoder"))
    if name == "value-error":
        return Spy(util.sigdecode_string, ValueError("the caller's decoder"))
    if name == "negative":
        return Spy(lambda sig, order: (-1, 5))
    if name == "floats":
        return Spy(lambda sig, order: (1.0, 2.0))
    if name == "huge":
        return Spy(lambda sig, order: (order + 1, order * 2))
    return Spy(DECODERS[name])


def _verification(rec, keys, curve, blob, how, decoder, digest_len, allow_truncate, kind):
    key = signing_key(curve)
    order = _curve(curve).order
    size = _curve(curve).baselen
    digest = _digest(blob, digest_len)
    with natively():  # a known-good signature, the same in both runs
        try:
            signature = key.sign_digest(
                digest, sigencode=util.sigencode_string, k=blob % (order - 1) + 1,
                allow_truncate=True,
            )  # fmt: skip
        except ValueError:  # python-ecdsa cannot make a number of an empty digest
            signature = b"\x01" * (2 * size)
    sigdecode = _decoder(decoder)
    tampered = _tamper(signature, how, order, size)
    if decoder == "der" and isinstance(tampered, bytes):
        tampered = util.sigencode_der(
            int.from_bytes(tampered[:size], "big") if len(tampered) >= size else 0,
            int.from_bytes(tampered[size:], "big") if len(tampered) > size else 0,
            order,
        )
    vk = key.verifying_key
    rec.call(
        "verify_digest", vk.verify_digest, tampered, make_input(kind, digest), sigdecode,
        allow_truncate,
    )  # fmt: skip
    rec.note("sigdecode saw", sigdecode.seen)


@SETTINGS
@given(
    curve=st.sampled_from(list(CURVES)),
    blob=st.integers(0, 2**32),
    # Half of the signatures untouched and half of the decoders python-ecdsa's:
    # the accelerated path sees every digest length and truncation rule.
    how=st.just("none") | st.sampled_from(TAMPERING),
    decoder=st.sampled_from(("string", "der"))
    | st.sampled_from(("string", "der", "strings", "malformed", "unexpected-der", "value-error",
                       "negative", "floats", "huge")),  # fmt: skip
    digest_len=st.sampled_from((0, 1, 20, 28, 32, 48, 64, 66, 67)),
    allow_truncate=st.booleans(),
    kind=st.sampled_from(("bytes", "bytearray", "memoryview", "str")),
)
@example("NIST256p", 5, "none", "string", 32, False, "bytes")
@example("NIST256p", 5, "flip", "string", 32, False, "bytes")
@example("NIST256p", 5, "none", "malformed", 32, False, "bytes")
@example("NIST256p", 5, "none", "string", 64, False, "bytes")  # BadDigestError
def test_verification_verdicts_and_errors_are_identical(
    curve, blob, how, decoder, digest_len, allow_truncate, kind
):
    both(_verification, keys_module, curve, blob, how, decoder, digest_len, allow_truncate, kind)


@pytest.mark.parametrize("curve", SERVED)
def test_a_point_at_infinity_in_verification_raises_as_natively(curve):
    """u1*G + u2*Q = O: OpenSSL rejects, native arithmetic then fails its own way."""

    def scenario(rec, keys):
        key = signing_key(curve)
        order = _curve(curve).order
        d = key.privkey.secret_multiplier
        r, s = 12345, 6789
        e = (-r * d) % order  # u1 + u2 * d = (e + r d) / s = 0
        digest = e.to_bytes(_curve(curve).baselen, "big")
        signature = util.sigencode_string(r, s, order)
        rec.call("verify_digest", key.verifying_key.verify_digest, signature, digest,
                 allow_truncate=True)  # fmt: skip

    both(scenario, keys_module)


# ----------------------------------------------------------------- keys


def _generation(rec, keys, curve, hash_name, seeded):
    hashfunc = HASHES[hash_name] or hashlib.sha1
    entropy = random.Random(1).randbytes if seeded else None
    key = rec.call(
        "generate", keys.SigningKey.generate, _curve(curve), entropy=entropy, hashfunc=hashfunc
    )
    if key is RAISED:
        return
    secret = key.privkey.secret_multiplier
    with natively():
        twin = keys.SigningKey.from_secret_exponent(secret, _curve(curve), hashfunc)
    # What generate made is what from_secret_exponent makes of its secret, in every view.
    rec.note("equal to its twin", key == twin and key.verifying_key == twin.verifying_key)
    rec.note("same pickle", pickle.dumps(key) == pickle.dumps(twin))
    rec.note("same encodings", (key.to_string(), key.to_der()) == (twin.to_string(), twin.to_der()))
    rec.note("same repr", repr(key.verifying_key) == repr(twin.verifying_key))
    rec.note("same state", _state(key) == _state(twin))
    if seeded:
        rec.note("secret", secret)
    signature = key.sign_deterministic(b"generated")
    rec.call("verify", key.verifying_key.verify, signature, b"generated")
    with natively():
        rec.call("native verify", key.verifying_key.verify, signature, b"generated")


def _state(key) -> tuple:
    """The key's attributes down to the point's coordinates (pickle's view of it)."""
    point = key.verifying_key.pubkey.point
    return (
        sorted(vars(key)),
        sorted(vars(key.verifying_key)),
        sorted(vars(key.privkey)),
        key.privkey.order,
        key.baselen,
        key.default_hashfunc,
        pickle.dumps(point),
    )


@pytest.mark.parametrize("curve", list(CURVES))
@pytest.mark.parametrize("hash_name", ["default", "sha256"])
@pytest.mark.parametrize("seeded", [False, True])
def test_generated_keys_are_what_native_code_makes(curve, hash_name, seeded):
    comparison = both(_generation, keys_module, curve, hash_name, seeded)
    primitive = CURVES.get(curve)
    if primitive and not seeded and acceleration("ecc-keygen")[0]:
        assert comparison.accelerated("ecc-keygen") == 1


def test_a_subclass_that_overrides_the_bypassed_steps_is_served_natively():
    class Counting(keys_module.SigningKey):
        calls = 0

        def sign_number(self, number, entropy=None, k=None):
            Counting.calls += 1
            return super().sign_number(number, entropy, k)

        @classmethod
        def from_secret_exponent(cls, secexp, curve=curves.NIST192p, hashfunc=hashlib.sha1):
            Counting.calls += 100
            return super().from_secret_exponent(secexp, curve, hashfunc)

    key = Counting.generate(curves.NIST256p)
    assert Counting.calls == 100 and type(key) is Counting
    key.sign(b"x")
    key.sign_deterministic(b"x")
    assert Counting.calls == 102  # both went through its sign_number, as natively


# ----------------------------------------------------------------- the key cache


def test_the_key_cache_follows_the_key_objects():
    import gc

    from accel_agent.targets.python_ecdsa import keys as target

    key = keys_module.SigningKey.from_secret_exponent(12345, curves.NIST256p)
    before = len(target.signing_keys), len(target.verifying_keys)
    signature = key.sign_deterministic(b"cache")
    assert key.verifying_key.verify(signature, b"cache")
    if acceleration("ecdsa-p256")[0]:
        assert len(target.signing_keys) == before[0] + 1
        assert len(target.verifying_keys) == before[1] + 1
    # no attribute of the agent's on the objects: their state is native's
    assert set(vars(key)) == {"curve", "default_hashfunc", "baselen", "verifying_key", "privkey"}
    # a secret changed in place is used, not the cached key
    key.privkey.secret_multiplier = 54321
    changed = key.sign_deterministic(b"cache")
    with natively():
        assert changed == key.sign_deterministic(b"cache")
    del key, signature
    gc.collect()
    assert len(target.signing_keys) == before[0]
    assert len(target.verifying_keys) == before[1]
