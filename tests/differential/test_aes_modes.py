"""AES modes under the agent against native pycryptodome, on generated inputs.

Every test builds a scenario (see :mod:`transparency_helpers`) and has
:func:`both` run it with the agent and natively: results, exceptions
(type and message), attributes and ``output=`` buffers must be identical.
The tests hold whether or not a mode is accelerated yet; the summary at the
end of the run shows the accelerated calls each test made, and a test marked
``accelerates`` fails if its primitive is accelerated but no call was.

The mode table :data:`CASES` is the data; the tests are factories over it
and over the installed flavours (``Crypto``, ``Cryptodome``).
"""

from __future__ import annotations

import inspect
import sys

import diff_strategies as ds
import pytest
from aead_tampering import (
    AEAD_TAMPERINGS,
    AEAD_VERIFICATIONS,
    TAG_LENGTH_CHANGES,
    change_tag_length,
    open_sealed,
)
from hypothesis import given
from hypothesis import strategies as st

from accel_agent import catalog, patching, speedups
from transparency_helpers import (
    RAISED,
    Recorder,
    Shape,
    accelerated_calls,
    both,
    flavours_or_skip,
    import_from,
    natively,
    require_acceleration,
    with_flavours,
)

ATTRIBUTES = ("block_size", "iv", "IV", "nonce", "key_size", "mode")
RANDOM_ATTRIBUTES = ("iv", "IV", "nonce")
AEAD_METHODS = (
    "update",
    "digest",
    "hexdigest",
    "verify",
    "hexverify",
    "encrypt_and_digest",
    "decrypt_and_verify",
)

flavours_or_skip()


# ----------------------------------------------------------------- the mode table

ivs = st.binary(min_size=16, max_size=16)


def _initial_values(counter_len: int) -> st.SearchStrategy:
    """Counter start values, with weight near the top so that some messages wrap."""
    top = 2 ** (8 * counter_len) - 1
    as_int = st.one_of(
        st.integers(0, min(top, 1000)), st.integers(max(0, top - 4200), top), st.integers(0, top)
    )
    return st.one_of(as_int, as_int.map(lambda v: v.to_bytes(counter_len, "big")))


def _nonce_and_initial_value(nonce_len: int) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(
        {"nonce": st.binary(min_size=nonce_len, max_size=nonce_len)},
        optional={"initial_value": _initial_values(16 - nonce_len)},
    )


@st.composite
def counter_params(draw) -> dict:
    """``counter=Counter.new(...)`` as a description (built per run by :func:`resolve`)."""
    nbytes = draw(st.one_of(st.sampled_from([1, 2, 4, 8, 16]), st.integers(1, 16)))
    prefix_len = draw(st.integers(0, 16 - nbytes))
    prefix = draw(st.binary(min_size=prefix_len, max_size=prefix_len))
    suffix_len = 16 - nbytes - prefix_len
    suffix = draw(st.binary(min_size=suffix_len, max_size=suffix_len))
    top = 2 ** (8 * nbytes) - 1
    initial = draw(
        st.one_of(
            st.integers(0, min(top, 1000)),
            st.integers(max(0, top - 4200), top),
            st.integers(0, top),
        )
    )
    little_endian = draw(st.booleans())
    return {"counter": ("Counter.new", nbytes * 8, prefix, suffix, initial, little_endian)}


ctr_params = st.one_of(
    st.integers(0, 15).flatmap(_nonce_and_initial_value),
    st.sampled_from([8, 12]).flatmap(_nonce_and_initial_value),  # the common shapes
    counter_params(),
)
gcm_nonce_lengths = st.one_of(st.sampled_from([12, 16, 8, 1, 13, 64]), st.integers(1, 64))
gcm_params = st.fixed_dictionaries(
    {"nonce": gcm_nonce_lengths.flatmap(lambda n: st.binary(min_size=n, max_size=n))},
    optional={"mac_len": st.integers(4, 16)},
)

ccm_params = st.fixed_dictionaries(
    {"nonce": st.integers(7, 13).flatmap(lambda n: st.binary(min_size=n, max_size=n))},
    optional={"mac_len": st.sampled_from([4, 6, 8, 10, 12, 14, 16])},
)
eax_params = st.fixed_dictionaries(
    {"nonce": st.integers(1, 40).flatmap(lambda n: st.binary(min_size=n, max_size=n))},
    optional={"mac_len": st.integers(2, 16)},
)


class ModeCase:
    """One AES mode: its primitive name in the agent's catalog and how to drive it."""

    def __init__(
        self,
        name: str,
        primitive: str,
        constant: str,
        params: st.SearchStrategy[dict],
        aligned: bool = False,
        aead: bool = False,
        randomizes: bool = True,
    ) -> None:
        self.name = name
        self.primitive = primitive  # the catalog name whose slot counts accelerated calls
        self.constant = constant  # the module attribute: MODE_GCM
        self.params = params  # common, valid argument shapes
        self.aligned = aligned  # data must be whole blocks
        self.aead = aead
        self.randomizes = randomizes  # makes up an iv/nonce when none is given

    def __repr__(self) -> str:
        return self.name

    @property
    def multiple(self) -> int:
        return 16 if self.aligned else 1


CASES = (
    ModeCase("ecb", "aes-ecb", "MODE_ECB", st.just({}), aligned=True, randomizes=False),
    ModeCase("cbc", "aes-cbc", "MODE_CBC", st.fixed_dictionaries({"iv": ivs}), aligned=True),
    ModeCase("ctr", "aes-ctr", "MODE_CTR", ctr_params),
    ModeCase("gcm", "aes-gcm", "MODE_GCM", gcm_params, aead=True),
    ModeCase(
        "cfb",
        "aes-cfb",
        "MODE_CFB",
        st.fixed_dictionaries({"iv": ivs}, optional={"segment_size": st.sampled_from([8, 128])}),
    ),
    ModeCase("ofb", "aes-ofb", "MODE_OFB", st.fixed_dictionaries({"iv": ivs})),
    ModeCase("ccm", "aes-ccm", "MODE_CCM", ccm_params, aead=True),
    ModeCase("eax", "aes-eax", "MODE_EAX", eax_params, aead=True),
)
BY_PRIMITIVE = {case.primitive: case for case in CASES}
# Modes tested in their own file: tests/differential/test_aes_ocb_siv_kw.py.
OWN_TEST_FILES = {"aes-ocb", "aes-siv", "aes-kw", "aes-kwp"}

