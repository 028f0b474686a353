"""Wycheproof ECDSA (P-256, P-384, P-521; DER and P1363), Ed25519, Ed448 and ECDH
(P-256) through pycryptodome's API, under the agent.

pycryptodome's rules, which the judges below follow: ``DSS`` verifies with
encoding ``'der'`` (strict DER) or ``'binary'`` (P1363, r || s) and returns
``False`` for a valid signature (PyCrypto's legacy), raising ``ValueError``
otherwise; ``eddsa`` verifies pure EdDSA and raises ``ValueError`` (its
cofactored equation accepts some signatures Wycheproof calls invalid:
native's own verdict, reported as an expected failure by the factory).
``key_agreement`` returns what the KDF makes of the shared secret (here
the secret itself); a public key pycryptodome cannot import raises there.
pycryptodome 3.x rejects valid ECDSA signatures whose point has an x
coordinate of r + n (Wycheproof's ``ArithmeticError`` "large x-coordinate"
vectors): the agent leaves every r below p - n to native code, so 3.x's
verdict stays its own (an expected failure here).
"""

from __future__ import annotations

from functools import cache

import pytest
from wycheproof_vectors import raised, returned, wycheproof_test

from transparency_helpers import RAISED, import_from, installed_flavours

HASH_MODULES = {"SHA-256": "SHA256", "SHA-384": "SHA384", "SHA-512": "SHA512"}
CURVES = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}
ECDSA_PRIMITIVES = {"secp256r1": "ecdsa-p256", "secp384r1": "ecdsa-p384", "secp521r1": "ecdsa-p521"}


def _flavour(module) -> str:
    return module.__name__.split(".")[0]


# --------------------------------------------------------------------------- ECDSA


def _ecdsa_scenario(encoding: str):
    def scenario(rec, dss, v):
        flavour = _flavour(dss)
        ecc = import_from(flavour, "PublicKey.ECC")
        public = v.group["publicKey"]
        key = rec.call(
            "construct",
            ecc.construct,
            curve=CURVES[public["curve"]],
            point_x=int(public["wx"], 16),
            point_y=int(public["wy"], 16),
        )
        if key is RAISED:
            return
        digest = import_from(flavour, "Hash." + HASH_MODULES[v.group["sha"]]).new(v.msg)
        verifier = rec.call("new", dss.new, key, "fips-186-3", encoding)
        rec.call("verify", verifier.verify, digest, v.sig)

    return scenario


def ecdsa_judge(v, steps):
    outcome = returned(steps, "verify")
    if v.valid and outcome is not False:
        return "a valid signature gave %r" % (raised(steps, "verify") or outcome,)
    if v.invalid:
        error = raised(steps, "verify")
        if error is None or error[0] != "builtins.ValueError":
            return "an invalid signature gave %r" % (error or outcome,)
    return None


@cache
def _x_overflow_bound(curve: str) -> int:
    """p - n: an r below it is left to native code (3.x compares x unreduced)."""
    info = import_from(installed_flavours()[0], "PublicKey.ECC")._curves[CURVES[curve]]
    return int(info.p) - int(info.order)


def _r(v) -> int:
    if v.group["type"] == "EcdsaP1363Verify":
        return int.from_bytes(v.sig[: len(v.sig) // 2], "big")
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    return decode_dss_signature(v.sig)[0]


def ecdsa_accelerated(v):
    curve = v.group["publicKey"]["curve"]
    if not v.valid or _r(v) < _x_overflow_bound(curve):
        return None
    return ECDSA_PRIMITIVES[curve]


test_ecdsa_secp256r1_sha256_der = wycheproof_test(
    "ecdsa_secp256r1_sha256_test.json",
    "Signature.DSS",
    _ecdsa_scenario("der"),
    ecdsa_judge,
    ecdsa_accelerated,
)
test_ecdsa_secp256r1_sha256_p1363 = wycheproof_test(
    "ecdsa_secp256r1_sha256_p1363_test.json",
    "Signature.DSS",
    _ecdsa_scenario("binary"),
    ecdsa_judge,
    ecdsa_accelerated,
)
test_ecdsa_secp384r1_sha384_p1363 = wycheproof_test(
    "ecdsa_secp384r1_sha384_p1363_test.json",
    "Signature.DSS",
    _ecdsa_scenario("binary"),
    ecdsa_judge,
    ecdsa_accelerated,
)
test_ecdsa_secp521r1_sha512_p1363 = wycheproof_test(
    "ecdsa_secp521r1_sha512_p1363_test.json",
    "Signature.DSS",
    _ecdsa_scenario("binary"),
    ecdsa_judge,
    ecdsa_accelerated,
)


# --------------------------------------------------------------------------- EdDSA


def eddsa_scenario(rec, eddsa, v):
    key = rec.call(
        "import_public_key", eddsa.import_public_key, bytes.fromhex(v.group["publicKey"]["pk"])
    )
    if key is RAISED:
        return
    verifier = rec.call("new", eddsa.new, key, "rfc8032")
    rec.call("verify", verifier.verify, v.msg, v.sig)


def eddsa_judge(v, steps):
    outcome = raised(steps, "verify")
    if v.valid and (outcome is not None or returned(steps, "verify") is not None):
        return "a valid signature gave %r" % (outcome,)
    if v.invalid and (outcome is None or outcome[0] != "builtins.ValueError"):
        return "an invalid signature was accepted"
    return None


def eddsa_accelerated(primitive: str):
    return lambda v: primitive if v.valid else None


test_ed25519 = wycheproof_test(
    "ed25519_test.json",
    "Signature.eddsa",
    eddsa_scenario,
    eddsa_judge,
    eddsa_accelerated("ed25519"),
)
test_ed448 = wycheproof_test(
    "ed448_test.json", "Signature.eddsa", eddsa_scenario, eddsa_judge, eddsa_accelerated("ed448")
)


# --------------------------------------------------------------------------- ECDH


def ecdh_scenario(rec, dh, v):
    flavour = _flavour(dh)
    ecc = import_from(flavour, "PublicKey.ECC")
    public = rec.call("import_key", ecc.import_key, v.public)
    private = rec.call(
        "construct",
        ecc.construct,
        curve=CURVES[v.group["curve"]],
        d=int.from_bytes(v.private, "big"),
    )
    if public is RAISED or private is RAISED:
        return
    rec.call(
        "key_agreement", dh.key_agreement, static_priv=private, static_pub=public, kdf=lambda z: z
    )


def ecdh_judge(v, steps):
    shared = returned(steps, "key_agreement")
    if v.valid and shared != ("bytes", v.shared):
        return "the shared secret is %r" % (
            shared
            or raised(steps, "key_agreement")
            or raised(steps, "import_key")
            or raised(steps, "construct"),
        )
    if v.invalid and shared is not None:
        return "an invalid public key gave a shared secret"
    return None


def ecdh_accelerated(v):
    return "ecdh-p256" if v.valid else None


def _has_dh() -> bool:
    try:
        for flavour in installed_flavours():
            import_from(flavour, "Protocol.DH")
    except ImportError:
        return False
    return True


if _has_dh():
    test_ecdh_secp256r1 = wycheproof_test(
        "ecdh_secp256r1_test.json", "Protocol.DH", ecdh_scenario, ecdh_judge, ecdh_accelerated
    )
else:

    @pytest.mark.skip(reason="Crypto.Protocol.DH came in pycryptodome 3.21")
    def test_ecdh_secp256r1():
        pass
