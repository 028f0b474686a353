"""DSA (``Crypto.PublicKey.DSA`` keys with ``Crypto.Signature.DSS``) under the agent
against native pycryptodome, on generated inputs.

Deterministic results must be byte-identical: RFC 6979 signatures (native
by choice: the agent leaves them to pycryptodome), verification verdicts and
exceptions (type and message) on valid, mutated and malformed signatures,
keys generated with a ``randfunc`` of the test's own. Random-nonce
signatures and keys OpenSSL generated are compared by shape, and checked
across: what the agent signs, native code verifies, and the other way round.
"""

from __future__ import annotations

import contextlib
import pickle
import random
from functools import cache

import pytest
from diff_strategies import scaled
from hypothesis import example, given
from hypothesis import strategies as st

from accel_agent import known_answers
from transparency_helpers import (
    RAISED,
    acceleration,
    both,
    call_counts,
    count_delta,
    describe_exception,
    flavours_or_skip,
    import_from,
    natively,
    with_flavours,
)

flavours_or_skip()

HASHES = (
    ("SHA1", {}),
    ("SHA224", {}),
    ("SHA256", {}),
    ("SHA384", {}),
    ("SHA512", {}),
    ("SHA512", {"truncate": "256"}),
    ("SHA3_256", {}),
    ("SHA3_512", {}),
    ("MD5", {}),  # not a FIPS hash: fips-186-3 refuses it, RFC 6979 takes it (natively)
    ("BLAKE2b", {"digest_bits": 256}),  # no OID OpenSSL knows: native
)
BAD_KINDS = ("str", "int", "None", "list", "memoryview-strided")


