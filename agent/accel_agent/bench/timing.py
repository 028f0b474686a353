"""The project's timing: interleaved samples of variants, which may need different process state.

The same pycryptodome callable is timed in two states of the process (agent
uninstalled, agent active), so each :class:`Variant` carries an ``enter``
function that puts the process in its state; it runs before every sample,
outside the timed region.

The shape of a measurement (timeit's, with pyperf's interleaving):

* :func:`autorange` finds, per variant, how many calls make one timing loop
  last ``loop_ns`` (the first calls double as warm-up);
* a *sample* is the median of ``loops`` timing loops, in ns per call;
* :func:`measure` takes ``reps`` samples of every variant in rotating
  order (A B C, B C A, C A B, ...; :func:`rotation`), so drift on a shared
  machine hits every variant alike; the result is each variant's samples,
  summarised by their median.

It is the project's one timing implementation: ``accel-agent bench``,
``accel-agent calibrate``, ``bench/per_call_floor.py`` and the start-up
benchmark (``bench/startup.py``, whose callables each start an interpreter:
:func:`interleaved`, :func:`paired_differences`, :func:`percentile`) all
time through it.

Garbage collection is off inside timing loops, as in timeit.

Two clocks (:data:`CLOCKS`): ``wall`` is ``time.perf_counter_ns``; ``cpu`` is
``time.thread_time_ns``, the CPU time of the calling thread. Timed code here
is single-threaded, CPU-bound and does no I/O, so on an idle machine the two
agree; on a loaded one the wall clock also counts the time slices other
processes took (a loop timed at 16 us per call on the wall clock took 8 us
of CPU, steadily, while a neighbour ran), and the CPU clock does not.
"""

from __future__ import annotations

import gc
import itertools
import math
import statistics
import time

CLOCKS = {"cpu": time.thread_time_ns, "wall": time.perf_counter_ns}
DEFAULT_CLOCK = "cpu"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence


class Variant:
    """One thing to time: a zero-argument callable and the state it needs."""

    __slots__ = ("name", "function", "enter")

    def __init__(
        self, name: str, function: Callable[[], object], enter: Callable[[], None] | None = None
    ) -> None:
        self.name = name
        self.function = function
        self.enter = enter  # called before each sample, untimed; None: any state will do

    def prepare(self) -> None:
        if self.enter is not None:
            self.enter()


class Measurement:
    """The samples (ns per call) of one variant, and their summary."""

    __slots__ = ("samples", "number", "loops")

    def __init__(self, samples: Sequence[float], number: int, loops: int) -> None:
        self.samples = list(samples)
        self.number = number  # calls per timing loop
        self.loops = loops  # timing loops per sample

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """(max - min) / median of the samples: a rough noise figure, 0.03 = 3 %."""
        if len(self.samples) < 2:
            return 0.0
        return (max(self.samples) - min(self.samples)) / self.median

    def as_dict(self) -> dict[str, object]:
        return {
            "median_ns": self.median,
            "spread": self.spread,
            "samples_ns": list(self.samples),  # a snapshot, not the live list
            "calls_per_loop": self.number,
            "loops_per_sample": self.loops,
        }


def time_loop(
    function: Callable[[], object], number: int, clock: Callable[[], int] = CLOCKS[DEFAULT_CLOCK]
) -> int:
    """Nanoseconds taken by ``number`` back-to-back calls, with the GC off."""
    repeat = itertools.repeat(None, number)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for _ in repeat:
            function()
        return clock() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def autorange(
    function: Callable[[], object], loop_ns: float, clock: Callable[[], int] = CLOCKS[DEFAULT_CLOCK]
) -> int:
    """How many calls make one timing loop last about ``loop_ns`` (at least 1).

    Grows the count 1, 10, 100... until a loop lasts a tenth of the target,
    then scales it up in one step; a call slower than the target gives 1.
    """
    number = 1
    while True:
        elapsed = time_loop(function, number, clock)
        if elapsed >= loop_ns:
            return number
        if elapsed >= loop_ns / 10:
            return max(number, math.ceil(number * loop_ns / max(elapsed, 1)))
        number *= 10


def time_loop_clocks(
    function: Callable[[], object], number: int, reads: Sequence[Callable[[], int]]
) -> list[int]:
    """Like :func:`time_loop`, read on several clocks at once: nanoseconds per clock."""
    repeat = itertools.repeat(None, number)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        starts = [read() for read in reads]
        for _ in repeat:
            function()
        ends = [read() for read in reversed(reads)][::-1]
        return [end - start for start, end in zip(starts, ends)]
    finally:
        if gc_was_enabled:
            gc.enable()