with_cases = pytest.mark.parametrize("case", CASES, ids=repr)


@pytest.fixture
def aes(flavour):
    return import_from(flavour, "Cipher.AES")


def resolve(module, params: dict) -> dict:
    """Build the run's own objects (Counter.new) from a parameter description."""
    resolved = {}
    for name, value in params.items():
        if isinstance(value, tuple) and value and value[0] == "Counter.new":
            counter = import_from(module.__name__.split(".")[0], "Util.Counter")
            _, nbits, prefix, suffix, initial, little_endian = value
            value = counter.new(
                nbits,
                prefix=prefix,
                suffix=suffix,
                initial_value=initial,
                little_endian=little_endian,
            )
        resolved[name] = value
    return resolved


def record_object(rec: Recorder, label: str, cipher, random_nonce: bool = False) -> None:
    """The public face of a cipher object: attribute values and the names it exposes."""
    rec.public_face(label, cipher, ATTRIBUTES, RANDOM_ATTRIBUTES if random_nonce else ())


# ----------------------------------------------------------------- the table is complete


def test_every_aes_primitive_has_a_case():
    """A new AES primitive in the catalog needs a row in CASES (and so gets these tests)."""
    aes_primitives = {spec.name for spec in catalog.PRIMITIVES if spec.family == "aes"}
    aes_primitives -= OWN_TEST_FILES  # modes whose objects differ too much for this table
    assert aes_primitives <= set(BY_PRIMITIVE), sorted(aes_primitives - set(BY_PRIMITIVE))


# ----------------------------------------------------------------- the accelerated path is taken

PLAIN = {
    "aes-ecb": {},
    "aes-cbc": {"iv": bytes(range(16))},
    "aes-ctr": {"nonce": bytes(8)},
    "aes-gcm": {"nonce": bytes(12)},
    "aes-cfb": {"iv": bytes(range(16)), "segment_size": 128},
    "aes-ofb": {"iv": bytes(range(16))},
    "aes-ccm": {"nonce": bytes(11)},
    "aes-eax": {"nonce": bytes(16)},
}


@with_flavours
@with_cases
def test_plain_call_is_accelerated(aes, case):
    """The commonest call shape of each mode goes through the agent's slot, once accelerated."""
    why = require_acceleration(case.primitive)
    with accelerated_calls() as made:
        cipher = aes.new(bytes(16), getattr(aes, case.constant), **PLAIN[case.primitive])
        if case.aead:
            cipher.update(b"header")
            cipher.encrypt_and_digest(bytes(64))
        else:
            cipher.encrypt(bytes(64))
    assert made.get(case.primitive, 0) > 0, (
        "%s is accelerated (%s) but a plain call made no accelerated call" % (case.primitive, why)
    )


@with_flavours
def test_patched_functions_look_native(flavour, aes):
    """Every function the agent replaced keeps the original's name, docstring and signature."""
    # Importing the module (the fixture) is what patches it, unless nothing in it
    # is accelerated here (ACCEL_AGENT_EXCLUDE=aes, no AES-NI): then there is nothing to check.
    if not patching.is_patched(aes.__name__):
        pytest.skip("the agent left %s alone in this process" % aes.__name__)
    patched = {
        module: names
        for module, names in patching.patched_names().items()
        if module.split(".")[0] == flavour
    }
    assert patched, "the agent patched nothing in %s" % flavour
    for module_name, names in patched.items():
        module = sys.modules[module_name]
        for name in names:
            replacement = getattr(module, name)
            original = patching.get_original(module_name, name)
            if not callable(original):
                continue
            label = "%s.%s" % (module_name, name)
            for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
                assert getattr(replacement, attribute, None) == getattr(
                    original, attribute, None
                ), (label, attribute)
            try:
                expected = inspect.signature(original)
            except (TypeError, ValueError):  # a builtin without a signature
                continue
            assert inspect.signature(replacement) == expected, label


# ----------------------------------------------------------------- round trips


def roundtrip(rec, aes, case, key, params, blob, enc_cuts, dec_cuts, kind, aad, aad_cuts):
    """Encrypt in pieces, decrypt in other pieces, recording every step."""
    mode = getattr(aes, case.constant)
    enc = rec.call("new(enc)", aes.new, key, mode, **resolve(aes, params))
    if enc is RAISED:
        return
    record_object(rec, "enc", enc)
    if case.aead:
        for piece in ds.split(aad, aad_cuts):
            rec.call("update(enc)", enc.update, ds.make_input(kind, piece))
    pieces = []
    for piece in ds.split(blob, enc_cuts):
        out = rec.call("encrypt", enc.encrypt, ds.make_input(kind, piece))
        if out is not RAISED:
            pieces.append(out)
    ciphertext = b"".join(pieces)
    tag = rec.call("digest", enc.digest) if case.aead else None
    if case.aead:
        rec.call("hexdigest", enc.hexdigest)

    dec = rec.call("new(dec)", aes.new, key, mode, **resolve(aes, params))
    if dec is RAISED:
        return
    if case.aead:
        for piece in ds.split(aad, aad_cuts[:1]):  # chunked unlike the encryption
            rec.call("update(dec)", dec.update, ds.make_input(kind, piece))
    pieces = []
    for piece in ds.split(ciphertext, dec_cuts):
        out = rec.call("decrypt", dec.decrypt, ds.make_input(kind, piece))
        if out is not RAISED:
            pieces.append(out)
    rec.note("round trip", b"".join(pieces) == blob)
    if case.aead and tag is not RAISED:
        rec.call("verify", dec.verify, tag)
    record_object(rec, "dec", dec)


