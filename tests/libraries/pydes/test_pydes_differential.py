"""pyDes under the agent against pyDes without it, on generated inputs.

Each scenario drives pyDes (``des`` and ``triple_des`` objects, their setters
and their state between calls) and records every result, exception (type and
message) and **all of pyDes's attributes** after every call: ``vars()`` of
the object and of each of a ``triple_des``'s three ``des`` parts (``Kn``,
``L``, ``R``, ``final``, ``_iv``...), and whether the third part is the first
(a 16-byte key). :func:`transparency_helpers.both` runs it with the agent and
then natively (pyDes's original methods put back) and fails on the first
difference. Native pyDes is slow (about 40 us a DES block), so messages stay
short here; the long ones are the benchmark's.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel_agent import patching
from transparency_helpers import Recorder, both, ensure_agent

pyDes = pytest.importorskip("pyDes", reason="pyDes is not installed (requirements/pyDes.txt)")

SETTINGS = settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
PARTS = ("_triple_des__key1", "_triple_des__key2", "_triple_des__key3")


@pytest.fixture(autouse=True)
def _patched():
    ensure_agent()
    if not patching.is_patched("pyDes", "triple_des.encrypt"):
        raise AssertionError("the agent did not patch pyDes: the comparison would prove nothing")


def _bytes(seed: int, length: int) -> bytes:
    return random.Random(seed).getrandbits(8 * length).to_bytes(length, "big") if length else b""


def state(obj) -> dict:
    """pyDes's attributes of ``obj``, its ``des`` parts by their own attributes."""
    out = {}
    for name, value in vars(obj).items():
        if isinstance(value, pyDes.des):
            value = ("des", state(value))
        out[name] = value
    if isinstance(obj, pyDes.triple_des) and all(name in vars(obj) for name in PARTS):
        out["third part is the first"] = vars(obj)[PARTS[2]] is vars(obj)[PARTS[0]]
    return out


def record_state(rec: Recorder, label: str, obj) -> None:
    rec.note(label, state(obj))


KEY_SIZES = {"des": (8,), "triple_des": (16, 24)}
PAD_CHARS = (None, None, b"*", b" ", "x", b"**", b"")


def build(rec, cls_name, key, mode, iv, pad, padmode):
    cls = getattr(pyDes, cls_name)
    return rec.call("new", cls, key, mode, iv, pad=pad, padmode=padmode)


# One operation: (method, length, input kind, pad argument, padmode argument).
operations = st.lists(
    st.tuples(
        st.sampled_from(("encrypt", "encrypt", "decrypt", "decrypt last", "setIV", "setMode",
                         "setPadding", "setPadMode", "crypt")),
        st.one_of(st.integers(0, 33), st.sampled_from((8, 16, 24, 64, 7, 9))),
        st.sampled_from(("bytes", "bytes", "bytes", "str", "bytearray")),
        st.sampled_from((None, None, None, b"*", "#", b"**")),
        st.sampled_from((None, None, pyDes.PAD_NORMAL, pyDes.PAD_PKCS5)),
    ),
    min_size=1,
    max_size=6,
)  # fmt: skip


def _value(kind: str, data: bytes):
    if kind == "str":
        return data.decode("latin-1")  # pyDes encodes ASCII text, refuses the rest
    if kind == "bytearray":
        return bytearray(data)
    return data


def object_scenario(rec, module, cls_name, key, mode, iv, pad, padmode, ops, seed):
    obj = build(rec, cls_name, key, mode, iv, pad, padmode)
    if obj is Recorder.RAISED:
        return
    record_state(rec, "new", obj)
    last = None
    for step, (method, length, kind, pad_arg, padmode_arg) in enumerate(ops):
        data = _bytes(seed + step, length)
        label = "%d %s(%d %s, %r, %r)" % (step, method, length, kind, pad_arg, padmode_arg)
        if method == "decrypt last" and isinstance(last, bytes):
            result = rec.call(label, obj.decrypt, last, pad_arg, padmode_arg)
        elif method in ("encrypt", "decrypt", "decrypt last"):
            call = obj.encrypt if method == "encrypt" else obj.decrypt
            result = rec.call(label, call, _value(kind, data), pad_arg, padmode_arg)
        elif method == "setIV":
            result = rec.call(label, obj.setIV, _value(kind, data[:8] if length > 8 else data))
        elif method == "setMode":
            result = rec.call(label, obj.setMode, length % 3)  # ECB, CBC, and 2 (pyDes: ECB)
        elif method == "setPadding":
            result = rec.call(label, obj.setPadding, pad_arg)
        elif method == "setPadMode":
            result = rec.call(label, obj.setPadMode, padmode_arg)
        else:  # des.crypt directly (a triple_des's first part)
            target = obj if isinstance(obj, pyDes.des) else vars(obj)[PARTS[0]]
            result = rec.call(label, target.crypt, data, length % 2)
        if isinstance(result, bytes) and method == "encrypt":
            last = result
        record_state(rec, "after %d" % step, obj)


