"""Public-key operations under the agent against native pycryptodome, on generated inputs.

Every test builds a scenario (see :mod:`transparency_helpers`) that
:func:`both` runs with the agent and natively. Deterministic results must
be byte-identical: PKCS#1 v1.5 signatures, RFC 6979 ECDSA, EdDSA, PSS with
no salt, ECDH secrets, and anything made with a ``randfunc`` of the test's
own (which native code then serves in both runs). Randomized results (PSS
salts, ECDSA nonces, OAEP seeds, PKCS#1 v1.5 padding) are compared by type
and length, and must verify or decrypt in the same run; the cross tests at
the end check that what one side makes, the other side accepts. Malformed
inputs (wrong types, lengths, encodings, out-of-range values, the wrong key
half, hashes OpenSSL does not take) must raise the same exception with the
same message.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from diff_strategies import DIFF_SETTINGS, make_input, scaled
from hypothesis import example, given
from hypothesis import strategies as st

from accel_agent.targets.pycryptodome._pubkey_common import CANONICAL_CURVES
from transparency_helpers import (
    RAISED,
    Shape,
    acceleration,
    both,
    call_counts,
    count_delta,
    describe_exception,
    flavour_major,
    flavours_or_skip,
    import_from,
    natively,
    with_flavours,
)

flavours_or_skip()

messages = st.binary(max_size=300)
BAD_BUFFERS = ("str", "int", "None", "list", "memoryview-strided", "memoryview-cast-H")
buffer_kinds = st.sampled_from(("bytes", "bytearray", "memoryview", "memoryview-bytearray"))
any_buffer_kind = st.sampled_from(
    ("bytes", "bytearray", "memoryview", "memoryview-bytearray") + BAD_BUFFERS
)


def _module(flavour: str, name: str):
    return import_from(flavour, name)


def _flavour(module) -> str:
    return module.__name__.split(".")[0]


class Seeded:
    """A ``randfunc`` of the test's own: the same bytes in the agent's run and native's."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def __call__(self, n: int) -> bytes:
        return self._random.randbytes(n)


# ----------------------------------------------------------------- keys, made once


@cache
def rsa_keys(flavour: str) -> dict:
    """Private RSA keys by name; generated once per flavour (some through the agent)."""
    rsa = _module(flavour, "PublicKey.RSA")
    number = _module(flavour, "Util.number")
    rng = Seeded(6)
    p, q = number.getPrime(256, randfunc=rng), number.getPrime(256, randfunc=rng)
    return {
        "rsa-1024": rsa.generate(1024),
        "rsa-2048": rsa.generate(2048),
        "rsa-1024-e3": rsa.generate(1024, e=3),
        # modBits - 1 a multiple of 8: PSS's encoding is one byte shorter than the key.
        "rsa-1025": rsa.generate(1025, randfunc=Seeded(1025)),
        # Too small for a SHA-512 DigestInfo; below what OpenSSL generates.
        "rsa-512": rsa.construct((p * q, 65537, pow(65537, -1, (p - 1) * (q - 1)), p, q)),
    }


RSA_KEYS = ("rsa-1024", "rsa-2048", "rsa-1024-e3", "rsa-1025", "rsa-512")


@cache
def ecc_keys(flavour: str) -> dict:
    """Private keys by curve: those this pycryptodome has (X25519/X448 from 3.21 on)."""
    ecc = _module(flavour, "PublicKey.ECC")
    keys = {}
    # P-224 has no OpenSSL primitive: native, the other side of every comparison.
    for name in ("P-256", "P-384", "P-521", "Ed25519", "Ed448", "Curve25519", "Curve448", "P-224"):
        try:
            keys[name] = ecc.generate(curve=name)
        except (KeyError, ValueError):
            continue
    return keys


def has_module(flavour: str, name: str) -> bool:
    try:
        _module(flavour, name)
    except ImportError:
        return False
    return True


# Hashes a scheme may be handed: (module, new() keyword arguments).
HASHES = (
    ("SHA1", {}),
    ("SHA224", {}),
    ("SHA256", {}),
    ("SHA384", {}),
    ("SHA512", {}),
    ("SHA512", {"truncate": "224"}),
    ("SHA512", {"truncate": "256"}),
    ("SHA3_224", {}),
    ("SHA3_256", {}),
    ("SHA3_384", {}),
    ("SHA3_512", {}),
    ("MD5", {}),  # not in the agent's table: native
    ("BLAKE2b", {"digest_bits": 256}),  # no OID OpenSSL knows: native
    ("RIPEMD160", {}),
)
hashes = st.sampled_from(HASHES)
COMMON_HASHES = (("SHA256", {}), ("SHA384", {}), ("SHA512", {}), ("SHA1", {}))


def hash_object(flavour: str, spec: tuple, data: bytes):
    name, kwargs = spec
    return _module(flavour, "Hash." + name).new(data=data, **kwargs)


def random_result(rec, label: str, function, with_length: bool = True):
    """Call ``function``; record its exception, or its result's type (and length)."""
    try:
        value = function()
    except Exception as exc:  # noqa: BLE001 - recorded, as Recorder.call does
        rec.steps.append((label, "raised") + describe_exception(exc))
        return RAISED
    rec.note(label, (type(value).__name__, len(value) if with_length else None))
    return value