@st.composite
def roundtrip_inputs(draw, case):
    params = draw(case.params)
    blob = draw(ds.data(multiple=case.multiple))
    enc_cuts = draw(ds.cuts(len(blob), case.multiple))
    dec_cuts = draw(ds.cuts(len(blob), case.multiple))
    aad = draw(ds.data(max_size=2048)) if case.aead else b""
    aad_cuts = draw(ds.cuts(len(aad))) if case.aead else []
    return params, blob, enc_cuts, dec_cuts, aad, aad_cuts


@pytest.mark.accelerates
@with_flavours
@with_cases
@ds.DIFF_SETTINGS
@given(key=ds.keys, kind=ds.input_kinds, inputs=st.data())
def test_roundtrip(aes, case, key, kind, inputs):
    params, blob, enc_cuts, dec_cuts, aad, aad_cuts = inputs.draw(roundtrip_inputs(case))
    both(roundtrip, aes, case, key, params, blob, enc_cuts, dec_cuts, kind, aad, aad_cuts)


# ----------------------------------------------------------------- call sequences (state machine)


@st.composite
def operations(draw, case):
    """One call on a cipher object, described: name and argument kinds."""
    size = draw(st.one_of(ds.sizes(600, 16), ds.sizes(600)))
    name = draw(
        st.sampled_from(
            ("encrypt", "decrypt", "encrypt", "decrypt") + (AEAD_METHODS if case.aead else ())
        )
    )
    kind = draw(st.one_of(ds.input_kinds, ds.input_kinds, ds.any_input_kind))
    output = draw(ds.output_kinds)
    tag = draw(st.sampled_from(TAG_KINDS))
    return (name, size, kind, output, tag, draw(ds.seeds))


TAG_KINDS = (
    "last",
    "last",
    "flipped",
    "truncated",
    "extended",
    "zeros",
    "empty",
    "bytearray",
    "memoryview",
    "str",
    "int",
    "None",
    "hex-upper",
    "hex-odd",
    "hex-nonhex",
)


def make_tag(kind: str, last: bytes, as_hex: bool):
    """A tag for verify()/hexverify()/decrypt_and_verify(), derived from the last digest."""
    if kind in ("str", "int", "None"):
        return ds.make_input(kind, last)
    if kind == "flipped":
        last = bytes([last[0] ^ 1]) + last[1:] if last else b"\x01"
    elif kind == "truncated":
        last = last[:-1]
    elif kind == "extended":
        last = last + b"\x00"
    elif kind == "zeros":
        last = bytes(len(last) or 16)
    elif kind == "empty":
        last = b""
    if as_hex:
        text = last.hex()
        if kind == "hex-upper":
            return text.upper()
        if kind == "hex-odd":
            return text + "0"
        if kind == "hex-nonhex":
            return "zz" + text[2:]
        return text
    if kind == "bytearray":
        return bytearray(last)
    if kind == "memoryview":
        return memoryview(last)
    return last


def run_operations(rec, aes, case, key, params, ops):
    cipher = rec.call("new", aes.new, key, getattr(aes, case.constant), **resolve(aes, params))
    if cipher is RAISED:
        return
    record_object(rec, "new", cipher)
    last_tag = b"\x00" * 16
    for index, (name, size, kind, output_kind, tag_kind, seed) in enumerate(ops):
        label = "%d:%s" % (index, name)
        method = getattr(cipher, name, None)
        if method is None:
            rec.note(label, "no such method")
            continue
        blob = ds.make_bytes(size, seed)
        output = ds.make_output(output_kind, size)
        if name in ("encrypt", "decrypt"):
            rec.call(label, method, ds.make_input(kind, blob), output=output)
        elif name == "update":
            rec.call(label, method, ds.make_input(kind, blob))
        elif name in ("digest", "hexdigest"):
            result = rec.call(label, method)
            if isinstance(result, bytes):
                last_tag = result
        elif name in ("verify", "hexverify"):
            rec.call(label, method, make_tag(tag_kind, last_tag, name == "hexverify"))
        elif name == "encrypt_and_digest":
            result = rec.call(label, method, ds.make_input(kind, blob), output=output)
            if isinstance(result, tuple):
                last_tag = result[1]
        elif name == "decrypt_and_verify":
            tag = make_tag(tag_kind, last_tag, False)
            rec.call(label, method, ds.make_input(kind, blob), tag, output=output)
        rec.note(label + " output", ds.output_content(output))
    record_object(rec, "end", cipher)


@with_flavours
@with_cases
@ds.DIFF_SETTINGS
@given(key=ds.keys, inputs=st.data())
def test_call_sequences(aes, case, key, inputs):
    """Random call sequences: misuse, wrong types, output= buffers, tags, all as native."""
    params = inputs.draw(case.params)
    ops = inputs.draw(st.lists(operations(case), min_size=1, max_size=8))
    both(run_operations, aes, case, key, params, ops)


# ----------------------------------------------------------------- output= buffers


def with_output(rec, aes, case, key, params, blob, output_kind, method_name):
    cipher = rec.call("new", aes.new, key, getattr(aes, case.constant), **resolve(aes, params))
    if cipher is RAISED:
        return
    output = ds.make_output(output_kind, len(blob))
    method = getattr(cipher, method_name)
    result = rec.call(method_name, method, blob, output=output)
    rec.note("output", ds.output_content(output))
    # The object must still work (or refuse) as native after an output= call.
    if method_name == "encrypt_and_digest":
        rec.call("then digest", cipher.digest)
        if isinstance(result, tuple):
            rec.call("then verify", cipher.verify, result[1])
        rec.call("then encrypt", cipher.encrypt, blob)
    else:
        rec.call("then " + method_name, method, blob)


@pytest.mark.accelerates
@with_flavours
@with_cases
@ds.DIFF_SETTINGS
@given(key=ds.keys, output_kind=ds.output_kinds, method=st.sampled_from(["encrypt", "decrypt"]),
       inputs=st.data())  # fmt: skip
def test_output_buffers(aes, case, key, output_kind, method, inputs):
    params = inputs.draw(case.params)
    blob = inputs.draw(ds.data(max_size=4096, multiple=case.multiple))
    both(with_output, aes, case, key, params, blob, output_kind, method)