def sample(
    function: Callable[[], object],
    number: int,
    loops: int,
    clock: Callable[[], int] = CLOCKS[DEFAULT_CLOCK],
) -> float:
    """One sample: the median over ``loops`` timing loops, in ns per call."""
    return statistics.median(time_loop(function, number, clock) / number for _ in range(loops))


def sample_clocks(
    function: Callable[[], object], number: int, loops: int, reads: Sequence[Callable[[], int]]
) -> list[float]:
    """One sample on each clock: per clock, the median over ``loops`` loops, ns per call."""
    loops_ns = [time_loop_clocks(function, number, reads) for _ in range(loops)]
    return [statistics.median(loop[i] / number for loop in loops_ns) for i in range(len(reads))]


def rotation(names: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, name) for ``rounds`` rounds, each starting one name later than the last."""
    count = len(names)
    for number in range(rounds):
        shift = number % count
        for name in list(names[shift:]) + list(names[:shift]):
            yield number, name


def measure(
    variants: Sequence[Variant],
    reps: int,
    loops: int,
    sample_ns: float,
    clock: str = DEFAULT_CLOCK,
) -> dict[str, Measurement]:
    """``reps`` interleaved samples of every variant, each lasting about ``sample_ns``."""
    return measure_clocks(variants, reps, loops, sample_ns, (clock,))[clock]


def measure_clocks(
    variants: Sequence[Variant],
    reps: int,
    loops: int,
    sample_ns: float,
    clocks: Sequence[str] = (DEFAULT_CLOCK,),
) -> dict[str, dict[str, Measurement]]:
    """:func:`measure` on several clocks read around the same loops: {clock: {variant: ...}}.

    The first clock sizes the loops; every clock times the very same calls,
    so the two clocks' figures differ only by what each counts (the wall
    clock also counts page faults on fresh memory, waits and other
    processes' time slices).
    """
    if reps < 1 or loops < 1:
        raise ValueError("reps and loops must be at least 1")
    reads = [CLOCKS[clock] for clock in clocks]
    loop_ns = sample_ns / loops
    numbers = {}
    for variant in variants:
        variant.prepare()
        variant.function()  # warm caches and lazy imports before the count is chosen
        numbers[variant.name] = autorange(variant.function, loop_ns, reads[0])
    samples: dict[str, dict[str, list[float]]] = {
        clock: {variant.name: [] for variant in variants} for clock in clocks
    }
    by_name = {variant.name: variant for variant in variants}
    for _, name in rotation(list(by_name), reps):
        variant = by_name[name]
        variant.prepare()
        for clock, value in zip(
            clocks, sample_clocks(variant.function, numbers[name], loops, reads)
        ):
            samples[clock][name].append(value)
    return {
        clock: {
            variant.name: Measurement(samples[clock][variant.name], numbers[variant.name], loops)
            for variant in variants
        }
        for clock in clocks
    }


def paired_ratio(numerator: Measurement, denominator: Measurement) -> float:
    """The median over repetitions of numerator / denominator, sample by sample.

    Samples of one repetition were taken next to each other, so a slow phase
    of the machine (a neighbour's burst lasting several samples) cancels out
    of each ratio; the ratio of the two medians would keep it.
    """
    return statistics.median(
        top / bottom for top, bottom in zip(numerator.samples, denominator.samples)
    )


def interleaved(
    cases: dict[str, Callable[[], object]],
    runs: int,
    warmup: int = 3,
    inner: int = 1,
    clock: str = "wall",
) -> dict[str, list[float]]:
    """Seconds per call of each case, ``runs`` samples each, taken in rotating rounds.

    For callables too slow to autorange (each starts an interpreter, say):
    a sample is the time of ``inner`` consecutive calls divided by ``inner``,
    and the first ``warmup`` rounds are run and thrown away.
    """
    if runs < 1 or inner < 1:
        raise ValueError("runs and inner must be at least 1")
    read = CLOCKS[clock]
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for round_number, name in rotation(list(cases), warmup + runs):
        elapsed = time_loop(cases[name], inner, read) / inner / 1e9
        if round_number >= warmup:
            samples[name].append(elapsed)
    return samples


def paired_differences(samples: dict[str, list[float]], baseline: str) -> dict[str, list[float]]:
    """For each case, its sample minus the baseline's sample of the same round."""
    base = samples[baseline]
    return {
        name: [value - base_value for value, base_value in zip(values, base)]
        for name, values in samples.items()
    }


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0..1), linearly interpolated."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
