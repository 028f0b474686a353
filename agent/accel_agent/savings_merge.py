"""``accel-agent report``: many processes' savings reports merged into one account.

Each process writes its own file (:mod:`accel_agent.savings`); this module
reads any number of them, from any number of machines, and adds them up per
primitive:

* calls (exact: the registry's counts) and bytes (exact where every call was
  sampled, else the sampled calls' mean times the calls, marked estimated);
* the agent's time and native's time for those calls, and the CPU seconds
  saved. Measured where shadow mode timed native doing the same sampled
  work; otherwise estimated from the agent's sampled time and this machine's
  calibrated native/OpenSSL ratio per size class (``accel-agent
  calibrate``), and marked so; unknown where neither exists;
* mismatches, the calls that went native and why, the processes and hosts.
"""

from __future__ import annotations

import json
import os

from accel_agent import savings

MEASURED = "measured"  # shadow mode timed native on the same sampled work
ESTIMATED = "estimated"  # calibration's native/OpenSSL ratio times the agent's time
UNKNOWN = "unknown"


class ReportError(ValueError):
    """A file is not a savings report this version can read."""


def report_files(paths: list[str]) -> list[str]:
    """The report files named: files as given, directories' ``*.json`` in name order."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            found += sorted(
                os.path.join(path, name) for name in os.listdir(path) if name.endswith(".json")
            )
        else:
            found.append(path)
    return found


def load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ReportError("%s: cannot read (%s)" % (path, type(exc).__name__)) from None
    if not isinstance(document, dict) or document.get("kind") != savings.REPORT_KIND:
        raise ReportError("%s: not an accel-agent savings report" % path)
    if document.get("schema") != savings.REPORT_SCHEMA:
        raise ReportError("%s: report schema %r is not %d" % (
            path, document.get("schema"), savings.REPORT_SCHEMA))  # fmt: skip
    return document


def _size_of(label: str) -> int:
    """The upper end of a size class label (``<=1KiB`` -> 1024)."""
    units = {"B": 1, "KiB": 1024, "MiB": 1 << 20}
    text = label.lstrip("<=>")
    for unit in ("KiB", "MiB", "B"):
        if text.endswith(unit):
            return int(text[: -len(unit)]) * units[unit] * (2 if label.startswith(">") else 1)
    return 0


def _calibrated_ratio(primitive: str, size_classes: dict[str, int], ratios: dict) -> float | None:
    """Native's time over OpenSSL's for this primitive's mix of sizes, from calibration."""
    table = ratios.get(primitive)
    if not table:
        return None
    measured = sorted((int(size), ratio) for size, ratio in table.items())
    total = sum(size_classes.values())
    if not total:
        return None
    weighted = 0.0
    for label, count in size_classes.items():
        size = _size_of(label)
        ratio = next((r for s, r in measured if s >= size), measured[-1][1])
        weighted += ratio * count
    return weighted / total


def merge(documents: list[dict], ratios: dict | None = None) -> dict:
    """Add the reports up; ``ratios`` are calibration's per-size speedups (estimates)."""
    ratios = ratios or {}
    hosts: dict[str, int] = {}
    totals: dict[str, dict] = {}
    processes = 0
    for document in documents:
        processes += 1
        host = str(document.get("host"))
        hosts[host] = hosts.get(host, 0) + 1
        shadowed = document.get("shadow_rate") is not None
        for name, entry in document.get("primitives", {}).items():
            total = totals.setdefault(name, _empty_total())
            total["calls"] += entry.get("calls", 0)
            total["samples"] += entry.get("samples", 0)
            total["sampled_bytes"] += entry.get("sampled_bytes", 0)
            total["sampled_agent_ns"] += entry.get("sampled_agent_ns", 0)
            if shadowed:
                total["shadow_samples"] += entry.get("samples", 0)
                total["shadow_agent_ns"] += entry.get("sampled_agent_ns", 0)
                total["shadow_native_ns"] += entry.get("sampled_native_ns", 0)
            total["comparisons"] += entry.get("comparisons", 0)
            total["uncomparable"] += entry.get("uncomparable", 0)
            for label, count in entry.get("size_classes", {}).items():
                total["size_classes"][label] = total["size_classes"].get(label, 0) + count
            for found in entry.get("mismatches", []):
                key = "%s %s" % (found.get("method"), found.get("size_class"))
                total["mismatches"][key] = total["mismatches"].get(key, 0) + 1
            if entry.get("native_reason"):
                reason = entry["native_reason"]
                total["native"][reason] = total["native"].get(reason, 0) + 1
            if entry.get("provider"):
                total["providers"][entry["provider"]] = (
                    total["providers"].get(entry["provider"], 0) + 1
                )
    primitives = {name: _account(name, total, ratios) for name, total in sorted(totals.items())}
    return {
        "processes": processes,
        "hosts": dict(sorted(hosts.items())),
        "primitives": primitives,
        "totals": {
            "calls": sum(p["calls"] for p in primitives.values()),
            "comparisons": sum(p["comparisons"] for p in primitives.values()),
            "mismatches": sum(sum(p["mismatches"].values()) for p in primitives.values()),
            "saved_cpu_s": round(sum(p["saved_cpu_s"] or 0.0 for p in primitives.values()), 6),
        },
    }


