"""Wycheproof AES-CCM and AES-EAX through pycryptodome's API, under the agent.

pycryptodome's rules, which the judge follows: a CCM nonce of 7 to 13
bytes and an even tag of 4 to 16 (else ``ValueError`` at ``new``); an EAX
nonce of any length but zero and a tag of 2 to 16 bytes; a wrong tag
raises ``ValueError("MAC check failed")``. Each vector is opened whole
(``decrypt_and_verify``) and in pieces (``decrypt`` twice, ``verify``:
CCM needs ``msg_len`` declared for that), and each valid one sealed.
"""

from __future__ import annotations

import pytest
from wycheproof_vectors import judge_aead, wycheproof_test

from transparency_helpers import RAISED, import_from, installed_flavours


@pytest.fixture(autouse=True)
def _cmac_imported_under_the_agent():
    # Native EAX imports Hash.CMAC; imported first inside a native run, the
    # agent's import hook would patch it there and the run would not be native.
    for flavour in installed_flavours():
        import_from(flavour, "Hash.CMAC")


def make_scenario(mode_name: str):
    def scenario(rec, aes, v):
        mode = getattr(aes, mode_name)
        kwargs = {"nonce": v.iv, "mac_len": v.group["tagSize"] // 8}
        enc = rec.call("new(enc)", aes.new, v.key, mode, **kwargs)
        if enc is not RAISED:
            rec.call("update(enc)", enc.update, v.aad)
            rec.call("encrypt_and_digest", enc.encrypt_and_digest, v.msg)
        dec = rec.call("new(dec)", aes.new, v.key, mode, **kwargs)
        if dec is not RAISED:
            rec.call("update(dec)", dec.update, v.aad)
            rec.call("decrypt_and_verify", dec.decrypt_and_verify, v.ct, v.tag)
        if mode_name == "MODE_CCM":
            kwargs.update(msg_len=len(v.ct), assoc_len=len(v.aad))
        dec = rec.call("new(dec2)", aes.new, v.key, mode, **kwargs)
        if dec is not RAISED:
            half = len(v.aad) // 2
            rec.call("update(dec2, 1)", dec.update, v.aad[:half])
            rec.call("update(dec2, 2)", dec.update, v.aad[half:])
            half = len(v.ct) // 2
            rec.call("decrypt(1)", dec.decrypt, v.ct[:half])
            rec.call("decrypt(2)", dec.decrypt, v.ct[half:])
            rec.call("verify", dec.verify, v.tag)

    return scenario


def ccm_accelerated(v):
    # Every nonce and tag pycryptodome accepts goes through OpenSSL.
    valid_shape = 7 <= len(v.iv) <= 13 and v.group["tagSize"] // 8 in (4, 6, 8, 10, 12, 14, 16)
    return "aes-ccm" if valid_shape and len(v.key) in (16, 24, 32) else None


def eax_accelerated(v):
    return "aes-eax" if v.iv and len(v.key) in (16, 24, 32) else None


test_aes_ccm = wycheproof_test(
    "aes_ccm_test.json", "Cipher.AES", make_scenario("MODE_CCM"), judge_aead, ccm_accelerated
)
test_aes_eax = wycheproof_test(
    "aes_eax_test.json", "Cipher.AES", make_scenario("MODE_EAX"), judge_aead, eax_accelerated
)