@pytest.mark.accelerates
@with_flavours
@pytest.mark.parametrize("case", [case for case in CASES if case.aead], ids=lambda case: case.name)
@ds.DIFF_SETTINGS
@given(key=ds.keys, output_kind=ds.output_kinds, aad=st.binary(max_size=40), inputs=st.data())
def test_whole_message_into_output(aes, case, key, output_kind, aad, inputs):
    """A fresh AEAD object's ``encrypt_and_digest(bytes, output=...)``, then what may follow."""
    params = inputs.draw(case.params)
    blob = inputs.draw(ds.data(max_size=40000, multiple=case.multiple))

    def seal(rec, module):
        cipher = rec.call("new", aes.new, key, getattr(aes, case.constant), **resolve(aes, params))
        if cipher is RAISED:
            return
        if aad:
            rec.call("update", cipher.update, aad)
        output = ds.make_output(output_kind, len(blob))
        result = rec.call("encrypt_and_digest", cipher.encrypt_and_digest, blob, output=output)
        rec.note("output", ds.output_content(output))
        rec.call("then digest", cipher.digest)
        if isinstance(result, tuple):
            rec.call("then verify", cipher.verify, result[1])
        rec.call("then encrypt", cipher.encrypt, blob)

    both(seal, aes)


# ----------------------------------------------------------------- constructor arguments

MODE_VALUES = ("MODE_ECB", "MODE_CBC", "MODE_CTR", "MODE_GCM", "MODE_CFB", "MODE_OFB")
MODE_VALUES += ("MODE_CCM", "MODE_EAX")
RANDOMIZING = ("MODE_CBC", "MODE_CTR", "MODE_GCM", "MODE_CFB", "MODE_OFB")
RANDOMIZING += ("MODE_CCM", "MODE_EAX")


def _bytes_values(lengths) -> st.SearchStrategy:
    return st.one_of(
        st.sampled_from(lengths).flatmap(lambda n: st.binary(min_size=n, max_size=n)),
        st.sampled_from(lengths).map(lambda n: ("bytearray", n)),
        st.sampled_from(lengths).map(lambda n: ("memoryview", n)),
        ds.wrong_values,
    )


ARGUMENT_VALUES = {
    "iv": _bytes_values([16, 15, 17, 0, 32]),
    "IV": _bytes_values([16, 15, 17, 0]),
    "nonce": _bytes_values([12, 8, 16, 0, 1, 15, 17, 64]),
    "initial_value": st.one_of(
        st.sampled_from([0, 1, 2**32, 2**64 - 1, 2**64, 2**128, -1, True]),
        _bytes_values([4, 8, 16, 0]),
    ),
    "counter": st.one_of(
        counter_params().map(lambda p: p["counter"]), ds.wrong_values, st.just({})
    ),
    "segment_size": st.sampled_from([8, 128, 16, 64, 0, 7, 9, 136, 256, -8, "8", None, 8.0]),
    "mac_len": st.sampled_from([16, 12, 4, 3, 17, 0, -1, "16", None, 16.0]),
    "use_aesni": st.booleans(),
    "threads": st.sampled_from([1, 2, 0, -1, "2"]),
    "assoc_len": st.just(4),
    "msg_len": st.sampled_from([32, 0, 31, 2**16, 2**64, -1, "32", None, 32.0]),
    "key": st.just(bytes(16)),
    "unknown_option": st.just(1),
}

key_values = st.one_of(
    ds.keys,
    ds.keys.map(bytearray),
    ds.keys.map(lambda k: ("memoryview", len(k))),
    st.sampled_from([0, 1, 8, 15, 17, 23, 25, 31, 33, 64]).map(bytes),
    st.sampled_from(["0123456789abcdef", 16, None, [0] * 16, 1.5]),
)
mode_values = st.one_of(
    st.sampled_from(MODE_VALUES),
    st.sampled_from([0, 4, 99, -1, "1", None, 1.0, 2.0, True, b"\x01"]),
)


