"""Triple DES under the agent against native pycryptodome, on generated inputs.

The AES mode tests' scenarios (round trips in pieces, call sequences with
misuse and ``output=`` buffers, constructor arguments) run here over
``Cipher.DES3`` with its own table: 8-byte blocks, 16- and 24-byte keys
(some degenerate, some differing from a degenerate one in parity bits
only), CFB-8 and CFB-64. CTR, EAX and OpenPGP stay native (OpenSSL has no
DES-EDE3 CTR) and are driven too, to show they are left alone.
"""

from __future__ import annotations

import diff_strategies as ds
import pytest
import test_aes_modes as aes_modes
from hypothesis import given
from hypothesis import strategies as st

from accel_agent import catalog
from transparency_helpers import (
    RAISED,
    accelerated_calls,
    both,
    flavours_or_skip,
    import_from,
    require_acceleration,
    with_flavours,
)

flavours_or_skip()

ivs = st.binary(min_size=8, max_size=8)


def _with_parity_noise(key: bytes, noise: int) -> bytes:
    """``key`` with some parity bits (the low bit of each byte) flipped."""
    return bytes(b ^ ((noise >> i) & 1) for i, b in enumerate(key))


@st.composite
def tdes_keys(draw) -> bytes:
    """Mostly valid 16- and 24-byte keys; degenerate ones (also up to parity); wrong sizes."""
    kind = draw(st.sampled_from(["24", "24", "16", "16", "k1=k2", "k2=k3", "bad size"]))
    if kind == "bad size":
        return draw(st.sampled_from([0, 8, 15, 23, 25, 32]).map(bytes))
    part = st.binary(min_size=8, max_size=8)
    k1, k2, k3 = draw(part), draw(part), draw(part)
    noise = draw(st.integers(0, (1 << 24) - 1))
    if kind == "k1=k2":
        return _with_parity_noise(k1 + k1 + k3, noise)
    if kind == "k2=k3":
        return _with_parity_noise(k1 + k2 + k2, noise)
    return (k1 + k2 + k3)[: int(kind)]


def _distinct_from(part: bytes, other: bytes) -> bytes:
    """``part``, changed in its key bits (not its parity bits) where it equals ``other``."""
    same = all((a ^ b) & 0xFE == 0 for a, b in zip(part, other))
    return bytes(b ^ 0x80 for b in part) if same else part


@st.composite
def usable_tdes_keys(draw) -> bytes:
    """16- and 24-byte keys that degenerate to single DES nowhere: the agent serves them all.

    The tests marked ``accelerates`` must make an accelerated call, even with
    the few examples of the multi-Python job.
    """
    part = st.binary(min_size=8, max_size=8)
    k1 = draw(part)
    k2 = _distinct_from(draw(part), k1)
    k3 = _distinct_from(draw(part), k2)  # K1 = K3 is two-key Triple DES, which is allowed
    return (k1 + k2 + k3)[: draw(st.sampled_from([24, 16]))]


class TdesCase(aes_modes.ModeCase):
    @property
    def multiple(self) -> int:
        return 8 if self.aligned else 1


def _nonce_and_initial_value(nonce_len: int) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(
        {"nonce": st.binary(min_size=nonce_len, max_size=nonce_len)},
        optional={"initial_value": st.integers(0, 2 ** (8 * (8 - nonce_len)) - 1)},
    )


CASES = (
    TdesCase("ecb", "tdes-ecb", "MODE_ECB", st.just({}), aligned=True, randomizes=False),
    TdesCase("cbc", "tdes-cbc", "MODE_CBC", st.fixed_dictionaries({"iv": ivs}), aligned=True),
    TdesCase(
        "cfb",
        "tdes-cfb",
        "MODE_CFB",
        st.fixed_dictionaries({"iv": ivs}, optional={"segment_size": st.sampled_from([8, 64])}),
    ),
    TdesCase("ofb", "tdes-ofb", "MODE_OFB", st.fixed_dictionaries({"iv": ivs})),
)
# Native only: the agent must leave them exactly as they are.
NATIVE_CASES = (
    TdesCase("ctr", "tdes-ctr", "MODE_CTR", st.integers(0, 7).flatmap(_nonce_and_initial_value)),
    TdesCase(
        "eax",
        "tdes-eax",
        "MODE_EAX",
        st.fixed_dictionaries({"nonce": st.binary(min_size=1, max_size=16)}),
        aead=True,
    ),
)
with_cases = pytest.mark.parametrize("case", CASES, ids=repr)
with_all_cases = pytest.mark.parametrize("case", CASES + NATIVE_CASES, ids=repr)


