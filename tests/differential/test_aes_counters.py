"""CTR counters OpenSSL's CTR cannot follow, under the agent against native pycryptodome.

``Counter.new(128, little_endian=True)`` (WinZip AES), suffixes, fields
shorter than the block that wrap inside it, and ``initial_value`` near the
wrap: the agent serves these from counter blocks encrypted by OpenSSL's ECB
(``speedups.CounterStream``). Every scenario runs under the agent and
natively (:func:`transparency_helpers.both`): results, exceptions (type and
message), attributes, and the counter's state, seen through the next call,
must be identical. The pure-Python ``CounterStream`` is checked against
native pycryptodome directly, as the compiled one is.
"""

from __future__ import annotations

import diff_strategies as ds
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accel_agent import speedups
from transparency_helpers import (
    RAISED,
    accelerated_calls,
    both,
    flavours_or_skip,
    import_from,
    natively,
    require_acceleration,
    with_flavours,
)

flavours_or_skip()

ATTRIBUTES = ("block_size", "nonce", "mode")
# Without the compiled path, counters OpenSSL's CTR cannot follow stay native
# (speedups.COUNTER_BLOCKS_SERVED): these tests then compare native with native
# for most of their examples, and need not see an accelerated call.
served = pytest.mark.accelerates("aes-ctr") if speedups.COUNTER_BLOCKS_SERVED else (lambda f: f)


@pytest.fixture
def aes(flavour):
    return import_from(flavour, "Cipher.AES")


@st.composite
def counters(draw) -> tuple:
    """(nbits, prefix, suffix, initial_value, little_endian): any counter block of 16 bytes."""
    nbytes = draw(st.one_of(st.sampled_from([1, 2, 4, 8, 12, 16]), st.integers(1, 16)))
    prefix_len = draw(st.integers(0, 16 - nbytes))
    prefix = draw(st.binary(min_size=prefix_len, max_size=prefix_len))
    suffix_len = 16 - nbytes - prefix_len
    suffix = draw(st.binary(min_size=suffix_len, max_size=suffix_len))
    top = 2 ** (8 * nbytes) - 1
    choices = [
        st.integers(0, min(top, 300)),
        st.integers(max(0, top - 300), top),  # wraps inside a message
        st.integers(max(0, top - 9000), top),  # wraps in a later 64 KiB chunk
        st.integers(0, top),
    ]
    if top > 2**64:
        choices.append(st.integers(2**64 - 300, 2**64 + 300))  # the low word's carry
    initial = draw(st.one_of(choices))
    little_endian = draw(st.booleans())
    return 8 * nbytes, prefix, suffix, initial, little_endian


def make_counter(module, description: tuple) -> dict:
    nbits, prefix, suffix, initial, little_endian = description
    counter = import_from(module.__name__.split(".")[0], "Util.Counter")
    return counter.new(
        nbits, prefix=prefix, suffix=suffix, initial_value=initial, little_endian=little_endian
    )


def calls_on_one_counter(rec, aes, key, description, lengths, methods, mutate):
    """Two ciphers from one Counter dict, calls interleaved; the dict changed after new()."""
    counter = make_counter(aes, description)
    first = rec.call("new 1", aes.new, key, aes.MODE_CTR, counter=counter)
    second = rec.call("new 2", aes.new, key, aes.MODE_CTR, counter=counter)
    if first is RAISED or second is RAISED:
        return
    rec.attributes("cipher", first, ATTRIBUTES)
    if mutate:
        counter["initial_value"] = 0  # native read the dict in new(): nothing changes
        counter["prefix"] = counter["prefix"][::-1]
        third = rec.call("new 3", aes.new, key, aes.MODE_CTR, counter=counter)
    else:
        third = None
    for index, (length, method) in enumerate(zip(lengths, methods)):
        data = ds.make_bytes(length, index)
        cipher = (first, second)[index % 2]
        rec.call("%s %d" % (method, index), getattr(cipher, method), data)
    if third is not None and third is not RAISED:
        rec.call("third", third.encrypt, bytes(40))
    for label, cipher in (("after 1", first), ("after 2", second)):
        rec.call(label, cipher.encrypt, bytes(33))  # the state, seen through the next call