def _empty_total() -> dict:
    return {
        "calls": 0,
        "samples": 0,
        "sampled_bytes": 0,
        "sampled_agent_ns": 0,
        "shadow_samples": 0,
        "shadow_agent_ns": 0,
        "shadow_native_ns": 0,
        "comparisons": 0,
        "uncomparable": 0,
        "size_classes": {},
        "mismatches": {},
        "native": {},
        "providers": {},
    }


def _account(name: str, total: dict, ratios: dict) -> dict:
    calls, samples = total["calls"], total["samples"]
    if samples and samples >= calls:
        byte_count, bytes_basis = total["sampled_bytes"], MEASURED
    elif samples:
        byte_count, bytes_basis = round(total["sampled_bytes"] * calls / samples), ESTIMATED
    else:
        byte_count, bytes_basis = None, UNKNOWN
    agent_s = native_s = None
    basis = UNKNOWN
    if total["shadow_samples"]:
        per_call_agent = total["shadow_agent_ns"] / total["shadow_samples"]
        per_call_native = total["shadow_native_ns"] / total["shadow_samples"]
        agent_s = per_call_agent * calls / 1e9
        native_s = per_call_native * calls / 1e9
        basis = MEASURED
    elif samples:
        agent_s = total["sampled_agent_ns"] / samples * calls / 1e9
        ratio = _calibrated_ratio(name, total["size_classes"], ratios)
        if ratio is not None:
            native_s = agent_s * ratio
            basis = ESTIMATED
    saved = None if native_s is None or agent_s is None else native_s - agent_s
    return {
        "calls": calls,
        "samples": samples,
        "bytes": byte_count,
        "bytes_basis": bytes_basis,
        "agent_cpu_s": None if agent_s is None else round(agent_s, 6),
        "native_cpu_s": None if native_s is None else round(native_s, 6),
        "saved_cpu_s": None if saved is None else round(saved, 6),
        "time_basis": basis,
        "comparisons": total["comparisons"],
        "uncomparable": total["uncomparable"],
        "mismatches": dict(sorted(total["mismatches"].items())),
        "native_reasons": dict(sorted(total["native"].items())),
        "providers": dict(sorted(total["providers"].items())),
    }


def _figure(value: float | None, basis: str) -> str:
    if value is None:
        return "-"
    text = "%.3f" % value
    return text + ("~" if basis == ESTIMATED else "")


def _bytes(value: int | None, basis: str) -> str:
    if value is None:
        return "-"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            text = "%.1f %s" % (value / size, unit)
            break
    else:
        text = "%d B" % value
    return text + ("~" if basis == ESTIMATED else "")


def table(merged: dict) -> list[str]:
    """The merged account as lines of text (``~``: estimated)."""
    columns = ("primitive", "calls", "bytes", "agent s", "native s", "saved s", "native")
    row_format = "%-14s %8s %10s %8s %8s %8s  %-9s %s"
    header = row_format % (columns + ("mism",))
    lines = [header, "-" * len(header)]
    for name, row in merged["primitives"].items():
        if not row["calls"] and not row["mismatches"]:
            continue
        lines.append(
            row_format
            % (
                name,
                row["calls"],
                _bytes(row["bytes"], row["bytes_basis"]),
                _figure(row["agent_cpu_s"], row["time_basis"]),
                _figure(row["native_cpu_s"], row["time_basis"]),
                _figure(row["saved_cpu_s"], row["time_basis"]),
                row["time_basis"],
                sum(row["mismatches"].values()),
            )
        )
    totals = merged["totals"]
    lines.append("-" * len(header))
    lines.append(
        "%d calls; %.3f CPU s saved; %d shadow comparisons, %d mismatches"
        % (totals["calls"], totals["saved_cpu_s"], totals["comparisons"], totals["mismatches"])
    )
    for name, row in merged["primitives"].items():
        for found, count in row["mismatches"].items():
            lines.append("mismatch: %s %s (%d)" % (name, found, count))
    for name, row in merged["primitives"].items():
        for reason, count in row["native_reasons"].items():
            lines.append("native: %s: %s (%d process%s)" % (
                name, reason, count, "" if count == 1 else "es"))  # fmt: skip
    hosts = ", ".join("%s (%d)" % item for item in merged["hosts"].items())
    lines.append(
        "%d processes on %d hosts: %s" % (merged["processes"], len(merged["hosts"]), hosts)
    )
    lines.append("~ estimated: bytes from sampled calls; native time, where shadow")
    lines.append("  mode measured none, from this machine's `accel-agent calibrate`")
    return lines
