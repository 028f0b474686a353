"""AES-OCB, AES-SIV, AES-KW and AES-KWP under the agent against native pycryptodome.

Every test builds a scenario and has :func:`both` run it with the agent and
natively: results, exceptions (type and message), attributes and ``output=``
buffers must be identical. Covered: one-shot calls with every nonce length
(OCB 1..15 bytes, SIV none or any), several associated-data components,
tampered tags, ciphertexts, associated data and nonces; streamed calls in
random chunkings (OCB streams natively: the agent hands them over); random
call sequences (misuse, wrong types, calls after a failed verification);
constructor arguments; key wrap with every length around the limits.
"""

from __future__ import annotations

import diff_strategies as ds
import pytest
from aead_tampering import TAG_LENGTH_CHANGES, change_tag_length, flip_byte
from hypothesis import given
from hypothesis import strategies as st

from transparency_helpers import (
    RAISED,
    accelerated_calls,
    both,
    flavours_or_skip,
    import_from,
    require_acceleration,
    with_flavours,
)

FLAVOURS = flavours_or_skip()
AEAD_MODES = ("MODE_OCB", "MODE_SIV")
PRIMITIVE = {
    "MODE_OCB": "aes-ocb",
    "MODE_SIV": "aes-siv",
    "MODE_KW": "aes-kw",
    "MODE_KWP": "aes-kwp",
}
siv_keys = st.sampled_from((32, 48, 64)).flatmap(lambda n: st.binary(min_size=n, max_size=n))
TAMPERINGS = ("none", "none", "ciphertext", "tag", "aad", "nonce", "truncated tag", "extended tag")


@pytest.fixture
def aes(flavour):
    # Native SIV imports these on first use: imported (and patched) now, not in
    # the middle of a native run, where the agent's import hook would patch them.
    import_from(flavour, "Hash.CMAC")
    import_from(flavour, "Protocol.KDF")
    return import_from(flavour, "Cipher.AES")


def _has(aes, mode: str) -> None:
    if not hasattr(aes, mode):
        pytest.skip("%s has no %s (pycryptodome 4.x has it)" % (aes.__name__, mode))


def record_object(rec, label, cipher):
    rec.public_face(label, cipher, ("block_size", "nonce"))


def _new(aes, mode, key, nonce, mac_len=None):
    kwargs = {}
    if nonce is not None:
        kwargs["nonce"] = nonce
    if mac_len is not None:
        kwargs["mac_len"] = mac_len
    return aes.new(key, getattr(aes, mode), **kwargs)


# Native SIV runs S2V in Python: a third of the usual examples keeps this file
# near 20 s of CPU in `make test`; ACCEL_DIFF_EXAMPLES scales it up for a soak.
SETTINGS = ds.scaled(0.3)

# ----------------------------------------------------------------- the accelerated path is taken


@pytest.mark.parametrize("mode", ("MODE_OCB", "MODE_SIV", "MODE_KW", "MODE_KWP"))
@with_flavours
def test_plain_call_is_accelerated(aes, mode):
    """The commonest call shape of each mode goes through the agent's slot, once accelerated."""
    _has(aes, mode)
    primitive = PRIMITIVE[mode]
    why = require_acceleration(primitive)
    with accelerated_calls() as made:
        if mode in ("MODE_KW", "MODE_KWP"):
            wrapped = aes.new(bytes(16), getattr(aes, mode)).seal(bytes(24))
            aes.new(bytes(16), getattr(aes, mode)).unseal(wrapped)
        else:
            key = bytes(32) if mode == "MODE_SIV" else bytes(16)
            cipher = aes.new(key, getattr(aes, mode), nonce=bytes(12))
            cipher.update(b"header")
            ciphertext, tag = cipher.encrypt_and_digest(bytes(64))
            cipher = aes.new(key, getattr(aes, mode), nonce=bytes(12))
            cipher.update(b"header")
            assert cipher.decrypt_and_verify(ciphertext, tag) == bytes(64)
    assert made.get(primitive, 0) >= 2, why


# ----------------------------------------------------------------- one-shot messages


