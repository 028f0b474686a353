"""What ``accel-agent verify`` adds to the status facts, and how it prints them.

Only ``verify`` uses py-cpuinfo (about a second per call: it starts a
subprocess); the start-up path never does.
"""

from __future__ import annotations

import importlib

from accel_agent import targets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WIDTH = 78


def exercise_targets() -> dict[str, str]:
    """Import every installed target module so its patch is applied and checked."""
    outcome = {}
    for module_name in targets.HOOKS:
        try:
            importlib.import_module(module_name)
        except ImportError:
            outcome[module_name] = "not installed"
        else:
            outcome[module_name] = "imported"
    return outcome


def cpu_details(platform_facts: dict[str, Any], use_cpuinfo: bool = True) -> dict[str, Any]:
    """CPU brand and a cross-check of /proc/cpuinfo's flags against py-cpuinfo's."""
    details: dict[str, Any] = {"brand": None, "cpuinfo_flags_agree": None, "cpuinfo_problem": None}
    if not use_cpuinfo:
        return details
    try:
        import cpuinfo

        info = cpuinfo.get_cpu_info()
    except Exception as exc:  # noqa: BLE001 - the report goes on without it
        details["cpuinfo_problem"] = type(exc).__name__
        return details
    details["brand"] = info.get("brand_raw")
    flags = set(info.get("flags", ()))
    ours = set(platform_facts["cpu_features"]) | set(platform_facts["masked_features"])
    details["cpuinfo_flags_agree"] = ours <= flags if flags else None
    return details


def render(facts: dict[str, Any]) -> str:
    """A table for a person, 80 columns wide."""
    platform_facts = facts["platform"]
    libraries = facts["libraries"]
    cpu = facts.get("cpu", {})
    lines = ["accel-agent %s verify" % facts["agent_version"], ""]
    libc = platform_facts["libc"] + (
        " " + platform_facts["libc_version"] if platform_facts["libc_version"] else ""
    )
    supported = (
        "supported"
        if platform_facts["supported"]
        else "UNSUPPORTED: %s" % platform_facts["unsupported_reason"]
    )
    lines.append(
        _row(
            "platform",
            "%s %s, %s (%s)" % (platform_facts["os"], platform_facts["arch"], libc, supported),
        )
    )
    if cpu.get("brand"):
        lines.append(_row("cpu", cpu["brand"]))
    features = " ".join(platform_facts["cpu_features"]) or "none"
    lines.append(_row("cpu features", features))
    if platform_facts["masked_features"]:
        lines.append(
            _row("masked", " ".join(platform_facts["masked_features"]) + " (OPENSSL_ia32cap)")
        )
    if platform_facts["cpuinfo_problem"]:
        lines.append(_row("cpuinfo", platform_facts["cpuinfo_problem"]))
    lines.append(
        _row(
            "OpenSSL",
            "%s via cryptography %s; %s via Python's ssl"
            % (
                libraries.get("openssl_cryptography") or "unavailable",
                libraries.get("cryptography") or "missing",
                libraries.get("openssl_python") or "unavailable",
            ),
        )
    )
    for dist in ("pycryptodome", "pycryptodomex"):
        lines.append(_row(dist, libraries.get(dist) or "not installed"))
    environment = facts.get("environment")
    if environment:
        lines.append(
            textwrap_row(  # a long site-packages path is folded within 80 columns
                "start-up hook",
                "%s (%s)"
                % (
                    "installed" if environment["pth_installed"] else "MISSING",
                    environment["pth_path"],
                ),
            )
        )
        lines.append(_row("default mode", environment["default_mode"]))
    lines.append("")
    lines.append("%-16s %-9s %s" % ("primitive", "provider", "why"))
    lines.append("-" * WIDTH)
    for name, entry in facts["primitives"].items():
        marker = "" if entry["outcome"] != "not-accelerated" else "!! "
        lines.append("%-16s %-9s %s%s" % (name, entry["provider"], marker, entry["reason"]))
    lines.append("-" * WIDTH)
    for line in _calibration_lines(facts.get("calibration")):
        lines.append(line)
    for line in _hashlib_lines(facts.get("hashlib")):
        lines.append(line)
    counts = facts["counts"]
    verdict = "HEALTHY" if facts["healthy"] else "UNHEALTHY"
    lines.append(
        "%s: %d accelerated, %d native" % (verdict, counts["accelerated"], counts["native"])
    )
    for reason in facts["unhealthy_reasons"]:
        lines.append("  - %s" % reason)
    return "\n".join(lines)


def _row(label: str, value: str) -> str:
    return "%-16s %s" % (label, value)


def calibration_facts() -> dict[str, Any]:
    """Where the choices come from (cache or built-in) and the per-call thresholds."""
    from accel_agent import calibration

    cached = calibration._load_cache()
    return {
        "source": cached.get("path") or "built-in defaults",
        "thresholds": {name: calibration.thresholds(name) for name in ("pbkdf2",)},
    }


def _calibration_lines(calibration: dict[str, Any] | None) -> list[str]:
    """PBKDF2 and the like: which path serves which call, by a threshold."""
    if not calibration:
        return []
    lines = [textwrap_row("calibration", calibration["source"])]
    for primitive, table in sorted(calibration["thresholds"].items()):
        if table:
            parts = ", ".join("%s %d" % item for item in sorted(table.items()))
            lines.append(
                textwrap_row(
                    primitive,
                    "OpenSSL below these iteration counts, native from them (native "
                    "is faster there): %s" % parts,
                )
            )
    return lines


def _hashlib_lines(backends: dict[str, str] | None) -> list[str]:
    """hashlib's algorithms grouped by the code that serves them."""
    if not backends:
        return []
    groups: dict[str, list[str]] = {}
    for name, backend in backends.items():
        groups.setdefault(backend, []).append(name)
    return [
        textwrap_row("hashlib", "%s: %s" % (backend, " ".join(sorted(names))))
        for backend, names in sorted(groups.items())
    ]


def textwrap_row(label: str, value: str) -> str:
    import textwrap

    return textwrap.fill(
        _row(label, value), WIDTH, subsequent_indent=" " * 17, break_on_hyphens=False
    )
