"""The benchmark's text and CSV output: the header, one 80-column table per family, notes.

Everything here reads the document :func:`accel_agent.bench.crypto.run`
returns (plain dicts, the same that ``--json`` prints), so the text, the CSV
and the chart cannot disagree.
"""

from __future__ import annotations

import csv
import os
import textwrap

from accel_agent.bench.crypto import NOISY_SPREAD
from accel_agent.bench.families import size_label
from accel_agent.bench.table import WIDTH, Table, format_ratio, format_time
from accel_agent.bench.timing import CLOCKS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# One row per measured (row, size) and per run: ``aesni`` is "as-is" for the
# main run and "masked" for --aesni-ab's child run (OpenSSL without AES-NI).
CSV_FIELDS = (
    "family",
    "row",
    "size",
    "aesni",
    "native_ns",
    "agent_ns",
    "direct_ns",
    "speedup",
    "direct_speedup",
    "fraction_of_direct",
    "served_by",
    "outputs_differ",
) + tuple(
    # both clocks of every row, whichever the run's was (read around the same loops)
    "%s_%s" % (clock, figure)
    for clock in CLOCKS
    for figure in ("native_ns", "agent_ns", "direct_ns", "speedup", "fraction_of_direct")
)


def wrapped(text: str, indent: str = "  ") -> str:
    return textwrap.fill(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def machine_line(machine: dict) -> str:
    """CPU, features, Python, libraries: one line (the chart's footer uses it too)."""
    flags = " ".join(machine["cpu_flags"]) or "no crypto extensions"
    text = "%s (%s CPUs; %s); %s on %s; pycryptodome %s; cryptography %s (%s)" % (
        machine["cpu"],
        machine["cpus"],
        flags,
        machine["python"],
        machine["os"],
        machine["pycryptodome"],
        machine["cryptography"],
        machine["openssl"],
    )
    others = machine.get("other_libraries") or {}
    if others:
        text += "; " + ", ".join("%s %s" % item for item in sorted(others.items()))
    if machine.get("openssl_ia32cap"):
        text += "; OPENSSL_ia32cap=%s" % machine["openssl_ia32cap"]
    return text


def print_header(doc: dict, settings_text: str) -> None:
    print("accel-agent bench: each library native vs under the agent vs pyca/cryptography")
    print(wrapped("machine: %s" % machine_line(doc["machine"])))
    agent = doc["agent"]
    print(
        wrapped("accel-agent %s: %s" % (agent["version"], primitive_summary(agent["primitives"])))
    )
    if agent["active_at_start"]:
        print(wrapped("note: the agent was already active at start-up (ACCEL_AGENT or -X accel)"))
    print(wrapped(settings_text))
    for name, reason in doc.get("skipped_families", {}).items():
        print(wrapped("family %s left out: %s" % (name, reason)))


def primitive_summary(primitives: dict[str, dict | None]) -> str:
    """Which primitives the agent accelerates, grouped by provider; the others by reason."""
    accelerated: dict[str, list[str]] = {}
    native: dict[str, list[str]] = {}
    for name, entry in primitives.items():
        if entry is None:
            native.setdefault("not in the agent's catalog", []).append(name)
        elif entry.get("accelerated"):
            accelerated.setdefault(str(entry.get("provider")), []).append(name)
        else:
            native.setdefault(str(entry.get("reason")), []).append(name)
    parts = ["%s via %s" % (" ".join(names), provider) for provider, names in accelerated.items()]
    parts += ["native: %s (%s)" % (" ".join(names), reason) for reason, names in native.items()]
    return "; ".join(parts) or "no primitives"


def format_ns(ns: float) -> str:
    return format_time(ns * 1e-9)


def timed_cells(row: dict, *time_fields: str) -> list[str]:
    """A table line's first cells: the row's label, its size, then its times (``*_ns`` fields)."""
    return [row["row"], size_label(row["size"]), *(format_ns(row[name]) for name in time_fields)]


def format_mbps(size: int, ns: float) -> str:
    """Throughput under the agent; "-" below 1 KiB, where a call's cost is not per byte."""
    if size < 1024:
        return "-"
    mbps = size * 1e3 / ns  # bytes per ns is GB/s
    return "%.0f" % mbps if mbps >= 10 else "%.1f" % mbps


def mark(row: dict) -> str:
    text = ("!" if row["outputs_differ"] else "") + ("*" if row["via"] == "native" else "")
    return text + ("~" if row["noisy"] else "")


def application_table(family: str, rows: Sequence[dict]) -> Table:
    """Rows of an application family: one unit of work per call, speed-up on both clocks.

    "cpu x" and "wall x" are native time / agent time on each clock; "in
    crypto" is the share of the native time spent inside the crypto library
    the agent intercepts (Amdahl: the whole cannot gain more than
    1 / (1 - share)).
    """
    table = Table([family, "native", "agent", "cpu x", "wall x", "in crypto"])
    for r in rows:
        clocks = r["speedup_by_clock"]
        share = r.get("crypto_share")
        table.add(
            r["row"],
            format_ns(r["native_ns"]),
            format_ns(r["agent_ns"]),
            format_ratio(clocks.get("cpu", r["speedup"])),
            format_ratio(clocks.get("wall", r["speedup"])),
            "-" if share is None or share != share else "%.0f%%" % (100 * share),
            suffix=mark(r),
        )
    return table


# The column of the other clock's speed-up (agt/nat) beside the run's.
OTHER_CLOCK_HEADER = {"wall": "wall x", "cpu": "cpu x"}


def other_clock(rows: Sequence[dict]) -> str | None:
    """The clock every row was also timed on besides the run's (None if some lack it)."""
    for clock in OTHER_CLOCK_HEADER:
        if rows and all(list(r.get("by_clock", {}))[1:2] == [clock] for r in rows):
            return clock
    return None


def print_tables(doc: dict) -> None:
    for family in doc["families"]:
        rows = [r for r in doc["rows"] if r["family"] == family]
        if not rows:
            continue
        print()
        print(wrapped(doc["titles"][family]))
        if all("speedup_by_clock" in r for r in rows):
            application_table(family, rows).print()
            continue
        other = other_clock(rows)
        headers = [family, "size", "native", "agent", "direct", "agt/nat", "of dir", "MB/s"]
        table = Table(headers + ([OTHER_CLOCK_HEADER[other]] if other else []))
        for r in rows:
            cells = [
                *timed_cells(r, "native_ns", "agent_ns", "direct_ns"),
                format_ratio(r["speedup"]),
                "%.2fx" % r["fraction_of_direct"],
                format_mbps(r["size"], r["agent_ns"]),
            ]
            if other:
                cells.append(format_ratio(r["by_clock"][other]["speedup"]))
            table.add(*cells, suffix=mark(r))
        table.print()
    print()
    for note in notes(doc):
        print(wrapped(note))


def notes(doc: dict) -> list[str]:
    """The legend of the marks actually used, then what went wrong or was left out."""
    rows = doc["rows"]
    found = []
    if any(r["via"] == "native" for r in rows):
        found.append(
            "* the agent served the row natively (primitive not accelerated here, or this "
            "call shape declined): ~1.00x expected"
        )
    if any(r["noisy"] for r in rows):
        found.append("~ noisy: samples of a variant spread over %d %%" % (NOISY_SPREAD * 100))
    for r in rows:
        if r["outputs_differ"]:
            found.append(
                "! OUTPUTS DIFFER from the native library's, row not comparable: %s %s (%s)"
                % (r["row"], size_label(r["size"]), ", ".join(r["outputs_differ"]))
            )
    for error in doc["errors"]:
        found.append("ERROR, not measured: %s" % error)
    if doc.get("too_slow"):
        found.append(
            "left out by --quick (one call over %.0f ms): %s"
            % (doc["settings"]["max_call_ms"], "; ".join(doc["too_slow"]))
        )
    found.append(
        "agt/nat = native time / agent time (the agent's speed-up); of dir = direct time "
        "/ agent time (the share of direct cryptography's speed the agent reaches); "
        "medians of paired per-repetition ratios. MB/s: under the agent, from 1 KiB. "
        "wall x (cpu x): agt/nat on the other clock, read around the same loops; the "
        "CSV has every figure on both."
    )
    for message in doc["agent"]["messages"]:
        found.append("agent said: %s" % message)
    return found


def print_goals(verdicts: list[dict]) -> None:
    print()
    print("Goals (reported, not enforced)")
    others = sorted({clock for v in verdicts for clock in v.get("measured_by_clock", {})})
    # the other clock's figure in a column of its own (a goal holds only on both)
    table = Table(["goal", "target", "measured"] + others + ["verdict"])
    skipped = 0
    for v in verdicts:  # the row names say the family; the JSON's "goal" names it too
        if v["verdict"] == "SKIP":
            skipped += 1
            continue
        by_clock = v.get("measured_by_clock", {})
        measured = [v["measured"]] + [by_clock.get(clock, "") for clock in others]
        table.add(v.get("label", v["goal"]), v["target"], *measured, v["verdict"])
    table.print()
    if skipped:
        print(wrapped("%d more goals are for rows this run did not measure (SKIP)" % skipped))
    for v in verdicts:
        for slower in v.get("slower_rows", ()):
            print(wrapped("  slower than native: %s" % slower))


def csv_records(rows: Sequence[dict], aesni: str) -> list[list[str]]:
    return [
        [
            r["family"],
            r["row"],
            str(r["size"]),
            aesni,
            "%.1f" % r["native_ns"],
            "%.1f" % r["agent_ns"],
            "%.1f" % r["direct_ns"],
            "%.3f" % r["speedup"],
            "%.3f" % r["direct_speedup"],
            "%.3f" % r["fraction_of_direct"],
            r["via"],
            " ".join(r["outputs_differ"]),
        ]
        + clock_cells(r)
        for r in rows
    ]


def clock_cells(row: dict) -> list[str]:
    """The CSV's per-clock cells of a row; empty where the row lacks that clock."""
    cells = []
    for clock in CLOCKS:
        figures = row.get("by_clock", {}).get(clock)
        for name in ("native_ns", "agent_ns", "direct_ns", "speedup", "fraction_of_direct"):
            if figures is None:
                cells.append("")
            else:
                cells.append(("%.1f" if name.endswith("_ns") else "%.3f") % figures[name])
    return cells


def write_csv(path: str, doc: dict, masked: dict | None = None) -> int:
    """Write the rows (and the AES-NI-masked run's) to ``path``; returns how many rows."""
    records = csv_records(doc["rows"], "as-is")
    if masked is not None:
        records += csv_records(masked["rows"], "masked")
    return _write_table(path, CSV_FIELDS, records)


def _write_table(path: str, fields: Sequence[str], records: Sequence[Sequence[str]]) -> int:
    """A CSV file at ``path`` (its folder made if need be): the header, then ``records``."""
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(fields)
        writer.writerows(records)
    return len(records)


# The threaded table's CSV (--threads): one row per bulk row and thread count.
THREADS_CSV_FIELDS = (
    "family",
    "row",
    "size",
    "threads",
    "native_mbps",
    "agent_mbps",
    "direct_mbps",
    "speedup",
    "outputs_differ",
)


def print_threads(records: Sequence[dict]) -> None:
    """The bulk rows on N threads at once: aggregate MB/s of every variant, wall clock."""
    print()
    size = size_label(records[0]["size"]) if records else ""
    print(
        wrapped(
            "The bulk rows on several threads at once, %s messages: MB/s of all "
            "threads together, wall clock" % size
        )
    )
    table = Table(["row", "threads", "native", "agent", "direct", "agt/nat"])
    for r in records:
        table.add(
            "%s %s" % (r["family"], r["row"]),
            str(r["threads"]),
            "%.0f" % r["native_mbps"],
            "%.0f" % r["agent_mbps"],
            "%.0f" % r["direct_mbps"],
            format_ratio(r["speedup"]),
            suffix="!" if r["outputs_differ"] else "",
        )
    table.print()


def threads_csv_path(path: str) -> str:
    """Where --threads' CSV goes beside the main CSV: ``bench.csv`` -> ``bench-threads.csv``."""
    stem, extension = os.path.splitext(path)
    return "%s-threads%s" % (stem, extension or ".csv")


def write_threads_csv(path: str, records: Sequence[dict]) -> int:
    return _write_table(
        path,
        THREADS_CSV_FIELDS,
        [
            [
                r["family"],
                r["row"],
                str(r["size"]),
                str(r["threads"]),
                "%.1f" % r["native_mbps"],
                "%.1f" % r["agent_mbps"],
                "%.1f" % r["direct_mbps"],
                "%.3f" % r["speedup"],
                " ".join(r["outputs_differ"]),
            ]
            for r in records
        ],
    )