def one_shot(rec, aes, mode, key, nonce, components, blob, kind, tampering, after):
    """Seal, then open (tampered or not), then the calls that may follow, all recorded."""
    enc = rec.call("new(enc)", _new, aes, mode, key, nonce)
    if enc is RAISED:
        return
    record_object(rec, "enc", enc)
    for index, component in enumerate(components):
        rec.call("update(enc) %d" % index, enc.update, ds.make_input(kind, component))
    sealed = rec.call("encrypt_and_digest", enc.encrypt_and_digest, ds.make_input(kind, blob))
    rec.call("digest again", enc.digest)
    rec.call("hexdigest", enc.hexdigest)
    if sealed is RAISED:
        return
    ciphertext, tag = sealed
    if tampering == "ciphertext":
        ciphertext = flip_byte(ciphertext, len(blob) // 2)
    elif tampering == "tag":
        tag = flip_byte(tag, 5)
    elif tampering == "aad" and components:
        components = [flip_byte(components[0])] + list(components[1:])
    elif tampering == "nonce" and nonce is not None:
        nonce = flip_byte(nonce)
    elif tampering in TAG_LENGTH_CHANGES:
        tag = change_tag_length(tampering, tag)
    dec = rec.call("new(dec)", _new, aes, mode, key, nonce)
    if dec is RAISED:
        return
    for index, component in enumerate(components):
        rec.call("update(dec) %d" % index, dec.update, ds.make_input(kind, component))
    rec.call("decrypt_and_verify", dec.decrypt_and_verify, ds.make_input(kind, ciphertext), tag)
    for index, (name, argument) in enumerate(after):
        label = "after %d %s" % (index, name)
        if name == "verify real tag":
            rec.call(label, dec.verify, sealed[1])
        elif name == "verify given tag":
            rec.call(label, dec.verify, tag)
        elif name == "hexverify":
            rec.call(label, dec.hexverify, sealed[1].hex())
        elif name == "verify str":
            rec.call(label, dec.verify, "x" * 16)
        elif name in ("encrypt", "decrypt", "update"):
            rec.call(label, getattr(dec, name), argument)
        elif name in ("digest", "decrypt_and_verify"):
            method = getattr(dec, name)
            rec.call(label, method) if name == "digest" else rec.call(label, method, b"", tag)
    record_object(rec, "dec", dec)


AFTER_CALLS = st.lists(
    st.sampled_from(
        [
            ("verify real tag", None),
            ("verify given tag", None),
            ("hexverify", None),
            ("verify str", None),
            ("encrypt", b"abc"),
            ("decrypt", b"abc"),
            ("update", b"abc"),
            ("digest", None),
            ("decrypt_and_verify", None),
        ]
    ),
    max_size=3,
)


@st.composite
def aead_inputs(draw, mode):
    if mode == "MODE_OCB":
        key = draw(ds.keys)
        nonce_len = draw(st.one_of(st.sampled_from([12, 15]), st.integers(1, 15)))
        nonce = draw(st.binary(min_size=nonce_len, max_size=nonce_len))
        components = draw(st.lists(ds.data(max_size=300), max_size=3))
    else:
        key = draw(siv_keys)
        nonce = draw(st.one_of(st.none(), st.binary(min_size=1, max_size=40)))
        components = draw(st.lists(ds.data(max_size=100), max_size=5))
    blob = draw(ds.data(max_size=4096))
    return key, nonce, components, blob


@pytest.mark.accelerates("aes-ocb")
@with_flavours
@SETTINGS
@given(inputs=aead_inputs("MODE_OCB"), kind=ds.input_kinds, tampering=st.sampled_from(TAMPERINGS),
       after=AFTER_CALLS)  # fmt: skip
def test_ocb_one_shot(aes, inputs, kind, tampering, after):
    key, nonce, components, blob = inputs
    both(one_shot, aes, "MODE_OCB", key, nonce, components, blob, kind, tampering, after)


@pytest.mark.accelerates("aes-siv")
@with_flavours
@SETTINGS
@given(inputs=aead_inputs("MODE_SIV"), kind=ds.input_kinds, tampering=st.sampled_from(TAMPERINGS),
       after=AFTER_CALLS)  # fmt: skip
def test_siv_one_shot(aes, inputs, kind, tampering, after):
    key, nonce, components, blob = inputs
    both(one_shot, aes, "MODE_SIV", key, nonce, components, blob, kind, tampering, after)


@pytest.mark.parametrize("mode", AEAD_MODES)
@pytest.mark.parametrize("nonce_len", range(0, 17))
@with_flavours
def test_every_nonce_length(aes, mode, nonce_len):
    """Every nonce length from 0 to 16 bytes, both directions and a tampered tag."""
    key = bytes(range(32)) if mode == "MODE_SIV" else bytes(range(16))
    nonce = bytes(range(100, 100 + nonce_len))
    for tampering in ("none", "tag"):
        both(one_shot, aes, mode, key, nonce, [b"head"], b"message " * 9, "bytes", tampering, [])


def test_siv_many_components():
    """S2V takes 127 strings at most: the agent serves up to the limit, native judges past it."""
    for flavour in FLAVOURS:
        import_from(flavour, "Protocol.KDF")
        aes = import_from(flavour, "Cipher.AES")
        for count in (125, 126, 127, 128):
            components = [bytes([i]) for i in range(count)]
            for nonce in (None, b"nonce"):
                both(one_shot, aes, "MODE_SIV", bytes(32), nonce, components, b"m", "bytes",
                     "none", [])  # fmt: skip


# ----------------------------------------------------------------- OCB streamed


def ocb_streamed(rec, aes, key, nonce, aad, aad_cuts, blob, enc_cuts, dec_cuts, one_shot_side):
    enc = rec.call("new(enc)", _new, aes, "MODE_OCB", key, nonce)
    if enc is RAISED:
        return
    for piece in ds.split(aad, aad_cuts):
        rec.call("update(enc)", enc.update, piece)
    if one_shot_side == "encrypt":
        sealed = rec.call("encrypt_and_digest", enc.encrypt_and_digest, blob)
        if sealed is RAISED:
            return
        ciphertext, tag = sealed
    else:
        pieces = [rec.call("encrypt", enc.encrypt, piece) for piece in ds.split(blob, enc_cuts)]
        pieces.append(rec.call("encrypt()", enc.encrypt))
        if any(piece is RAISED for piece in pieces):
            return
        ciphertext = b"".join(pieces)
        tag = rec.call("digest", enc.digest)
    dec = rec.call("new(dec)", _new, aes, "MODE_OCB", key, nonce)
    for piece in ds.split(aad, aad_cuts[:1]):
        rec.call("update(dec)", dec.update, piece)
    if one_shot_side == "decrypt":
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, ciphertext, tag)
    else:
        for piece in ds.split(ciphertext, dec_cuts):
            rec.call("decrypt", dec.decrypt, piece)
        rec.call("decrypt()", dec.decrypt)
        rec.call("verify", dec.verify, tag)