def materialize(value):
    """Turn ("bytearray", n) / ("memoryview", n) / Counter descriptions into fresh objects."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] in ("bytearray", "memoryview"):
        blob = bytes(range(value[1] % 256)) + bytes(max(0, value[1] - 256))
        return bytearray(blob) if value[0] == "bytearray" else memoryview(bytes(blob))
    return value


@st.composite
def constructor_calls(draw):
    key = draw(key_values)
    mode = draw(mode_values)
    names = draw(st.lists(st.sampled_from(sorted(ARGUMENT_VALUES)), unique=True, max_size=3))
    kwargs = {name: draw(ARGUMENT_VALUES[name]) for name in names}
    args = draw(st.one_of(st.just(()), st.lists(_bytes_values([16, 12, 8]), max_size=2)))
    style = draw(st.sampled_from(CALL_STYLES))
    return key, mode, tuple(args), kwargs, style


# How key and mode are passed: AES.new(k, m), AES.new(key=k, mode=m), AES.new(k, mode=m).
CALL_STYLES = ("positional", "keywords", "mode keyword")


def call_new(aes, key, mode, args, kwargs, style):
    if style == "keywords" and not args:
        return aes.new(key=key, mode=mode, **kwargs)
    if style == "mode keyword" and not args:
        return aes.new(key, mode=mode, **kwargs)
    return aes.new(key, mode, *args, **kwargs)


def construct(rec, aes, key, mode, args, kwargs, style):
    mode_value = getattr(aes, mode) if isinstance(mode, str) and mode.startswith("MODE_") else mode
    args = tuple(materialize(a) for a in args)
    kwargs = resolve(aes, {name: materialize(value) for name, value in kwargs.items()})
    cipher = rec.call("new", call_new, aes, materialize(key), mode_value, args, kwargs, style)
    if cipher is RAISED:
        return
    # A positional None is no IV: pycryptodome draws a random one, as for no argument.
    given_nonce = any(arg is not None for arg in args) or any(
        kwargs.get(name) is not None for name in ("iv", "IV", "nonce", "counter")
    )
    randomizing = any(_equal(mode_value, getattr(aes, name)) for name in RANDOMIZING)
    random_nonce = randomizing and not given_nonce
    record_object(rec, "new", cipher, random_nonce=random_nonce)
    for method in ("encrypt", "decrypt"):
        fresh = call_new(aes, materialize(key), mode_value, args, kwargs, style)
        result = rec.call(method, getattr(fresh, method), bytes(32))
        if random_nonce and isinstance(result, bytes):
            rec.steps[-1] = (method, "returned", ("shape", "bytes", len(result)))


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a mode value whose == raises is simply not that mode
        return False


@with_flavours
@ds.DIFF_SETTINGS
@given(call=constructor_calls())
def test_constructor_arguments(aes, call):
    """AES.new with valid, invalid, missing, extra and mistyped arguments: same object or error."""
    key, mode, args, kwargs, style = call
    both(construct, aes, key, mode, args, kwargs, style)


# ----------------------------------------------------------------- GCM: nonces, tags, tampering

TAMPERINGS = AEAD_TAMPERINGS + ("mac_len",)
VERIFICATIONS = AEAD_VERIFICATIONS + (
    "chunked+verify",
    "verify before decrypt",
    "decrypt_and_verify+output",
)


def gcm_tamper(rec, aes, key, nonce, mac_len, aad, blob, tampering, verification, where):
    kwargs = {"nonce": nonce} if mac_len is None else {"nonce": nonce, "mac_len": mac_len}
    enc = rec.call("new(enc)", aes.new, key, aes.MODE_GCM, **kwargs)
    if enc is RAISED:
        return
    rec.call("update(enc)", enc.update, aad)
    sealed = rec.call("encrypt_and_digest", enc.encrypt_and_digest, blob)
    if sealed is RAISED:
        return
    ciphertext, tag = sealed

    def flip(buf: bytes) -> bytes:
        if not buf:
            return buf
        i = where % len(buf)
        return buf[:i] + bytes([buf[i] ^ (1 << (where % 8))]) + buf[i + 1 :]

    if tampering == "ciphertext":
        ciphertext = flip(ciphertext)
    elif tampering == "tag":
        tag = flip(tag)
    elif tampering == "aad":
        aad = flip(aad) if aad else b"\x00"
    elif tampering == "nonce":
        kwargs["nonce"] = flip(nonce)
    elif tampering in TAG_LENGTH_CHANGES:
        tag = change_tag_length(tampering, tag)
    elif tampering == "missing aad":
        aad = None
    elif tampering == "mac_len":
        kwargs["mac_len"] = 16 if (mac_len or 16) != 16 else 12

    dec = rec.call("new(dec)", aes.new, key, aes.MODE_GCM, **kwargs)
    if dec is RAISED:
        return
    if aad is not None:
        rec.call("update(dec)", dec.update, aad)
    if verification in AEAD_VERIFICATIONS:
        open_sealed(rec, dec, verification, ciphertext, tag)
    elif verification == "chunked+verify":
        step = 1 + where % 37
        for start in range(0, len(ciphertext), step):
            rec.call("decrypt", dec.decrypt, ciphertext[start : start + step])
        rec.call("verify", dec.verify, tag)
    elif verification == "verify before decrypt":
        rec.call("verify", dec.verify, tag)
        rec.call("decrypt", dec.decrypt, ciphertext)
    else:
        output = bytearray(len(ciphertext))
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, ciphertext, tag, output=output)
        rec.note("output", ds.output_content(output))
    # After a failed verification, further calls fail as native does.
    rec.call("verify again", dec.verify, tag)
    rec.call("decrypt after verify", dec.decrypt, b"x")


@pytest.mark.accelerates("aes-gcm")
@with_flavours
@ds.DIFF_SETTINGS
@given(
    key=ds.keys,
    nonce_len=st.one_of(gcm_nonce_lengths, st.just(0)),
    mac_len=st.one_of(st.none(), st.integers(4, 16), st.sampled_from([0, 1, 3, 17, 32])),
    aad=ds.data(max_size=300),
    blob=ds.data(max_size=5000),
    tampering=st.sampled_from(TAMPERINGS),
    verification=st.sampled_from(VERIFICATIONS),
    where=st.integers(0, 2**16),
)
def test_gcm_tags_and_tampering(
    aes, key, nonce_len, mac_len, aad, blob, tampering, verification, where
):
    """Nonces 0..64 bytes, mac_len in and out of 4..16, every verification path: as native."""
    nonce = ds.make_bytes(nonce_len, where)
    both(gcm_tamper, aes, key, nonce, mac_len, aad, blob, tampering, verification, where)


# Whole messages are served three ways by size: the one-shot AEAD call up
# to 32 KiB, a streaming context beyond (ciphertext and tag come out apart),
# and, for decrypt_and_verify past the 4 MiB of plaintext kept for a second
# verify(), the general decrypt + verify path. Each side of each boundary:
GCM_BOUNDARY_SIZES = (32 * 1024, 32 * 1024 + 1, 100_000)


@pytest.mark.accelerates("aes-gcm")
@with_flavours
@pytest.mark.parametrize("size", GCM_BOUNDARY_SIZES)
@pytest.mark.parametrize("mac_len", [None, 12])
@pytest.mark.parametrize("tampering", ["none", "ciphertext", "tag", "aad"])
@pytest.mark.parametrize("verification", ["decrypt_and_verify", "decrypt+verify"])
def test_gcm_whole_messages_at_the_size_boundaries(aes, size, mac_len, tampering, verification):
    blob = ds.make_bytes(size, size)
    both(gcm_tamper, aes, bytes(16), bytes(12), mac_len, b"aad", blob, tampering, verification, 7)


@pytest.mark.accelerates("aes-gcm")
@with_flavours
@pytest.mark.parametrize("tampering", ["none", "tag"])
def test_gcm_decrypt_and_verify_past_the_kept_plaintext(aes, tampering):
    blob = ds.make_bytes(4 * 1024 * 1024 + 1, 3)
    both(gcm_tamper, aes, bytes(16), bytes(12), None, b"", blob, tampering, "decrypt_and_verify", 5)


ODD_TAGS = {
    "None": None,
    "str": "00" * 16,
    "int": 16,
    "list": [0] * 16,
    "bytearray": "bytearray",
    "memoryview": "memoryview",
    "memoryview-strided": "memoryview-strided",
    "array": "array",
    "right": "right",
    "short": "short",
}


def odd_tag(rec, aes, method, tag_kind):
    """Tags of every type on a fresh decrypting object; then what a second call does."""
    enc = aes.new(bytes(16), aes.MODE_GCM, nonce=bytes(12))
    ciphertext, tag = enc.encrypt_and_digest(b"message")
    value = ODD_TAGS[tag_kind]
    if tag_kind in ("bytearray", "memoryview", "memoryview-strided", "array"):
        value = ds.make_input({"array": "array-B"}.get(tag_kind, tag_kind), tag)
    elif tag_kind == "right":
        value = tag
    elif tag_kind == "short":
        value = tag[:8]
    dec = aes.new(bytes(16), aes.MODE_GCM, nonce=bytes(12))
    if method == "decrypt_and_verify":
        rec.call(method, dec.decrypt_and_verify, ciphertext, value)
    elif method == "hexverify":
        rec.call("decrypt", dec.decrypt, ciphertext)
        rec.call(method, dec.hexverify, value.hex() if isinstance(value, bytes) else value)
    else:
        rec.call("decrypt", dec.decrypt, ciphertext)
        rec.call(method, dec.verify, value)
    rec.call("verify again", dec.verify, tag)
    rec.call("decrypt again", dec.decrypt, b"")


@with_flavours
@pytest.mark.parametrize("method", ["verify", "hexverify", "decrypt_and_verify"])
@pytest.mark.parametrize("tag_kind", sorted(ODD_TAGS))
def test_gcm_tag_types(aes, method, tag_kind):
    """verify() with None, str, int, list and buffer tags: same verdict and state as native.

    pycryptodome 3.x compares through BLAKE2s, which takes None as no data (so
    ``MAC check failed``); 4.x uses hmac.compare_digest (TypeError).
    """
    both(odd_tag, aes, method, tag_kind)


# Where update() of associated data may come: before the payload (bytes take
# a short path), after it or after a tag (native's TypeError), once an odd
# buffer handed the object to a native twin, after a verify() that failed.
UPDATE_MOMENTS = ("fresh", "after payload", "after odd buffer", "after failed verify")


def gcm_updates(rec, aes, key, moment, chunks, kinds, one_shot, decrypting):
    cipher = aes.new(key, aes.MODE_GCM, nonce=bytes(12))
    ciphertext, tag = aes.new(key, aes.MODE_GCM, nonce=bytes(12)).encrypt_and_digest(b"message")
    if moment == "after odd buffer":
        rec.call("update(odd)", cipher.update, ds.make_input("memoryview-strided", b"odd"))
    elif moment == "after failed verify":
        rec.call("verify(wrong)", cipher.verify, bytes(16))
    elif moment == "after payload":
        rec.call("payload", cipher.decrypt if decrypting else cipher.encrypt, b"pay")
    for i, (chunk, kind) in enumerate(zip(chunks, kinds)):
        rec.call("update %d" % i, cipher.update, ds.make_input(kind, chunk))
    if decrypting and one_shot:
        rec.call("decrypt_and_verify", cipher.decrypt_and_verify, ciphertext, tag)
    elif decrypting:
        rec.call("decrypt", cipher.decrypt, ciphertext)
        rec.call("verify", cipher.verify, tag)
    elif one_shot:
        rec.call("encrypt_and_digest", cipher.encrypt_and_digest, b"message")
    else:
        rec.call("encrypt", cipher.encrypt, b"message")
        rec.call("digest", cipher.digest)


@pytest.mark.accelerates("aes-gcm")
@with_flavours
@ds.DIFF_SETTINGS
@given(
    key=ds.keys,
    moment=st.sampled_from(UPDATE_MOMENTS),
    chunks=st.lists(ds.data(max_size=40), min_size=1, max_size=4),
    kinds=st.lists(ds.any_input_kind, min_size=4, max_size=4),
    one_shot=st.booleans(),
    decrypting=st.booleans(),
)
def test_gcm_update_in_every_state(aes, key, moment, chunks, kinds, one_shot, decrypting):
    """update() with every buffer kind, in every state an object can be in: as native."""
    both(gcm_updates, aes, key, moment, chunks, kinds, one_shot, decrypting)


# ----------------------------------------------------------------- CTR: counters and their end


def ctr_to_the_end(rec, aes, key, params, blocks_left, extra, chunk, method):
    """Run a counter up to (and past) its last block, in chunks: wraps raise as native."""
    cipher = rec.call("new", aes.new, key, aes.MODE_CTR, **resolve(aes, params))
    if cipher is RAISED:
        return
    record_object(rec, "new", cipher)
    total = 16 * blocks_left + extra
    blob = ds.make_bytes(total, blocks_left)
    for start in range(0, total, chunk):
        rec.call(method, getattr(cipher, method), blob[start : start + chunk])
    rec.call(method + " after the end", getattr(cipher, method), b"\x00")
    rec.call("empty after the end", getattr(cipher, method), b"")


@st.composite
def counters_near_the_end(draw):
    """CTR parameters that leave ``blocks_left`` blocks before the counter wraps."""
    counter_len = draw(st.sampled_from([1, 2, 3, 4, 8, 16]))
    blocks_left = draw(st.integers(1, 300 if counter_len == 1 else 260))
    blocks_left = min(blocks_left, 2 ** (8 * counter_len))
    start = 2 ** (8 * counter_len) - blocks_left
    style = draw(st.sampled_from(["nonce", "nonce-bytes", "counter-be", "counter-le"]))
    if style.startswith("nonce"):
        nonce = ds.make_bytes(16 - counter_len, start)
        initial = start if style == "nonce" else start.to_bytes(counter_len, "big")
        params = {"nonce": nonce, "initial_value": initial}
    else:
        prefix_len = draw(st.integers(0, 16 - counter_len))
        prefix = ds.make_bytes(prefix_len, 1)
        suffix = ds.make_bytes(16 - counter_len - prefix_len, 2)
        params = {
            "counter": (
                "Counter.new",
                8 * counter_len,
                prefix,
                suffix,
                start,
                style == "counter-le",
            )
        }
    return params, blocks_left


@pytest.mark.accelerates("aes-ctr")
@with_flavours
@ds.scaled(0.5)
@given(
    key=ds.keys,
    near=counters_near_the_end(),
    extra=st.integers(-16, 40),
    chunk=st.one_of(st.sampled_from([1, 15, 16, 17, 4096, 100000]), st.integers(1, 5000)),
    method=st.sampled_from(["encrypt", "decrypt"]),
)
def test_ctr_counter_end(aes, key, near, extra, chunk, method):
    """pycryptodome 4.x raises MessageTooLongError at the wrap (3.x OverflowError): as native."""
    params, blocks_left = near
    extra = max(extra, -16 * blocks_left)
    both(ctr_to_the_end, aes, key, params, blocks_left, extra, chunk, method)


# ----------------------------------------------------------------- CFB segment sizes


def cfb_segments(rec, aes, key, iv, segment_size, blob, enc_cuts, dec_cuts=()):
    enc = rec.call("new", aes.new, key, aes.MODE_CFB, iv=iv, segment_size=segment_size)
    if enc is RAISED:
        return
    record_object(rec, "new", enc)
    pieces = [rec.call("encrypt", enc.encrypt, piece) for piece in ds.split(blob, enc_cuts)]
    ciphertext = b"".join(p for p in pieces if isinstance(p, bytes))
    dec = aes.new(key, aes.MODE_CFB, iv=iv, segment_size=segment_size)
    rec.call("decrypt", dec.decrypt, ciphertext)
    split = aes.new(key, aes.MODE_CFB, iv=iv, segment_size=segment_size)
    for piece in ds.split(ciphertext, list(dec_cuts)):
        rec.call("decrypt piece", split.decrypt, piece)
    # a twin taking over mid-segment (a str is native's TypeError) and going on
    rec.call("decrypt str", split.decrypt, "text")
    rec.call("decrypt after", split.decrypt, bytes(21))
    rec.call("encrypt after", split.encrypt, bytes(3))


@(pytest.mark.accelerates if speedups.CFB_SEGMENTS_SERVED else pytest.mark.native_only)("aes-cfb")
@with_flavours
@ds.DIFF_SETTINGS
@given(
    key=ds.keys,
    iv=ivs,
    segment_size=st.one_of(
        st.sampled_from([16, 24, 32, 64, 120]).filter(bool),
        st.integers(2, 15).map(lambda n: 8 * n),
        st.sampled_from([0, 1, 7, 9, 129, 136, 256, -8]),
    ),
    inputs=st.data(),
)
def test_cfb_other_segment_sizes(aes, key, iv, segment_size, inputs):
    """Segments OpenSSL lacks (16..120 bits: decryption over ECB) and invalid ones, as native.

    Encryption with those segments stays native (serial by nature), and so
    do invalid sizes; without the compiled path their decryption does too.
    """
    blob = inputs.draw(ds.data(max_size=4096))
    enc_cuts, dec_cuts = inputs.draw(ds.cuts(len(blob))), inputs.draw(ds.cuts(len(blob)))
    both(cfb_segments, aes, key, iv, segment_size, blob, enc_cuts, dec_cuts)


@(pytest.mark.accelerates if speedups.CFB_SEGMENTS_SERVED else pytest.mark.native_only)("aes-cfb")
@with_flavours
@ds.scaled(0.1)
@given(
    key=ds.keys,
    iv=ivs,
    segment_size=st.integers(2, 15).map(lambda n: 8 * n),
    size=st.integers(64 * 1024 - 40, 200 * 1024),
    seed=ds.seeds,
    inputs=st.data(),
)
def test_cfb_other_segment_sizes_long_calls(aes, key, iv, segment_size, size, seed, inputs):
    """Calls from 64 KiB (streamed without a copy of the result) with those segment sizes."""
    blob = ds.make_bytes(size, seed)
    enc_cuts = inputs.draw(ds.cuts(size, max_pieces=3))
    dec_cuts = inputs.draw(ds.cuts(size, max_pieces=3))
    both(cfb_segments, aes, key, iv, segment_size, blob, enc_cuts, dec_cuts)


# ----------------------------------------------------------------- the kept ciphertext tail

# Chunks of every kind the streaming methods keep a tail of: long bytes (kept by
# reference, inline in the method), short bytes, and other buffers (_Tail.push).
TAIL_CHUNKS = {
    "MODE_CBC": (48, 16, "bytearray 32", 64, "memoryview 16"),
    "MODE_CFB": (40, 5, "bytearray 33", 70, "memoryview 3", 31),
}
# The same chunks given in place (output= the input bytearray itself).
IN_PLACE_CHUNKS = {
    "MODE_CBC": ("in-place 48", 16, "in-place 32", 64, "in-place 16"),
    "MODE_CFB": ("in-place 40", 5, "in-place 33", "in-place 70", 3, "in-place 31"),
}


def tail_then_twin(rec, aes, mode, segment_size, method_name, key, iv, blob, stop, chunks):
    options = {"iv": iv} if segment_size is None else {"iv": iv, "segment_size": segment_size}
    cipher = rec.call("new", aes.new, key, getattr(aes, mode), **options)
    method = getattr(cipher, method_name)
    offset = 0
    for chunk in chunks[mode][:stop]:  # the twin takes over after any of them
        kind, _, size = str(chunk).rpartition(" ")
        piece = blob[offset : offset + int(size)]
        offset += int(size)
        if kind == "in-place":
            piece = bytearray(piece)
            rec.call("%s %s" % (method_name, chunk), method, piece, output=piece)
            rec.note("in place %s" % chunk, bytes(piece))
            continue
        if kind == "bytearray":
            piece = bytearray(piece)
        elif kind == "memoryview":
            piece = memoryview(piece)
        rec.call("%s %s" % (method_name, chunk), method, piece)
    # A twin takes over from the kept tail (a str is native's TypeError) and goes on.
    rec.call(method_name + " str", method, "text")
    rec.call(method_name + " after", method, blob[offset : offset + 32])


@with_flavours
@pytest.mark.parametrize(
    "mode, segment_size",
    [
        pytest.param("MODE_CBC", None, marks=pytest.mark.accelerates("aes-cbc")),
        pytest.param("MODE_CFB", 8, marks=pytest.mark.accelerates("aes-cfb")),
        pytest.param("MODE_CFB", 128, marks=pytest.mark.accelerates("aes-cfb")),
    ],
)
@pytest.mark.parametrize("method_name", ["encrypt", "decrypt"])
@pytest.mark.parametrize("chunks", [TAIL_CHUNKS, IN_PLACE_CHUNKS], ids=["apart", "in-place"])
@ds.DIFF_SETTINGS
@given(key=ds.keys, iv=ivs, blob=st.binary(min_size=300, max_size=300), stop=st.integers(1, 6))
def test_stream_tail_then_twin(aes, mode, segment_size, method_name, chunks, key, iv, blob, stop):
    """CBC's and CFB's methods keep the ciphertext's tail inline for long bytes, through
    _Tail for other chunks, and before the call when decrypting in place (the input then
    holds the plaintext): a twin built from it continues the stream as native does."""
    both(tail_then_twin, aes, mode, segment_size, method_name, key, iv, blob, stop, chunks)


def cfb8_first_call(rec, aes, method_name, size, key, iv):
    """A CFB-8 object whose first call has ``size`` bytes, then a second call."""
    cipher = aes.new(key, aes.MODE_CFB, iv=iv, segment_size=8)
    data = bytes(range(256)) * (size // 256 + 1)
    rec.call("%s %d" % (method_name, size), getattr(cipher, method_name), data[:size])
    rec.call(method_name + " then", getattr(cipher, method_name), data[:100])


@with_flavours
@pytest.mark.parametrize("method_name", ["encrypt", "decrypt"])
@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_cfb8_turns_native_from_its_threshold(aes, method_name, offset):
    """A first call of the calibrated size or more makes the object native (its twin);
    a shorter one stays on OpenSSL: either way the results are native's."""
    from accel_agent import calibration

    require_acceleration("aes-cfb")
    threshold = calibration.native_from_size("aes-cfb8")
    size = threshold + offset
    comparison = both(cfb8_first_call, aes, method_name, size, bytes(16), bytes(16))
    assert comparison.accelerated("aes-cfb") == (2 if size < threshold else 0)


