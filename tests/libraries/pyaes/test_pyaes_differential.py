"""pyaes under the agent against pyaes without it, on generated inputs.

Each scenario drives pyaes (mode objects, their state between calls, the
``Counter``, the block feeders) and records every result, exception (type
and message) and pyaes's own state attributes after every call;
:func:`transparency_helpers.both` runs it with the agent and then natively
(pyaes's original methods put back) and fails on the first difference.
Native pyaes is slow (about 2.5 ms per KiB), so messages stay short here;
the long ones are the suite's and the benchmark's.
"""

from __future__ import annotations

import copy
import io
import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel_agent import patching
from transparency_helpers import Recorder, both, ensure_agent, is_accelerated

pyaes = pytest.importorskip("pyaes", reason="pyaes is not installed (requirements/pyaes.txt)")

SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
MODES = ("ecb", "cbc", "ctr", "cfb", "ofb")
PRIMITIVE = {name: "aes-" + name for name in MODES}
HIDDEN = ("_aes", "_accel_agent_key", "_accel_agent_state")  # compared separately / the agent's
TOP = 1 << 128


@pytest.fixture(autouse=True)
def _patched():
    ensure_agent()
    if not patching.is_patched("pyaes.aes", "AESModeOfOperationCTR.encrypt"):
        raise AssertionError("the agent did not patch pyaes: the comparison would prove nothing")


def _bytes(seed: int, length: int) -> bytes:
    return random.Random(seed).getrandbits(8 * length).to_bytes(length, "big") if length else b""


def record_state(rec: Recorder, label: str, mode) -> None:
    """pyaes's own attributes, as pyaes left them (the Counter by value)."""
    for name, value in sorted(vars(mode).items()):
        if name in HIDDEN:
            continue
        if isinstance(value, pyaes.Counter):
            rec.note("%s.%s" % (label, name), ("Counter", list(value.value)))
        else:
            rec.note("%s.%s" % (label, name), value)


def build(rec: Recorder, name: str, key: bytes, iv: bytes | None, segment: int, start: int):
    cls = pyaes.AESModesOfOperation[name]
    if name == "ecb":
        return rec.call("new", cls, key)
    if name == "ctr":
        return rec.call("new", cls, key, counter=pyaes.Counter(initial_value=start))
    if name == "cfb":
        return rec.call("new", cls, key, iv, segment_size=segment)
    return rec.call("new", cls, key, iv=iv)


# One operation: (method, length, input kind). "str" goes through pyaes's own
# code (latin-1 text), "bytearray" is what pyaes 1.6.1 rejects with TypeError.
operations = st.lists(
    st.tuples(
        st.sampled_from(("encrypt", "decrypt")),
        st.one_of(st.integers(0, 40), st.sampled_from((16, 32, 48, 64, 15, 17))),
        st.sampled_from(("bytes", "bytes", "bytes", "bytes", "str", "bytearray")),
    ),
    min_size=1,
    max_size=8,
)
counter_starts = st.one_of(
    st.integers(0, 1000), st.integers(TOP - 40, TOP - 1), st.integers(0, TOP - 1)
)


def _value(kind: str, data: bytes):
    if kind == "str":
        return data.decode("latin-1")
    if kind == "bytearray":
        return bytearray(data)
    return data


def mode_scenario(rec, module, name, key, iv, segment, start, ops, seed):
    mode = build(rec, name, key, iv, segment, start)
    if mode is Recorder.RAISED:
        return
    for step, (method, length, kind) in enumerate(ops):
        if name == "cfb" and kind == "bytes" and length % max(segment, 1):
            length -= length % segment  # mostly whole segments; the rest is checked below
        data = _value(kind, _bytes(seed + step, length))
        rec.call("%s(%d %s)" % (method, length, kind), getattr(mode, method), data)
        record_state(rec, "after %d" % step, mode)
    rec.note("round keys", mode._aes._Ke)  # the deferred key schedule, once asked for


