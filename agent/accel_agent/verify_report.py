"""What ``accel-agent verify`` adds to the status facts, and how it prints them.

Only ``verify`` uses py-cpuinfo (about a second per call: it starts a
subprocess); the start-up path never does.
"""

from __future__ import annotations

import importlib
import textwrap

import click

from accel_agent import targets
from accel_agent.registry import ACCELERATED, NATIVE_BY_CHOICE, NOT_ACCELERATED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WIDTH = 79  # every line fits an 80-column terminal


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


# Top-level packages the agent watches that are not a distribution of their own name.
_NOT_LIBRARIES = ("Crypto", "Cryptodome", "hashlib", "hmac")  # pycryptodome's are listed already


def target_library_versions() -> dict[str, str | None]:
    """The version of every other library a target patches (python-ecdsa's ``ecdsa``, ...).

    Keyed by distribution name, None when not installed; read from
    distribution metadata, without importing the library.
    """
    from importlib import metadata

    versions: dict[str, str | None] = {}
    for package in sorted({name.split(".")[0] for name in targets.HOOKS} - set(_NOT_LIBRARIES)):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


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


def render(facts: dict[str, Any], styled: bool = False) -> str:
    """A report for a person, every line within 80 columns.

    With ``styled`` the verdict and the rows that make the machine unhealthy
    are coloured (click drops the colours when stdout is not a terminal).
    """
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
        textwrap_row(
            "platform",
            "%s %s, %s (%s)" % (platform_facts["os"], platform_facts["arch"], libc, supported),
        )
    )
    if cpu.get("brand"):
        lines.append(textwrap_row("cpu", cpu["brand"]))
    features = " ".join(platform_facts["cpu_features"]) or "none"
    lines.append(textwrap_row("cpu features", features))
    if platform_facts["masked_features"]:
        lines.append(
            textwrap_row(
                "masked", " ".join(platform_facts["masked_features"]) + " (OPENSSL_ia32cap)"
            )
        )
    if platform_facts["cpuinfo_problem"]:
        lines.append(textwrap_row("cpuinfo", platform_facts["cpuinfo_problem"]))
    if cpu.get("cpuinfo_flags_agree") is False:
        lines.append(textwrap_row("cpuinfo", "py-cpuinfo's flags disagree with /proc/cpuinfo"))
    lines.append(
        textwrap_row(
            "OpenSSL",
            "%s via cryptography %s; %s via Python's ssl"
            % (
                libraries.get("openssl_cryptography") or "unavailable",
                libraries.get("cryptography") or "missing",
                libraries.get("openssl_python") or "unavailable",
            ),
        )
    )
    # Every library the agent reports a version for, pycryptodome's first.
    for dist, version in libraries.items():
        if dist not in _NOT_TARGETS:
            lines.append(textwrap_row(dist, version or "not installed"))
    if facts.get("speedups"):
        from accel_agent.speedups import DESCRIPTIONS

        state = facts["speedups"]
        lines.append(textwrap_row("fast path", DESCRIPTIONS.get(state, state)))
    lines.extend(_environment_lines(facts.get("environment")))
    lines.append("")
    lines.extend(_primitive_lines(facts["primitives"], styled))
    lines.extend(_calibration_lines(facts.get("calibration")))
    lines.extend(_hashlib_lines(facts.get("hashlib")))
    lines.extend(_verdict_lines(facts, styled))
    return "\n".join(lines)


# Versions the header shows on its own lines (OpenSSL's), not as a patched library.
_NOT_TARGETS = ("cryptography", "openssl_cryptography", "openssl_python")

PROVIDER_WIDTH = 8  # "openssl", "hashlib", "native"
CHECK_WIDTH = 10  # "self-check" column: "passed", "FAILED", "not run"
NAME_WIDTH_MAX = 24  # a longer primitive name pushes its own row only


def _self_check(entry: dict[str, Any]) -> str:
    """What the self-check said for this primitive: passed, FAILED, or not run (and why not)."""
    if entry["outcome"] == ACCELERATED:
        return "passed"
    if any(reason.startswith("self-check failed") for reason in entry.get("refused", {}).values()):
        return "FAILED"
    return "not run"


def _primitive_lines(primitives: dict[str, dict[str, Any]], styled: bool) -> list[str]:
    """One row per primitive: who serves it, its self-check, and why, if native."""
    name_width = min(max([len("primitive")] + [len(n) for n in primitives]), NAME_WIDTH_MAX)
    indent = name_width + PROVIDER_WIDTH + CHECK_WIDTH + 6
    header = "%-*s  %-*s  %-*s  %s" % (
        name_width, "primitive", PROVIDER_WIDTH, "provider", CHECK_WIDTH, "self-check", "why",
    )  # fmt: skip
    lines = [header, "-" * WIDTH]
    for name, entry in primitives.items():
        why = "" if entry["outcome"] == ACCELERATED else entry["reason"]
        if entry["outcome"] == NOT_ACCELERATED:
            why = "!! " + why  # should be accelerated and is not: the machine is unhealthy
        row = "%-*s  %-*s  %-*s  %s" % (
            name_width, name, PROVIDER_WIDTH, entry["provider"], CHECK_WIDTH,
            _self_check(entry), why,
        )  # fmt: skip
        row = textwrap.fill(
            row.rstrip(), WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False
        )
        if styled and entry["outcome"] == NOT_ACCELERATED:
            row = click.style(row, fg="red")
        lines.append(row)
    lines.append("-" * WIDTH)
    return lines


