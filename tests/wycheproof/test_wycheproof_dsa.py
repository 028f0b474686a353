"""Wycheproof DSA-2048/256 with SHA-256 (DER and P1363) through pycryptodome's API,
under the agent.

pycryptodome's rules, which the judge follows: ``DSS`` verifies with
encoding ``'der'`` (strict DER) or ``'binary'`` (P1363, r || s), in mode
``'fips-186-3'`` (2048/256 is one of its sizes), and returns ``False`` for a
valid signature, raising ``ValueError`` otherwise. Each public key is built
with ``DSA.construct`` from the group's numbers (its domain checks natively,
the same in both runs; made once per group, as its primality tests take
longer than the verifications).
"""

from __future__ import annotations

from functools import cache

from wycheproof_vectors import raised, returned, wycheproof_test

from transparency_helpers import RAISED, import_from


def _flavour(module) -> str:
    return module.__name__.split(".")[0]


@cache
def _public_key(flavour: str, numbers: tuple):
    return import_from(flavour, "PublicKey.DSA").construct(numbers)


def _dsa_scenario(encoding: str):
    def scenario(rec, dss, v):
        flavour = _flavour(dss)
        public = v.group["publicKey"]
        numbers = tuple(int(public[name], 16) for name in ("y", "g", "p", "q"))
        key = rec.call("construct", _public_key, flavour, numbers)
        if key is RAISED:
            return
        digest = import_from(flavour, "Hash.SHA256").new(v.msg)
        verifier = rec.call("new", dss.new, key, "fips-186-3", encoding)
        rec.call("verify", verifier.verify, digest, v.sig)

    return scenario


def dsa_judge(v, steps):
    outcome = returned(steps, "verify")
    if v.valid and outcome is not False:
        return "a valid signature gave %r" % (raised(steps, "verify") or outcome,)
    if v.invalid:
        error = raised(steps, "verify")
        if error is None or error[0] != "builtins.ValueError":
            return "an invalid signature gave %r" % (error or outcome,)
    return None


def dsa_accelerated(v):
    return "dsa" if v.valid else None


test_dsa_2048_256_sha256_der = wycheproof_test(
    "dsa_2048_256_sha256_test.json",
    "Signature.DSS",
    _dsa_scenario("der"),
    dsa_judge,
    dsa_accelerated,
)
test_dsa_2048_256_sha256_p1363 = wycheproof_test(
    "dsa_2048_256_sha256_p1363_test.json",
    "Signature.DSS",
    _dsa_scenario("binary"),
    dsa_judge,
    dsa_accelerated,
)
