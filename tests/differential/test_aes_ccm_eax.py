"""AES-CCM and AES-EAX under the agent against native pycryptodome: what test_aes_modes lacks.

test_aes_modes.py runs both modes through its generic table (round trips,
call sequences, output buffers, constructor arguments, random nonces).
Here: CCM streamed with declared ``msg_len``/``assoc_len`` in random
chunkings (and declared lengths that do not match), every nonce length and
tag length of both modes, tampered messages and tags verified every way
pycryptodome allows, a second ``verify`` after a failed one, and the
message-length limit of each CCM nonce length.
"""

from __future__ import annotations

import pytest
from aead_tampering import (
    AEAD_TAMPERINGS,
    AEAD_VERIFICATIONS,
    TAG_LENGTH_CHANGES,
    change_tag_length,
    flip_byte,
    open_sealed,
)
from diff_strategies import FakeLength, cuts, data, keys, scaled, split
from hypothesis import given
from hypothesis import strategies as st

from transparency_helpers import RAISED, both, flavours_or_skip, import_from, with_flavours

flavours_or_skip()
CCM_TAGS = (4, 6, 8, 10, 12, 14, 16)


@pytest.fixture
def aes(flavour):
    return import_from(flavour, "Cipher.AES")


# ------------------------------------------------------------ CCM streamed with declared lengths


def ccm_declared(rec, aes, key, nonce, mac_len, aad, blob, aad_cuts, enc_cuts, dec_cuts, declared):
    """Declared msg_len/assoc_len (right, or off by one), data in pieces, both directions."""
    msg_len, assoc_len = declared
    kwargs = {"nonce": nonce, "mac_len": mac_len}
    if msg_len is not None:
        kwargs["msg_len"] = msg_len
    if assoc_len is not None:
        kwargs["assoc_len"] = assoc_len
    enc = rec.call("new(enc)", aes.new, key, aes.MODE_CCM, **kwargs)
    if enc is RAISED:
        return
    for piece in split(aad, aad_cuts):
        rec.call("update(enc)", enc.update, piece)
    pieces = []
    for piece in split(blob, enc_cuts):
        out = rec.call("encrypt", enc.encrypt, piece)
        if out is not RAISED:
            pieces.append(out)
    tag = rec.call("digest", enc.digest)
    dec = rec.call("new(dec)", aes.new, key, aes.MODE_CCM, **kwargs)
    for piece in split(aad, aad_cuts[:1]):
        rec.call("update(dec)", dec.update, piece)
    ciphertext = b"".join(pieces)
    for piece in split(ciphertext, dec_cuts):
        rec.call("decrypt", dec.decrypt, piece)
    if tag is not RAISED:
        rec.call("verify", dec.verify, tag)
    whole = rec.call("new(whole)", aes.new, key, aes.MODE_CCM, **kwargs)
    rec.call("update(whole)", whole.update, aad)
    rec.call("encrypt_and_digest", whole.encrypt_and_digest, blob)


@st.composite
def declared_inputs(draw):
    nonce = draw(st.integers(7, 13).flatmap(lambda n: st.binary(min_size=n, max_size=n)))
    mac_len = draw(st.sampled_from(CCM_TAGS))
    aad = draw(data(max_size=600))
    blob = draw(data(max_size=min(4096, 2 ** (8 * (15 - len(nonce))) - 1)))
    exact = (len(blob), len(aad))
    msg_len = draw(st.sampled_from([exact[0], exact[0], None, exact[0] + 1, max(0, exact[0] - 1)]))
    assoc_len = draw(
        st.sampled_from([exact[1], exact[1], None, exact[1] + 1, max(0, exact[1] - 1)])
    )
    return (
        nonce,
        mac_len,
        aad,
        blob,
        draw(cuts(len(aad))),
        draw(cuts(len(blob))),
        draw(cuts(len(blob))),
        (msg_len, assoc_len),
    )


@pytest.mark.accelerates("aes-ccm")
@with_flavours
@scaled(0.5)
@given(key=keys, inputs=declared_inputs())
def test_ccm_declared_lengths_streamed(aes, key, inputs):
    both(ccm_declared, aes, key, *inputs)


# ----------------------------------------------------------------- tags and tampering, both modes

TAMPERINGS = AEAD_TAMPERINGS + ("bytearray tag", "memoryview tag")
VERIFICATIONS = AEAD_VERIFICATIONS + (
    "chunked+verify",
    "verify twice",
    "decrypt_and_verify then verify",
    "verify before decrypt",
)