@pytest.mark.parametrize("name", MODES)
@SETTINGS
@given(
    key_size=st.sampled_from((16, 24, 32)),
    iv_kind=st.sampled_from(("random", "random", "none", "short")),
    segment=st.sampled_from((1, 1, 16, 16, 2, 5, 0)),
    start=counter_starts,
    ops=operations,
    seed=st.integers(0, 2**32),
)
def test_mode_objects(name, key_size, iv_kind, segment, start, ops, seed):
    key = _bytes(seed ^ 1, key_size)
    iv = {"random": _bytes(seed ^ 2, 16), "none": None, "short": _bytes(seed, 15)}[iv_kind]
    both(mode_scenario, pyaes, name, key, iv, segment, start, ops, seed)


@pytest.mark.parametrize("name", MODES)
def test_each_mode_is_accelerated(name, request):
    """A plain run of each mode makes accelerated calls of its primitive (and agrees)."""
    request.node.add_marker(pytest.mark.accelerates(PRIMITIVE[name]))
    ops = [("encrypt", 16, "bytes"), ("encrypt", 32 if name != "ecb" else 16, "bytes")]
    both(mode_scenario, pyaes, name, _bytes(1, 16), _bytes(2, 16), 16, 5, ops, 7)


def test_keys_and_ivs_rejected_as_pyaes_does():
    def scenario(rec, module):
        for key in (b"k" * 15, b"k" * 17, "k" * 16, bytearray(16), memoryview(b"k" * 24), None, 16):
            for name in MODES:
                build(rec, name, key, b"i" * 16, 1, 1)
        for iv in (b"i" * 15, b"i" * 17, "i" * 16, bytearray(16)):
            for name in ("cbc", "cfb", "ofb"):
                mode = build(rec, name, b"k" * 16, iv, 1, 1)
                if mode is not Recorder.RAISED:
                    rec.call("encrypt", mode.encrypt, b"p" * 16)
                    record_state(rec, name, mode)
        key = bytearray(
            b"k" * 32
        )  # pyaes expands a bytearray key at once: later changes do not count
        modes = [build(rec, name, key, b"i" * 16, 16, 1) for name in MODES]
        key[:] = bytes(32)
        for name, mode in zip(MODES, modes):
            rec.call("encrypt %s" % name, mode.encrypt, b"p" * 16)

    both(scenario, pyaes)


def test_counter_wraps_as_pyaes_counter_does():
    def scenario(rec, module):
        for start in (TOP - 1, TOP - 2, TOP - 3):
            counter = pyaes.Counter(initial_value=start)
            mode = pyaes.AESModeOfOperationCTR(_bytes(3, 16), counter=counter)
            values = counter._counter
            rec.call("encrypt", mode.encrypt, _bytes(4, 50))
            rec.note("counter", list(counter.value))
            rec.note("same list", counter._counter is values)
            rec.call("encrypt", mode.encrypt, _bytes(5, 7))
            record_state(rec, "after", mode)

    both(scenario, pyaes)


def test_shared_and_changed_counters():
    """Two objects on one Counter, and a Counter the user moves between calls."""

    def scenario(rec, module):
        counter = pyaes.Counter(initial_value=9)
        first = pyaes.AESModeOfOperationCTR(_bytes(3, 16), counter=counter)
        second = pyaes.AESModeOfOperationCTR(_bytes(3, 16), counter=counter)
        for index, length in enumerate((5, 20, 16, 33, 1)):
            mode = first if index % 2 else second
            rec.call("encrypt", mode.encrypt, _bytes(index, length))
            rec.note("counter", list(counter.value))
        counter.increment()
        rec.call("after increment", first.encrypt, _bytes(9, 40))
        first._counter = pyaes.Counter(initial_value=3)
        rec.call("after replacing", first.encrypt, _bytes(10, 40))
        record_state(rec, "first", first)
        record_state(rec, "second", second)

    both(scenario, pyaes)


@pytest.mark.parametrize("name", MODES)
def test_copies_and_pickles_continue_as_pyaes(name):
    def scenario(rec, module):
        mode = build(rec, name, _bytes(1, 32), _bytes(2, 16), 16, 77)
        rec.call("encrypt", mode.encrypt, _bytes(3, 16))
        twins = (copy.copy(mode), copy.deepcopy(mode), pickle.loads(pickle.dumps(mode)))
        rec.note("state keys", sorted(vars(twins[2])))
        for twin in (mode,) + twins:
            rec.call("encrypt", twin.encrypt, _bytes(4, 16))
            rec.call("decrypt", twin.decrypt, _bytes(5, 16))

    both(scenario, pyaes)


