"""Facts about the machine: OS, libc, architecture, CPU crypto features, versions.

The parsing functions are pure: they take the text of ``/proc/cpuinfo``, the
value of ``OPENSSL_ia32cap`` and the like as arguments, so tests can feed
recorded fixtures of other machines. :func:`facts` reads this machine once
per process and caches the answer (coverage.py's ``env.py`` does the same).

Nothing here imports cryptography, pycryptodome or py-cpuinfo: the
versions of those are read only by :func:`library_versions`, which the
status report calls, never the start-up path.
"""

from __future__ import annotations

import os
import sys

SUPPORTED_OS = ("Linux",)
SUPPORTED_ARCHES = ("x86_64", "aarch64")
SUPPORTED_LIBC = "glibc"

# The CPU features the report lists, per architecture, in /proc/cpuinfo's spelling.
X86_FEATURES = ("aes", "pclmulqdq", "sha_ni", "avx2", "vaes", "vpclmulqdq")
ARM_FEATURES = ("aes", "pmull", "sha1", "sha2", "sha3")

# Abstract capabilities that primitives require, per architecture.
CAPABILITIES = {
    "x86_64": {"aes": ("aes",), "clmul": ("pclmulqdq",), "sha": ("sha_ni",)},
    "aarch64": {"aes": ("aes",), "clmul": ("pmull",), "sha": ("sha2",)},
}

# OPENSSL_ia32cap bit positions (OpenSSL's crypto/cpuid.c and its manual page):
# word 0 is CPUID.1 with EDX in the low half and ECX in the high half; word 1
# is CPUID.7 with EBX in the low half and ECX in the high half.
IA32CAP_BITS = {
    "aes": (0, 32 + 25),
    "pclmulqdq": (0, 32 + 1),
    "avx2": (1, 5),
    "sha_ni": (1, 29),
    "vaes": (1, 32 + 9),
    "vpclmulqdq": (1, 32 + 10),
}
# How messages name a feature, per architecture (/proc/cpuinfo's name otherwise).
FEATURE_LABELS = {
    "x86_64": {"aes": "AES-NI", "pclmulqdq": "PCLMULQDQ", "sha_ni": "SHA-NI"},
    "aarch64": {"aes": "AES (ARMv8 Cryptography Extensions)"},
}


class PlatformFacts:
    """What :func:`facts` found; every field is plain data, safe to print."""

    __slots__ = (
        "os_name",
        "arch",
        "libc",
        "libc_version",
        "cpu_features",
        "masked_features",
        "cpuinfo_problem",
    )

    def __init__(
        self,
        os_name: str,
        arch: str,
        libc: str,
        libc_version: str | None,
        cpu_features: frozenset[str],
        masked_features: frozenset[str] = frozenset(),
        cpuinfo_problem: str | None = None,
    ) -> None:
        self.os_name = os_name
        self.arch = arch
        self.libc = libc
        self.libc_version = libc_version
        self.cpu_features = cpu_features  # after OPENSSL_ia32cap masking
        self.masked_features = masked_features
        self.cpuinfo_problem = cpuinfo_problem

    @property
    def unsupported_reason(self) -> str | None:
        """Why the agent stays inert here, or None on a supported platform."""
        if self.os_name not in SUPPORTED_OS:
            return "%s is not supported (Linux only)" % self.os_name
        if self.arch not in SUPPORTED_ARCHES:
            return "%s is not supported (x86_64 and aarch64 only)" % self.arch
        if self.libc != SUPPORTED_LIBC:
            return "%s libc is not supported (glibc only)" % self.libc
        return None

    @property
    def supported(self) -> bool:
        return self.unsupported_reason is None

    def has(self, capability: str) -> bool:
        """Whether the CPU offers an abstract capability ("aes", "clmul", "sha")."""
        names = CAPABILITIES.get(self.arch, {}).get(capability, ())
        return bool(names) and all(name in self.cpu_features for name in names)

    def missing(self, capabilities: tuple[str, ...]) -> str | None:
        """A reason naming the first absent capability, or None when all are present."""
        for capability in capabilities:
            if self.has(capability):
                continue
            names = CAPABILITIES.get(self.arch, {}).get(capability, (capability,))
            arch_labels = FEATURE_LABELS.get(self.arch, {})
            labels = ", ".join(arch_labels.get(name, name) for name in names)
            if any(name in self.masked_features for name in names):
                return "%s masked by OPENSSL_ia32cap" % labels
            if self.cpuinfo_problem:
                return "CPU features unknown (%s)" % self.cpuinfo_problem
            return "CPU lacks %s" % labels
        return None

    def as_dict(self) -> dict[str, object]:
        reason = self.unsupported_reason
        return {
            "os": self.os_name,
            "arch": self.arch,
            "libc": self.libc,
            "libc_version": self.libc_version,
            "cpu_features": _in_report_order(self.cpu_features),
            "masked_features": _in_report_order(self.masked_features),
            "cpuinfo_problem": self.cpuinfo_problem,
            "supported": reason is None,
            "unsupported_reason": reason,
        }


def _in_report_order(features: frozenset[str]) -> list[str]:
    known = [name for name in X86_FEATURES + ARM_FEATURES if name in features]
    return list(dict.fromkeys(known + sorted(features - set(known))))


def parse_cpuinfo(text: str, arch: str) -> frozenset[str]:
    """The crypto features of the first processor listed in ``/proc/cpuinfo``.

    x86 lists them on a ``flags`` line, aarch64 on a ``Features`` line.
    """
    key = "flags" if arch == "x86_64" else "features"
    wanted = X86_FEATURES if arch == "x86_64" else ARM_FEATURES
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip().lower() == key:
            present = set(value.split())
            return frozenset(feature for feature in wanted if feature in present)
    return frozenset()


