"""``accel-agent calibrate``: time providers against native here, cache the choices.

For each primitive this module knows how to time, the provider and native
pycryptodome do the same work at each size class (hashes: 64 B, 1 KiB, 16
KiB, 1 MiB), on the thread's CPU clock, with the benchmark's timing. A hash
whose provider wins at every size class is cached as ``"any"`` (the
providers' priority order decides: ``hashlib``, else ``openssl``), otherwise
as ``"native"`` (hashes are not routed by size). PBKDF2 gets per-hash
iteration thresholds (OpenSSL below, native from there), found over
iteration classes; scrypt is timed at N=2^12. The result goes to
:func:`accel_agent.calibration.cache_path`, keyed by the machine
fingerprint; the registry reads it at the next process's first decision.

Nothing here runs at start-up: only the command imports this module.
"""

from __future__ import annotations

import json
import os
import time

from accel_agent.calibration import ANY_PROVIDER

SIZE_CLASSES = (64, 1024, 16 * 1024, 1024 * 1024)
PBKDF2_CLASSES = (100, 200, 300, 500, 700, 1000, 2000)
_HASH_MODULES = {
    "md5": ("MD5", {}),
    "sha1": ("SHA1", {}),
    "sha224": ("SHA224", {}),
    "sha256": ("SHA256", {}),
    "sha384": ("SHA384", {}),
    "sha512": ("SHA512", {}),
    "sha512-224": ("SHA512", {"truncate": "224"}),
    "sha512-256": ("SHA512", {"truncate": "256"}),
    "sha3-224": ("SHA3_224", {}),
    "sha3-256": ("SHA3_256", {}),
    "sha3-384": ("SHA3_384", {}),
    "sha3-512": ("SHA3_512", {}),
    "ripemd160": ("RIPEMD160", {}),
}
_PBKDF2_HASHES = {
    "sha1": "SHA1",
    "sha256": "SHA256",
    "sha512": "SHA512",
    "sha3_256": "SHA3_256",
    "ripemd160": "RIPEMD160",
}


def _speedup(native, openssl, budget_s: float) -> float:
    """Native's time over OpenSSL's for the same work (above 1: OpenSSL is faster).

    The benchmark's timing (:mod:`accel_agent.bench.timing`): five interleaved
    samples of each on the thread's CPU clock, about ``budget_s`` in all per
    variant, compared sample by sample.
    """
    from accel_agent.bench import timing

    variants = [timing.Variant("native", native), timing.Variant("openssl", openssl)]
    measured = timing.measure(variants, reps=5, loops=1, sample_ns=budget_s * 1e9 / 5)
    return timing.paired_ratio(measured["native"], measured["openssl"])


def _native(flavour_module_name: str):
    """The original (unpatched) module functions of pycryptodome, whatever the agent did."""
    import importlib

    from accel_agent import patching

    module = importlib.import_module(flavour_module_name)

    def original(name: str):
        try:
            return patching.get_original(module.__name__, name)
        except KeyError:
            return getattr(module, name)

    return module, original


def measure(budget_s: float = 0.02, progress=None) -> dict:
    """Time every covered primitive; returns the cache document."""
    from accel_agent.providers import hashes as hash_providers

    preferred: dict[str, str] = {}
    detail: dict[str, dict] = {}
    for primitive, (module_name, kwargs) in _HASH_MODULES.items():
        if progress:
            progress(primitive)
        try:
            provider = hash_providers.HashProvider(primitive)
        except Exception:  # noqa: BLE001 - not available: nothing to prefer
            continue
        _, original = _native("Crypto.Hash." + module_name)
        native_new = original("new")
        ratios = {}
        for size in SIZE_CLASSES:
            data = os.urandom(size)
            budget = budget_s * (4 if size >= 1 << 20 else 1)
            ratios[str(size)] = round(
                _speedup(
                    lambda d=data, f=native_new, k=kwargs: f(d, **k).digest(),
                    lambda d=data, f=provider.new: f(d).digest(),
                    budget,
                ),
                3,
            )
        detail[primitive] = ratios
        preferred[primitive] = ANY_PROVIDER if min(ratios.values()) >= 1.0 else "native"
    thresholds = {"pbkdf2": _pbkdf2_thresholds(budget_s, progress, detail)}
    preferred.update(_kdf_preferences(budget_s, progress, detail))
    from accel_agent import calibration

    return {
        "version": calibration.CACHE_VERSION,
        "fingerprint": calibration.fingerprint(),
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "preferred": preferred,
        "thresholds": thresholds,
        "detail": detail,
    }


def _pbkdf2_thresholds(budget_s: float, progress, detail: dict) -> dict[str, int]:
    import hashlib

    _, original = _native("Crypto.Protocol.KDF")
    native_pbkdf2 = original("PBKDF2")
    found = {}
    for name, module_name in _PBKDF2_HASHES.items():
        if progress:
            progress("pbkdf2-" + name)
        import importlib

        hash_module = importlib.import_module("Crypto.Hash." + module_name)
        try:
            hashlib.pbkdf2_hmac(name, b"", b"", 1)
        except ValueError:  # this OpenSSL lacks the hash (RIPEMD-160 before 3.0.7)
            continue
        threshold = PBKDF2_CLASSES[-1] * 10  # OpenSSL faster everywhere measured
        ratios = {}
        for count in PBKDF2_CLASSES:
            speedup = _speedup(
                lambda c=count, h=hash_module: native_pbkdf2(
                    b"password", b"salt" * 4, 32, c, None, h
                ),
                lambda c=count, n=name: hashlib.pbkdf2_hmac(n, b"password", b"salt" * 4, c, 32),
                budget_s,
            )
            ratios[str(count)] = round(speedup, 3)
            if speedup < 1.0 and threshold > count:
                threshold = count
        detail["pbkdf2-" + name] = ratios
        found[name] = threshold
    # SHA-224 shares SHA-256's compression function, SHA-384/512/t SHA-512's.
    found["sha224"] = found["sha256"]
    found["sha384"] = found["sha512_224"] = found["sha512_256"] = found["sha512"]
    for name in ("sha3_224", "sha3_384", "sha3_512"):
        found[name] = found["sha3_256"]
    return found


def _kdf_preferences(budget_s: float, progress, detail: dict) -> dict[str, str]:
    import hashlib

    if progress:
        progress("scrypt")
    _, original = _native("Crypto.Protocol.KDF")
    native_scrypt = original("scrypt")
    speedup = _speedup(
        lambda: native_scrypt(b"password", b"salt", 32, 2**12, 8, 1),
        lambda: hashlib.scrypt(b"password", salt=b"salt", n=2**12, r=8, p=1, dklen=32),
        budget_s * 5,
    )
    detail["scrypt"] = {"4096": round(speedup, 3)}
    return {"scrypt": ANY_PROVIDER if speedup > 1.0 else "native"}


def write(document: dict) -> str:
    """Write the cache file atomically; returns its path."""
    from accel_agent import calibration

    path = calibration.cache_path(document["fingerprint"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = path + ".tmp%d" % os.getpid()
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, sort_keys=True)
    os.replace(temporary, path)
    calibration.reset_cache()
    return path
