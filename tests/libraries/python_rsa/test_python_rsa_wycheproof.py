"""Wycheproof's RSA PKCS#1 v1.5 signatures through python-rsa's ``verify``, agent vs native.

Every vector of ``rsa_signature_2048_sha256_test.json`` (in
tests/vectors/wycheproof/; see tests/wycheproof/wycheproof_vectors.py) is
verified with the agent and natively: the transcripts must be identical.
Then the verdict is held against Wycheproof's: a valid signature returns
``"SHA-256"``, an invalid one raises ``VerificationError``. One exception is
python-rsa's design, natively too: ``verify`` finds the hash in the
signature and returns its name, so a correct signature over another hash
(Wycheproof's ``WrongHash`` vectors) verifies and returns that name; the
caller is the one to check it. Those vectors must return a name other than
"SHA-256". python-rsa also accepts a signature that is not reduced modulo n
(``SignatureMalleability``: it raises the number to e without comparing it
with n); OpenSSL refuses those, so the agent hands them to native code, which
accepts them as it always did. Any other disagreement fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "wycheproof"))
from wycheproof_vectors import load, vector_params  # noqa: E402

from transparency_helpers import both, call_counts, count_delta  # noqa: E402

pytest.importorskip("rsa", reason="python-rsa is not installed")
import rsa  # noqa: E402
import rsa.pkcs1  # noqa: E402

FILE = "rsa_signature_2048_sha256_test.json"


def _scenario(rec, module, vector, public):
    rec.call("verify", module.verify, vector.msg, vector.sig, public)


@pytest.mark.accelerates("rsa-pkcs1v15-sign")
def test_wycheproof_pkcs1v15_signatures():
    if vector_params(FILE)[0].id == "absent":
        pytest.skip("Wycheproof vectors not found (%s)" % FILE)
    _, vectors = load(FILE)
    keys = {}
    disagreements = []
    wrong_hash = not_reduced = 0
    before = call_counts()
    for vector in vectors:
        modulus = int(vector.group["publicKey"]["modulus"], 16)
        exponent = int(vector.group["publicKey"]["publicExponent"], 16)
        public = keys.setdefault((modulus, exponent), rsa.PublicKey(modulus, exponent))
        comparison = both(_scenario, rsa.pkcs1, vector, public)
        step = comparison.agent.steps[0]
        if vector.valid and step != ("verify", "returned", "SHA-256"):
            disagreements.append((vector.describe(), step[1:]))
        if vector.invalid and step[1:3] != ("raised", "rsa.pkcs1.VerificationError"):
            if "WrongHash" in vector.flags and step[1] == "returned" and step[2] != "SHA-256":
                wrong_hash += 1  # python-rsa's design: the caller checks the name
            elif "SignatureMalleability" in vector.flags and step[1] == "returned":
                not_reduced += 1  # python-rsa's own leniency (identical natively)
            else:
                disagreements.append((vector.describe(), step[1:]))
    served = count_delta(before, call_counts()).get("rsa-pkcs1v15-sign", 0)
    print("%d vectors, %d served by OpenSSL, %d WrongHash vectors return their hash's name, "
          "%d signatures not reduced accepted (natively too)"
          % (len(vectors), served, wrong_hash, not_reduced))  # fmt: skip
    assert served >= sum(v.valid for v in vectors)
    assert not disagreements