def mutations(signature: bytes, seed: int) -> list:
    """Ways a signature goes wrong: a flipped bit, truncated, extended, zeroed, random."""
    rng = random.Random(seed)
    size = len(signature)
    position = rng.randrange(size) if size else 0
    flipped = bytearray(signature)
    if size:
        flipped[position] ^= 1 << rng.randrange(8)
    return [
        bytes(flipped),
        signature[:-1],
        signature + b"\x00",
        b"\x00" + signature[1:],
        bytes(size),
        b"\xff" * size,
        rng.randbytes(size),
        b"",
    ]


# ----------------------------------------------------------------- the accelerated path is taken


def _accelerated_or_skip(primitive: str) -> None:
    accelerated, why = acceleration(primitive)
    if not accelerated:
        pytest.skip(why)


def _served(primitive: str, action) -> int:
    before = call_counts()
    action()
    return count_delta(before, call_counts()).get(primitive, 0)


@with_flavours
def test_each_operation_takes_the_accelerated_path(flavour):
    """The commonest call of each operation goes through its slot (when it is accelerated)."""
    key = rsa_keys(flavour)["rsa-2048"]
    keys = ecc_keys(flavour)
    sha256 = hash_object(flavour, ("SHA256", {}), b"message")
    signature = _module(flavour, "Signature.DSS")
    eddsa = _module(flavour, "Signature.eddsa")
    oaep = _module(flavour, "Cipher.PKCS1_OAEP")
    dh = _module(flavour, "Protocol.DH") if has_module(flavour, "Protocol.DH") else None
    pkcs1 = _module(flavour, "Signature.pkcs1_15")
    pss = _module(flavour, "Signature.pss")
    ecc = _module(flavour, "PublicKey.ECC")
    rsa = _module(flavour, "PublicKey.RSA")
    pkcs1_v1_5 = _module(flavour, "Cipher.PKCS1_v1_5")
    actions = {
        "rsa-pkcs1v15-sign": lambda: pkcs1.new(key).sign(sha256),
        "rsa-pss": lambda: pss.new(key).sign(sha256),
        "rsa-oaep": lambda: oaep.new(key).encrypt(b"m"),
        "rsa-pkcs1v15-encrypt": lambda: pkcs1_v1_5.new(key).encrypt(b"m"),
        "rsa-keygen": lambda: rsa.generate(1024),
        "ecc-keygen": lambda: ecc.generate(curve="P-256"),
        "ed25519": lambda: eddsa.new(keys["Ed25519"], "rfc8032").sign(b"m"),
        "ed448": lambda: eddsa.new(keys["Ed448"], "rfc8032").sign(b"m"),
    }
    for curve in ("256", "384", "521"):
        k = keys["P-" + curve]
        actions["ecdsa-p" + curve] = lambda k=k: signature.new(k, "fips-186-3").sign(sha256)
        actions["ecdh-p" + curve] = (k, k.public_key())
    if "Curve25519" in keys:
        actions["x25519"] = (keys["Curve25519"], keys["Curve25519"])
        actions["x448"] = (keys["Curve448"], keys["Curve448"])
    for primitive, action in list(actions.items()):
        if isinstance(action, tuple):  # a key agreement: pycryptodome 3.21 and later
            if dh is None:
                del actions[primitive]
                continue
            private, public = action
            actions[primitive] = lambda private=private, public=public: dh.key_agreement(
                static_priv=private, static_pub=public, kdf=bytes
            )
    for primitive, action in actions.items():
        served = _served(primitive, action)
        accelerated, why = acceleration(primitive)
        if accelerated:
            assert served > 0, "%s (%s) made no accelerated call" % (primitive, why)


# ----------------------------------------------------------------- PKCS#1 v1.5 signatures


def pkcs1_15_scenario(rec, pkcs1_15, key_name, hash_spec, message, kind, seed):
    flavour = _flavour(pkcs1_15)
    key = rsa_keys(flavour)[key_name]
    digest = hash_object(flavour, hash_spec, message)
    signer = pkcs1_15.new(key)
    signature = rec.call("sign", signer.sign, digest)
    rec.call("sign(public)", pkcs1_15.new(key.public_key()).sign, digest)
    rec.call("sign(bytes)", signer.sign, message)
    if signature is RAISED:
        return
    verifier = pkcs1_15.new(key.public_key())
    rec.call("verify", verifier.verify, digest, make_input(kind, signature))
    rec.call("verify(private key)", signer.verify, digest, signature)
    other = hash_object(flavour, hash_spec, message + b"!")
    rec.call("verify(other message)", verifier.verify, other, signature)
    for index, bad in enumerate(mutations(signature, seed)):
        rec.call("verify(mutation %d)" % index, verifier.verify, digest, bad)


