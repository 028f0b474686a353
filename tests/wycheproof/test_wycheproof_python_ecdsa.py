"""Wycheproof ECDSA (P-256 DER and P1363, P-384 and P-521 P1363) through python-ecdsa.

python-ecdsa's rules, which the judge follows: ``VerifyingKey.verify``
returns True for a valid signature and raises ``BadSignatureError``
otherwise (a malformed encoding included: ``sigdecode_der`` is strict
DER, ``sigdecode_string`` takes exactly twice the order's length). Each
vector runs under the agent and natively (any difference fails); a vector
whose verdict native python-ecdsa itself gets "wrong" is an expected
failure with the reason, never the agent's doing. A valid signature must
have gone through OpenSSL where the curve is accelerated.
"""

from __future__ import annotations

import hashlib

import pytest
from wycheproof_vectors import raised, returned, vector_params

from transparency_helpers import RAISED, acceleration, both

ecdsa = pytest.importorskip("ecdsa", reason="python-ecdsa is not installed")
keys_module = pytest.importorskip("ecdsa.keys")
from ecdsa import curves, util  # noqa: E402

FILES = {
    "ecdsa_secp256r1_sha256_test.json": util.sigdecode_der,
    "ecdsa_secp256r1_sha256_p1363_test.json": util.sigdecode_string,
    "ecdsa_secp384r1_sha384_p1363_test.json": util.sigdecode_string,
    "ecdsa_secp521r1_sha512_p1363_test.json": util.sigdecode_string,
}
CURVES = {
    "secp256r1": (curves.NIST256p, "ecdsa-p256"),
    "secp384r1": (curves.NIST384p, "ecdsa-p384"),
    "secp521r1": (curves.NIST521p, "ecdsa-p521"),
}
HASHES = {"SHA-256": hashlib.sha256, "SHA-384": hashlib.sha384, "SHA-512": hashlib.sha512}


def _scenario(rec, keys, vector, sigdecode):
    public = vector.group["publicKey"]
    curve = CURVES[public["curve"]][0]
    key = rec.call(
        "from_string", keys.VerifyingKey.from_string, bytes.fromhex(public["uncompressed"]), curve
    )
    if key is RAISED:
        return
    rec.call("verify", key.verify, vector.sig, vector.msg, HASHES[vector.group["sha"]], sigdecode)


def _judge(vector, steps) -> str | None:
    outcome = returned(steps, "verify")
    if vector.valid and outcome is not True:
        return "a valid signature gave %r" % (raised(steps, "verify") or outcome,)
    if vector.invalid:
        error = raised(steps, "verify")
        if error is None or error[0] != "ecdsa.keys.BadSignatureError":
            return "an invalid signature gave %r" % (error or outcome,)
    return None


@pytest.mark.parametrize(
    "filename, vector",
    [
        pytest.param(name, param.values[0], marks=param.marks, id="%s-%s" % (name[6:-10], param.id))
        for name in FILES
        for param in vector_params(name)
    ],
)
def test_wycheproof_ecdsa_through_python_ecdsa(filename, vector):
    comparison = both(_scenario, keys_module, vector, FILES[filename])
    primitive = CURVES[vector.group["publicKey"]["curve"]][1]
    if vector.valid and acceleration(primitive)[0] and not comparison.accelerated(primitive):
        pytest.fail(
            "%s is accelerated but %s did not go through it" % (primitive, vector.describe())
        )
    problem = _judge(vector, comparison.agent.steps)
    if problem:
        # The agent's transcript equals native's: this is python-ecdsa's own verdict.
        pytest.xfail("native python-ecdsa too: %s: %s" % (vector.describe(), problem))