# ----------------------------------------------------------------- random nonces and IVs


def random_nonce(rec, aes, case, key, blob):
    """No iv/nonce given: the made-up one has native's type and length, and it decrypts natively."""
    mode = getattr(aes, case.constant)
    cipher = rec.call("new", aes.new, key, mode)
    if cipher is RAISED:
        return
    record_object(rec, "new", cipher, random_nonce=True)
    if case.aead:
        ciphertext, tag = cipher.encrypt_and_digest(blob)
        rec.note("tag", Shape(tag))
    else:
        ciphertext, tag = cipher.encrypt(blob), None
    rec.note("ciphertext", Shape(ciphertext))
    given = {"nonce": cipher.nonce} if hasattr(cipher, "nonce") else {"iv": cipher.iv}
    with natively():
        checker = aes.new(key, mode, **given)
        if case.aead:
            rec.call("native decrypt_and_verify", checker.decrypt_and_verify, ciphertext, tag)
        else:
            rec.call("native decrypt", checker.decrypt, ciphertext)


@with_flavours
@pytest.mark.parametrize("case", [c for c in CASES if c.randomizes], ids=repr)
@ds.scaled(0.25)
@given(key=ds.keys, inputs=st.data())
def test_random_nonce(aes, case, key, inputs):
    both(random_nonce, aes, case, key, inputs.draw(ds.data(max_size=2048, multiple=case.multiple)))