@pytest.mark.accelerates("rsa-pkcs1v15-sign")
@with_flavours
@scaled(0.5)
@given(
    key_name=st.sampled_from(RSA_KEYS),
    hash_spec=hashes,
    message=messages,
    kind=any_buffer_kind,
    seed=st.integers(0, 2**32),
)
@example(key_name="rsa-2048", hash_spec=("SHA256", {}), message=b"m", kind="bytes", seed=1)
def test_pkcs1_15(flavour, key_name, hash_spec, message, kind, seed):
    pkcs1_15 = _module(flavour, "Signature.pkcs1_15")
    both(pkcs1_15_scenario, pkcs1_15, key_name, hash_spec, message, kind, seed)


def legacy_pkcs1_scenario(rec, pkcs1_15, message):
    """``Signature.PKCS1_v1_5``: PyCrypto's API, a boolean verify, through pkcs1_15."""
    flavour = _flavour(pkcs1_15)
    legacy = _module(flavour, "Signature.PKCS1_v1_5")
    key = rsa_keys(flavour)["rsa-2048"]
    digest = hash_object(flavour, ("SHA256", {}), message)
    signature = rec.call("sign", legacy.new(key).sign, digest)
    rec.call("verify", legacy.new(key.public_key()).verify, digest, signature)
    rec.call("verify(bad)", legacy.new(key.public_key()).verify, digest, b"\x00" + signature[1:])


@with_flavours
@scaled(0.1)
@given(message=messages)
def test_legacy_pkcs1_v1_5_signature(flavour, message):
    both(legacy_pkcs1_scenario, _module(flavour, "Signature.pkcs1_15"), message)


# ----------------------------------------------------------------- PSS


def pss_scenario(rec, pss, key_name, hash_spec, message, salt, options, seed):
    flavour = _flavour(pss)
    key = rsa_keys(flavour)[key_name]
    digest = hash_object(flavour, hash_spec, message)
    kwargs = {}
    if salt is not None:
        kwargs["salt_bytes"] = salt
    if "randfunc" in options:
        kwargs["rand_func"] = Seeded(seed)
    if "mask" in options:  # MGF1 over another hash: the user's function, honoured natively
        mgf1 = pss.MGF1
        other = _module(flavour, "Hash.SHA1")
        kwargs["mask_func"] = lambda x, y: mgf1(x, y, other)
    deterministic = salt == 0 or "randfunc" in options
    signer = pss.new(key, **kwargs)
    made = rec.call(
        "sign", lambda: signer.sign(digest) if deterministic else Shape(signer.sign(digest))
    )
    rec.call("sign(public)", pss.new(key.public_key(), **kwargs).sign, digest)
    if made is RAISED:
        return
    signature = made if deterministic else made.value
    verifier = pss.new(key.public_key(), **kwargs)
    rec.call("verify", verifier.verify, digest, signature)
    rec.call(
        "verify(other salt)", pss.new(key, salt_bytes=(salt or 0) + 1).verify, digest, signature
    )
    # Mutations of a random signature could land on either side of n: mutate
    # one the same in both runs (the user's randfunc makes it, natively).
    base = pss.new(key, **dict(kwargs, rand_func=Seeded(seed))).sign(digest)
    for index, bad in enumerate(mutations(base, seed)):
        rec.call("verify(mutation %d)" % index, verifier.verify, digest, bad)


@pytest.mark.accelerates("rsa-pss")
@with_flavours
@scaled(0.5)
@given(
    key_name=st.sampled_from(RSA_KEYS),
    hash_spec=hashes,
    message=messages,
    salt=st.one_of(st.none(), st.sampled_from([0, 1, 20, 32, 64]), st.integers(0, 300)),
    options=st.sets(st.sampled_from(["randfunc", "mask"])),
    seed=st.integers(0, 2**32),
)
@example(
    key_name="rsa-2048",
    hash_spec=("SHA256", {}),
    message=b"m",
    salt=None,
    options=set(),
    seed=1,
)
def test_pss(flavour, key_name, hash_spec, message, salt, options, seed):
    pss = _module(flavour, "Signature.pss")
    both(pss_scenario, pss, key_name, hash_spec, message, salt, options, seed)


# ----------------------------------------------------------------- DSS (ECDSA)

ECDSA_CURVES = ("P-256", "P-384", "P-521", "P-224")