chunks = st.lists(st.integers(0, 70), min_size=0, max_size=8)


def feeder_scenario(rec, module, name, padding, pieces, cut_pieces, seed):
    key, iv = _bytes(seed, 16), _bytes(seed + 1, 16)
    kw = {"iv": iv} if name in ("cbc", "cfb", "ofb") else {}
    cls = pyaes.AESModesOfOperation[name]
    encrypter = pyaes.Encrypter(cls(key, **kw), padding=padding)
    ciphertext = b""
    for index, length in enumerate(pieces):
        out = rec.call("feed %d" % length, encrypter.feed, _bytes(seed + index, length))
        rec.note("buffer", encrypter._buffer)
        if out is not Recorder.RAISED:
            ciphertext += out
    last = rec.call("final", encrypter.feed)
    rec.call("after final", encrypter.feed, b"x")
    if last is Recorder.RAISED:
        return
    ciphertext += last
    decrypter = pyaes.Decrypter(cls(key, **kw), padding=padding)
    position = 0
    for length in cut_pieces:
        rec.call("dec feed", decrypter.feed, ciphertext[position : position + length])
        position += length
    rec.call("dec rest", decrypter.feed, ciphertext[position:])
    rec.call("dec final", decrypter.feed, None)
    # pyaes's stream helpers run the same feeders
    source, sink = io.BytesIO(_bytes(seed, 100)), io.BytesIO()
    rec.call("encrypt_stream", pyaes.encrypt_stream, cls(key, **kw), source, sink, 7)
    rec.note("stream", sink.getvalue())


@pytest.mark.parametrize("name", MODES)
@settings(SETTINGS, max_examples=40)
@given(
    padding=st.sampled_from((pyaes.PADDING_DEFAULT, pyaes.PADDING_NONE, "other")),
    pieces=chunks,
    cut_pieces=chunks,
    seed=st.integers(0, 2**32),
)
def test_block_feeders(name, padding, pieces, cut_pieces, seed):
    both(feeder_scenario, pyaes, name, padding, pieces, cut_pieces, seed)


@pytest.mark.parametrize("name", ("ecb", "cbc"))
def test_feeders_hand_whole_runs_to_openssl(name, request):
    request.node.add_marker(pytest.mark.accelerates(PRIMITIVE[name]))
    comparison = both(feeder_scenario, pyaes, name, pyaes.PADDING_DEFAULT, [1000, 24], [500], 5)
    # Block by block, the 1024 bytes fed would take 63 calls and the encrypt_stream
    # of 100 bytes 7 more: a run of whole blocks is one call.
    if is_accelerated(PRIMITIVE[name]):
        assert 0 < comparison.accelerated(PRIMITIVE[name]) < 20


def test_feeders_with_text_and_odd_ciphertext():
    def scenario(rec, module):
        key, iv = b"abcdefghijklmnop", b"0123456789012345"
        encrypter = pyaes.Encrypter(pyaes.AESModeOfOperationCBC(key, iv))
        out = rec.call("feed", encrypter.feed, b"Hello World!!!!!")
        rec.call("feed text", encrypter.feed, "")
        rec.call("feed text", encrypter.feed, "Hello World!!!!!")
        rec.call("feed bytearray", encrypter.feed, bytearray(3))
        rec.call("final", encrypter.feed, None)
        rec.note("out", out)
        for ciphertext in (b"", b"x" * 5, b"x" * 17, b"x" * 32):
            decrypter = pyaes.Decrypter(pyaes.AESModeOfOperationCBC(key, iv))
            rec.call("feed", decrypter.feed, ciphertext)
            rec.call("final", decrypter.feed, None)

    both(scenario, pyaes)


@SETTINGS
@given(
    initial=st.one_of(
        st.integers(-(2**130), 2**130),
        st.sampled_from((0, 1, TOP - 1, TOP, -1, True, 1.5, "1", None, 2**200)),
    )
)
def test_counters_built_as_pyaes_builds_them(initial):
    def scenario(rec, module):
        counter = rec.call("Counter", pyaes.Counter, initial)
        if counter is not Recorder.RAISED:
            rec.note("value", counter.value)
            rec.call("increment", counter.increment)
            rec.note("value", counter.value)

    both(scenario, pyaes)
