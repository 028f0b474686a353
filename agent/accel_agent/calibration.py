"""Gate 3 of the provider model: is the provider faster than native here?

Without a calibration cache the built-in defaults apply: each catalog row's
``default``, the path measured faster on the reference machine
(docs/performance.md gives the figures). A row without one keeps its
providers' priority order. No process start ever times anything; measuring
is what ``make bench`` (and, later, ``accel-agent calibrate``) is for.
"""

from __future__ import annotations

from accel_agent import catalog

NATIVE = catalog.NATIVE


def builtin_default(primitive: str) -> str | None:
    """The path the catalog row of ``primitive`` names without a calibration cache."""
    spec = catalog.BY_NAME.get(primitive)
    return spec.default if spec is not None else None


# Where native pycryptodome overtakes OpenSSL within a primitive that is
# otherwise faster through OpenSSL: calls (ECB, stateless) or whole objects
# (CFB-8, decided on the first call) at or above this many bytes stay native.
# Measured on the reference machine with pycryptodome 4.4 and OpenSSL 4.0:
# pycryptodome's pipelined AES-NI ECB beats OpenSSL's from about 128 KiB.
# CFB-8: native's byte loop overtakes OpenSSL's from about 1.5 KiB, but a
# CFB-8 object that turns native makes its native twin at the first call
# (pycryptodome's own new(), about 6 us), so OpenSSL keeps the message
# until that costs more. Measured against native: with 1.5 KiB here, 2-4 KiB
# messages 0.89-0.90x; with 8 KiB, 2 KiB 1.04-1.07x, 4-6 KiB 0.96-1.00x,
# 8-16 KiB 0.95-0.99x (docs/performance.md).
NATIVE_FROM_SIZE: dict[str, int] = {
    "aes-ecb": 128 * 1024,
    "aes-cfb8": 8 * 1024,
    # OpenSSL 3.0's RIPEMD-160 against pycryptodome's C, one-shot, interleaved:
    # 4 KiB 1.28x, 8 KiB 1.14x, 16 KiB 0.99x, 1 MiB 0.90x.
    "ripemd160": 16 * 1024,
}


def native_from_size(name: str) -> int | None:
    """The message size from which native is faster, or None if it never is."""
    return NATIVE_FROM_SIZE.get(name)


def preferred(primitive: str) -> str | None:
    """The provider name calibration prefers, ``"native"``, or None for no opinion."""
    cached = cached_preference(primitive)
    if cached == ANY_PROVIDER:
        return None  # measured here: the providers beat native, their order decides
    return cached or builtin_default(primitive)


# primitive -> {class -> value}: per-call decisions a target makes cheaply.
# pbkdf2: hash name -> iteration count from which native pycryptodome is
# faster (its C inner loop beats OpenSSL 3's PKCS5_PBKDF2_HMAC there: at
# 1,000 iterations of SHA-256, 0.14 ms vs 0.23 ms; at 600,000, ~2.5x).
BUILTIN_THRESHOLDS: dict[str, dict[str, int]] = {
    "pbkdf2": {
        "md5": 600,
        "sha1": 700,
        "sha224": 300,
        "sha256": 300,
        "sha384": 700,
        "sha512": 700,
        "sha512_224": 700,
        "sha512_256": 700,
        "sha3_224": 800,
        "sha3_256": 800,
        "sha3_384": 800,
        "sha3_512": 800,
        # pycryptodome has no C PBKDF2 loop for RIPEMD-160 (its HMAC runs in
        # Python): OpenSSL measured 60-65x faster from 1 to 2,000 iterations.
        "ripemd160": 2**31,
    },
}

CACHE_VERSION = 1
ANY_PROVIDER = "any"  # a cached preference: every provider beat native here
_cache: dict | None = None


def thresholds(primitive: str) -> dict[str, int]:
    """The per-call thresholds of ``primitive`` (a copy: targets keep it for the process)."""
    table = dict(BUILTIN_THRESHOLDS.get(primitive, {}))
    table.update(load_cache().get("thresholds", {}).get(primitive, {}))
    return table


