"""Wycheproof RSA through pycryptodome's API, under the agent: PKCS#1 v1.5 and PSS
signatures, OAEP and PKCS#1 v1.5 encryption.

pycryptodome's rules, which the judges below follow: ``verify`` returns
None or raises ``ValueError``; it accepts a PKCS#1 v1.5 ``DigestInfo``
without NULL parameters (Wycheproof's "acceptable" ``MissingNull``). OAEP
decryption raises ``ValueError`` for any wrong ciphertext. PKCS#1 v1.5
decryption (native under the agent) is called with a sentinel, returned
for a wrong padding. Randomized operations (OAEP and PKCS#1 v1.5
encryption) are checked by decrypting what was made, in both runs; the
ciphertexts themselves are compared by type and length only.
"""

from __future__ import annotations

from functools import cache

from wycheproof_vectors import raised, returned, wycheproof_test

from transparency_helpers import RAISED, Shape, import_from

HASH_MODULES = {"SHA-1": "SHA1", "SHA-256": "SHA256", "SHA-384": "SHA384", "SHA-512": "SHA512"}
SENTINEL = b"<sentinel>"


def _flavour(module) -> str:
    return module.__name__.split(".")[0]


def _hash_module(flavour: str, wycheproof_name: str):
    return import_from(flavour, "Hash." + HASH_MODULES[wycheproof_name])


@cache
def _private_key(flavour: str, modulus: str, exponent: str, d: str, p: str, q: str):
    """One RsaKey per Wycheproof group (construct() tests primality: worth sharing)."""
    rsa = import_from(flavour, "PublicKey.RSA")
    return rsa.construct(tuple(int(x, 16) for x in (modulus, exponent, d, p, q)))


def private_key(flavour: str, group: dict):
    k = group["privateKey"]
    return _private_key(
        flavour,
        k["modulus"],
        k["publicExponent"],
        k["privateExponent"],
        k["prime1"],
        k["prime2"],
    )


def public_key(flavour: str, group: dict):
    k = group["publicKey"]
    rsa = import_from(flavour, "PublicKey.RSA")
    return rsa.construct((int(k["modulus"], 16), int(k["publicExponent"], 16)))


def verify_judge(v, steps):
    """verify() returns None for a valid signature and raises ValueError for an invalid one."""
    outcome = raised(steps, "verify")
    if v.valid and outcome is not None:
        return "a valid signature was rejected: %r" % (outcome,)
    if v.invalid and (outcome is None or outcome[0] != "builtins.ValueError"):
        return "an invalid signature gave %r" % (outcome or returned(steps, "verify"),)
    return None


def accelerated_if_valid(primitive: str):
    return lambda v: primitive if v.valid else None


# --------------------------------------------------------------------------- PKCS#1 v1.5 signatures


def pkcs1_15_scenario(rec, pkcs1_15, v):
    flavour = _flavour(pkcs1_15)
    digest = _hash_module(flavour, v.group["sha"]).new(v.msg)
    verifier = rec.call("new", pkcs1_15.new, public_key(flavour, v.group))
    rec.call("verify", verifier.verify, digest, v.sig)


test_rsa_signature_2048_sha256 = wycheproof_test(
    "rsa_signature_2048_sha256_test.json",
    "Signature.pkcs1_15",
    pkcs1_15_scenario,
    verify_judge,
    accelerated_if_valid("rsa-pkcs1v15-sign"),
)


# --------------------------------------------------------------------------- PSS


def pss_scenario(rec, pss, v):
    flavour = _flavour(pss)
    assert v.group["mgf"] == "MGF1" and v.group["mgfSha"] == v.group["sha"]
    digest = _hash_module(flavour, v.group["sha"]).new(v.msg)
    key = public_key(flavour, v.group)
    verifier = rec.call("new", pss.new, key, salt_bytes=v.group["sLen"])
    rec.call("verify", verifier.verify, digest, v.sig)