@pytest.mark.parametrize("cls_name", ("des", "triple_des"))
@SETTINGS
@given(
    key_index=st.integers(0, 1),
    mode=st.sampled_from((pyDes.ECB, pyDes.CBC, pyDes.CBC, 2)),
    iv_kind=st.sampled_from(("random", "random", "none", "short", "str")),
    pad=st.sampled_from(PAD_CHARS),
    padmode=st.sampled_from((pyDes.PAD_NORMAL, pyDes.PAD_PKCS5)),
    ops=operations,
    seed=st.integers(0, 2**32),
)
def test_objects(cls_name, key_index, mode, iv_kind, pad, padmode, ops, seed):
    sizes = KEY_SIZES[cls_name]
    key = _bytes(seed ^ 1, sizes[key_index % len(sizes)])
    iv = {
        "random": _bytes(seed ^ 2, 8),
        "none": None,
        "short": _bytes(seed, 7),
        "str": "\0\1\2\3abcd",
    }[iv_kind]
    both(object_scenario, pyDes, cls_name, key, mode, iv, pad, padmode, ops, seed)


CASES = [
    ("triple_des", 24, pyDes.CBC, "tdes-cbc"),
    ("triple_des", 16, pyDes.CBC, "tdes-cbc"),
    ("triple_des", 24, pyDes.ECB, "tdes-ecb"),
    ("des", 8, pyDes.CBC, "tdes-cbc"),
    ("des", 8, pyDes.ECB, "tdes-ecb"),
]


@pytest.mark.parametrize("cls_name,key_size,mode,primitive", CASES)
@pytest.mark.parametrize("padmode", (pyDes.PAD_NORMAL, pyDes.PAD_PKCS5))
def test_each_class_and_mode_is_accelerated(cls_name, key_size, mode, primitive, padmode, request):
    """A plain run makes accelerated calls of its primitive, and agrees with pyDes."""
    request.node.add_marker(pytest.mark.accelerates(primitive))
    ops = [
        ("encrypt", 24, "bytes", None, None),
        ("decrypt last", 0, "bytes", None, None),
        ("encrypt", 8, "bytes", None, None),
        ("decrypt", 16, "bytes", None, None),
    ]
    key = _bytes(3, key_size)
    both(object_scenario, pyDes, cls_name, key, mode, _bytes(4, 8), None, padmode, ops, 5)


def test_keys_ivs_and_pads_rejected_as_pydes_does():
    def scenario(rec, module):
        for key in (b"k" * 7, b"k" * 9, b"k" * 15, b"k" * 17, b"k" * 23, b"k" * 25, "k" * 8,
                    "\u00e9" * 8, bytearray(24), None, 8):  # fmt: skip
            for cls_name in ("des", "triple_des"):
                for mode in (pyDes.ECB, pyDes.CBC):
                    obj = build(rec, cls_name, key, mode, b"i" * 8, None, pyDes.PAD_NORMAL)
                    if obj is not Recorder.RAISED:
                        rec.call("encrypt", obj.encrypt, b"p" * 16)
                        record_state(rec, cls_name, obj)
        for iv in (b"i" * 7, b"i" * 9, "i" * 8, "\u00e9" * 8, bytearray(8), b"", None):
            for cls_name, size in (("des", 8), ("triple_des", 24)):
                obj = build(rec, cls_name, b"k" * size, pyDes.CBC, iv, None, pyDes.PAD_NORMAL)
                if obj is not Recorder.RAISED:
                    rec.call("encrypt", obj.encrypt, b"p" * 16)
                    record_state(rec, cls_name, obj)
        for pad, padmode in ((b"*", pyDes.PAD_PKCS5), ("\u00e9", pyDes.PAD_NORMAL), (b"**", 1)):
            for cls_name, size in (("des", 8), ("triple_des", 24)):
                obj = build(rec, cls_name, b"k" * size, pyDes.CBC, b"i" * 8, pad, padmode)
                if obj is not Recorder.RAISED:
                    rec.call("encrypt", obj.encrypt, b"p" * 13)
                    rec.call("decrypt", obj.decrypt, b"p" * 16)
                    record_state(rec, cls_name, obj)

    both(scenario, pyDes)


