"""ChaCha20, ChaCha20-Poly1305 and XChaCha20-Poly1305 under the agent against native pycryptodome.

Every test builds a scenario (see :mod:`transparency_helpers`) and has
:func:`both` run it with the agent and natively: results, exceptions (type
and message), attributes and ``output=`` buffers must be identical. Nonces
of every length pycryptodome knows (8, 12 and 24 bytes) and of lengths it
rejects; data streamed in random chunkings; ``seek()`` anywhere, the end of
the key stream included; tags tampered, truncated, of the wrong type.
"""

from __future__ import annotations

import diff_strategies as ds
import pytest
from hypothesis import given
from hypothesis import strategies as st

from transparency_helpers import (
    RAISED,
    Recorder,
    accelerated_calls,
    both,
    flavours_or_skip,
    import_from,
    require_acceleration,
    with_flavours,
)

flavours_or_skip()

BLOCK = 64
END_12 = BLOCK << 32  # the key stream of a 12-byte (and XChaCha20's) nonce
END_8 = BLOCK << 64  # the key stream of an 8-byte nonce
keys = st.binary(min_size=32, max_size=32)
nonce_lengths = st.sampled_from([8, 12, 24])


@pytest.fixture
def chacha(flavour):
    return import_from(flavour, "Cipher.ChaCha20")


@pytest.fixture
def aead(flavour):
    return import_from(flavour, "Cipher.ChaCha20_Poly1305")


def public_face(rec: Recorder, label: str, cipher, random_nonce: bool = False) -> None:
    rec.public_face(label, cipher, ("nonce", "block_size"), ("nonce",) if random_nonce else ())


# ----------------------------------------------------------------- the accelerated path is taken


@with_flavours
@pytest.mark.parametrize("nonce_len", [8, 12, 24])
def test_plain_calls_are_accelerated(chacha, aead, nonce_len):
    primitives = ["chacha20", "xchacha20-poly1305" if nonce_len == 24 else "chacha20-poly1305"]
    for primitive in primitives:
        require_acceleration(primitive)
    with accelerated_calls() as made:
        chacha.new(key=bytes(32), nonce=bytes(nonce_len)).encrypt(bytes(100))
        cipher = aead.new(key=bytes(32), nonce=bytes(nonce_len))
        cipher.update(b"header")
        cipher.encrypt_and_digest(bytes(100))
    assert all(made.get(p) for p in primitives), made


# ----------------------------------------------------------------- ChaCha20 streams and seek()


@st.composite
def positions(draw, nonce_len: int):
    """seek() targets: small, block edges, the end of the key stream, and invalid ones."""
    end = END_8 if nonce_len == 8 else END_12
    return draw(
        st.one_of(
            st.integers(0, 5 * BLOCK),
            st.integers(0, 40).map(lambda b: b * BLOCK),
            st.integers(-3 * BLOCK, 2 * BLOCK).map(lambda d: end + d),
            # where OpenSSL's 32-bit counter word is full (8-byte nonces carry on)
            st.integers(-3 * BLOCK, 3 * BLOCK).map(lambda d: END_12 + d),
            st.sampled_from([-1, -BLOCK, END_8 + 5, 2**80, 2**64]),
            st.sampled_from([1.5, "64", None, True, 2.0]),
        )
    )


@st.composite
def stream_ops(draw, nonce_len: int, exotic: bool):
    ops = []
    kinds = ds.any_input_kind if exotic else ds.input_kinds
    for _ in range(draw(st.integers(1, 7))):
        what = draw(st.sampled_from(["encrypt", "decrypt", "seek", "encrypt", "encrypt"]))
        if what == "seek":
            ops.append(("seek", draw(positions(nonce_len))))
        else:
            out = draw(ds.output_kinds) if exotic else draw(st.sampled_from(["none", "bytearray"]))
            ops.append((what, draw(kinds), draw(ds.sizes(3000)), draw(ds.seeds), out))
    return ops


def chacha_stream(rec, chacha, key, nonce, ops):
    cipher = rec.call("new", chacha.new, key=key, nonce=nonce)
    if cipher is RAISED:
        return
    public_face(rec, "new", cipher)
    for op in ops:
        if op[0] == "seek":
            rec.call("seek", cipher.seek, op[1])
            continue
        method, kind, size, seed, out_kind = op
        blob = ds.make_bytes(size, seed)
        output = ds.make_output(out_kind, size)
        rec.call(method, getattr(cipher, method), ds.make_input(kind, blob), output=output)
        rec.note(method + " output", ds.output_content(output))