@pytest.fixture
def des3(flavour):
    return import_from(flavour, "Cipher.DES3")


def test_every_tdes_primitive_has_a_case():
    primitives = {spec.name for spec in catalog.PRIMITIVES if spec.family == "tdes"}
    assert primitives == {case.primitive for case in CASES}


PLAIN = {
    "tdes-ecb": {},
    "tdes-cbc": {"iv": bytes(range(8))},
    "tdes-cfb": {"iv": bytes(range(8)), "segment_size": 64},
    "tdes-ofb": {"iv": bytes(range(8))},
}


@with_flavours
@with_cases
@pytest.mark.parametrize("key_size", [16, 24])
def test_plain_call_is_accelerated(des3, case, key_size):
    why = require_acceleration(case.primitive)
    with accelerated_calls() as made:
        cipher = des3.new(
            bytes(range(key_size)), getattr(des3, case.constant), **PLAIN[case.primitive]
        )
        cipher.encrypt(bytes(64))
    assert made.get(case.primitive, 0) > 0, (case.primitive, why)


@pytest.mark.accelerates
@with_flavours
@with_all_cases
@ds.DIFF_SETTINGS
@given(key=tdes_keys(), kind=ds.input_kinds, inputs=st.data())
def test_roundtrip(des3, case, key, kind, inputs):
    """Encrypt in pieces and decrypt in other pieces, as native, keys good and bad."""
    params, blob, enc_cuts, dec_cuts, aad, aad_cuts = inputs.draw(aes_modes.roundtrip_inputs(case))
    both(
        aes_modes.roundtrip, des3, case, key, params, blob, enc_cuts, dec_cuts, kind, aad, aad_cuts
    )


@with_flavours
@with_all_cases
@ds.DIFF_SETTINGS
@given(key=tdes_keys(), inputs=st.data())
def test_call_sequences(des3, case, key, inputs):
    """Random call sequences: misuse, wrong types, output= buffers, all as native."""
    params = inputs.draw(case.params)
    ops = inputs.draw(st.lists(aes_modes.operations(case), min_size=1, max_size=8))
    both(aes_modes.run_operations, des3, case, key, params, ops)


@pytest.mark.accelerates
@with_flavours
@with_cases
@ds.DIFF_SETTINGS
@given(key=usable_tdes_keys(), output_kind=ds.output_kinds,
       method=st.sampled_from(["encrypt", "decrypt"]), inputs=st.data())  # fmt: skip
def test_output_buffers(des3, case, key, output_kind, method, inputs):
    params = inputs.draw(case.params)
    blob = inputs.draw(ds.data(max_size=4096, multiple=case.multiple))
    both(aes_modes.with_output, des3, case, key, params, blob, output_kind, method)


MODE_VALUES = ("MODE_ECB", "MODE_CBC", "MODE_CFB", "MODE_OFB", "MODE_CTR", "MODE_EAX")
MODE_VALUES += ("MODE_OPENPGP",)
RANDOMIZING = ("MODE_CBC", "MODE_CFB", "MODE_OFB", "MODE_EAX", "MODE_OPENPGP")


def _bytes_values(lengths) -> st.SearchStrategy:
    return st.one_of(
        st.sampled_from(lengths).flatmap(lambda n: st.binary(min_size=n, max_size=n)),
        st.sampled_from(lengths).map(lambda n: ("bytearray", n)),
        st.sampled_from(lengths).map(lambda n: ("memoryview", n)),
        ds.wrong_values,
    )