def parse_ia32cap(value: str | None) -> frozenset[str]:
    """The features an ``OPENSSL_ia32cap`` value hides from OpenSSL.

    ``~0x...`` clears the given bits; a plain ``0x...`` replaces the
    capability word, so every known bit it leaves at zero is hidden. Words are
    separated by ``:``; a word that is absent or unparsable changes nothing.
    """
    if not value:
        return frozenset()
    masked = set()
    for word_index, word in enumerate(value.split(":")[:2]):
        word = word.strip()
        if not word:
            continue
        inverted = word.startswith("~")
        try:
            bits = int(word.lstrip("~"), 0)
        except ValueError:
            continue
        for feature, (feature_word, bit) in IA32CAP_BITS.items():
            if feature_word != word_index:
                continue
            bit_set = bool(bits >> bit & 1)
            if (inverted and bit_set) or (not inverted and not bit_set):
                masked.add(feature)
    return frozenset(masked)


def parse_libc(confstr_value: str | None, musl_loader_present: bool) -> tuple[str, str | None]:
    """(family, version) from ``os.confstr("CS_GNU_LIBC_VERSION")``, e.g. "glibc 2.36"."""
    if confstr_value:
        family, _, version = confstr_value.partition(" ")
        if family == "glibc":
            return "glibc", version or None
        return family, version or None
    if musl_loader_present:
        return "musl", None
    return "unknown", None


def build_facts(
    os_name: str,
    arch: str,
    confstr_value: str | None,
    musl_loader_present: bool,
    cpuinfo_text: str | None,
    ia32cap: str | None,
    cpuinfo_problem: str | None = None,
) -> PlatformFacts:
    """Combine raw inputs into :class:`PlatformFacts` (pure; tests call this)."""
    libc, libc_version = parse_libc(confstr_value, musl_loader_present)
    features = parse_cpuinfo(cpuinfo_text, arch) if cpuinfo_text is not None else frozenset()
    masked = parse_ia32cap(ia32cap) & features if arch == "x86_64" else frozenset()
    return PlatformFacts(
        os_name, arch, libc, libc_version, features - masked, masked, cpuinfo_problem
    )


_facts: PlatformFacts | None = None


def facts() -> PlatformFacts:
    """This machine's facts, read once per process."""
    global _facts
    if _facts is None:
        _facts = _read_this_machine()
    return _facts


def unsupported_reason() -> str | None:
    """Why the agent stays inert here, or None: what activation needs of :func:`facts`.

    The OS, architecture and libc only: /proc/cpuinfo is read when a
    primitive is first decided, not at start-up.
    """
    if _facts is not None:
        return _facts.unsupported_reason
    os_name, machine, confstr_value, musl = _read_system()
    return build_facts(os_name, machine, confstr_value, musl, None, None).unsupported_reason


def _read_system() -> tuple[str, str, str | None, bool]:
    """(OS name, architecture, glibc's confstr value, whether a musl loader is present)."""
    if hasattr(os, "uname"):
        sysname, machine = os.uname().sysname, os.uname().machine
    else:  # Windows has no uname: the agent stays inert there, and says why
        sysname, machine = "Windows", os.environ.get("PROCESSOR_ARCHITECTURE", "unknown")
    os_name = {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}.get(sys.platform, sysname)
    try:
        confstr_value = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError, AttributeError):  # AttributeError: no confstr (Windows)
        confstr_value = None
    musl = confstr_value is None and _musl_loader_present()
    return os_name, machine, confstr_value, musl


def _read_this_machine() -> PlatformFacts:
    os_name, machine, confstr_value, musl = _read_system()
    cpuinfo_text, problem = None, None
    if os_name == "Linux":
        try:
            # Bytes, decoded here: a text file in "ascii" would import its codec
            # module (encodings.ascii), ~0.1 ms of a first call; bytes.decode has it built in.
            with open("/proc/cpuinfo", "rb") as handle:
                cpuinfo_text = handle.read().decode("ascii", "replace")
        except OSError as exc:
            problem = "/proc/cpuinfo unreadable: %s" % (exc.strerror or type(exc).__name__)
    return build_facts(
        os_name,
        machine,
        confstr_value,
        musl,
        cpuinfo_text,
        os.environ.get("OPENSSL_ia32cap"),  # noqa: SIM112 - OpenSSL spells it so
        problem,
    )


def _musl_loader_present() -> bool:
    try:
        return any(name.startswith("ld-musl-") for name in os.listdir("/lib"))
    except OSError:
        return False


def library_versions() -> dict[str, str | None]:
    """Versions of the libraries the agent works with; None when not installed.

    Reads distribution metadata rather than importing pycryptodome, and asks
    cryptography for the OpenSSL it was built with (that import is the cost
    of a status report, never of start-up).
    """
    from importlib import metadata

    versions: dict[str, str | None] = {}
    for dist in ("cryptography", "pycryptodome", "pycryptodomex"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    versions["openssl_cryptography"] = _cryptography_openssl()
    versions["openssl_python"] = _python_openssl()
    return versions


def _cryptography_openssl() -> str | None:
    try:
        from cryptography.hazmat.backends.openssl import backend
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return None
    return _openssl_number(backend.openssl_version_text())


def _python_openssl() -> str | None:
    try:
        import ssl
    except ImportError:
        return None
    return _openssl_number(ssl.OPENSSL_VERSION)


def _openssl_number(text: str) -> str:
    """ "OpenSSL 3.0.19 27 Jan 2026" -> "3.0.19"."""
    parts = text.split()
    return parts[1] if len(parts) > 1 and parts[0] == "OpenSSL" else text