@pytest.mark.accelerates("chacha20")
@with_flavours
@ds.DIFF_SETTINGS
@given(key=keys, nonce_len=nonce_lengths, inputs=st.data())
def test_chacha20_streams(chacha, key, nonce_len, inputs):
    """Random chunkings, directions, seeks (end of key stream included): plain buffers."""
    nonce = ds.make_bytes(nonce_len, 7)
    ops = inputs.draw(stream_ops(nonce_len, exotic=False))
    both(chacha_stream, chacha, key, nonce, ops)


@with_flavours
@ds.scaled(0.5)
@given(key=keys, nonce_len=nonce_lengths, inputs=st.data())
def test_chacha20_exotic_inputs(chacha, key, nonce_len, inputs):
    """Wrong types, strided and multi-byte memoryviews, bad output= buffers: as native."""
    nonce = ds.make_bytes(nonce_len, 9)
    ops = inputs.draw(stream_ops(nonce_len, exotic=True))
    both(chacha_stream, chacha, key, nonce, ops)


@pytest.mark.accelerates("chacha20")
@with_flavours
@ds.DIFF_SETTINGS
@given(key=keys, nonce_len=nonce_lengths, blob=ds.data(20000), inputs=st.data())
def test_chacha20_roundtrip_in_chunks(chacha, key, nonce_len, blob, inputs):
    nonce = ds.make_bytes(nonce_len, 11)
    enc_cuts = inputs.draw(ds.cuts(len(blob)))
    dec_cuts = inputs.draw(ds.cuts(len(blob)))

    def scenario(rec, chacha):
        enc = chacha.new(key=key, nonce=nonce)
        ciphertext = b"".join(rec.call("encrypt", enc.encrypt, p) for p in ds.split(blob, enc_cuts))
        dec = chacha.new(key=key, nonce=nonce)
        rec.call(
            "decrypt", lambda: b"".join(dec.decrypt(p) for p in ds.split(ciphertext, dec_cuts))
        )

    both(scenario, chacha)


def key_stream_end(rec, chacha, key, nonce, back, sizes_, method):
    """Up to and past the end of the key stream (MessageTooLongError / OverflowError natively)."""
    end = END_8 if len(nonce) == 8 else END_12
    cipher = chacha.new(key=key, nonce=nonce)
    rec.call("seek", cipher.seek, end - back)
    for size in sizes_:
        output = bytearray(size)
        rec.call(method, getattr(cipher, method), bytes(size), output=output)
        rec.note("output", ds.output_content(output))
        rec.call(method, getattr(cipher, method), bytes(size))
    rec.call("empty", getattr(cipher, method), b"")


@with_flavours
@ds.scaled(0.5)
@given(
    key=keys,
    nonce_len=nonce_lengths,
    back=st.one_of(st.integers(0, 3 * BLOCK), st.sampled_from([64, 128, 5 + 128])),
    sizes_=st.lists(st.integers(0, 200), min_size=1, max_size=5),
    method=st.sampled_from(["encrypt", "decrypt"]),
)
def test_chacha20_end_of_key_stream(chacha, key, nonce_len, back, sizes_, method):
    both(key_stream_end, chacha, key, ds.make_bytes(nonce_len, back), back, sizes_, method)


@pytest.mark.accelerates("chacha20")
@with_flavours
@ds.scaled(0.5)
@given(
    key=keys,
    before=st.integers(-200, 200),
    size=st.integers(0, 600),
)
def test_chacha20_64_bit_counter_carries(chacha, key, before, size):
    """8-byte nonce across a multiple of 2**32 blocks (OpenSSL's counter word): as native."""

    def scenario(rec, chacha):
        cipher = chacha.new(key=key, nonce=ds.make_bytes(8, 3))
        rec.call("seek", cipher.seek, END_12 + before)
        rec.call("encrypt", cipher.encrypt, ds.make_bytes(size, 5))
        rec.call("encrypt more", cipher.encrypt, ds.make_bytes(size, 6))

    both(scenario, chacha)