@with_flavours
@ds.scaled(0.15)
@given(key=ds.keys, nonce_len=st.integers(1, 15), seed=ds.seeds, blob=ds.data(max_size=4096),
       aad=ds.data(max_size=600), inputs=st.data(),
       one_shot_side=st.sampled_from(["neither", "encrypt", "decrypt"]))  # fmt: skip
def test_ocb_streamed(aes, key, nonce_len, seed, blob, aad, inputs, one_shot_side):
    """Streamed OCB in random chunkings, on one side or both: native output, as it goes."""
    nonce = ds.make_bytes(nonce_len, seed)
    enc_cuts = inputs.draw(ds.cuts(len(blob)))
    dec_cuts = inputs.draw(ds.cuts(len(blob)))
    aad_cuts = inputs.draw(ds.cuts(len(aad)))
    both(ocb_streamed, aes, key, nonce, aad, aad_cuts, blob, enc_cuts, dec_cuts, one_shot_side)


# ----------------------------------------------------------------- call sequences

TAG_KINDS = ("last", "last", "flipped", "truncated", "empty", "bytearray", "memoryview", "str")
OPERATIONS = (
    "update",
    "encrypt",
    "encrypt()",
    "decrypt",
    "decrypt()",
    "digest",
    "hexdigest",
    "verify",
    "hexverify",
    "encrypt_and_digest",
    "decrypt_and_verify",
    "encrypt_and_digest",
    "decrypt_and_verify",
)