ARGUMENT_VALUES = {
    "iv": _bytes_values([8, 7, 9, 0, 16]),
    "IV": _bytes_values([8, 7, 9, 0]),
    "nonce": _bytes_values([4, 0, 7, 8, 16]),
    "initial_value": st.sampled_from([0, 1, 2**32, -1, True]),
    "segment_size": st.sampled_from([8, 64, 16, 128, 0, 7, 72, -8, "8", None, 8.0]),
    "mac_len": st.sampled_from([8, 4, 9, 0, None]),
    "use_aesni": st.booleans(),
    "key": st.just(bytes(24)),
    "unknown_option": st.just(1),
}
key_values = st.one_of(
    tdes_keys(),
    tdes_keys().map(bytearray),
    tdes_keys().map(lambda k: ("memoryview", len(k))),
    st.sampled_from(["0123456789abcdefFEDCBA98", 24, None, [0] * 24, 1.5]),
)
mode_values = st.one_of(
    st.sampled_from(MODE_VALUES),
    st.sampled_from([0, 4, 11, 99, -1, "1", None, 1.0, 2.0, True, b"\x01"]),
)


@st.composite
def constructor_calls(draw):
    key = draw(key_values)
    mode = draw(mode_values)
    names = draw(st.lists(st.sampled_from(sorted(ARGUMENT_VALUES)), unique=True, max_size=3))
    kwargs = {name: draw(ARGUMENT_VALUES[name]) for name in names}
    args = draw(st.one_of(st.just(()), st.lists(_bytes_values([8, 16]), max_size=2)))
    style = draw(st.sampled_from(aes_modes.CALL_STYLES))
    return key, mode, tuple(args), kwargs, style


def construct(rec, des3, key, mode, args, kwargs, style):
    mode_value = getattr(des3, mode) if isinstance(mode, str) and mode.startswith("MODE_") else mode
    args = tuple(aes_modes.materialize(a) for a in args)
    kwargs = {name: aes_modes.materialize(value) for name, value in kwargs.items()}
    cipher = rec.call(
        "new", aes_modes.call_new, des3, aes_modes.materialize(key), mode_value, args, kwargs, style
    )
    if cipher is RAISED:
        return
    given_nonce = any(arg is not None for arg in args) or any(
        kwargs.get(name) is not None for name in ("iv", "IV", "nonce")
    )
    randomizing = any(aes_modes._equal(mode_value, getattr(des3, name)) for name in RANDOMIZING)
    random_nonce = randomizing and not given_nonce
    aes_modes.record_object(rec, "new", cipher, random_nonce=random_nonce)
    if random_nonce:
        return  # a random IV: the results differ by design
    for method in ("encrypt", "decrypt"):
        fresh = aes_modes.call_new(
            des3, aes_modes.materialize(key), mode_value, args, kwargs, style
        )
        rec.call(method, getattr(fresh, method), bytes(32))


@with_flavours
@ds.DIFF_SETTINGS
@given(call=constructor_calls())
def test_constructor_arguments(des3, call):
    """DES3.new with valid, invalid, degenerate, mistyped arguments: same object or error."""
    key, mode, args, kwargs, style = call
    both(construct, des3, *call)


def parity_rules(rec, des3, key):
    rec.call("adjust_key_parity", des3.adjust_key_parity, key)
    cipher = rec.call("new", des3.new, key, des3.MODE_CBC, iv=bytes(8))
    if cipher is not RAISED:
        rec.call("encrypt", cipher.encrypt, bytes(24))


@with_flavours
@ds.DIFF_SETTINGS
@given(key=tdes_keys())
def test_key_rules(des3, key):
    """Degenerate keys (parity bits aside) and wrong sizes raise native's errors."""
    both(parity_rules, des3, key)


@with_flavours
def test_degenerate_key_error_is_natives(des3):
    """K1 = K2 up to parity is refused with native's ValueError and message."""
    k1 = bytes(range(8))
    key = k1 + bytes(b ^ 1 for b in k1) + bytes(range(8, 16))
    with pytest.raises(ValueError, match="degenerates to single DES"):
        des3.new(key, des3.MODE_ECB)


@pytest.mark.parametrize("factory", [mode + "_provider" for mode in ("ecb", "cbc", "cfb", "ofb")])
def test_no_deprecation_warning_reaches_the_program(factory):
    """pyca/cryptography warns on its old TripleDES name and on 16-byte keys: never seen here."""
    import warnings

    pytest.importorskip("cryptography")
    from accel_agent.providers import tdes

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        provider = getattr(tdes, factory)()
        args = () if factory == "ecb_provider" else (bytes(8),)
        if factory == "cfb_provider":
            args += (8,)
        for key in (bytes(range(16)), bytes(range(24))):
            provider.encryptor(key, *args).update(bytes(16))
    assert [str(w.message) for w in seen] == []