def dss_scenario(rec, dss, curve, mode, encoding, hash_spec, message, options, seed):
    flavour = _flavour(dss)
    key = ecc_keys(flavour)[curve]
    digest = hash_object(flavour, hash_spec, message)
    kwargs = {}
    if "randfunc" in options:
        kwargs["randfunc"] = Seeded(seed)
    if "low_s" in options and flavour_major(flavour) >= 4:
        kwargs["low_s"] = True
    signer = rec.call("new", dss.new, key, mode, encoding, **kwargs)
    if signer is RAISED:
        return
    if mode == "deterministic-rfc6979" or "randfunc" in options:
        signature = rec.call("sign", signer.sign, digest)
    else:  # a random nonce: a DER signature's length varies too
        signature = random_result(rec, "sign", lambda: signer.sign(digest), encoding == "binary")
    rec.call("sign(public)", dss.new(key.public_key(), mode, encoding).sign, digest)
    if signature is RAISED:
        return
    verifier = dss.new(key.public_key(), mode, encoding, **kwargs)
    kind = random.Random(seed).choice(("bytes", "bytearray", "memoryview") + BAD_BUFFERS)
    rec.call("verify", verifier.verify, digest, make_input(kind, signature))
    rec.call("verify(clean)", verifier.verify, digest, signature)
    rec.call(
        "verify(other message)", verifier.verify, hash_object(flavour, hash_spec, b"x"), signature
    )
    # A random signature's mutations could fall in or out of [1, n): mutate a
    # deterministic one (RFC 6979, made natively for the same key and hash).
    if signer.__class__.__name__ == "DeterministicDsaSigScheme":
        base = signature
    else:
        base = dss.new(key, "deterministic-rfc6979", encoding).sign(digest)
    for index, bad in enumerate(mutations(base, seed)):
        rec.call("verify(mutation %d)" % index, verifier.verify, digest, bad)
    rec.call("verify(bytes)", verifier.verify, message, signature)


@pytest.mark.accelerates("ecdsa-p256")
@with_flavours
@scaled(0.5)
@given(
    curve=st.sampled_from(ECDSA_CURVES),
    mode=st.sampled_from(["fips-186-3", "deterministic-rfc6979", "sec1"]),
    encoding=st.sampled_from(["binary", "der"]),
    hash_spec=hashes,
    message=messages,
    options=st.sets(st.sampled_from(["randfunc", "low_s"])),
    seed=st.integers(0, 2**32),
)
@example(
    curve="P-256",
    mode="fips-186-3",
    encoding="binary",
    hash_spec=("SHA256", {}),
    message=b"m",
    options=set(),
    seed=1,
)
def test_dss(flavour, curve, mode, encoding, hash_spec, message, options, seed):
    dss = _module(flavour, "Signature.DSS")
    both(dss_scenario, dss, curve, mode, encoding, hash_spec, message, options, seed)


def der_scenario(rec, dss, curve, r, s, shape, hash_spec):
    """Hand-made DER: non-minimal integers, negative ones, trailing bytes, wrong tags."""
    flavour = _flavour(dss)
    key = ecc_keys(flavour)[curve]
    asn1 = _module(flavour, "Util.asn1")
    if shape == "canonical":
        signature = asn1.DerSequence([r, s]).encode()
    elif shape == "trailing":
        signature = asn1.DerSequence([r, s]).encode() + b"\x00"
    elif shape == "padded-r":
        body = b"\x02" + bytes([len(r.to_bytes(66, "big")) + 1]) + b"\x00" + r.to_bytes(66, "big")
        body += asn1.DerInteger(s).encode()
        signature = b"\x30" + bytes([len(body)]) + body
    elif shape == "negative-s":
        signature = asn1.DerSequence([r, -s]).encode()
    elif shape == "three":
        signature = asn1.DerSequence([r, s, 1]).encode()
    else:
        signature = asn1.DerSequence([r, asn1.DerOctetString(b"\x01").encode()]).encode()
    verifier = dss.new(key.public_key(), "fips-186-3", "der")
    rec.call("verify", verifier.verify, hash_object(flavour, hash_spec, b"m"), signature)


@with_flavours
@scaled(0.3)
@given(
    curve=st.sampled_from(("P-256", "P-384", "P-521")),
    r=st.one_of(st.integers(0, 2**521), st.sampled_from([0, 1, 2**256, 2**384])),
    s=st.one_of(st.integers(1, 2**521), st.just(1)),
    shape=st.sampled_from(["canonical", "trailing", "padded-r", "negative-s", "three", "octet"]),
    hash_spec=st.sampled_from(COMMON_HASHES),
)
def test_dss_malformed_der(flavour, curve, r, s, shape, hash_spec):
    dss = _module(flavour, "Signature.DSS")
    both(der_scenario, dss, curve, r, s, shape, hash_spec)


def low_s_scenario(rec, dss, curve, message):
    """4.x's low_s: the agent's deterministic signature is native's, s flipped the same way."""
    key = ecc_keys(_flavour(dss))[curve]
    digest = hash_object(_flavour(dss), ("SHA256", {}), message)
    for encoding in ("binary", "der"):
        signer = dss.new(key, "deterministic-rfc6979", encoding, low_s=True)
        signature = rec.call("sign " + encoding, signer.sign, digest)
        rec.call("verify " + encoding, signer.verify, digest, signature)
        high = dss.new(key, "deterministic-rfc6979", encoding).sign(digest)
        rec.call("verify(high s) " + encoding, signer.verify, digest, high)


@with_flavours
@scaled(0.2)
@given(curve=st.sampled_from(("P-256", "P-384", "P-521")), message=messages)
def test_dss_low_s(flavour, curve, message):
    if flavour_major(flavour) < 4:
        pytest.skip("low_s is pycryptodome 4.x's")
    both(low_s_scenario, _module(flavour, "Signature.DSS"), curve, message)


# ----------------------------------------------------------------- EdDSA


