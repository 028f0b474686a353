"""The agent's state as facts: the dict behind ``status()``, ``verify --json`` and the status lines.

Health, as assert mode and ``accel-agent verify`` judge it: every primitive
is either accelerated or native by choice (calibration measured native
faster, or the user excluded it), the platform is supported, and no patch
failed. Nothing here ever includes key material, data, nonces or tags: only
names, versions and reasons.
"""

from __future__ import annotations

from accel_agent import __version__, activation, catalog, hooks, messages, patching, registry
from accel_agent import platform as _platform

SCHEMA_VERSION = 1


def summary(resolve: bool = True) -> dict[str, object]:
    """Everything known about the agent in this process, as JSON-ready data.

    With ``resolve`` every primitive is decided first (running self-checks);
    without it, only the primitives already used are listed as decided.
    """
    facts = _platform.facts()
    choices = registry.resolve_all() if resolve else registry.decided()
    call_counts = registry.calls()
    primitives = {}
    for chosen in choices:
        entry = chosen.as_dict()
        entry["calls"] = call_counts.get(chosen.primitive, 0)
        primitives[chosen.primitive] = entry
    unhealthy = []
    if not facts.supported:
        unhealthy.append("platform: %s" % facts.unsupported_reason)
    for chosen in choices:
        if chosen.outcome == registry.NOT_ACCELERATED:
            unhealthy.append("%s not accelerated: %s" % (chosen.primitive, chosen.reason))
    for module_name, failure in sorted(hooks.failures.items()):
        unhealthy.append("patching %s failed: %s" % (module_name, failure))
    return {
        "schema": SCHEMA_VERSION,
        "agent_version": __version__,
        "mode": activation.current_mode(),
        "active": activation.is_active(),
        "platform": facts.as_dict(),
        "libraries": _platform.library_versions(),
        "primitives": primitives,
        "counts": _counts(choices),
        "patched": patching.patched_names(),
        "watched_modules": hooks.watched(),
        "hashlib": _hashlib_backends(),
        "key_reuse": _key_reuse(),
        "speedups": _speedups(),
        "shadow": _shadow(),
        "problems": list(messages.history),
        "healthy": not unhealthy,
        "unhealthy_reasons": unhealthy,
    }


def _shadow() -> dict[str, object]:
    """Shadow mode's rate, comparisons and mismatches (off: nothing was compared)."""
    import sys

    savings = sys.modules.get("accel_agent.savings")
    if savings is None:
        return {"on": False, "rate": None, "comparisons": 0, "uncomparable": 0, "mismatches": {}}
    return savings.shadow_summary()


def _key_reuse() -> bool:
    """Whether providers keep what they made of the last key object (docs/security.md)."""
    from accel_agent.providers import base

    return base.key_reuse_enabled()


def _speedups() -> str:
    """The per-call fast path: ``compiled``, ``off`` or ``not-built`` (accel_agent.speedups)."""
    from accel_agent import speedups

    return speedups.STATE


def _counts(choices: list[registry.Choice]) -> dict[str, int]:
    accelerated = sum(1 for c in choices if c.outcome == registry.ACCELERATED)
    return {
        "primitives": len(catalog.PRIMITIVES),
        "accelerated": accelerated,
        "native": len(choices) - accelerated,
    }


def status_lines(facts_summary: dict[str, object]) -> list[str]:
    """The two greppable lines of design.md, from a :func:`summary`."""
    platform_facts = facts_summary["platform"]
    libraries = facts_summary["libraries"]
    libc = platform_facts["libc"]
    if platform_facts["libc_version"]:
        libc = "%s %s" % (libc, platform_facts["libc_version"])
    openssl = libraries.get("openssl_cryptography")
    crypto_lib = (
        "OpenSSL %s (cryptography %s)" % (openssl, libraries.get("cryptography"))
        if openssl
        else "OpenSSL unavailable (cryptography %s)" % (libraries.get("cryptography") or "missing")
    )
    cpu = " ".join(platform_facts["cpu_features"]) or "none"
    masked = platform_facts["masked_features"]
    if masked:
        cpu += " (masked: %s)" % " ".join(masked)
    first = "accel-agent %s: %s on %s %s %s; cpu %s" % (
        facts_summary["agent_version"],
        crypto_lib,
        platform_facts["os"],
        platform_facts["arch"],
        libc,
        cpu,
    )
    counts = facts_summary["counts"]
    verdict = "PASSED" if facts_summary["healthy"] else "FAILED"
    second = "accel-agent self-check %s: %d accelerated, %d native" % (
        verdict,
        counts["accelerated"],
        counts["native"],
    )
    # One note per reason, naming every primitive it applies to, so that a
    # masked AES-NI reads as one fact rather than seven.
    by_reason: dict[str, list[str]] = {}
    for name, entry in facts_summary["primitives"].items():
        if not entry["accelerated"]:
            by_reason.setdefault(entry["reason"], []).append(name)
    native_notes = ["%s: %s" % (", ".join(names), reason) for reason, names in by_reason.items()]
    if not platform_facts["supported"]:
        native_notes.insert(0, platform_facts["unsupported_reason"])
    if native_notes:
        second += " (%s)" % "; ".join(native_notes)
    return [first, second]


def _hashlib_backends() -> dict[str, str]:
    """Per hashlib algorithm, the code that serves it: OpenSSL, builtin, or the agent's OpenSSL."""
    try:
        from accel_agent.targets import hashlib_backend

        return hashlib_backend.report()
    except Exception as exc:  # noqa: BLE001 - a report never fails for this
        return {"error": type(exc).__name__}
