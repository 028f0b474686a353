"""Wycheproof AES-SIV (deterministic and AEAD) and AES-KWP through pycryptodome's API.

pycryptodome's rules, which the judges below follow: SIV takes each
associated-data component through ``update`` (Wycheproof's ``aad`` is one
component, empty or not) and, for the AEAD form (RFC 5297 section 6), the
nonce as the final component (``nonce=``); a wrong tag raises
``ValueError("MAC check failed")``. KWP (``MODE_KWP``, pycryptodome 4.x)
``seal``s and ``unseal``s; a bad wrapped key raises ``ValueError``.
tests/vectors/wycheproof/ has no aes_wrap or aes_ocb file (RFC 3394 and 7253
vectors are the self-checks' and pycryptodome's own tests').
"""

from __future__ import annotations

import pytest
from wycheproof_vectors import judge_aead, raised, returned, wycheproof_test

from transparency_helpers import RAISED, import_from


@pytest.fixture(autouse=True)
def _native_siv_imports(flavour):
    # Native SIV imports these on first use: imported (and patched) before the
    # native run, not by it (the import hook would patch them mid-run).
    if flavour:
        import_from(flavour, "Hash.CMAC")
        import_from(flavour, "Protocol.KDF")


# --------------------------------------------------------------------------- AES-SIV


def siv_scenario(rec, aes, v, nonce=None):
    """Seal and open one message; ``v.ct`` and ``v.tag`` hold Wycheproof's tag || ciphertext."""
    options = {} if nonce is None else {"nonce": nonce}
    enc = rec.call("new(enc)", aes.new, v.key, aes.MODE_SIV, **options)
    if enc is not RAISED:
        rec.call("update(enc)", enc.update, v.aad)
        rec.call("encrypt_and_digest", enc.encrypt_and_digest, v.msg)
    dec = rec.call("new(dec)", aes.new, v.key, aes.MODE_SIV, **options)
    if dec is not RAISED:
        rec.call("update(dec)", dec.update, v.aad)
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, v.siv_ct, v.siv_tag)


def daead_scenario(rec, aes, v):
    v.siv_tag, v.siv_ct = v.ct[:16], v.ct[16:]
    siv_scenario(rec, aes, v)


def aead_scenario(rec, aes, v):
    v.siv_tag, v.siv_ct = v.tag, v.ct
    siv_scenario(rec, aes, v, nonce=v.iv)


def siv_judge(v, steps):
    # SIV opens whole only: no streamed decrypt()+verify() in the transcript.
    return judge_aead(v, steps, v.siv_ct, v.siv_tag, streamed=False)


def siv_accelerated(v):
    return "aes-siv" if len(v.siv_tag) == 16 else None


test_aes_siv_cmac = wycheproof_test(
    "aes_siv_cmac_test.json", "Cipher.AES", daead_scenario, siv_judge, siv_accelerated
)
test_aead_aes_siv_cmac = wycheproof_test(
    "aead_aes_siv_cmac_test.json", "Cipher.AES", aead_scenario, siv_judge, siv_accelerated
)


# --------------------------------------------------------------------------- AES-KWP


def kwp_scenario(rec, aes, v):
    if not hasattr(aes, "MODE_KWP"):
        rec.note("MODE_KWP", "absent")  # pycryptodome 3.x: nothing to compare
        return
    rec.call("seal", lambda: aes.new(v.key, aes.MODE_KWP).seal(v.msg))
    rec.call("unseal", lambda: aes.new(v.key, aes.MODE_KWP).unseal(v.ct))


def kwp_judge(v, steps):
    if returned(steps, "seal") is None and raised(steps, "seal") is None:
        return None  # no MODE_KWP in this pycryptodome
    opened = returned(steps, "unseal")
    if v.valid:
        if returned(steps, "seal") != ("bytes", v.ct):
            return "seal gave %r" % (returned(steps, "seal") or raised(steps, "seal"),)
        if opened != ("bytes", v.msg):
            return "unseal gave %r" % (opened or raised(steps, "unseal"),)
        return None
    if v.invalid:
        if opened is not None:
            return "an invalid wrapped key was accepted"
        error = raised(steps, "unseal")
        if error is None or error[0] != "builtins.ValueError":
            return "rejected with %r, not ValueError" % (error,)
    return None


def kwp_accelerated(v):
    return "aes-kwp" if v.valid else None


test_aes_kwp = wycheproof_test(
    "aes_kwp_test.json", "Cipher.AES", kwp_scenario, kwp_judge, kwp_accelerated
)