@st.composite
def operations(draw):
    return (
        draw(st.sampled_from(OPERATIONS)),
        draw(ds.sizes(300)),
        draw(st.one_of(ds.input_kinds, ds.any_input_kind)),
        draw(st.sampled_from(TAG_KINDS)),
        draw(ds.output_kinds),
        draw(ds.seeds),
    )


def make_tag(kind, last):
    if kind == "flipped":
        return flip_byte(last)
    if kind == "truncated":
        return last[:-1]
    if kind == "empty":
        return b""
    if kind == "bytearray":
        return bytearray(last)
    if kind == "memoryview":
        return memoryview(last)
    if kind == "str":
        return last.hex()
    return last


def run_operations(rec, aes, mode, key, nonce, ops):
    cipher = rec.call("new", _new, aes, mode, key, nonce)
    if cipher is RAISED:
        return
    last_tag = bytes(16)
    for index, (name, size, kind, tag_kind, output_kind, seed) in enumerate(ops):
        label = "%d:%s" % (index, name)
        blob = ds.make_input(kind, ds.make_bytes(size, seed))
        output = ds.make_output(output_kind, size) if mode == "MODE_SIV" else None
        if name in ("encrypt()", "decrypt()"):
            rec.call(label, getattr(cipher, name[:-2]))
        elif name in ("encrypt", "decrypt", "update"):
            rec.call(label, getattr(cipher, name), blob)
        elif name in ("digest", "hexdigest"):
            result = rec.call(label, getattr(cipher, name))
            if isinstance(result, bytes):
                last_tag = result
        elif name == "verify":
            rec.call(label, cipher.verify, make_tag(tag_kind, last_tag))
        elif name == "hexverify":
            rec.call(label, cipher.hexverify, last_tag.hex() if tag_kind == "last" else "zz")
        elif name == "encrypt_and_digest":
            extra = {"output": output} if output is not None else {}
            result = rec.call(label, cipher.encrypt_and_digest, blob, **extra)
            if isinstance(result, tuple):
                last_tag = result[1]
            rec.note(label + " output", ds.output_content(output))
        elif name == "decrypt_and_verify":
            rec.call(label, cipher.decrypt_and_verify, blob, make_tag(tag_kind, last_tag))
    record_object(rec, "end", cipher)


@pytest.mark.parametrize("mode", AEAD_MODES)
@with_flavours
@SETTINGS
@given(seed=ds.seeds, nonce_len=st.one_of(st.just(12), st.integers(0, 16)), inputs=st.data())
def test_call_sequences(aes, mode, seed, nonce_len, inputs):
    """Random call sequences: misuse, wrong types, output= buffers, tags, all as native."""
    key = ds.make_bytes(32 if mode == "MODE_SIV" else 16, seed)
    # No nonce: SIV is deterministic, OCB would draw a random one (b"" is an error there).
    nonce = ds.make_bytes(nonce_len, seed) if nonce_len or mode == "MODE_OCB" else None
    ops = inputs.draw(st.lists(operations(), min_size=1, max_size=6))
    both(run_operations, aes, mode, key, nonce, ops)


# ----------------------------------------------------------------- constructor arguments

NONCES = st.one_of(
    st.integers(0, 16).map(lambda n: bytes(range(n))),
    st.integers(0, 16).map(lambda n: bytearray(range(n))),
    st.integers(0, 16).map(lambda n: memoryview(bytes(range(n)))),
    ds.wrong_values,
)
OPTIONS = {
    "nonce": NONCES,
    "mac_len": st.sampled_from([16, 8, 12, 7, 17, "16", None, 16.0, True]),
    "use_aesni": st.booleans(),
    "threads": st.sampled_from([1, 2, 0, -1, "2"]),
    "msg_len": st.just(4),
    "unknown_option": st.just(1),
}
KEYS = st.one_of(
    st.sampled_from([0, 8, 15, 16, 24, 31, 32, 33, 48, 64, 65]).map(lambda n: bytes(range(n))),
    st.sampled_from([16, 32, 64]).map(lambda n: bytearray(n)),
    st.sampled_from([16, 32, 64]).map(lambda n: memoryview(bytes(n))),
    st.sampled_from(["0123456789abcdef", 16, None]),
)