# ----------------------------------------------------------------- constructor arguments


@st.composite
def new_calls(draw, aead_module: bool):
    """new(...) calls: valid and invalid keys, nonces, extra keywords, positional arguments."""
    kwargs = {}
    key_len = draw(st.sampled_from([32, 32, 32, 0, 16, 31, 33]))
    key_kind = draw(st.sampled_from(["bytes", "bytearray", "memoryview", "wrong", "absent"]))
    if key_kind == "wrong":
        kwargs["key"] = draw(ds.wrong_values)
    elif key_kind != "absent":
        kwargs["key"] = ("buffer", key_kind, key_len)
    nonce_kind = draw(st.sampled_from(["bytes", "bytearray", "memoryview", "wrong", "absent"]))
    nonce_len = draw(st.one_of(st.sampled_from([8, 12, 24]), st.integers(0, 33)))
    if nonce_kind == "wrong":
        kwargs["nonce"] = draw(ds.wrong_values)
    elif nonce_kind != "absent":
        kwargs["nonce"] = ("buffer", nonce_kind, nonce_len)
    if draw(st.integers(0, 4)) == 0:
        name = "threads" if not aead_module else draw(st.sampled_from(["threads", "mac_len"]))
        kwargs[name] = draw(st.sampled_from([1, 0, 2, -1, "2", None]))
    if draw(st.integers(0, 9)) == 0:
        kwargs["foo"] = 1
    args = (("buffer", "bytes", 32),) if draw(st.integers(0, 9)) == 0 else ()
    return args, kwargs


def build_argument(value, seed: int):
    if isinstance(value, tuple) and value and value[0] == "buffer":
        _, kind, length = value
        return ds.make_input(kind, ds.make_bytes(length, seed))
    return value


def construct(rec, module, args, kwargs, use):
    built_args = [build_argument(a, i) for i, a in enumerate(args)]
    built = {k: build_argument(v, len(k)) for k, v in kwargs.items()}
    cipher = rec.call("new", module.new, *built_args, **built)
    if cipher is RAISED:
        return
    public_face(rec, "new", cipher, random_nonce=kwargs.get("nonce") is None)
    use(rec, cipher)


@with_flavours
@ds.DIFF_SETTINGS
@given(call=new_calls(aead_module=False))
def test_chacha20_constructor_arguments(chacha, call):
    args, kwargs = call
    random_nonce = "nonce" not in kwargs or kwargs.get("nonce") is None

    def use(rec, cipher):
        result = rec.call("encrypt", cipher.encrypt, bytes(70))
        if random_nonce:
            rec.steps[-1] = ("encrypt", "shape", type(result).__name__)

    both(construct, chacha, args, kwargs, use)


@with_flavours
@ds.DIFF_SETTINGS
@given(call=new_calls(aead_module=True))
def test_aead_constructor_arguments(aead, call):
    args, kwargs = call
    random_nonce = "nonce" not in kwargs or kwargs.get("nonce") is None

    def use(rec, cipher):
        rec.call("update", cipher.update, b"aad")
        ct = rec.call("encrypt", cipher.encrypt, bytes(70))
        tag = rec.call("digest", cipher.digest)
        if random_nonce:
            rec.steps[-2:] = [
                ("encrypt", "shape", type(ct).__name__),
                ("digest", "shape", type(tag).__name__),
            ]

    both(construct, aead, args, kwargs, use)


# ----------------------------------------------------------------- AEAD: messages and tags

TAMPERINGS = ("none", "ciphertext", "aad", "tag", "tag-truncated", "tag-extended")
VERIFICATIONS = (
    "decrypt_and_verify",
    "decrypt+verify",
    "decrypt+hexverify",
    "chunks+verify",
    "decrypt_and_verify-bytearray",
    "decrypt_and_verify-memoryview",
)