@with_flavours
@pytest.mark.parametrize("case", [c for c in CASES if c.randomizes], ids=repr)
def test_random_nonces_are_fresh(aes, case):
    """Two objects made without a nonce get different ones (the agent must not reuse one)."""
    made = [aes.new(bytes(16), getattr(aes, case.constant)) for _ in range(4)]
    values = {getattr(c, "nonce", None) or c.iv for c in made}
    assert len(values) == 4


# ----------------------------------------------------------------- message length limits (4.x)

LENGTH_LIMITS = (
    ("gcm", "encrypt"),
    ("gcm", "decrypt"),
    ("gcm", "update"),
    ("gcm", "encrypt_and_digest"),
    ("ctr", "encrypt"),
    ("ecb", "encrypt"),
    ("cbc", "decrypt"),
    ("cfb", "encrypt"),
    ("ofb", "decrypt"),
)


def huge_length(rec, aes, case, method_name, length, then):
    """Data whose length alone is over a limit: native checks it before reading a byte."""
    cipher = aes.new(bytes(16), getattr(aes, case.constant), **PLAIN[case.primitive])
    method = getattr(cipher, method_name)
    rec.call(method_name, method, ds.FakeLength(length))
    rec.call("then " + then, getattr(cipher, then), bytes(16))


@with_flavours
@pytest.mark.parametrize("mode, method", LENGTH_LIMITS)
@pytest.mark.parametrize("length", [2**36 - 32, 2**36, 2**61, 2**64])
def test_length_limits(aes, mode, method, length):
    """pycryptodome 4.x MessageTooLongError (GCM: 2**36 - 32 bytes, AAD 2**61 - 1): as native."""
    case = next(c for c in CASES if c.name == mode)
    then = "encrypt" if method != "decrypt" else "decrypt"
    both(huge_length, aes, case, method, length, then)