def construct(rec, aes, mode, key, args, kwargs):
    if not hasattr(aes, mode):
        return
    cipher = rec.call("new", aes.new, key, getattr(aes, mode), *args, **kwargs)
    if cipher is RAISED:
        return
    given_nonce = bool(args) or kwargs.get("nonce") is not None
    random_nonce = mode == "MODE_OCB" and not given_nonce
    shape_only = ("nonce",) if random_nonce else ()
    rec.attributes("new", cipher, ("block_size", "nonce"), shape_only=shape_only)
    rec.note("public names", sorted(n for n in dir(cipher) if not n.startswith("_")))
    if random_nonce:
        return
    if mode in ("MODE_KW", "MODE_KWP"):
        rec.call("seal", cipher.seal, bytes(24))
    else:
        rec.call("encrypt_and_digest", cipher.encrypt_and_digest, bytes(40))


@pytest.mark.parametrize("mode", ("MODE_OCB", "MODE_SIV", "MODE_KW", "MODE_KWP"))
@with_flavours
@SETTINGS
@given(key=KEYS, names=st.lists(st.sampled_from(sorted(OPTIONS)), unique=True, max_size=3),
       positional=st.one_of(st.just(()), st.lists(NONCES, max_size=2).map(tuple)),
       inputs=st.data())  # fmt: skip
def test_constructor_arguments(aes, mode, key, names, positional, inputs):
    """AES.new with valid, invalid, missing, extra and mistyped arguments: same object or error."""
    kwargs = {name: inputs.draw(OPTIONS[name]) for name in names}
    both(construct, aes, mode, key, positional, kwargs)


# ----------------------------------------------------------------- key wrap


def key_wrap(rec, aes, mode, key, blob, kind, tampering, calls):
    sealer = rec.call("new", aes.new, key, getattr(aes, mode))
    if sealer is RAISED:
        return
    record_object(rec, "new", sealer)
    wrapped = rec.call("seal", sealer.seal, ds.make_input(kind, blob))
    rec.call("seal again", sealer.seal, ds.make_input(kind, blob))
    if wrapped is RAISED:
        wrapped = blob  # unseal something all the same: errors on lengths and types
    if tampering == "flip":
        wrapped = flip_byte(wrapped, len(wrapped) - 1)
    elif tampering == "truncate":
        wrapped = wrapped[:-8]
    elif tampering == "extend":
        wrapped = wrapped + bytes(8)
    opener = aes.new(key, getattr(aes, mode))
    rec.call("unseal", opener.unseal, ds.make_input(kind, wrapped))
    for index, name in enumerate(calls):
        argument = ds.make_input(kind, wrapped if name == "unseal" else blob)
        rec.call("%d %s" % (index, name), getattr(opener, name), argument)


@pytest.mark.parametrize("mode", ("MODE_KW", "MODE_KWP"))
@with_flavours
@SETTINGS
@given(key=ds.keys, blob=st.one_of(ds.data(max_size=80), ds.data(max_size=2048)),
       kind=st.one_of(st.sampled_from(ds.PLAIN_INPUTS), ds.any_input_kind),
       tampering=st.sampled_from(["none", "none", "flip", "truncate", "extend"]),
       calls=st.lists(st.sampled_from(["seal", "unseal"]), max_size=3))  # fmt: skip
def test_key_wrap(aes, mode, key, blob, kind, tampering, calls):
    _has(aes, mode)
    both(key_wrap, aes, mode, key, blob, kind, tampering, calls)


@pytest.mark.parametrize("mode", ("MODE_KW", "MODE_KWP"))
@with_flavours
def test_key_wrap_every_length(aes, mode):
    """Every length from 0 to 72 bytes, wrapped, unwrapped and tampered."""
    _has(aes, mode)
    for length in range(73):
        blob = bytes(range(length))
        for tampering in ("none", "flip"):
            both(key_wrap, aes, mode, bytes(range(16)), blob, "bytes", tampering, ["unseal"])