def aead_message(rec, aead, key, nonce, aad_parts, blob, enc_cuts, tampering, verification):
    enc = rec.call("new", aead.new, key=key, nonce=nonce)
    if enc is RAISED:
        return
    public_face(rec, "new", enc)
    for part in aad_parts:
        rec.call("update", enc.update, part)
    if enc_cuts is None:
        result = rec.call("encrypt_and_digest", enc.encrypt_and_digest, blob)
        if result is RAISED:
            return
        ciphertext, tag = result
    else:
        pieces = [rec.call("encrypt", enc.encrypt, p) for p in ds.split(blob, enc_cuts)]
        ciphertext = b"".join(pieces)
        tag = rec.call("digest", enc.digest)
    rec.call("hexdigest", enc.hexdigest)
    rec.call("digest again", enc.digest)
    rec.call("update after digest", enc.update, b"x")
    rec.call("decrypt after encrypt", enc.decrypt, b"x")

    aad = b"".join(aad_parts)
    if tampering == "ciphertext" and ciphertext:
        ciphertext = ciphertext[:-1] + bytes([ciphertext[-1] ^ 1])
    elif tampering == "aad":
        aad = aad + b"!"
    elif tampering == "tag":
        tag = tag[:3] + bytes([tag[3] ^ 0x10]) + tag[4:]
    elif tampering == "tag-truncated":
        tag = tag[:12]
    elif tampering == "tag-extended":
        tag = tag + b"\x00"

    dec = aead.new(key=key, nonce=nonce)
    if aad:
        rec.call("update", dec.update, aad)
    if verification.startswith("decrypt_and_verify"):
        if verification.endswith("bytearray"):
            ciphertext, tag = bytearray(ciphertext), bytearray(tag)
        elif verification.endswith("memoryview"):
            ciphertext, tag = memoryview(ciphertext), memoryview(tag)
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, ciphertext, tag)
    elif verification == "chunks+verify":
        for piece in ds.split(ciphertext, enc_cuts or [len(ciphertext) // 2]):
            rec.call("decrypt", dec.decrypt, piece)
        rec.call("verify", dec.verify, tag)
    else:
        rec.call("decrypt", dec.decrypt, ciphertext)
        if verification.endswith("hexverify"):
            rec.call("hexverify", dec.hexverify, tag.hex())
        else:
            rec.call("verify", dec.verify, tag)
    rec.call("verify again", dec.verify, tag)
    rec.call("digest after verify", dec.digest)
    rec.call("encrypt after verify", dec.encrypt, b"x")


@pytest.mark.accelerates("chacha20-poly1305")
@with_flavours
@ds.DIFF_SETTINGS
@given(
    key=keys,
    nonce_len=st.sampled_from([8, 12]),
    aad_parts=st.lists(ds.data(300), max_size=3),
    blob=ds.data(20000),
    inputs=st.data(),
    tampering=st.sampled_from(TAMPERINGS),
    verification=st.sampled_from(VERIFICATIONS),
)
def test_chacha20_poly1305_messages(
    aead, key, nonce_len, aad_parts, blob, inputs, tampering, verification
):
    """One-shot and streamed, every verification path, tampered parts: as native."""
    enc_cuts = inputs.draw(st.one_of(st.none(), ds.cuts(len(blob))))
    nonce = ds.make_bytes(nonce_len, len(blob))
    both(aead_message, aead, key, nonce, aad_parts, blob, enc_cuts, tampering, verification)


# Whole messages up to 64 KiB go to the one-shot AEAD call, longer ones stream.
@pytest.mark.accelerates("chacha20-poly1305")
@with_flavours
@pytest.mark.parametrize("size", [64 * 1024, 64 * 1024 + 1])
@pytest.mark.parametrize("tampering", ["none", "ciphertext", "tag"])
@pytest.mark.parametrize("verification", ["decrypt_and_verify", "decrypt+verify"])
def test_chacha20_poly1305_at_the_one_shot_boundary(aead, size, tampering, verification):
    blob = ds.make_bytes(size, size)
    both(aead_message, aead, bytes(32), bytes(12), [b"aad"], blob, None, tampering, verification)


@pytest.mark.accelerates("xchacha20-poly1305")
@with_flavours
@ds.scaled(0.5)
@given(
    key=keys,
    aad_parts=st.lists(ds.data(300), max_size=3),
    blob=ds.data(20000),
    inputs=st.data(),
    tampering=st.sampled_from(TAMPERINGS),
    verification=st.sampled_from(VERIFICATIONS),
)
def test_xchacha20_poly1305_messages(aead, key, aad_parts, blob, inputs, tampering, verification):
    enc_cuts = inputs.draw(st.one_of(st.none(), ds.cuts(len(blob))))
    nonce = ds.make_bytes(24, len(blob))
    both(aead_message, aead, key, nonce, aad_parts, blob, enc_cuts, tampering, verification)


AEAD_METHODS = (
    "update",
    "encrypt",
    "decrypt",
    "digest",
    "hexdigest",
    "verify",
    "hexverify",
    "encrypt_and_digest",
    "decrypt_and_verify",
)


@st.composite
def aead_ops(draw, exotic: bool):
    ops = []
    kinds = ds.any_input_kind if exotic else ds.input_kinds
    for _ in range(draw(st.integers(1, 7))):
        method = draw(st.sampled_from(AEAD_METHODS))
        size = draw(ds.sizes(2000))
        kind = draw(kinds)
        out = draw(ds.output_kinds) if exotic else "none"
        tag = draw(
            st.one_of(
                st.sampled_from(["random16", "random15", "bytearray16", "memoryview16"]),
                st.sampled_from(["str", "none", "int"]) if exotic else st.just("random16"),
            )
        )
        ops.append((method, kind, size, draw(ds.seeds), out, tag))
    return ops


def make_tag(description: str, seed: int):
    blob = ds.make_bytes(16, seed)
    return {
        "random16": blob,
        "random15": blob[:15],
        "bytearray16": bytearray(blob),
        "memoryview16": memoryview(blob),
        "str": blob.hex(),
        "none": None,
        "int": 7,
    }[description]


def aead_sequence(rec, aead, key, nonce, ops):
    """Any order of calls: order rules, errors and the state after them agree with native."""
    cipher = aead.new(key=key, nonce=nonce)
    for method, kind, size, seed, out_kind, tag_kind in ops:
        blob = ds.make_input(kind, ds.make_bytes(size, seed))
        function = getattr(cipher, method)
        if method == "update":
            rec.call(method, function, blob)
        elif method in ("encrypt", "decrypt"):
            output = ds.make_output(out_kind, size)
            rec.call(method, function, blob, output=output)
            rec.note("output", ds.output_content(output))
        elif method in ("digest", "hexdigest"):
            rec.call(method, function)
        elif method == "verify":
            rec.call(method, function, make_tag(tag_kind, seed))
        elif method == "hexverify":
            rec.call(method, function, ds.make_bytes(16, seed).hex())
        elif method == "encrypt_and_digest":
            rec.call(method, function, blob)
        else:
            rec.call(method, function, blob, make_tag(tag_kind, seed))
    # Whatever happened, the tag both compute now must agree (or both refuse).
    rec.call("final digest", cipher.digest)


@with_flavours
@ds.DIFF_SETTINGS
@given(key=keys, nonce_len=nonce_lengths, inputs=st.data())
def test_aead_call_sequences(aead, key, nonce_len, inputs):
    ops = inputs.draw(aead_ops(exotic=False))
    both(aead_sequence, aead, key, ds.make_bytes(nonce_len, 1), ops)


@with_flavours
@ds.scaled(0.5)
@given(key=keys, nonce_len=nonce_lengths, inputs=st.data())
def test_aead_call_sequences_exotic(aead, key, nonce_len, inputs):
    """Wrong types, exotic buffers and bad output= anywhere in the sequence."""
    ops = inputs.draw(aead_ops(exotic=True))
    both(aead_sequence, aead, key, ds.make_bytes(nonce_len, 2), ops)


# Calls that end exactly where the last block starts, then go on: the twin must
# reach that position without seek(), which pycryptodome 3.x refuses there.
LAST_BLOCK_PATTERNS = (
    (128, (64, 1)),
    (128, (64, 0, 64)),
    (130, (2, 64, 1)),
    (192, (64, 64, 64, 5)),
    (64, (1,)),
)


@with_flavours
@pytest.mark.parametrize("nonce_len", [8, 12, 24])
@pytest.mark.parametrize("method", ["encrypt", "decrypt"])
@pytest.mark.parametrize("back, sizes_", LAST_BLOCK_PATTERNS)
def test_chacha20_up_to_the_last_block(chacha, nonce_len, method, back, sizes_):
    both(
        key_stream_end, chacha, bytes(range(32)), ds.make_bytes(nonce_len, 1), back, sizes_, method
    )