def eddsa_scenario(rec, eddsa, curve, message, context, prehash, kind, seed):
    flavour = _flavour(eddsa)
    key = ecc_keys(flavour)[curve]
    if prehash:
        name = "SHA512" if curve == "Ed25519" else "SHAKE256"
        data = _module(flavour, "Hash." + name).new(message)
    else:
        data = make_input(kind, message)
    signer = rec.call("new", eddsa.new, key, "rfc8032", context=context)
    if signer is RAISED:
        return
    signature = rec.call("sign", signer.sign, data)
    rec.call("sign(public)", eddsa.new(key.public_key(), "rfc8032", context=context).sign, data)
    if signature is RAISED:
        return
    if prehash:  # a hash object is consumed: a fresh one for each check
        name = "SHA512" if curve == "Ed25519" else "SHAKE256"
        data = _module(flavour, "Hash." + name).new(message)
    verifier = eddsa.new(key.public_key(), "rfc8032", context=context)
    rec.call("verify", verifier.verify, data, signature)
    if not prehash:
        rec.call("verify(other message)", verifier.verify, message + b"!", signature)
        for index, bad in enumerate(mutations(signature, seed)):
            rec.call("verify(mutation %d)" % index, verifier.verify, data, bad)


@pytest.mark.accelerates("ed25519")
@with_flavours
@scaled(0.5)
@given(
    curve=st.sampled_from(["Ed25519", "Ed448"]),
    message=messages,
    context=st.one_of(st.none(), st.just(b""), st.binary(min_size=1, max_size=8)),
    prehash=st.booleans(),
    kind=any_buffer_kind,
    seed=st.integers(0, 2**32),
)
@example(curve="Ed25519", message=b"m", context=None, prehash=False, kind="bytes", seed=1)
def test_eddsa(flavour, curve, message, context, prehash, kind, seed):
    eddsa = _module(flavour, "Signature.eddsa")
    both(eddsa_scenario, eddsa, curve, message, context, prehash, kind, seed)


# ----------------------------------------------------------------- OAEP


def oaep_scenario(rec, pkcs1_oaep, key_name, hash_spec, label, message, options, seed):
    flavour = _flavour(pkcs1_oaep)
    key = rsa_keys(flavour)[key_name]
    name, kwargs = hash_spec
    hash_like = _module(flavour, "Hash." + name)
    if kwargs or "object" in options:
        hash_like = hash_like.new(**kwargs)
    extra = {}
    if "randfunc" in options:
        extra["randfunc"] = Seeded(seed)
    if "mask" in options:
        mgf1 = _module(flavour, "Signature.pss").MGF1
        sha1 = _module(flavour, "Hash.SHA1")
        extra["mgfunc"] = lambda x, y: mgf1(x, y, sha1)

    def cipher(k):
        return pkcs1_oaep.new(k, hashAlgo=hash_like, label=label, **extra)

    deterministic = "randfunc" in options
    made = rec.call(
        "encrypt",
        lambda: (
            cipher(key.public_key()).encrypt(message)
            if deterministic
            else Shape(cipher(key.public_key()).encrypt(message))
        ),
    )
    if made is not RAISED:
        ciphertext = made if deterministic else made.value
        rec.call("decrypt", cipher(key).decrypt, ciphertext)
        rec.call("decrypt(public)", cipher(key.public_key()).decrypt, ciphertext)
        # Mutations of a random ciphertext could land on either side of n:
        # mutate one made the same in both runs (a randfunc of the test's own).
        extra_seeded = dict(extra, randfunc=Seeded(seed))
        base = pkcs1_oaep.new(key, hashAlgo=hash_like, label=label, **extra_seeded).encrypt(message)
        for index, bad in enumerate(mutations(base, seed)):
            rec.call("decrypt(mutation %d)" % index, cipher(key).decrypt, bad)
    size = key.size_in_bytes()
    rec.call("decrypt(n)", cipher(key).decrypt, key.n.to_bytes(size, "big"))
    rec.call("decrypt(n-1)", cipher(key).decrypt, (key.n - 1).to_bytes(size, "big"))
    rec.call("decrypt(random)", cipher(key).decrypt, random.Random(seed).randbytes(size))


@pytest.mark.accelerates("rsa-oaep")
@with_flavours
@scaled(0.5)
@given(
    key_name=st.sampled_from(RSA_KEYS),
    hash_spec=st.sampled_from(HASHES[:7]),
    label=st.one_of(st.just(b""), st.binary(max_size=40)),
    message=st.one_of(st.binary(max_size=64), st.binary(min_size=60, max_size=260)),
    options=st.sets(st.sampled_from(["randfunc", "mask", "object"])),
    seed=st.integers(0, 2**32),
)
@example(
    key_name="rsa-2048",
    hash_spec=("SHA256", {}),
    label=b"",
    message=b"m",
    options=set(),
    seed=1,
)
def test_oaep(flavour, key_name, hash_spec, label, message, options, seed):
    pkcs1_oaep = _module(flavour, "Cipher.PKCS1_OAEP")
    both(oaep_scenario, pkcs1_oaep, key_name, hash_spec, label, message, options, seed)