def _environment_lines(environment: dict[str, Any] | None) -> list[str]:
    """The start-up hook, the environment's default mode, and what this shell overrides."""
    if not environment:
        return []
    pth = environment["pth_path"]
    state = "installed" if environment["pth_installed"] else "MISSING (reinstall accel-agent)"
    lines = [_row("start-up hook", state)]
    lines.extend(" " * 17 + part for part in _fold_path(pth, WIDTH - 17))
    mode = environment["default_mode"]
    lines.append(
        textwrap_row(
            "default mode",
            "%s (%s)"
            % (
                mode,
                "the agent runs only when asked: -X accel, ACCEL_AGENT"
                if mode == "off"
                else "every Python of this environment; accel-agent disable to undo",
            ),
        )
    )
    if environment.get("env_mode") is not None:
        lines.append(textwrap_row("ACCEL_AGENT", environment["env_mode"]))
    excluded = [
        value for value in (environment.get("default_exclude"), environment.get("env_exclude"))
        if value
    ]  # fmt: skip
    if excluded:
        lines.append(textwrap_row("excluded", ", ".join(excluded) + " (kept native by choice)"))
    return lines


def _fold_path(path: str, width: int) -> list[str]:
    """A long path cut after a '/' so each piece fits (a piece longer than width stays whole)."""
    pieces: list[str] = []
    current = ""
    for part in path.split("/"):
        part_with_slash = part + "/"
        if current and len(current) + len(part_with_slash) > width:
            pieces.append(current)
            current = ""
        current += part_with_slash
    pieces.append(current[:-1] if current.endswith("/") else current)
    return [piece for piece in pieces if piece]


def _verdict_lines(facts: dict[str, Any], styled: bool) -> list[str]:
    """HEALTHY or UNHEALTHY, the counts, each reason, and the exit status that follows."""
    outcomes = [entry["outcome"] for entry in facts["primitives"].values()]
    counts = "%d accelerated, %d native by choice" % (
        outcomes.count(ACCELERATED),
        outcomes.count(NATIVE_BY_CHOICE),
    )
    not_accelerated = outcomes.count(NOT_ACCELERATED)
    if not_accelerated:
        counts += ", %d not accelerated" % not_accelerated
    verdict = "HEALTHY" if facts["healthy"] else "UNHEALTHY"
    line = "%s: %s (exit %d)" % (verdict, counts, 0 if facts["healthy"] else 1)
    if styled:
        line = click.style(line, fg="green" if facts["healthy"] else "red", bold=True)
    lines = [line]
    # What is not accelerated, one line per reason (a masked AES-NI is one fact,
    # not seven); then every other reason (platform, a patch that failed) as is.
    by_reason: dict[str, list[str]] = {}
    for name, entry in facts["primitives"].items():
        if entry["outcome"] == NOT_ACCELERATED:
            by_reason.setdefault(entry["reason"], []).append(name)
    shown = {"%s not accelerated: %s" % (name, reason)
             for reason, names in by_reason.items() for name in names}  # fmt: skip
    items = ["%s: %s" % (reason, ", ".join(names)) for reason, names in by_reason.items()]
    items += [reason for reason in facts["unhealthy_reasons"] if reason not in shown]
    for item in items:
        lines.append(
            textwrap.fill(
                "  - " + item, WIDTH, subsequent_indent="    ", break_on_hyphens=False
            )
        )
    return lines


def _row(label: str, value: str) -> str:
    return "%-16s %s" % (label, value)


def calibration_facts() -> dict[str, Any]:
    """Where the choices come from (cache or built-in) and the per-call thresholds."""
    from accel_agent import calibration

    cached = calibration.load_cache()
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
            # A no-break space keeps each "hash count" pair on one line.
            parts = ", ".join("%s\u00a0%d" % item for item in sorted(table.items()))
            lines.append(
                textwrap_row(
                    primitive,
                    "OpenSSL below these iteration counts, native from them (native "
                    "is faster there): %s" % parts,
                ).replace("\u00a0", " ")
            )
    return lines


def _hashlib_lines(backends: dict[str, str] | None) -> list[str]:
    """The standard library's hashlib algorithms, grouped by the code that serves them."""
    if not backends:
        return []
    groups: dict[str, list[str]] = {}
    for name, backend in backends.items():
        groups.setdefault(backend, []).append(name)
    return [
        textwrap_row(
            "Python hashlib",
            "%s: %s" % (_HASHLIB_BACKENDS.get(backend, backend), " ".join(sorted(names))),
        )
        for backend, names in sorted(groups.items())
    ]


_HASHLIB_BACKENDS = {"openssl": "OpenSSL", "builtin": "CPython's own code"}


def textwrap_row(label: str, value: str) -> str:
    """A labelled row folded within the report's width, continuation lines under the value."""
    return textwrap.fill(
        _row(label, value), WIDTH, subsequent_indent=" " * 17, break_on_hyphens=False
    )
