"""``accel-agent bench --threads N``: aggregate throughput of the bulk rows on N threads.

The per-call tables time one thread. Native pycryptodome releases the GIL
in every C call, so threads encrypt in parallel natively; under the agent
the work runs in pyca/cryptography and ``_hashlib``, which must release it
too (docs/platforms.md, "Threads"). This measures it: every bulk row (one
whose sizes include :data:`SIZE`) runs its native, agent and direct calls
on 1, 2... N threads at once for a fixed stretch of wall time, and reports
the bytes all threads processed per second together.

The agent's state (native or active) is process-wide, so the threads of
one measurement all run in the same state; the variants are measured one
after another, in rotating order over the rounds (as
:func:`accel_agent.bench.timing.rotation` interleaves samples), and each
figure is the median over the rounds. Threads run on the wall clock: CPU
time of one thread says nothing about the others.
"""

from __future__ import annotations

import statistics
import threading
import time

from accel_agent.bench import crypto, timing
from accel_agent.bench.families import MIB

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SIZE = MIB  # the message size of the threaded rows
VARIANTS = ("native", "agent", "direct")
# (rounds, seconds per measurement): full and --quick.
FULL = (5, 0.3)
QUICK = (3, 0.1)


def aggregate_rate(function: Callable[[], object], threads: int, seconds: float) -> float:
    """Calls per second of ``threads`` threads calling ``function`` together for ``seconds``."""
    counts = [0] * threads
    start = threading.Barrier(threads + 1)
    deadline = [0.0]

    def work(index: int) -> None:
        start.wait()
        calls = 0
        while time.perf_counter() < deadline[0]:
            function()
            calls += 1
        counts[index] = calls

    workers = [threading.Thread(target=work, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    began = time.perf_counter()
    deadline[0] = began + seconds
    start.wait()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.perf_counter() - began)


def bulk_rows(family) -> list:
    """The rows of ``family`` measured at :data:`SIZE` (message-size rows and 1 MiB streams)."""
    return [row for row in family.ROWS if row.sizes is None or SIZE in row.sizes]


def measure_row(
    family_name: str,
    row,
    thread_counts: Sequence[int],
    switch,
    rounds: int,
    seconds: float,
) -> list[dict]:
    """One record per thread count: MB/s of the three variants together on that many threads."""
    pycryptodome, direct = row.build(SIZE)
    if direct is None:
        return []
    calls = {"native": pycryptodome, "agent": pycryptodome, "direct": direct}
    enter = {"native": switch.native, "agent": switch.agent, "direct": None}
    outputs = {}
    for name in VARIANTS:  # the same work, or the row is not comparable
        if enter[name] is not None:
            enter[name]()
        outputs[name] = crypto.checked_call(name, calls[name])[0]
    differ = [name for name in ("agent", "direct") if outputs[name] != outputs["native"]]
    records = []
    for threads in thread_counts:
        rates: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for _, name in timing.rotation(VARIANTS, rounds):
            if enter[name] is not None:
                enter[name]()
            rates[name].append(aggregate_rate(calls[name], threads, seconds))
        mbps = {name: statistics.median(rates[name]) * SIZE / 1e6 for name in VARIANTS}
        records.append(
            {
                "family": family_name,
                "row": row.label,
                "size": SIZE,
                "threads": threads,
                "native_mbps": mbps["native"],
                "agent_mbps": mbps["agent"],
                "direct_mbps": mbps["direct"],
                "speedup": mbps["agent"] / mbps["native"],
                "outputs_differ": differ,
            }
        )
    switch.agent()
    return records


def run(
    modules: Sequence, thread_counts: Sequence[int], switch, quick: bool, row_filter=()
) -> tuple[list[dict], list[str]]:
    """Every bulk row of every family module at each thread count: (records, errors).

    A row whose variant raises is left out, its error listed (as the
    per-call run lists it), and the run goes on.
    """
    rounds, seconds = QUICK if quick else FULL
    records, errors = [], []
    for module in modules:
        for row in bulk_rows(module):
            if row_filter and not any(part in row.label for part in row_filter):
                continue
            try:
                records += measure_row(module.NAME, row, thread_counts, switch, rounds, seconds)
            except crypto.RowError as exc:
                errors.append("%s %s on threads: %s" % (module.NAME, row.label, exc))
                switch.agent()
    return records, errors


def slower_rows(records: Sequence[dict], tolerance: float) -> list[dict]:
    """Records where the agent's aggregate throughput fell below native's by more than
    ``tolerance`` (the every-row goal's noise margin)."""
    return [r for r in records if r["speedup"] * tolerance < 1.0]
