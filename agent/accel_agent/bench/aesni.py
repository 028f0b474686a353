"""``--aesni-ab``: the AES rows again with OpenSSL's AES-NI masked, next to the main run.

The A/B runs in a child process (``python -m accel_agent bench --family aes
--json``) whose environment sets ``OPENSSL_ia32cap`` to :data:`AESNI_MASK`:
OpenSSL reads the variable once, when it loads, so it cannot be changed in
this process. pycryptodome's own AES-NI code does not read it, so native
pycryptodome runs as fast in both; the agent's platform gate sees the mask
and keeps AES native there, so the child's ``agent`` column is native too.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from accel_agent.bench.families import KIB, size_label
from accel_agent.bench.report import primitive_summary, timed_cells, wrapped
from accel_agent.bench.table import Table, format_ratio
from accel_agent.bench.targets import NOT_SLOWER_TOLERANCE, slower_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# OPENSSL_ia32cap: clear AES-NI (bit 57 of the first word) and PCLMULQDQ (bit 33);
# accel_agent.platform.IA32CAP_BITS has the same positions.
AESNI_MASK = "~0x200000200000000"
CHILD_OK = (0, 1)  # 1: a row broke in the child, which its document reports


class MaskedRunFailed(Exception):
    """The child run did not produce a document (crashed, or was killed)."""


def run_masked_child(forwarded: Sequence[str]) -> dict:
    """The AES rows measured in a child whose OpenSSL cannot use AES-NI or PCLMULQDQ.

    ``forwarded``: the parent's timing options (``--quick``, ``--sizes``...),
    so both runs measure alike. The child's progress bar, if any, shares the
    parent's stderr.
    """
    command = [sys.executable, "-m", "accel_agent", "bench", "--family", "aes"]
    command += ["--json", "--no-files", *forwarded]
    # ACCEL_AGENT=off: the child starts with the agent off, as the parent's
    # benchmark does; it switches the agent on and off itself.
    env = dict(os.environ, OPENSSL_ia32cap=AESNI_MASK, ACCEL_AGENT="off")
    completed = subprocess.run(command, env=env, stdout=subprocess.PIPE, check=False)
    if completed.returncode not in CHILD_OK:
        raise MaskedRunFailed("exit status %d" % completed.returncode)
    try:
        return json.loads(completed.stdout)
    except ValueError as exc:
        raise MaskedRunFailed("its output is not JSON (%s)" % exc) from exc


def paired_rows(doc: dict, masked: dict) -> list[dict]:
    """Each AES row measured in both runs: OpenSSL as is (here) and masked (the child)."""
    masked_rows = {(r["row"], r["size"]): r for r in masked["rows"]}
    rows = []
    for r in doc["rows"]:
        other = masked_rows.get((r["row"], r["size"]))
        if r["family"] != "aes" or other is None:
            continue
        rows.append(
            {
                "row": r["row"],
                "size": r["size"],
                "native_ns": r["native_ns"],
                "direct_ns": r["direct_ns"],
                "speedup": r["speedup"],
                "masked_native_ns": other["native_ns"],
                "masked_agent_ns": other["agent_ns"],
                "masked_direct_ns": other["direct_ns"],
                "masked_speedup": other["speedup"],
                "aesni_gain": other["direct_ns"] / r["direct_ns"],
                # both measured in the child, interleaved: native / OpenSSL without AES-NI
                "masked_direct_speedup": other["direct_speedup"],
            }
        )
    return rows


def print_table(rows: list[dict], masked: dict) -> None:
    print()
    print(
        wrapped(
            "AES-NI A/B: OpenSSL as is (NI) and with AES-NI and PCLMULQDQ masked (no-NI: "
            "OPENSSL_ia32cap=%s, in a child process)" % AESNI_MASK
        )
    )
    table = Table(
        ["aes", "size", "native", "dir NI", "dir no-NI", "NI gain", "agt NI", "agt no-NI"]
    )
    for r in rows:
        table.add(
            *timed_cells(r, "masked_native_ns", "direct_ns", "masked_direct_ns"),
            format_ratio(r["aesni_gain"]),
            format_ratio(r["speedup"]),
            format_ratio(r["masked_speedup"]),
        )
    table.print()
    print()
    for note in notes(rows, masked):
        print(wrapped(note))


def notes(rows: list[dict], masked: dict) -> list[str]:
    found = [
        "native: pycryptodome in the no-NI run (its own AES-NI code ignores "
        "OPENSSL_ia32cap). dir: direct cryptography's time. NI gain = direct time "
        "no-NI / NI. agt NI, agt no-NI: native time / agent time in each run (no-NI: "
        "the agent keeps AES native, ~1.00x expected)."
    ]
    if rows:
        below = [r for r in rows if r["masked_direct_speedup"] < 1.0]
        found.append(
            "NI gain %s; %s. Without AES-NI, direct cryptography is slower than native "
            "pycryptodome in %d/%d rows. native no-NI run / NI run: %.2f x (median)."
            % (
                gain_range([r for r in rows if r["size"] >= 16 * KIB], "from 16 KiB"),
                gain_range([r for r in rows if r["size"] < 16 * KIB], "below 16 KiB"),
                len(below),
                len(rows),
                statistics.median(r["masked_native_ns"] / r["native_ns"] for r in rows),
            )
        )
    slower = slower_rows([{**r, "speedup": r["masked_speedup"]} for r in rows])
    found.append(
        "no-NI run, agent slower than native (agent > %.2f x native): %d/%d rows%s"
        % (
            NOT_SLOWER_TOLERANCE,
            len(slower),
            len(rows),
            (": " + ", ".join("%s %s" % (r["row"], size_label(r["size"])) for r in slower))
            if slower
            else "",
        )
    )
    found.append("no-NI run, agent: %s" % primitive_summary(masked["agent"]["primitives"]))
    return found


def gain_range(rows: list[dict], label: str) -> str:
    if not rows:
        return "%s: not measured" % label
    gains = [r["aesni_gain"] for r in rows]
    return "%s: %.1fx to %.1fx (median %.1fx)" % (
        label,
        min(gains),
        max(gains),
        statistics.median(gains),
    )
