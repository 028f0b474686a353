"""Wycheproof HMAC, AES-CMAC, HKDF and PBKDF2 through pycryptodome's API, under the agent.

pycryptodome's rules, which the judges below follow: MAC objects give the
full tag (Wycheproof's truncated tags are compared with its prefix) and
``verify``/``hexverify`` raise ``ValueError("MAC check failed")``; CMAC
takes AES keys of 16, 24 or 32 bytes (``ValueError`` otherwise); HKDF
refuses more than 255 digests of output (``ValueError``). Every vector runs
under the agent and natively, and the two transcripts must be equal.
"""

from __future__ import annotations

from wycheproof_vectors import raised, returned, wycheproof_test

from transparency_helpers import RAISED, import_from

# --------------------------------------------------------------------------- HMAC


def _hmac_scenario(hash_name: str):
    def scenario(rec, hmac_module, v):
        flavour = hmac_module.__name__.split(".")[0]
        digestmod = import_from(flavour, "Hash." + hash_name)
        tag_size = v.group["tagSize"] // 8
        mac = rec.call("new", hmac_module.new, v.key, v.msg, digestmod=digestmod)
        if mac is RAISED:
            return
        rec.call("digest", mac.digest)
        full = mac.digest()
        rec.note("matches", full[:tag_size] == v.tag)
        if tag_size == len(full):
            rec.call("verify", mac.verify, v.tag)
            rec.call("hexverify", mac.hexverify, v.tag.hex())
        # The same message in two pieces, through a copy.
        mac = hmac_module.new(v.key, digestmod=digestmod)
        half = len(v.msg) // 2
        mac.update(v.msg[:half])
        clone = mac.copy()
        clone.update(v.msg[half:])
        rec.call("pieces", clone.digest)

    return scenario


def mac_judge(v, steps):
    matches = [s for s in steps if s[0] == "matches"]
    matched = bool(matches) and matches[0][2] is True
    if v.valid and not matched:
        return "the tag does not match: %r" % (returned(steps, "digest") or raised(steps, "new"),)
    if v.invalid and matched:
        return "an invalid tag matched"
    if v.valid and raised(steps, "verify") is not None:
        return "verify refused a valid tag: %r" % (raised(steps, "verify"),)
    return None


def hmac_accelerated(v):
    return "hmac"


test_hmac_sha1 = wycheproof_test(
    "hmac_sha1_test.json", "Hash.HMAC", _hmac_scenario("SHA1"), mac_judge, hmac_accelerated
)
test_hmac_sha256 = wycheproof_test(
    "hmac_sha256_test.json", "Hash.HMAC", _hmac_scenario("SHA256"), mac_judge, hmac_accelerated
)
test_hmac_sha512 = wycheproof_test(
    "hmac_sha512_test.json", "Hash.HMAC", _hmac_scenario("SHA512"), mac_judge, hmac_accelerated
)
test_hmac_sha3_256 = wycheproof_test(
    "hmac_sha3_256_test.json",
    "Hash.HMAC",
    _hmac_scenario("SHA3_256"),
    mac_judge,
    hmac_accelerated,
)


# --------------------------------------------------------------------------- AES-CMAC


def cmac_scenario(rec, cmac_module, v):
    aes = import_from(cmac_module.__name__.split(".")[0], "Cipher.AES")
    mac = rec.call("new", cmac_module.new, v.key, v.msg, ciphermod=aes)
    if mac is RAISED:
        rec.note("matches", False)
        return
    full = rec.call("digest", mac.digest)
    rec.note("matches", full[: v.group["tagSize"] // 8] == v.tag)
    rec.call("verify", mac.verify, v.tag)
    rec.call("update after verify", mac.update, b"x")
    mac = cmac_module.new(v.key, ciphermod=aes, update_after_digest=True)
    mac.update(v.msg[:7])
    rec.call("early digest", mac.digest)
    clone = mac.copy()
    clone.update(v.msg[7:])
    rec.call("pieces", clone.hexdigest)


def cmac_accelerated(v):
    return "aes-cmac" if len(v.key) in (16, 24, 32) else None


test_aes_cmac = wycheproof_test(
    "aes_cmac_test.json", "Hash.CMAC", cmac_scenario, mac_judge, cmac_accelerated
)


# --------------------------------------------------------------------------- HKDF


def hkdf_scenario(rec, kdf, v):
    sha256 = import_from(kdf.__name__.split(".")[0], "Hash.SHA256")
    rec.call("HKDF", kdf.HKDF, v.ikm, v.size, v.salt, sha256, context=v.info)
    if 0 < v.size <= 255 * 32 and v.size % 2 == 0:
        rec.call("HKDF x2", kdf.HKDF, v.ikm, v.size // 2, v.salt, sha256, 2, v.info)


def hkdf_judge(v, steps):
    derived = returned(steps, "HKDF")
    if v.valid and derived != ("bytes", v.okm):
        return "HKDF gave %r" % (derived or raised(steps, "HKDF"),)
    if v.invalid and derived is not None:
        return "an invalid request derived %r" % (derived,)
    return None


def hkdf_accelerated(v):
    return "hkdf" if v.valid else None


test_hkdf_sha256 = wycheproof_test(
    "hkdf_sha256_test.json", "Protocol.KDF", hkdf_scenario, hkdf_judge, hkdf_accelerated
)


# --------------------------------------------------------------------------- PBKDF2


def pbkdf2_scenario(rec, kdf, v):
    sha256 = import_from(kdf.__name__.split(".")[0], "Hash.SHA256")
    rec.call(
        "PBKDF2",
        kdf.PBKDF2,
        v.password,
        v.salt,
        v.dkLen,
        v.iterationCount,
        hmac_hash_module=sha256,
    )


def pbkdf2_judge(v, steps):
    derived = returned(steps, "PBKDF2")
    if v.valid and derived != ("bytes", v.dk):
        return "PBKDF2 gave %r" % (derived or raised(steps, "PBKDF2"),)
    return None


def pbkdf2_accelerated(v):
    # Few iterations go to OpenSSL; from the calibrated threshold on, native is faster.
    return "pbkdf2" if v.iterationCount == 1 else None


test_pbkdf2_hmacsha256 = wycheproof_test(
    "pbkdf2_hmacsha256_test.json", "Protocol.KDF", pbkdf2_scenario, pbkdf2_judge, pbkdf2_accelerated
)