@served
@with_flavours
@ds.scaled(0.5)
@given(
    key=ds.keys,
    description=counters(),
    lengths=st.lists(
        st.one_of(
            st.integers(0, 70),
            st.sampled_from([15, 16, 17, 8191, 8192, 8193, 8209, 16384 + 3, 70000, 131072, 200003]),
        ),
        min_size=1,
        max_size=8,
    ),
    methods=st.lists(st.sampled_from(["encrypt", "decrypt"]), min_size=8, max_size=8),
    mutate=st.booleans(),
)
def test_counters_reused_and_split(aes, key, description, lengths, methods, mutate):
    """Results, wrap errors and the state after each call, across call splits and reuse."""
    both(calls_on_one_counter, aes, key, description, lengths, methods, mutate)


def calls_into_buffers(rec, aes, key, description, lengths, kinds):
    """One counter's stream split into calls, each given an ``output=`` of its kind."""
    cipher = rec.call("new", aes.new, key, aes.MODE_CTR, counter=make_counter(aes, description))
    if cipher is RAISED:
        return
    for index, (length, kind) in enumerate(zip(lengths, kinds)):
        data = bytearray(ds.make_bytes(length, index))
        if kind == "in place":
            output = data
        elif kind == "memoryview in place":
            data = output = memoryview(data)
        else:
            output = ds.make_output(kind, length)
        rec.call("encrypt %d" % index, cipher.encrypt, data, output=output)
        rec.note("output %d" % index, ds.output_content(output))
    rec.call("after", cipher.encrypt, bytes(33))  # the counter's state, seen through a call


@served
@with_flavours
@ds.scaled(0.5)
@given(
    key=ds.keys,
    description=counters(),
    lengths=st.lists(
        st.one_of(st.integers(0, 70), st.sampled_from([16, 8193, 70000, 131075])),
        min_size=1,
        max_size=5,
    ),
    kinds=st.lists(
        st.sampled_from(list(ds.OUTPUT_KINDS) + ["in place", "memoryview in place"]),
        min_size=5,
        max_size=5,
    ),
)
def test_counters_into_output_buffers(aes, key, description, lengths, kinds):
    """``output=`` of every kind, in place too: what native writes there, and its state after."""
    both(calls_into_buffers, aes, key, description, lengths, kinds)


def run_to_the_wrap(rec, aes, key, description, total, chunk):
    counter = make_counter(aes, description)
    cipher = rec.call("new", aes.new, key, aes.MODE_CTR, counter=counter)
    if cipher is RAISED:
        return
    blob = ds.make_bytes(total, chunk)
    for start in range(0, total, chunk):
        rec.call("encrypt", cipher.encrypt, blob[start : start + chunk])
    rec.call("after the end", cipher.encrypt, b"\x00")
    rec.call("empty after the end", cipher.encrypt, b"")


@served
@with_flavours
@ds.scaled(0.5)
@given(
    key=ds.keys,
    description=counters().filter(lambda d: d[0] == 8),
    extra=st.integers(-40, 40),
    chunk=st.one_of(st.sampled_from([1, 15, 16, 17, 4096]), st.integers(1, 5000)),
)
def test_counter_runs_out(aes, key, description, extra, chunk):
    """A one-byte field runs through its wrap, then out of key stream: the error as native's.

    pycryptodome 3.x raises OverflowError there, 4.x MessageTooLongError;
    the call that would go past it goes to a native twin, which raises.
    """
    both(run_to_the_wrap, aes, key, description, 16 * 256 + extra, chunk)


@with_flavours
def test_winzip_counter_is_accelerated(aes):
    """``Counter.new(128, initial_value=1, little_endian=True)``: short messages go to OpenSSL."""
    why = require_acceleration("aes-ctr")
    if not speedups.COUNTER_BLOCKS_SERVED:
        pytest.skip("counter blocks are served by the compiled fast path only (not built here)")
    counter = make_counter(aes, (128, b"", b"", 1, True))
    with accelerated_calls() as made:
        cipher = aes.new(bytes(16), aes.MODE_CTR, counter=counter)
        cipher.encrypt(bytes(1024))
    assert made.get("aes-ctr", 0) > 0, "aes-ctr is accelerated (%s) but this call was not" % why


