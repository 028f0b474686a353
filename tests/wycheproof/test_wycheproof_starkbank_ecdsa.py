"""Wycheproof ECDSA secp256k1 with SHA-256 (DER) through starkbank-ecdsa, under the agent.

starkbank-ecdsa's rules, which the judge follows: ``Signature.fromDer``
reads the signature (raising its own ``Exception`` for what is not
canonical DER), and ``Ecdsa.verify`` returns ``True`` or ``False``; it takes
a ``str`` message (UTF-8 encoded before hashing), so the vector's bytes
travel as a Latin-1 string and a ``hashfunc`` of the test's own hashes the
original bytes with SHA-256 (a caller's function, which the agent calls as
the library does). Each public key is read with ``PublicKey.fromString``
(its point checks, natively, once per group). A vector whose verdict native
starkbank-ecdsa itself gets "wrong" is an expected failure.
"""

from __future__ import annotations

import hashlib
from functools import cache

import pytest
from wycheproof_vectors import raised, returned, vector_params

from transparency_helpers import RAISED, acceleration, both

ellipticcurve = pytest.importorskip("ellipticcurve", reason="starkbank-ecdsa is not installed")
ecdsa_module = pytest.importorskip("ellipticcurve.ecdsa")
from ellipticcurve import PublicKey, Signature  # noqa: E402
from ellipticcurve.curve import secp256k1  # noqa: E402

FILE = "ecdsa_secp256k1_sha256_test.json"


def _sha256_of_original(data: bytes):
    """SHA-256 of the vector's bytes, given the UTF-8 encoding of their Latin-1 reading."""
    return hashlib.sha256(data.decode("utf-8").encode("latin-1"))


@cache
def _public_key(uncompressed: str):
    return PublicKey.fromString(uncompressed, curve=secp256k1)


def _scenario(rec, module, v):
    # The library's own uncompressed encoding is "0004" || x || y (its toString(encoded=True)).
    key = rec.call("fromString", _public_key, "00" + v.group["publicKey"]["uncompressed"])
    if key is RAISED:
        return
    signature = rec.call("fromDer", Signature.fromDer, v.sig)
    if signature is RAISED:
        return
    message = v.msg.decode("latin-1")
    rec.call("verify", module.Ecdsa.verify, message, signature, key, _sha256_of_original)


def _judge(v, steps):
    outcome = returned(steps, "verify")
    if v.valid and outcome is not True:
        return "a valid signature gave %r" % (raised(steps, "verify") or outcome,)
    if v.invalid and outcome is True:
        return "an invalid signature was accepted"
    return None


@pytest.mark.parametrize("vector", vector_params(FILE))
def test_wycheproof_secp256k1_through_starkbank_ecdsa(vector):
    comparison = both(_scenario, ecdsa_module, vector)
    if vector.valid and acceleration("ecdsa-secp256k1")[0]:
        assert comparison.accelerated("ecdsa-secp256k1") == 1, vector.describe()
    problem = _judge(vector, comparison.agent.steps)
    if problem:
        # The agent's transcript equals native's: this is starkbank-ecdsa's own verdict.
        pytest.xfail("native starkbank-ecdsa too: %s: %s" % (vector.describe(), problem))