def tamper(rec, aes, mode_name, key, nonce, mac_len, aad, blob, tampering, verification, where):
    mode = getattr(aes, mode_name)
    enc = rec.call("new(enc)", aes.new, key, mode, nonce=nonce, mac_len=mac_len)
    if enc is RAISED:
        return
    if aad:
        rec.call("update(enc)", enc.update, aad)
    sealed = rec.call("encrypt_and_digest", enc.encrypt_and_digest, blob)
    if sealed is RAISED:
        return
    ciphertext, tag = sealed
    if tampering == "ciphertext":
        ciphertext = flip_byte(ciphertext, where)
    elif tampering == "tag":
        tag = flip_byte(tag, where)
    elif tampering == "aad":
        aad = flip_byte(aad, where)
    elif tampering == "nonce":
        nonce = flip_byte(nonce, where)
    elif tampering in TAG_LENGTH_CHANGES:
        tag = change_tag_length(tampering, tag)
    elif tampering == "missing aad":
        aad = b""
    elif tampering == "bytearray tag":
        tag = bytearray(tag)
    elif tampering == "memoryview tag":
        tag = memoryview(tag)
    dec = rec.call("new(dec)", aes.new, key, mode, nonce=nonce, mac_len=mac_len)
    if aad:
        rec.call("update(dec)", dec.update, aad)
    if verification in AEAD_VERIFICATIONS:
        open_sealed(rec, dec, verification, ciphertext, tag)
    elif verification == "chunked+verify":
        cut = where % (len(ciphertext) + 1)
        rec.call("decrypt(1)", dec.decrypt, ciphertext[:cut])
        rec.call("decrypt(2)", dec.decrypt, ciphertext[cut:])
        rec.call("verify", dec.verify, tag)
    elif verification == "verify twice":
        rec.call("decrypt", dec.decrypt, ciphertext)
        rec.call("verify(1)", dec.verify, tag)
        rec.call("verify(2)", dec.verify, tag)
        rec.call("verify(3)", dec.verify, bytes(mac_len))
    elif verification == "decrypt_and_verify then verify":
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, ciphertext, tag)
        rec.call("verify(original tag)", dec.verify, sealed[1])
        rec.call("decrypt after", dec.decrypt, ciphertext)
    elif verification == "verify before decrypt":
        rec.call("verify", dec.verify, tag)
        rec.call("decrypt", dec.decrypt, ciphertext)
        rec.call("digest", dec.digest)


@pytest.mark.accelerates("aes-ccm")
@with_flavours
@pytest.mark.parametrize("nonce_len", range(7, 14))
@scaled(0.25)
@given(
    key=keys,
    mac_len=st.sampled_from(CCM_TAGS),
    aad=data(max_size=300),
    blob=data(max_size=2048),
    tampering=st.sampled_from(TAMPERINGS),
    verification=st.sampled_from(VERIFICATIONS),
    where=st.integers(0, 2**16),
    nonce=st.binary(min_size=13, max_size=13),
)
def test_ccm_every_nonce_length_tampered(
    aes, nonce_len, key, mac_len, aad, blob, tampering, verification, where, nonce
):
    both(tamper, aes, "MODE_CCM", key, nonce[:nonce_len], mac_len, aad, blob, tampering,
         verification, where)  # fmt: skip


@pytest.mark.accelerates("aes-eax")
@with_flavours
@pytest.mark.parametrize("nonce_len", [1, 2, 7, 8, 12, 13, 15, 16, 17, 32, 64])
@scaled(0.25)
@given(
    key=keys,
    mac_len=st.integers(2, 16),
    aad=data(max_size=300),
    blob=data(max_size=2048),
    tampering=st.sampled_from(TAMPERINGS),
    verification=st.sampled_from(VERIFICATIONS),
    where=st.integers(0, 2**16),
    nonce=st.binary(min_size=64, max_size=64),
)
def test_eax_every_nonce_length_tampered(
    aes, nonce_len, key, mac_len, aad, blob, tampering, verification, where, nonce
):
    both(tamper, aes, "MODE_EAX", key, nonce[:nonce_len], mac_len, aad, blob, tampering,
         verification, where)  # fmt: skip


# ----------------------------------------------------------------- EAX streamed in random chunkings