class Seeded:
    """A ``randfunc`` of the test's own: the same bytes in the agent's run and native's."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def __call__(self, n: int) -> bytes:
        return self._random.randbytes(n)


def _flavour(module) -> str:
    return module.__name__.split(".")[0]


@cache
def dsa_keys(flavour: str) -> dict:
    """Private DSA keys by name, built natively from their numbers."""
    dsa = import_from(flavour, "PublicKey.DSA")
    p, q, g, y, x = known_answers.dsa_key(known_answers.read("dsa")["vectors"][0]["key"])
    from cryptography.hazmat.primitives.asymmetric import dsa as openssl_dsa

    small = openssl_dsa.generate_private_key(1024).private_numbers()
    domain = small.public_numbers.parameter_numbers
    with natively():
        return {
            "dsa-2048-256": dsa.construct((y, g, p, q, x)),
            "dsa-1024-160": dsa.construct(
                (small.public_numbers.y, domain.g, domain.p, domain.q, small.x)
            ),
        }


def hash_object(flavour: str, spec: tuple, data: bytes):
    name, kwargs = spec
    return import_from(flavour, "Hash." + name).new(data=data, **kwargs)


def make_signature_input(kind: str, signature: bytes):
    return {
        "bytes": signature,
        "bytearray": bytearray(signature),
        "memoryview": memoryview(signature),
        "str": signature.hex(),
        "int": len(signature),
        "None": None,
        "list": list(signature),
        "memoryview-strided": memoryview(signature)[::2],
    }[kind]


def mutations(signature: bytes, seed: int) -> list:
    rng = random.Random(seed)
    size = len(signature)
    flipped = bytearray(signature)
    flipped[rng.randrange(size)] ^= 1 << rng.randrange(8)
    return [
        bytes(flipped),
        signature[:-1],
        signature + b"\x00",
        bytes(size),
        b"\xff" * size,
        rng.randbytes(size),
        b"",
    ]


def dsa_scenario(rec, dss, key_name, mode, encoding, hash_spec, message, use_randfunc, seed):
    flavour = _flavour(dss)
    key = dsa_keys(flavour)[key_name]
    digest = hash_object(flavour, hash_spec, message)
    kwargs = {"randfunc": Seeded(seed)} if use_randfunc else {}
    signer = rec.call("new", dss.new, key, mode, encoding, **kwargs)
    if signer is RAISED:
        return
    if mode == "deterministic-rfc6979" or use_randfunc:
        signature = rec.call("sign", signer.sign, digest)
    else:  # a random nonce: compared by type (and, binary, by length)
        try:
            signature = signer.sign(digest)
        except Exception as exc:  # noqa: BLE001 - recorded as Recorder.call records it
            rec.steps.append(("sign", "raised") + describe_exception(exc))
            signature = RAISED
        else:
            size = len(signature) if encoding == "binary" else None
            rec.note("sign", (type(signature).__name__, size))
    rec.call("sign(public)", dss.new(key.public_key(), mode, encoding).sign, digest)
    if signature is RAISED:
        return
    verifier = dss.new(key.public_key(), mode, encoding)
    kind = random.Random(seed).choice(("bytes", "bytearray", "memoryview") + BAD_KINDS)
    rec.call("verify", verifier.verify, digest, make_signature_input(kind, signature))
    rec.call("verify(clean)", verifier.verify, digest, signature)
    other = hash_object(flavour, hash_spec, message + b"x")
    rec.call("verify(other message)", verifier.verify, other, signature)
    # Mutations of a deterministic signature (a random one's could fall in or out of range).
    base = dss.new(key, "deterministic-rfc6979", encoding).sign(digest)
    for index, bad in enumerate(mutations(base, seed)):
        rec.call("verify(mutation %d)" % index, verifier.verify, digest, bad)


@pytest.mark.accelerates("dsa")
@with_flavours
@scaled(0.3)
@given(
    key_name=st.sampled_from(["dsa-2048-256", "dsa-1024-160"]),
    mode=st.sampled_from(["fips-186-3", "deterministic-rfc6979", "sec1"]),
    encoding=st.sampled_from(["binary", "der"]),
    hash_spec=st.sampled_from(HASHES),
    message=st.binary(max_size=200),
    use_randfunc=st.booleans(),
    seed=st.integers(0, 2**32),
)
@example("dsa-2048-256", "fips-186-3", "binary", ("SHA256", {}), b"m", False, 1)
@example("dsa-1024-160", "fips-186-3", "der", ("SHA1", {}), b"m", False, 2)
@example("dsa-2048-256", "deterministic-rfc6979", "der", ("MD5", {}), b"m", False, 3)
def test_dsa(flavour, key_name, mode, encoding, hash_spec, message, use_randfunc, seed):
    dss = import_from(flavour, "Signature.DSS")
    both(dsa_scenario, dss, key_name, mode, encoding, hash_spec, message, use_randfunc, seed)


def der_scenario(rec, dss, r, s, shape):
    """Hand-made DER: non-minimal, negative, trailing bytes, three integers."""
    flavour = _flavour(dss)
    key = dsa_keys(flavour)["dsa-2048-256"]
    asn1 = import_from(flavour, "Util.asn1")
    if shape == "canonical":
        signature = asn1.DerSequence([r, s]).encode()
    elif shape == "trailing":
        signature = asn1.DerSequence([r, s]).encode() + b"\x00"
    elif shape == "padded-r":
        body = b"\x02\x21\x00" + r.to_bytes(32, "big") + asn1.DerInteger(s).encode()
        signature = b"\x30" + bytes([len(body)]) + body
    elif shape == "negative-s":
        signature = asn1.DerSequence([r, -s]).encode()
    else:
        signature = asn1.DerSequence([r, s, 1]).encode()
    for mode in ("fips-186-3", "deterministic-rfc6979"):
        verifier = dss.new(key.public_key(), mode, "der")
        rec.call(
            "verify " + mode, verifier.verify, hash_object(flavour, ("SHA256", {}), b"m"), signature
        )


@with_flavours
@scaled(0.2)
@given(
    r=st.one_of(st.integers(0, 2**256 - 1), st.sampled_from([0, 1, 2**255])),
    s=st.integers(1, 2**256 - 1),
    shape=st.sampled_from(["canonical", "trailing", "padded-r", "negative-s", "three"]),
)
def test_dsa_malformed_der(flavour, r, s, shape):
    dss = import_from(flavour, "Signature.DSS")
    both(der_scenario, dss, r, s, shape)


def _accelerated_or_skip(primitive: str) -> None:
    accelerated, reason = acceleration(primitive)
    if not accelerated:
        pytest.skip("%s is not accelerated here: %s" % (primitive, reason))


@with_flavours
@pytest.mark.parametrize("key_name", ["dsa-2048-256", "dsa-1024-160"])
@pytest.mark.parametrize("encoding", ["binary", "der"])
def test_dsa_signatures_cross_verify(flavour, key_name, encoding):
    dss = import_from(flavour, "Signature.DSS")
    _accelerated_or_skip("dsa")
    key = dsa_keys(flavour)[key_name]
    digest = hash_object(flavour, ("SHA256", {}), b"cross")
    for _ in range(10):  # random nonces: some short r or s
        before = call_counts()
        made_by_agent = dss.new(key, "fips-186-3", encoding).sign(digest)
        assert count_delta(before, call_counts()).get("dsa") == 1
        with natively():
            assert (
                dss.new(key.public_key(), "fips-186-3", encoding).verify(digest, made_by_agent)
                is False
            )
            made_natively = dss.new(key, "fips-186-3", encoding).sign(digest)
        before = call_counts()
        for mode in ("fips-186-3", "deterministic-rfc6979"):
            assert dss.new(key.public_key(), mode, encoding).verify(digest, made_natively) is False
        assert count_delta(before, call_counts()).get("dsa") == 2


@with_flavours
def test_rfc6979_signing_stays_native(flavour):
    dss = import_from(flavour, "Signature.DSS")
    key = dsa_keys(flavour)["dsa-2048-256"]
    vector = known_answers.read("dsa")["vectors"][2]  # SHA-256, "test"
    digest = hash_object(flavour, ("SHA256", {}), b"test")
    assert digest.hexdigest() == vector["digest"]
    before = call_counts()
    assert dss.new(key, "deterministic-rfc6979").sign(digest).hex() == vector["signature"]
    assert not count_delta(before, call_counts()).get("dsa")


# ----------------------------------------------------------------- key generation


@with_flavours
@pytest.mark.parametrize("bits", [1024])
def test_generated_keys_are_pycryptodomes(flavour, bits):
    dsa = import_from(flavour, "PublicKey.DSA")
    dss = import_from(flavour, "Signature.DSS")
    _accelerated_or_skip("dsa-keygen")
    before = call_counts()
    key = dsa.generate(bits)
    assert count_delta(before, call_counts()).get("dsa-keygen") == 1
    assert type(key) is dsa.DsaKey and key.has_private()
    assert list(key._key) == ["y", "g", "p", "q", "x"]  # native's order
    p, q, g, y, x = (int(key._key[name]) for name in "pqgyx")
    assert p.bit_length() == bits and q.bit_length() == {1024: 160, 3072: 256}[bits]
    assert (p - 1) % q == 0 and 1 < g < p and pow(g, q, p) == 1
    assert 0 < x < q and pow(g, x, p) == y
    digest = hash_object(flavour, ("SHA256", {}), b"new key")
    with natively():
        # Native code takes the key as its own: export, import, sign, verify.
        again = dsa.import_key(key.export_key())
        assert again == key
        signature = dss.new(key, "fips-186-3").sign(digest)
    assert dss.new(again.public_key(), "fips-186-3").verify(digest, signature) is False
    with pytest.raises(type(_native_pickle_error(key))):
        pickle.dumps(key)


def _native_pickle_error(key) -> BaseException:
    with natively():
        try:
            pickle.dumps(key)
        except Exception as exc:  # noqa: BLE001 - what native raises is the expectation
            return exc
    raise AssertionError("native pickled a DSA key")


def generate_scenario(rec, dsa, case):
    calls = {
        "512 bits": lambda: dsa.generate(512),
        "1000 bits": lambda: dsa.generate(1000),
        "float bits": lambda: dsa.generate(1024.0),
        "str bits": lambda: dsa.generate("1024"),
        "None bits": lambda: dsa.generate(None),
        "unknown keyword": lambda: dsa.generate(1024, rounds=3),
        "bits twice": lambda: dsa.generate(1024, bits=1024),
        "bad domain": lambda: dsa.generate(1024, domain=(23, 11, 2)),
        "seeded 1024": lambda: dsa.generate(1024, randfunc=Seeded(5)),
    }
    key = rec.call(case, calls[case])
    if key is not RAISED:
        rec.note("key", key.export_key(format="DER"))


@with_flavours
@pytest.mark.parametrize(
    "case",
    ["512 bits", "1000 bits", "float bits", "str bits", "None bits", "unknown keyword",
     "bits twice", "bad domain", "seeded 1024"],
)  # fmt: skip
def test_generate_arguments_as_natively(flavour, case):
    dsa = import_from(flavour, "PublicKey.DSA")
    comparison = both(generate_scenario, dsa, case)
    assert not comparison.accelerated("dsa-keygen")


def new_scenario(rec, dss, key_name, args):
    key = dsa_keys(_flavour(dss))[key_name]
    for attempt in range(2):  # the second call may be served from a template
        scheme = rec.call("new %d" % attempt, dss.new, key, "fips-186-3", *args)
        if scheme is RAISED:
            return
        rec.note("class", (type(scheme).__name__, type(scheme).__module__))
        rec.note("state", [(name, repr(value)) for name, value in vars(scheme).items()])
        rec.note("can_sign", scheme.can_sign())


@with_flavours
@pytest.mark.parametrize("key_name", ["dsa-2048-256", "dsa-1024-160"])
@pytest.mark.parametrize("args", [(), ("binary",), ("der",), ("pem",), ("der", None)])
def test_new_schemes_hold_what_native_holds(flavour, key_name, args):
    dss = import_from(flavour, "Signature.DSS")
    both(new_scenario, dss, key_name, args)


@with_flavours
def test_replaced_domain_components_are_read_again(flavour):
    """The key's q and size of p, kept with the key after its first scheme, follow a new q."""
    dsa = import_from(flavour, "PublicKey.DSA")
    dss = import_from(flavour, "Signature.DSS")
    _accelerated_or_skip("dsa")
    big, small = dsa_keys(flavour)["dsa-2048-256"], dsa_keys(flavour)["dsa-1024-160"]
    outcomes = []
    for run in (contextlib.nullcontext, natively):
        with run():
            key = dsa.construct([int(getattr(big, name)) for name in "ygpqx"])
            digest = hash_object(flavour, ("SHA256", {}), b"m")
            assert len(dss.new(key, "fips-186-3").sign(digest)) == 64
            key._key["q"] = small._key["q"]  # (2048, 160): not a FIPS 186-3 pair
            with pytest.raises(ValueError) as raised:
                dss.new(key, "fips-186-3")
            outcomes.append(str(raised.value))
    assert outcomes[0] == outcomes[1]