def cached_preference(primitive: str) -> str | None:
    """What ``accel-agent calibrate`` measured for ``primitive`` on this machine, if it did."""
    return load_cache().get("preferred", {}).get(primitive)


def cache_dir() -> str:
    import os

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "accel-agent")


def fingerprint() -> dict[str, object]:
    """What a calibration depends on: CPU model and flags, Python, the libraries, OpenSSL."""
    import sys
    from importlib import metadata

    from accel_agent import platform as _platform

    facts = _platform.facts()
    model = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "CPU part"):
                    model = value.strip()
                    break
    except OSError:
        pass
    versions: dict[str, object] = {}
    for dist in ("cryptography", "pycryptodome", "pycryptodomex"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    try:
        import _ssl

        versions["openssl_python"] = _ssl.OPENSSL_VERSION
    except ImportError:
        versions["openssl_python"] = None
    return {
        "cpu": model,
        "arch": facts.arch,
        "cpu_features": sorted(facts.cpu_features),
        "masked": sorted(facts.masked_features),
        "python": "%s %s" % (sys.implementation.name, sys.version.split()[0]),
        **versions,
    }


def cache_path(print_: dict[str, object] | None = None) -> str:
    import hashlib as _hashlib_module  # sha256 of a few hundred bytes; builtin if need be
    import json
    import os

    text = json.dumps(print_ or fingerprint(), sort_keys=True)
    name = _hashlib_module.sha256(text.encode()).hexdigest()[:16]
    return os.path.join(cache_dir(), "calibration-%s.json" % name)


def load_cache() -> dict:
    """The calibration cache of this machine, read once; {} when absent or unreadable."""
    global _cache
    if _cache is not None:
        return _cache
    import os

    _cache = {}
    # Most machines never ran `accel-agent calibrate`: a directory listing says
    # so without the fingerprint (importlib.metadata and _ssl cost ~30 ms).
    try:
        names = os.listdir(cache_dir())
    except OSError:
        return _cache
    if not any(name.startswith("calibration-") and name.endswith(".json") for name in names):
        return _cache
    import json

    try:
        path = cache_path()
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        if not isinstance(document, dict) or document.get("version") != CACHE_VERSION:
            raise ValueError("unknown format")
        preferred_table = document.get("preferred", {})
        threshold_table = document.get("thresholds", {})
        if not isinstance(preferred_table, dict) or not all(
            isinstance(v, str) for v in preferred_table.values()
        ):
            raise ValueError("bad 'preferred' table")
        if not isinstance(threshold_table, dict) or not all(
            isinstance(t, dict) and all(isinstance(n, int) for n in t.values())
            for t in threshold_table.values()
        ):
            raise ValueError("bad 'thresholds' table")
        _cache = {"preferred": preferred_table, "thresholds": threshold_table, "path": path}
    except FileNotFoundError:
        pass
    except Exception as exc:  # noqa: BLE001 - a broken cache is ignored, never fatal
        from accel_agent import messages

        messages.problem(
            "calibration cache %s ignored (%s); using built-in defaults"
            % (path if "path" in locals() else cache_dir(), type(exc).__name__)
        )
    return _cache


def reset_cache() -> None:
    """Read the cache again on next use (tests; after ``accel-agent calibrate``)."""
    global _cache
    _cache = None


def measured_speedups() -> dict[str, dict[str, float]]:
    """Per primitive and size class (bytes), native's time over the provider's, measured here.

    What ``accel-agent calibrate`` recorded beside its choices; ``{}``
    without a calibration cache. The savings report's estimates use it.
    """
    path = load_cache().get("path")
    if not path:
        return {}
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            detail = json.load(handle).get("detail", {})
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(detail, dict):
        return {}
    speedups = {}
    for primitive, table in detail.items():
        if isinstance(table, dict):
            rows = {
                size: float(ratio)
                for size, ratio in table.items()
                if str(size).isdigit() and isinstance(ratio, (int, float)) and ratio > 0
            }
            if rows:
                speedups[primitive] = rows
    return speedups