# ----------------------------------------------------------------- CounterStream itself


def _stream_classes() -> list:
    classes = [speedups._CounterStream]
    if speedups.COMPILED:
        classes.append(speedups.CounterStream)
    return classes


@pytest.mark.parametrize("stream_class", _stream_classes(), ids=lambda c: c.__module__)
@ds.scaled(0.5)
@given(
    key=st.binary(min_size=16, max_size=16),
    description=counters(),
    lengths=st.lists(
        st.one_of(
            st.integers(0, 40),
            st.integers(0, 20000),
            st.sampled_from([65535, 65536, 65537, 140000]),  # whole chunks of counter blocks
        ),
        max_size=6,
    ),
)
def test_counter_stream_against_native(stream_class, key, description, lengths):
    """The compiled and the pure-Python key streams equal native CTR's, call by call."""
    from Crypto.Cipher import AES
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    nbits, prefix, suffix, initial, little_endian = description
    nbytes = nbits // 8
    with natively():
        native = AES.new(key, AES.MODE_CTR, counter=make_counter(AES, description))
    block = prefix + initial.to_bytes(nbytes, "little" if little_endian else "big") + suffix
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    stream = stream_class(encryptor, block, len(prefix), nbytes, little_endian)
    room = 16 * 2 ** nbits  # bytes before native raises
    done = 0
    for index, length in enumerate(lengths):
        if done + length > room:
            break
        data = ds.make_bytes(length, index)
        if index % 2:
            out = bytearray(length + 15)
            assert stream.update_into(data, out) == length
            got = bytes(out[:length])
        else:
            got = stream.update(data)
        assert got == native.encrypt(data)
        done += length


class _BusyOnce:
    """An ECB context another thread is inside at the ``busy_at``-th call: pyo3's refusal."""

    def __init__(self, context, busy_at: int) -> None:
        self._context = context
        self._busy_at = busy_at
        self.calls = 0

    def _enter(self) -> None:
        self.calls += 1
        if self.calls == self._busy_at:
            raise RuntimeError("Already borrowed")

    def update(self, data):
        self._enter()
        return self._context.update(data)

    def update_into(self, data, buffer):
        self._enter()
        return self._context.update_into(data, buffer)


@pytest.mark.parametrize("stream_class", _stream_classes(), ids=lambda c: c.__module__)
@pytest.mark.parametrize("busy_at", [1, 2, 3])
def test_counter_stream_takes_its_own_context_when_the_shared_one_is_busy(stream_class, busy_at):
    """A stream of a key shares the provider's ECB context of that key; where another thread
    is inside it, the stream goes on with a context of its own (``fresh``), and the key
    stream is native's as if nothing had happened. Without ``fresh`` the refusal stands."""
    from Crypto.Cipher import AES
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key = bytes(range(16))
    description = (128, b"", b"", 1, True)
    with natively():
        native = AES.new(key, AES.MODE_CTR, counter=make_counter(AES, description))
    block = (1).to_bytes(16, "little")

    def encryptor(key_given):
        assert key_given is key
        made.append(key_given)
        return Cipher(algorithms.AES(key_given), modes.ECB()).encryptor()

    made: list = []
    shared = _BusyOnce(Cipher(algorithms.AES(key), modes.ECB()).encryptor(), busy_at)
    stream = stream_class(shared, block, 0, 16, True, encryptor, key)
    for index, length in enumerate((70000, 100, 65536)):  # a whole chunk, a short one, a chunk
        data = ds.make_bytes(length, index)
        assert stream.update(data) == native.encrypt(data)
    assert len(made) == 1
    calls = shared.calls  # the shared context is used no more after the refusal
    stream.update(bytes(70000))
    assert shared.calls == calls

    lone = stream_class(_BusyOnce(shared, 1), block, 0, 16, True)
    with pytest.raises(RuntimeError, match="borrowed"):
        lone.update(bytes(100))
