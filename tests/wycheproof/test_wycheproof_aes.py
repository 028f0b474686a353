"""Wycheproof AES-GCM and AES-CBC-PKCS5 through pycryptodome's API, under the agent.

pycryptodome's rules, which the judges below follow: a GCM nonce may have any
length but zero (``ValueError: Nonce cannot be empty``), tags of 4 to 16
bytes (``mac_len``); a wrong tag raises ``ValueError("MAC check failed")``.
CBC-PKCS5 is ``Crypto.Util.Padding.pad/unpad`` around CBC; a bad padding or
a ciphertext that is not whole blocks raises ``ValueError``.
"""

from __future__ import annotations

from wycheproof_vectors import judge_aead, raised, returned, wycheproof_test

from transparency_helpers import RAISED, import_from

# --------------------------------------------------------------------------- AES-GCM


def gcm_scenario(rec, aes, v):
    mac_len = v.group["tagSize"] // 8
    enc = rec.call("new(enc)", aes.new, v.key, aes.MODE_GCM, nonce=v.iv, mac_len=mac_len)
    if enc is not RAISED:
        rec.call("update(enc)", enc.update, v.aad)
        rec.call("encrypt_and_digest", enc.encrypt_and_digest, v.msg)
    dec = rec.call("new(dec)", aes.new, v.key, aes.MODE_GCM, nonce=v.iv, mac_len=mac_len)
    if dec is not RAISED:
        rec.call("update(dec)", dec.update, v.aad)
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, v.ct, v.tag)
    # The same check in pieces: decrypt() then verify(), the streaming way.
    dec = rec.call("new(dec2)", aes.new, v.key, aes.MODE_GCM, nonce=v.iv, mac_len=mac_len)
    if dec is not RAISED:
        rec.call("update(dec2)", dec.update, v.aad)
        half = len(v.ct) // 2
        rec.call("decrypt(1)", dec.decrypt, v.ct[:half])
        rec.call("decrypt(2)", dec.decrypt, v.ct[half:])
        rec.call("verify", dec.verify, v.tag)


def gcm_accelerated(v):
    # The common shape must go through OpenSSL; exotic nonces may be served natively.
    return "aes-gcm" if len(v.iv) == 12 and v.group["tagSize"] == 128 else None


test_aes_gcm = wycheproof_test(
    "aes_gcm_test.json", "Cipher.AES", gcm_scenario, judge_aead, gcm_accelerated
)


# --------------------------------------------------------------------------- AES-CBC-PKCS5


def cbc_pkcs5_scenario(rec, aes, v):
    padding = import_from(aes.__name__.split(".")[0], "Util.Padding")
    enc = rec.call("new(enc)", aes.new, v.key, aes.MODE_CBC, iv=v.iv)
    if enc is not RAISED:
        rec.call("encrypt", enc.encrypt, padding.pad(v.msg, 16))
    dec = rec.call("new(dec)", aes.new, v.key, aes.MODE_CBC, iv=v.iv)
    if dec is not RAISED:
        padded = rec.call("decrypt", dec.decrypt, v.ct)
        if padded is not RAISED:
            rec.call("unpad", padding.unpad, padded, 16)
    # Decrypting into a caller's buffer, as streaming code does.
    dec = aes.new(v.key, aes.MODE_CBC, iv=v.iv)
    output = bytearray(len(v.ct))
    rec.call("decrypt(output=)", dec.decrypt, v.ct, output=output)
    rec.note("output", bytes(output))


def cbc_pkcs5_judge(v, steps):
    plain = returned(steps, "unpad")
    if v.valid:
        if returned(steps, "encrypt") != ("bytes", v.ct):
            return "encryption gave %r" % (returned(steps, "encrypt") or raised(steps, "encrypt"),)
        if plain != ("bytes", v.msg):
            return "decryption gave %r" % (
                plain or raised(steps, "unpad") or raised(steps, "decrypt"),
            )
        return None
    if v.invalid:
        if plain is not None:
            return "an invalid ciphertext was unpadded to %r" % (plain,)
        error = raised(steps, "unpad") or raised(steps, "decrypt")
        if error is None or error[0] != "builtins.ValueError":
            return "rejected with %r, not ValueError" % (error,)
    return None


def cbc_accelerated(v):
    return "aes-cbc"


test_aes_cbc_pkcs5 = wycheproof_test(
    "aes_cbc_pkcs5_test.json", "Cipher.AES", cbc_pkcs5_scenario, cbc_pkcs5_judge, cbc_accelerated
)