def oaep_new_module_scenario(rec, oaep, message, kind):
    """pycryptodome 4.x's ``Cipher.oaep`` (hashmod required), the same way."""
    flavour = _flavour(oaep)
    key = rsa_keys(flavour)["rsa-2048"]
    sha256 = _module(flavour, "Hash.SHA256")
    made = rec.call(
        "encrypt", lambda: Shape(oaep.new(key, hashmod=sha256).encrypt(make_input(kind, message)))
    )
    if made is not RAISED:
        rec.call("decrypt", oaep.new(key, hashmod=sha256).decrypt, make_input(kind, made.value))


@with_flavours
@scaled(0.2)
@given(message=st.binary(max_size=100), kind=any_buffer_kind)
def test_oaep_module(flavour, message, kind):
    if flavour_major(flavour) < 4:
        pytest.skip("Cipher.oaep is pycryptodome 4.x's")
    both(oaep_new_module_scenario, _module(flavour, "Cipher.oaep"), message, kind)


# ----------------------------------------------------------------- PKCS#1 v1.5 encryption


def pkcs1_v1_5_scenario(rec, pkcs1_v1_5, key_name, message, kind, seeded, seed):
    flavour = _flavour(pkcs1_v1_5)
    key = rsa_keys(flavour)[key_name]
    randfunc = Seeded(seed) if seeded else None
    data = make_input(kind, message)
    encrypt = pkcs1_v1_5.new(key.public_key(), randfunc=randfunc).encrypt
    made = rec.call("encrypt", lambda: encrypt(data) if seeded else Shape(encrypt(data)))
    if made is RAISED:
        return
    ciphertext = made if seeded else made.value
    rec.call("decrypt", pkcs1_v1_5.new(key).decrypt, ciphertext, b"sentinel")


@pytest.mark.accelerates("rsa-pkcs1v15-encrypt")
@with_flavours
@scaled(0.3)
@given(
    key_name=st.sampled_from(RSA_KEYS),
    message=st.one_of(st.binary(max_size=64), st.binary(min_size=110, max_size=260)),
    kind=any_buffer_kind,
    seeded=st.booleans(),
    seed=st.integers(0, 2**32),
)
@example(key_name="rsa-2048", message=b"m", kind="bytes", seeded=False, seed=1)
def test_pkcs1_v1_5_encryption(flavour, key_name, message, kind, seeded, seed):
    pkcs1_v1_5 = _module(flavour, "Cipher.PKCS1_v1_5")
    both(pkcs1_v1_5_scenario, pkcs1_v1_5, key_name, message, kind, seeded, seed)


# ----------------------------------------------------------------- key agreement

DH_CURVES = ("P-256", "P-384", "P-521", "Curve25519", "Curve448", "P-224")


def dh_scenario(rec, dh, curve, other_curve, roles, kdf_kind):
    flavour = _flavour(dh)
    ecc = _module(flavour, "PublicKey.ECC")
    keys = ecc_keys(flavour)
    mine = keys[curve]
    theirs = keys[other_curve]
    ephemeral = ecc.construct(curve=curve, **_private_fields(mine))  # a second key, fixed
    available = {
        "static_priv": mine,
        "static_pub": theirs.public_key(),
        "eph_priv": ephemeral,
        "eph_pub": theirs.public_key(),
        "static_pub(private)": theirs,
    }
    kwargs = {}
    for role in roles:
        value = available[role]
        kwargs[role.split("(")[0]] = value
    kdf = {"identity": lambda z: z, "type": lambda z: (type(z).__name__, bytes(z)), "none": None}[
        kdf_kind
    ]
    rec.call("key_agreement", lambda: dh.key_agreement(kdf=kdf, **kwargs))


def _private_fields(key) -> dict:
    if key.curve.startswith("NIST"):
        return {"d": (int(key.d) * 7) % int(key._curve.order) or 1}
    return {"seed": bytes(reversed(key.seed))}


@pytest.mark.accelerates("ecdh-p256")
@with_flavours
@scaled(0.3)
@given(
    curve=st.sampled_from(DH_CURVES[:1] + DH_CURVES),
    other=st.sampled_from(DH_CURVES),
    same_curve=st.booleans(),
    roles=st.sets(
        st.sampled_from(
            ["static_priv", "static_pub", "eph_priv", "eph_pub", "static_pub(private)"]
        ),
        max_size=4,
    ),
    kdf_kind=st.sampled_from(["identity", "type", "identity", "none"]),
)
@example(
    curve="P-256",
    other="P-256",
    same_curve=True,
    roles={"static_priv", "static_pub"},
    kdf_kind="identity",
)
def test_key_agreement(flavour, curve, other, same_curve, roles, kdf_kind):
    if not has_module(flavour, "Protocol.DH") or not {curve, other} <= set(ecc_keys(flavour)):
        pytest.skip("Protocol.DH and X25519/X448 came in pycryptodome 3.21")
    dh = _module(flavour, "Protocol.DH")
    both(dh_scenario, dh, curve, curve if same_curve else other, sorted(roles), kdf_kind)


# ----------------------------------------------------------------- key generation


