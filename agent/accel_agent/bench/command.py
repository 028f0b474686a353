"""What ``accel-agent bench`` does, step by step: measure, print, write CSV and chart, A/B.

``accel_agent.cli`` parses the options and maps the outcome to an exit
code; this module does the work and knows nothing of click.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time

from accel_agent.bench import aesni, chart, crypto, report, targets, threads
from accel_agent.bench.families import FAMILIES
from accel_agent.bench.progress import ProgressBar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

DEFAULT_CSV = "accel-agent-bench.csv"
DEFAULT_CHART = "accel-agent-bench.png"


class UnknownFamily(ValueError):
    """A --family name no family module has."""


@dataclasses.dataclass
class Options:
    """The command's options, as plain values (the CLI fills them from its flags).

    The sequences are kept as lists; ``families`` empty means every family,
    and ``aesni_ab`` adds the AES family (the A/B compares its rows).
    """

    families: Sequence[str] = ()
    quick: bool = False
    rows: Sequence[str] = ()
    sizes: Sequence[int] = ()
    reps: int | None = None
    loops: int | None = None
    sample_ms: float | None = None
    clock: str = "cpu"
    csv_path: str | None = DEFAULT_CSV
    chart_path: str | None = DEFAULT_CHART
    as_json: bool = False
    check_goals: bool = False
    aesni_ab: bool = False
    progress: bool | None = None  # None: on a terminal only
    threads: Sequence[int] = ()  # thread counts of the threaded table; empty: none

    def __post_init__(self) -> None:
        self.families = list(self.families) or list(FAMILIES)
        if self.aesni_ab and "aes" not in self.families:
            self.families.append("aes")
        unknown = [name for name in self.families if name not in FAMILIES]
        if unknown:
            raise UnknownFamily(
                "unknown family %s (known: %s)" % (", ".join(unknown), ", ".join(FAMILIES))
            )
        self.rows = list(self.rows)
        self.sizes = list(self.sizes)
        self.threads = list(self.threads)

    def settings(self) -> crypto.Settings:
        return crypto.Settings(
            quick=self.quick,
            reps=self.reps,
            loops=self.loops,
            sample_ms=self.sample_ms,
            sizes=self.sizes,
            rows=self.rows,
            clock=self.clock,
        )

    def timing_arguments(self) -> list[str]:
        """The options a child run (--aesni-ab) needs to measure exactly like this one."""
        arguments = ["--clock", self.clock]
        if self.quick:
            arguments.append("--quick")
        for option, value in (
            ("--reps", self.reps),
            ("--loops", self.loops),
            ("--sample-ms", self.sample_ms),
        ):
            if value:
                arguments += [option, str(value)]
        if self.sizes:
            arguments += ["--sizes", ",".join(str(size) for size in self.sizes)]
        if self.rows:
            arguments += ["--rows", ",".join(self.rows)]
        if self.progress is not None:
            arguments.append("--progress" if self.progress else "--no-progress")
        return arguments


class Outcome:
    """What the run found, for the exit code: rows measured, rows broken, files written."""

    __slots__ = ("measured", "broken", "written", "chart_problem")

    def __init__(self) -> None:
        self.measured = 0
        self.broken = False
        self.written: list[str] = []
        self.chart_problem: str | None = None


def execute(options: Options) -> Outcome:
    """Run the benchmark as ``options`` say; print the tables (or JSON) on stdout.

    Raises OSError when the CSV or the chart cannot be written, and
    :class:`accel_agent.bench.aesni.MaskedRunFailed` when the A/B child fails.
    """
    started = time.perf_counter()
    settings = options.settings()
    switch = crypto.AgentSwitch()
    machine = crypto.machine_facts()
    prefix = "no-NI " if os.environ.get("OPENSSL_ia32cap") else ""  # noqa: SIM112
    bar = ProgressBar(prefix=prefix, enabled=options.progress)
    doc = crypto.run(options.families, settings, switch, bar)
    doc["machine"] = machine
    if options.threads:
        bar.waiting("the bulk rows on %s threads..." % ", ".join(map(str, options.threads)))
        modules, _ = crypto.load_families(doc["families"])
        doc["threads"], errors = threads.run(
            modules, options.threads, switch, options.quick, options.rows
        )
        doc["errors"] += errors
        bar.finish()
    verdicts = targets.check_goals(doc) if options.check_goals else None
    masked = aesni.run_masked_child(options.timing_arguments()) if options.aesni_ab else None
    outcome = Outcome()
    outcome.measured = len(doc["rows"])
    outcome.broken = (
        crypto.broken(doc)
        or any(r["outputs_differ"] for r in doc.get("threads", ()))
        or (masked is not None and crypto.broken(masked))
    )
    if options.csv_path and doc["rows"]:
        report.write_csv(options.csv_path, doc, masked)
        outcome.written.append(options.csv_path)
        if doc.get("threads"):
            path = report.threads_csv_path(options.csv_path)
            report.write_threads_csv(path, doc["threads"])
            outcome.written.append(path)
    if options.chart_path and doc["rows"]:
        footer = "accel-agent %s, %s. %s. %s." % (
            switch.version,
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            report.machine_line(machine),
            settings.describe(),
        )
        if masked is not None:
            footer += (
                " AES-NI masked: the AES rows again in a child process, OPENSSL_ia32cap=%s."
                % aesni.AESNI_MASK
            )
        try:
            chart.draw(doc, options.chart_path, footer, masked)
        except chart.ChartUnavailable as exc:
            outcome.chart_problem = str(exc)
        else:
            outcome.written.append(options.chart_path)
    elapsed = time.perf_counter() - started
    if options.as_json:
        out = dict(doc, goals=verdicts, run_seconds=elapsed)
        if masked is not None:
            out["aesni_ab"] = {"masked_run": masked, "rows": aesni.paired_rows(doc, masked)}
        json.dump(out, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
        return outcome
    report.print_header(doc, settings.describe())
    report.print_tables(doc)
    if doc.get("threads"):
        report.print_threads(doc["threads"])
    if verdicts is not None:
        report.print_goals(verdicts)
    if masked is not None:
        aesni.print_table(aesni.paired_rows(doc, masked), masked)
    print()
    for path in outcome.written:
        print("wrote %s" % path)
    print("run time: %.1f s" % elapsed)
    return outcome