def test_state_changed_behind_pydes_back_is_honoured():
    """Round keys, keys, modes and IVs set directly: pyDes's rounds decide, as natively."""

    def scenario(rec, module):
        for size in (8, 16, 24):
            cls_name = "des" if size == 8 else "triple_des"
            for change in ("row", "key", "Kn", "part mode", "iv", "part iv", "block_size"):
                obj = build(rec, cls_name, _bytes(size, size), pyDes.CBC, b"i" * 8, None, 1)
                part = obj if size == 8 else vars(obj)[PARTS[1]]
                rec.call("first", obj.encrypt, _bytes(1, 16))
                if change == "row":
                    part.Kn[3][5] ^= 1
                elif change == "key":
                    part._baseDes__key = b"other!!!"  # the round keys stay the old key's
                elif change == "Kn":
                    part.Kn = [list(row) for row in reversed(part.Kn)]
                elif change == "part mode":
                    part._mode = pyDes.ECB
                elif change == "iv":
                    obj._iv = b"j" * 8
                elif change == "part iv":
                    part._iv = b"j" * 8
                else:
                    part.block_size = 4
                rec.call("encrypt " + change, obj.encrypt, _bytes(2, 24))
                rec.call("decrypt " + change, obj.decrypt, _bytes(3, 24))
                record_state(rec, "%s %s" % (cls_name, change), obj)
                if change == "row":  # and back: served again, with the same results
                    part.Kn[3][5] ^= 1
                    rec.call("restored", obj.encrypt, _bytes(4, 24))
                    record_state(rec, "restored", obj)

    both(scenario, pyDes)


def test_objects_of_one_key_share_nothing():
    """Objects of one key (the agent keeps that key's schedule for the next): a round key
    changed in one leaves the others, and one made after, served as natively."""

    def scenario(rec, module):
        for size in (8, 16, 24):
            cls_name = "des" if size == 8 else "triple_des"
            key = _bytes(5, size)
            objs = [build(rec, cls_name, key, pyDes.CBC, b"i" * 8, None, 1) for _ in range(3)]
            changed = objs[1] if size == 8 else vars(objs[1])[PARTS[0]]
            changed.Kn[0][0] ^= 1
            objs.append(build(rec, cls_name, key, pyDes.CBC, b"i" * 8, None, 1))
            for index, obj in enumerate(objs):
                rec.call("encrypt %d" % index, obj.encrypt, _bytes(6 + index, 24))
                record_state(rec, "%s %d" % (cls_name, index), obj)
            for other in (_bytes(9, size), _bytes(10, size), key):  # more keys than are kept
                obj = build(rec, cls_name, other, pyDes.CBC, b"i" * 8, None, 1)
                rec.call("encrypt again", obj.encrypt, _bytes(11, 16))
                record_state(rec, "%s again" % cls_name, obj)

    both(scenario, pyDes)


@pytest.mark.parametrize("size", (8, 16, 24))
def test_copies_and_pickles_continue_as_pydes(size):
    def scenario(rec, module):
        cls_name = "des" if size == 8 else "triple_des"
        obj = build(rec, cls_name, _bytes(1, size), pyDes.CBC, _bytes(2, 8), None, 2)
        rec.call("encrypt", obj.encrypt, _bytes(3, 20))
        twins = (copy.copy(obj), copy.deepcopy(obj), pickle.loads(pickle.dumps(obj)))
        for index, twin in enumerate((obj,) + twins):
            record_state(rec, "twin %d" % index, twin)
            rec.call("encrypt %d" % index, twin.encrypt, _bytes(4 + index, 33))
            rec.call("decrypt %d" % index, twin.decrypt, _bytes(8 + index, 32))
            record_state(rec, "twin %d after" % index, twin)

    both(scenario, pyDes)


def test_subclasses_are_pydes_own():
    """A subclass may change anything: its own methods are pyDes's (its ``des``
    parts, plain ``des`` objects, are served block by block), and it agrees."""

    class Shifted(pyDes.triple_des):
        pass

    def scenario(rec, module):
        obj = Shifted(_bytes(1, 24), pyDes.CBC, _bytes(2, 8))
        rec.call("encrypt", obj.encrypt, _bytes(3, 16))
        record_state(rec, "subclass", obj)

    both(scenario, pyDes)


class _RefusingProvider:
    """An OpenSSL that refuses every key (as a FIPS configuration refuses K1=K2=K3)."""

    name = "openssl"

    def encryptor(self, key, iv=None):
        raise ValueError("refused")

    decryptor = encryptor


@pytest.mark.parametrize("size", (8, 16, 24))
def test_openssl_refusing_a_key_leaves_the_call_to_pydes(size, monkeypatch):
    from accel_agent import registry

    for name in ("tdes-ecb", "tdes-cbc"):
        monkeypatch.setattr(registry.slot(name), "provider", _RefusingProvider())

    def scenario(rec, module):
        cls_name = "des" if size == 8 else "triple_des"
        for mode in (pyDes.ECB, pyDes.CBC):
            obj = build(rec, cls_name, _bytes(1, size), mode, _bytes(2, 8), None, 2)
            rec.call("encrypt", obj.encrypt, _bytes(3, 20))
            rec.call("decrypt", obj.decrypt, _bytes(4, 24))
            record_state(rec, "after", obj)

    both(scenario, pyDes)
