"""Hypothesis strategies and input builders shared by the differential tests.

Strategies draw *descriptions* (sizes, seeds, buffer kinds), never the
mutable objects themselves: a scenario runs twice (agent, then native), so
it rebuilds every bytearray and memoryview from the description each time.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from transparency_helpers import env_int

# ----------------------------------------------------------------- settings

# ACCEL_DIFF_EXAMPLES cranks the number of examples up (say 5000 for a soak);
# ACCEL_DIFF_RANDOM=1 drops derandomize so each run explores new inputs.
MAX_EXAMPLES = env_int("ACCEL_DIFF_EXAMPLES", 100)
DIFF_SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=not env_int("ACCEL_DIFF_RANDOM", 0),
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        # The fixtures are per test on purpose: the module under test and the call tally.
        HealthCheck.function_scoped_fixture,
    ],
)


def scaled(fraction: float) -> settings:
    """The differential settings with a fraction of the examples (expensive tests)."""
    return settings(DIFF_SETTINGS, max_examples=max(10, int(MAX_EXAMPLES * fraction)))


# ----------------------------------------------------------------- sizes and bytes

BLOCK = 16
MAX_SIZE = 64 * 1024
BOUNDARY_SIZES = sorted(
    {0, 1, 2, 7, 8, 12, 13, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097, MAX_SIZE - 1, MAX_SIZE}
    | {BLOCK * k + d for k in (1, 2, 3, 4, 8, 64, 256, 1024) for d in (-1, 0, 1)}
)


def sizes(max_size: int = MAX_SIZE, multiple: int = 1) -> st.SearchStrategy[int]:
    """Mostly small sizes and block boundaries; now and then anything up to ``max_size``."""
    base = st.one_of(
        st.integers(0, 3 * BLOCK + 1),
        st.sampled_from([n for n in BOUNDARY_SIZES if n <= max_size]),
        st.integers(0, min(max_size, 1024)),
        st.integers(0, max_size),
    )
    if multiple == 1:
        return base
    return base.map(lambda n: n - n % multiple)


def make_bytes(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


seeds = st.integers(0, 2**32 - 1)


def data(max_size: int = MAX_SIZE, multiple: int = 1) -> st.SearchStrategy[bytes]:
    return st.builds(make_bytes, sizes(max_size, multiple), seeds)


KEY_SIZES = (16, 24, 32)
keys = st.sampled_from(KEY_SIZES).flatmap(lambda n: st.binary(min_size=n, max_size=n))


def cuts(length: int, multiple: int = 1, max_pieces: int = 6) -> st.SearchStrategy[list[int]]:
    """Sorted cut points in ``0..length``: the pieces of a chunked encrypt/decrypt/update."""
    points = st.integers(0, length).map(lambda n: n - n % multiple)
    return st.lists(points, max_size=max_pieces - 1).map(sorted)


def split(blob: bytes, cut_points: list[int]) -> list[bytes]:
    bounds = [0] + [min(c, len(blob)) for c in cut_points] + [len(blob)]
    return [blob[a:b] for a, b in zip(bounds, bounds[1:])]


# ----------------------------------------------------------------- buffer kinds

# How the data is handed over. The plain kinds are what an accelerated call
# may serve itself; the others must reach native code and fail (or succeed)
# exactly as there.
PLAIN_INPUTS = ("bytes", "bytearray", "memoryview", "memoryview-bytearray")
EXOTIC_INPUTS = ("memoryview-strided", "memoryview-cast-H", "array-B")
WRONG_INPUTS = ("str", "int", "None", "list")
input_kinds = st.sampled_from(PLAIN_INPUTS)
any_input_kind = st.one_of(
    st.sampled_from(PLAIN_INPUTS),
    st.sampled_from(EXOTIC_INPUTS),
    st.sampled_from(WRONG_INPUTS),
)

OUTPUT_KINDS = (
    "none",
    "bytearray",
    "memoryview-bytearray",
    "bytearray-short",
    "bytearray-long",
    "bytes",
    "memoryview-bytes",
    "memoryview-strided",
    "list",
)
output_kinds = st.sampled_from(OUTPUT_KINDS)


class FakeLength:
    """Data whose length is checked before any byte is read (pycryptodome's own trick)."""

    def __init__(self, length: int) -> None:
        self._length = length

    def __len__(self) -> int:
        return self._length


def make_input(kind: str, blob: bytes):
    """The data ``blob`` as a value of ``kind``; wrong kinds keep only the length idea."""
    if kind == "bytes":
        return bytes(blob)
    if kind == "bytearray":
        return bytearray(blob)
    if kind == "memoryview":
        return memoryview(bytes(blob))
    if kind == "memoryview-bytearray":
        return memoryview(bytearray(blob))
    if kind == "memoryview-strided":
        backing = bytearray(2 * len(blob))
        backing[::2] = blob
        return memoryview(backing)[::2]
    if kind == "memoryview-cast-H":
        even = bytes(blob[: len(blob) - len(blob) % 2])
        return memoryview(even).cast("H")
    if kind == "array-B":
        import array

        return array.array("B", blob)
    if kind == "str":
        return blob.hex()[: len(blob)]
    if kind == "int":
        return len(blob)
    if kind == "None":
        return None
    if kind == "list":
        return list(blob)
    if kind == "fake-huge":
        return FakeLength(2**40)
    raise ValueError(kind)


def make_output(kind: str, length: int):
    """An ``output=`` argument of ``kind`` for a result of ``length`` bytes (``None``: none)."""
    if kind == "none":
        return None
    if kind == "bytearray":
        return bytearray(length)
    if kind == "memoryview-bytearray":
        return memoryview(bytearray(length))
    if kind == "bytearray-short":
        return bytearray(max(0, length - 1))
    if kind == "bytearray-long":
        return bytearray(length + 1)
    if kind == "bytes":
        return bytes(length)
    if kind == "memoryview-bytes":
        return memoryview(bytes(length))
    if kind == "memoryview-strided":
        return memoryview(bytearray(2 * length))[::2]
    if kind == "list":
        return [0] * length
    raise ValueError(kind)


def output_content(output) -> object:
    """What a caller sees in its ``output=`` buffer after the call."""
    if output is None:
        return None
    if isinstance(output, memoryview):
        return ("memoryview", output.tobytes())
    if isinstance(output, (bytes, bytearray)):
        return (type(output).__name__, bytes(output))
    return (type(output).__name__, list(output))


# Values that are not bytes, for arguments that want bytes (keys, nonces, tags).
wrong_values = st.sampled_from(["str", 7, None, [1, 2, 3], 1.5, object])