def eax_streamed(rec, aes, key, nonce, mac_len, aad, blob, aad_cuts, enc_cuts, dec_cuts):
    enc = rec.call("new(enc)", aes.new, key, aes.MODE_EAX, nonce=nonce, mac_len=mac_len)
    for piece in split(aad, aad_cuts):
        rec.call("update(enc)", enc.update, piece)
    pieces = [rec.call("encrypt", enc.encrypt, piece) for piece in split(blob, enc_cuts)]
    tag = rec.call("digest", enc.digest)
    rec.call("hexdigest", enc.hexdigest)
    dec = rec.call("new(dec)", aes.new, key, aes.MODE_EAX, nonce=nonce, mac_len=mac_len)
    for piece in split(aad, aad_cuts[::-1]):
        rec.call("update(dec)", dec.update, piece)
    for piece in split(b"".join(pieces), dec_cuts):
        rec.call("decrypt", dec.decrypt, piece)
    rec.call("verify", dec.verify, tag)


@pytest.mark.accelerates("aes-eax")
@with_flavours
@scaled(0.5)
@given(
    key=keys,
    nonce=st.binary(min_size=1, max_size=40),
    mac_len=st.integers(2, 16),
    inputs=st.data(),
)
def test_eax_streamed(aes, key, nonce, mac_len, inputs):
    aad = inputs.draw(data(max_size=600))
    blob = inputs.draw(data(max_size=8192))
    both(eax_streamed, aes, key, nonce, mac_len, aad, blob, inputs.draw(cuts(len(aad))),
         inputs.draw(cuts(len(blob))), inputs.draw(cuts(len(blob))))  # fmt: skip


# ----------------------------------------------------------------- CCM length limits per nonce


def ccm_limit(rec, aes, nonce_len, length, method_name, declared):
    kwargs = {"nonce": bytes(nonce_len)}
    if declared:
        kwargs["msg_len"] = length
    cipher = rec.call("new", aes.new, bytes(16), aes.MODE_CCM, **kwargs)
    if cipher is RAISED:
        return
    if declared:
        rec.call(method_name, getattr(cipher, method_name), b"")
        return
    if length > 4096:
        rec.call(method_name, getattr(cipher, method_name), FakeLength(length))
    else:
        rec.call(method_name, getattr(cipher, method_name), bytes(length))


@with_flavours
@pytest.mark.parametrize("nonce_len", range(7, 14))
@pytest.mark.parametrize("method", ["encrypt", "decrypt"])
@pytest.mark.parametrize("declared", [False, True])
def test_ccm_length_limit(aes, nonce_len, method, declared):
    """At and past the longest message each nonce length can encode: same object or same error."""
    limit = 2 ** (8 * (15 - nonce_len))
    for length in (limit - 1, limit):
        both(ccm_limit, aes, nonce_len, length, method, declared)


# ----------------------------------------------------------------- CCM: the whole declared message


def ccm_whole_declared(rec, aes, key, blob, aad, follow_ups, output_kind):
    """One call with the whole declared msg_len, then what native allows (or refuses) after it."""
    kwargs = {"nonce": bytes(11), "msg_len": len(blob), "assoc_len": len(aad)}
    enc = aes.new(key, aes.MODE_CCM, **kwargs)
    enc.update(aad)
    ciphertext = rec.call("encrypt", enc.encrypt, blob)
    for index, piece in enumerate(follow_ups):
        output = bytearray(len(piece)) if output_kind else None
        rec.call("encrypt %d" % index, enc.encrypt, piece, output=output)
    rec.call("update late", enc.update, b"x")
    tag = rec.call("digest", enc.digest)
    rec.call("encrypt after digest", enc.encrypt, b"")
    dec = aes.new(key, aes.MODE_CCM, **kwargs)
    dec.update(aad)
    rec.call("decrypt", dec.decrypt, ciphertext)
    for index, piece in enumerate(follow_ups):
        rec.call("decrypt %d" % index, dec.decrypt, piece)
    rec.call("digest on decryption", dec.digest)
    rec.call("verify", dec.verify, tag)
    rec.call("verify again", dec.verify, tag)
    rec.call("decrypt after verify", dec.decrypt, b"")


@pytest.mark.accelerates("aes-ccm")
@with_flavours
@scaled(0.25)
@given(
    key=keys,
    blob=data(max_size=3000),
    aad=data(max_size=100),
    follow_ups=st.lists(st.sampled_from([b"", b"x", bytes(17)]), max_size=3),
    output_kind=st.booleans(),
)
def test_ccm_whole_declared_message(aes, key, blob, aad, follow_ups, output_kind):
    both(ccm_whole_declared, aes, key, blob, aad, follow_ups, output_kind)