test_rsa_pss_2048_sha256_mgf1_32 = wycheproof_test(
    "rsa_pss_2048_sha256_mgf1_32_test.json",
    "Signature.pss",
    pss_scenario,
    verify_judge,
    accelerated_if_valid("rsa-pss"),
)


# --------------------------------------------------------------------------- OAEP


def oaep_scenario(rec, pkcs1_oaep, v):
    flavour = _flavour(pkcs1_oaep)
    assert v.group["mgf"] == "MGF1" and v.group["mgfSha"] == v.group["sha"]
    hash_module = _hash_module(flavour, v.group["sha"])
    key = private_key(flavour, v.group)
    cipher = rec.call("new", lambda: pkcs1_oaep.new(key, hashAlgo=hash_module, label=v.label))
    rec.call("decrypt", cipher.decrypt, v.ct)
    # A ciphertext made now (random seed) must decrypt to the message.
    encrypted = rec.call("encrypt", lambda: Shape(cipher.encrypt(v.msg)))
    if encrypted is not RAISED:
        rec.call("decrypt(own)", cipher.decrypt, encrypted.value)


def oaep_judge(v, steps):
    opened = returned(steps, "decrypt")
    if v.valid:
        if opened != ("bytes", v.msg):
            return "decrypt gave %r" % (opened or raised(steps, "decrypt"),)
        if returned(steps, "decrypt(own)") != ("bytes", v.msg):
            return "a new ciphertext decrypted to %r" % (raised(steps, "decrypt(own)"),)
    elif v.invalid:
        error = raised(steps, "decrypt")
        if error is None or error[0] != "builtins.ValueError":
            return "an invalid ciphertext gave %r" % (error or opened,)
    return None


def oaep_accelerated(v):
    return "rsa-oaep" if v.valid else None


test_rsa_oaep_2048_sha1_mgf1sha1 = wycheproof_test(
    "rsa_oaep_2048_sha1_mgf1sha1_test.json",
    "Cipher.PKCS1_OAEP",
    oaep_scenario,
    oaep_judge,
    oaep_accelerated,
)
test_rsa_oaep_2048_sha256_mgf1sha256 = wycheproof_test(
    "rsa_oaep_2048_sha256_mgf1sha256_test.json",
    "Cipher.PKCS1_OAEP",
    oaep_scenario,
    oaep_judge,
    oaep_accelerated,
)


# --------------------------------------------------------------------------- PKCS#1 v1.5 encryption


def pkcs1_v1_5_scenario(rec, pkcs1_v1_5, v):
    flavour = _flavour(pkcs1_v1_5)
    cipher = rec.call("new", pkcs1_v1_5.new, private_key(flavour, v.group))
    # Decryption is native under the agent; it must stay what it is.
    rec.call("decrypt", cipher.decrypt, v.ct, SENTINEL)
    encrypted = rec.call("encrypt", lambda: Shape(cipher.encrypt(v.msg)))
    if encrypted is not RAISED:
        rec.call("decrypt(own)", cipher.decrypt, encrypted.value, SENTINEL)


def pkcs1_v1_5_judge(v, steps):
    opened = returned(steps, "decrypt")
    if v.valid:
        if opened != ("bytes", v.msg):
            return "decrypt gave %r" % (opened or raised(steps, "decrypt"),)
        if returned(steps, "decrypt(own)") != ("bytes", v.msg):
            return "a new ciphertext decrypted to %r" % (raised(steps, "decrypt(own)"),)
    elif v.invalid and opened not in (("bytes", SENTINEL), None):
        return "an invalid ciphertext decrypted to %r" % (opened,)
    return None


test_rsa_pkcs1_2048 = wycheproof_test(
    "rsa_pkcs1_2048_test.json",
    "Cipher.PKCS1_v1_5",
    pkcs1_v1_5_scenario,
    pkcs1_v1_5_judge,
    accelerated_if_valid("rsa-pkcs1v15-encrypt"),
)