def rsa_generate_scenario(rec, rsa, bits, e, seeded):
    """Properties native's keys have (the values are random): sizes, conventions, round trips."""
    randfunc = Seeded(bits) if seeded else None
    key = rec.call("generate", rsa.generate, bits, randfunc=randfunc, e=e)
    if key is RAISED:
        return
    if seeded:  # the user's randomness: native in both runs, the same key
        rec.note("numbers", (key.n, key.e, key.d, key.p, key.q, key.u))
    n, p, q, d, u = key.n, key.p, key.q, key.d, key.u
    lcm = (p - 1) * (q - 1) // __import__("math").gcd(p - 1, q - 1)
    rec.note("types", [type(x).__name__ for x in (key.n, key.e, key.d, key.p, key.q, key.u)])
    rec.note("size", (key.size_in_bits(), key.size_in_bytes(), key.has_private(), key.e))
    rec.note("p < q", p < q)
    rec.note("p*q", p * q == n)
    rec.note("d", d == pow(key.e, -1, lcm) and d >= 1 << (bits // 2))
    # invp and invq came in pycryptodome 3.16
    invq = getattr(key, "invq", pow(q, -1, p))
    rec.note("u", u == pow(p, -1, q) and getattr(key, "invp", u) == u and invq == pow(q, -1, p))
    rec.note("prime sizes", (p.bit_length(), q.bit_length()))
    rec.note("p - q", q - p > 1 << (bits // 2 - 100))
    imported = rsa.import_key(key.export_key())
    rec.note("round trip", (imported == key, imported.public_key() == key.public_key()))
    rec.note("repr", repr(key).startswith("RsaKey(n=%d, e=%d, d=" % (n, key.e)))


@pytest.mark.parametrize(
    ("bits", "e", "seeded"),
    [(1024, 65537, False), (2048, 65537, False), (1024, 3, False), (1026, 65537, False)]
    + [(1024, 65537, True), (1025, 65537, False), (1024, 5, False)],
)
@with_flavours
def test_rsa_generate(flavour, bits, e, seeded):
    rsa = _module(flavour, "PublicKey.RSA")
    comparison = both(rsa_generate_scenario, rsa, bits, e, seeded)
    if not seeded and bits % 2 == 0 and e in (3, 65537):
        _accelerated_or_skip("rsa-keygen")
        assert comparison.accelerated("rsa-keygen") == 1


def rsa_generate_errors_scenario(rec, rsa, args, kwargs):
    rec.call("generate", rsa.generate, *args, **kwargs)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((512,), {}),
        ((1024,), {"e": 4}),
        ((1024,), {"e": 1}),
        ((1023.5,), {}),
        (("2048",), {}),
        ((), {}),
        ((1024, None, 65537, 7), {}),
        ((1024,), {"bits": 1024}),
        ((), {"bits": 1024, "colour": 1}),
        ((1024,), {"randfunc": 5}),
    ],
)
@with_flavours
def test_rsa_generate_errors(flavour, args, kwargs):
    both(rsa_generate_errors_scenario, _module(flavour, "PublicKey.RSA"), args, kwargs)


def ecc_generate_scenario(rec, ecc, curve, seeded):
    randfunc = Seeded(7) if seeded else None
    kwargs = {"curve": curve} if curve is not None else {}
    if seeded or curve == "P-256":
        kwargs["randfunc"] = randfunc
    key = rec.call("generate", lambda: ecc.generate(**kwargs))
    if key is RAISED:
        return
    kind = {"Ed25519": "edwards", "Ed448": "edwards", "Curve25519": "montgomery"}.get(
        CANONICAL_CURVES.get(key.curve), "weierstrass"
    )
    kind = "montgomery" if CANONICAL_CURVES.get(key.curve) == "Curve448" else kind
    if seeded:
        rec.note("d or seed", key.seed if kind != "weierstrass" else int(key.d))
    rec.note("curve", (key.curve, key.has_private()))
    point = key.pointQ
    rec.note("point", point == key.public_key().pointQ)
    rec.note("point on curve", point.is_point_at_infinity() is False)
    rec.note("d type", type(key.d).__name__ if kind != "edwards" else "seed")
    if kind == "weierstrass":
        rec.note("d range", 0 < key.d < key._curve.order)
        rec.note("d*G", key._curve.G * key.d == point)
        imported = ecc.import_key(key.export_key(format="PEM"))
        rec.note("round trip", (imported == key, imported.public_key() == key.public_key()))


@pytest.mark.parametrize(
    "curve",
    ["P-256", "p256", "secp256r1", "NIST P-384", "P-521", "prime521v1", "Ed25519", "Curve448"]
    + ["P-224", "P-999", None],
)
@pytest.mark.parametrize("seeded", [False, True])
@with_flavours
def test_ecc_generate(flavour, curve, seeded):
    ecc = _module(flavour, "PublicKey.ECC")
    comparison = both(ecc_generate_scenario, ecc, curve, seeded)
    if not seeded and curve in ("P-256", "p256", "secp256r1", "NIST P-384", "P-521", "prime521v1"):
        _accelerated_or_skip("ecc-keygen")
        assert comparison.accelerated("ecc-keygen") == 1


# ----------------------------------------------------------------- made here, accepted there


@with_flavours
@pytest.mark.parametrize("key_name", ["rsa-1024", "rsa-2048", "rsa-1025"])
def test_pss_signatures_cross_verify(flavour, key_name):
    pss = _module(flavour, "Signature.pss")
    _accelerated_or_skip("rsa-pss")  # after the import: its slot exists
    key = rsa_keys(flavour)[key_name]
    digest = hash_object(flavour, ("SHA256", {}), b"cross")
    before = call_counts()
    made_by_agent = pss.new(key).sign(digest)
    assert count_delta(before, call_counts()).get("rsa-pss") == 1
    with natively():
        pss.new(key.public_key()).verify(digest, made_by_agent)
        made_natively = pss.new(key).sign(digest)
    before = call_counts()
    pss.new(key.public_key()).verify(digest, made_natively)
    assert count_delta(before, call_counts()).get("rsa-pss") == 1


@with_flavours
@pytest.mark.parametrize("curve", ["P-256", "P-384", "P-521"])
@pytest.mark.parametrize("encoding", ["binary", "der"])
def test_ecdsa_signatures_cross_verify(flavour, curve, encoding):
    primitive = "ecdsa-p" + curve[2:]
    dss = _module(flavour, "Signature.DSS")
    _accelerated_or_skip(primitive)  # after the import: its slot exists
    key = ecc_keys(flavour)[curve]
    digest = hash_object(flavour, ("SHA384", {}), b"cross")
    for _ in range(20):  # random nonces: some high-s, some short r or s
        before = call_counts()
        made_by_agent = dss.new(key, "fips-186-3", encoding).sign(digest)
        assert count_delta(before, call_counts()).get(primitive) == 1
        with natively():
            dss.new(key.public_key(), "fips-186-3", encoding).verify(digest, made_by_agent)
            made_natively = dss.new(key, "fips-186-3", encoding).sign(digest)
        before = call_counts()
        dss.new(key.public_key(), "fips-186-3", encoding).verify(digest, made_natively)
        assert count_delta(before, call_counts()).get(primitive) == 1


@with_flavours
@pytest.mark.parametrize("hash_name", ["SHA1", "SHA256", "SHA512"])
def test_oaep_ciphertexts_cross_decrypt(flavour, hash_name):
    oaep = _module(flavour, "Cipher.PKCS1_OAEP")
    _accelerated_or_skip("rsa-oaep")  # after the import: its slot exists
    hash_module = _module(flavour, "Hash." + hash_name)
    key = rsa_keys(flavour)["rsa-2048"]
    for size in (0, 1, 17, 62):
        message = bytes(range(size))
        made_by_agent = oaep.new(key.public_key(), hashAlgo=hash_module, label=b"L").encrypt(
            message
        )
        with natively():
            assert oaep.new(key, hashAlgo=hash_module, label=b"L").decrypt(made_by_agent) == message
            made_natively = oaep.new(key, hashAlgo=hash_module, label=b"L").encrypt(message)
        before = call_counts()
        assert oaep.new(key, hashAlgo=hash_module, label=b"L").decrypt(made_natively) == message
        assert count_delta(before, call_counts()).get("rsa-oaep") == 1


@with_flavours
def test_pkcs1_v1_5_ciphertexts_decrypt_natively(flavour):
    pkcs1_v1_5 = _module(flavour, "Cipher.PKCS1_v1_5")
    _accelerated_or_skip("rsa-pkcs1v15-encrypt")  # after the import: its slot exists
    key = rsa_keys(flavour)["rsa-2048"]
    for size in (0, 1, 100, key.size_in_bytes() - 11):
        message = bytes(range(256))[:size]
        before = call_counts()
        made = pkcs1_v1_5.new(key.public_key()).encrypt(message)
        assert count_delta(before, call_counts()).get("rsa-pkcs1v15-encrypt") == 1
        with natively():
            assert pkcs1_v1_5.new(key).decrypt(made, None) == message


@with_flavours
def test_generated_keys_work_natively(flavour):
    """Keys made through OpenSSL sign and decrypt under native code, and the reverse."""
    rsa = _module(flavour, "PublicKey.RSA")
    ecc = _module(flavour, "PublicKey.ECC")
    pkcs1_15 = _module(flavour, "Signature.pkcs1_15")
    dss = _module(flavour, "Signature.DSS")
    digest = hash_object(flavour, ("SHA256", {}), b"generated")
    rsa_key, ecc_key = rsa.generate(2048), ecc.generate(curve="P-256")
    signed = pkcs1_15.new(rsa_key).sign(digest)
    deterministic = dss.new(ecc_key, "deterministic-rfc6979").sign(digest)
    with natively():
        assert pkcs1_15.new(rsa_key).sign(digest) == signed
        assert dss.new(ecc_key, "deterministic-rfc6979").sign(digest) == deterministic
        assert rsa.import_key(rsa_key.export_key()) == rsa_key
        assert ecc.import_key(ecc_key.export_key(format="DER")) == ecc_key


def test_settings_are_the_differential_ones():
    assert DIFF_SETTINGS.max_examples >= 10
