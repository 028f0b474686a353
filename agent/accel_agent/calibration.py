"""Gate 3 of the provider model: is the provider faster than native here?

Without a calibration cache the built-in defaults apply: for each primitive,
the provider measured faster than native pycryptodome on the reference
machine (docs/performance.md gives the figures). A primitive missing from the
table keeps its providers' priority order. No process start ever times
anything; measuring is what ``make bench`` (and, later, ``accel-agent
calibrate``) is for.
"""

from __future__ import annotations

NATIVE = "native"

# primitive -> the fastest path measured on the reference machine
BUILTIN_DEFAULTS: dict[str, str] = {
    "aes-ecb": "openssl",  # single block: 2.3 us native vs 0.18 us OpenSSL (4.4, x86_64 AES-NI)
    "aes-cbc": "openssl",
    "aes-ctr": "openssl",
    "aes-cfb": "openssl",
    "aes-ofb": "openssl",
    "aes-gcm": "openssl",  # 1 KiB: 23 MB/s native vs 1.33 GB/s OpenSSL (issue 3's figures)
    "chacha20": "openssl",  # see docs/compatibility.md, ChaCha section, for the figures
    "chacha20-poly1305": "openssl",
    "xchacha20-poly1305": "openssl",
}


# Where native pycryptodome overtakes OpenSSL within a primitive that is
# otherwise faster through OpenSSL: calls (ECB, stateless) or whole objects
# (CFB-8, decided on the first call) at or above this many bytes stay native.
# Measured on the reference machine with pycryptodome 4.4 and OpenSSL 4.0:
# pycryptodome's pipelined AES-NI ECB beats OpenSSL's from about 128 KiB, and
# its CFB-8 from about 1.5 KiB (docs/performance.md).
NATIVE_FROM_SIZE: dict[str, int] = {
    "aes-ecb": 128 * 1024,
    "aes-cfb8": 1536,
}


def native_from_size(name: str) -> int | None:
    """The message size from which native is faster, or None if it never is."""
    return NATIVE_FROM_SIZE.get(name)


def preferred(primitive: str) -> str | None:
    """The provider name calibration prefers, ``"native"``, or None for no opinion."""
    return BUILTIN_DEFAULTS.get(primitive)
