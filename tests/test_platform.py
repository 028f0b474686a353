"""Platform facts: recorded /proc/cpuinfo of other machines, OPENSSL_ia32cap, libc, support."""

from __future__ import annotations

import errno
import json

import pytest

from accel_agent import platform
from helpers import FIXTURES, MASK_AES_NI

CPUINFO = FIXTURES / "cpuinfo"
MACHINES = json.loads((CPUINFO / "machines.json").read_text())["machines"]


def machine_facts(machine: dict, ia32cap: str | None = None) -> platform.PlatformFacts:
    return platform.build_facts(
        machine["os"],
        machine["arch"],
        machine["confstr"],
        machine["musl_loader"],
        (CPUINFO / machine["cpuinfo"]).read_text(),
        ia32cap,
    )


def by_name(name: str) -> dict:
    return next(machine for machine in MACHINES if machine["name"] == name)


def test_every_fixture_file_is_described():
    described = {machine["cpuinfo"] for machine in MACHINES}
    assert described == {path.name for path in CPUINFO.glob("*.txt")}


@pytest.mark.parametrize("machine", MACHINES, ids=[m["name"] for m in MACHINES])
def test_parse_cpuinfo_finds_the_recorded_features(machine):
    text = (CPUINFO / machine["cpuinfo"]).read_text()
    assert platform.parse_cpuinfo(text, machine["arch"]) == frozenset(machine["features"])


@pytest.mark.parametrize("machine", MACHINES, ids=[m["name"] for m in MACHINES])
def test_build_facts_concludes_what_the_machine_supports(machine):
    facts = machine_facts(machine)
    assert (facts.libc, facts.libc_version) == tuple(machine["libc"])
    assert facts.cpu_features == frozenset(machine["features"])
    assert facts.masked_features == frozenset()
    assert facts.unsupported_reason == machine["unsupported_reason"]
    assert facts.supported is (machine["unsupported_reason"] is None)
    assert facts.has("aes") is not machine["lacks_aes"]
    reason = facts.missing(("aes",))
    assert (reason is not None) is machine["lacks_aes"]
    if reason:
        assert reason.startswith("CPU lacks ")


def test_aarch64_reasons_name_arm_features_not_intel_ones():
    # On a Raspberry Pi "CPU lacks AES-NI" sends the reader looking for an Intel
    # feature; the ARMv8 crypto extensions call it "aes" (and "pmull", "sha2").
    facts = machine_facts(by_name("aarch64-no-crypto"))
    for capability in ("aes", "clmul", "sha"):
        reason = facts.missing((capability,))
        assert reason.startswith("CPU lacks ")
        assert "AES-NI" not in reason and "SHA-NI" not in reason and "PCLMULQDQ" not in reason


def test_cpuinfo_reads_the_first_processor_only():
    text = "processor : 0\nflags : fpu sse2\n\nprocessor : 1\nflags : aes pclmulqdq\n"
    assert platform.parse_cpuinfo(text, "x86_64") == frozenset()


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ("vaes vpclmulqdq", {"vaes", "vpclmulqdq"}),  # no substring matches: vaes is not aes
        ("AES", set()),  # the kernel spells flags in lower case; nothing else is a flag
        ("sha_ni avx2 avx512f", {"sha_ni", "avx2"}),
    ],
)
def test_cpuinfo_matches_whole_flags(flags, expected):
    assert platform.parse_cpuinfo("flags\t\t: %s\n" % flags, "x86_64") == frozenset(expected)


def test_cpuinfo_without_a_feature_line_gives_nothing():
    assert platform.parse_cpuinfo("processor : 0\nmodel name : mystery\n", "x86_64") == frozenset()
    assert platform.parse_cpuinfo("", "aarch64") == frozenset()


def test_aarch64_reads_features_not_flags():
    text = "flags : aes pmull\nFeatures : fp asimd sha1\n"
    assert platform.parse_cpuinfo(text, "aarch64") == frozenset({"sha1"})


# OPENSSL_ia32cap (OpenSSL's crypto/cpuid.c): word 0 is CPUID.1 (EDX low, ECX high),
# word 1 is CPUID.7 (EBX low, ECX high); "~" clears bits, a plain value replaces the word.
AES = 1 << 57
PCLMUL = 1 << 33
SHA_NI = 1 << 29
VAES = 1 << 41


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        (MASK_AES_NI, {"aes", "pclmulqdq"}),
        ("~0x200000000000000", {"aes"}),
        ("~%#x" % PCLMUL, {"pclmulqdq"}),
        ("~0x0", set()),
        # A plain word replaces the capability vector: every known bit left at 0 is hidden.
        ("%#x" % (AES | PCLMUL), set()),
        ("%#x" % AES, {"pclmulqdq"}),
        ("0x0", {"aes", "pclmulqdq"}),
        ("%d" % (AES | PCLMUL), set()),  # decimal is accepted as OpenSSL's strtoull does
        # The second word: SHA-NI in EBX bit 29, VAES in ECX bit 9.
        (":~%#x" % SHA_NI, {"sha_ni"}),
        (":~%#x" % VAES, {"vaes"}),
        ("~0x0:~%#x" % (SHA_NI | VAES), {"sha_ni", "vaes"}),
        ("%s:~%#x" % (MASK_AES_NI, SHA_NI), {"aes", "pclmulqdq", "sha_ni"}),
        ("%#x:%#x" % (AES | PCLMUL, (1 << 5) | SHA_NI | VAES | (1 << 42)), set()),
    ],
)
def test_parse_ia32cap(value, masked):
    assert platform.parse_ia32cap(value) == frozenset(masked)


@pytest.mark.parametrize(
    "value", [None, "", ":", "garbage", "~", "~zz", "0xZZ", "~0x1g", "::::", " : ", "~-"]
)
def test_malformed_ia32cap_changes_nothing(value):
    assert platform.parse_ia32cap(value) == frozenset()


def test_malformed_word_does_not_hide_the_valid_one():
    assert platform.parse_ia32cap("nonsense:~%#x" % SHA_NI) == frozenset({"sha_ni"})


def test_ia32cap_masks_only_features_the_cpu_has():
    facts = machine_facts(by_name("x86_64-no-aesni"), ia32cap=MASK_AES_NI)
    assert facts.masked_features == frozenset()
    assert facts.missing(("aes",)) == "CPU lacks AES-NI"


def test_masked_aes_ni_is_reported_as_masked():
    facts = machine_facts(by_name("x86_64-aesni"), ia32cap=MASK_AES_NI)
    assert facts.masked_features == {"aes", "pclmulqdq"}
    assert "aes" not in facts.cpu_features
    assert facts.missing(("aes",)) == "AES-NI masked by OPENSSL_ia32cap"
    assert facts.missing(("clmul",)) == "PCLMULQDQ masked by OPENSSL_ia32cap"
    assert facts.missing(("sha",)) is None
    assert facts.supported  # masking makes primitives native, not the platform unsupported


def test_ia32cap_is_ignored_on_aarch64():
    facts = machine_facts(by_name("aarch64-crypto"), ia32cap="0x0:0x0")
    assert facts.masked_features == frozenset()
    assert facts.has("aes") and facts.has("clmul") and facts.has("sha")


@pytest.mark.parametrize(
    ("confstr", "musl", "expected"),
    [
        ("glibc 2.36", False, ("glibc", "2.36")),
        ("glibc 2.17", True, ("glibc", "2.17")),  # a musl loader beside glibc does not matter
        ("glibc", False, ("glibc", None)),
        (None, True, ("musl", None)),
        (None, False, ("unknown", None)),
        ("", False, ("unknown", None)),
    ],
)
def test_parse_libc(confstr, musl, expected):
    assert platform.parse_libc(confstr, musl) == expected


ARCHES = "x86_64 and aarch64 only"


@pytest.mark.parametrize(
    ("os_name", "arch", "confstr", "musl", "reason"),
    [
        ("Darwin", "arm64", None, False, "Darwin is not supported (Linux only)"),
        ("Windows", "AMD64", None, False, "Windows is not supported (Linux only)"),
        ("Linux", "riscv64", "glibc 2.39", False, "riscv64 is not supported (%s)" % ARCHES),
        ("Linux", "armv7l", "glibc 2.31", False, "armv7l is not supported (%s)" % ARCHES),
        ("Linux", "x86_64", None, True, "musl libc is not supported (glibc only)"),
        ("Linux", "x86_64", None, False, "unknown libc is not supported (glibc only)"),
        ("Linux", "x86_64", "glibc 2.36", False, None),
    ],
)  # fmt: skip
def test_unsupported_reason(os_name, arch, confstr, musl, reason):
    facts = platform.build_facts(os_name, arch, confstr, musl, "flags : aes\n", None)
    assert facts.unsupported_reason == reason
    assert facts.supported is (reason is None)
    assert facts.as_dict()["unsupported_reason"] == reason


def test_unknown_arch_has_no_capabilities():
    facts = platform.build_facts("Linux", "riscv64", "glibc 2.39", False, "flags : aes\n", None)
    assert not facts.has("aes")
    assert facts.missing(("aes",)).startswith("CPU lacks ")


def test_missing_names_the_first_absent_capability():
    facts = machine_facts(by_name("aarch64-no-crypto"))
    assert facts.missing(()) is None
    assert facts.missing(("clmul", "aes")) == "CPU lacks pmull"


def test_as_dict_lists_features_in_report_order():
    facts = machine_facts(by_name("x86_64-aesni"), ia32cap=":~%#x" % SHA_NI)
    as_dict = facts.as_dict()
    assert as_dict["cpu_features"] == ["aes", "pclmulqdq", "avx2", "vaes", "vpclmulqdq"]
    assert as_dict["masked_features"] == ["sha_ni"]
    assert set(as_dict) == {
        "os", "arch", "libc", "libc_version", "cpu_features", "masked_features",
        "cpuinfo_problem", "supported", "unsupported_reason",
    }  # fmt: skip
    json.dumps(as_dict)  # plain data only


@pytest.fixture
def unreadable_cpuinfo(monkeypatch, agent_state):
    """This machine's facts, read with /proc/cpuinfo refusing to open."""
    real_open = open

    def refusing_open(path, *args, **kwargs):
        if str(path) == "/proc/cpuinfo":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(platform, "open", refusing_open, raising=False)
    monkeypatch.setattr(platform, "_facts", None)


def test_unreadable_cpuinfo_is_a_problem_not_a_crash(unreadable_cpuinfo):
    facts = platform.facts()
    assert facts.cpuinfo_problem == "/proc/cpuinfo unreadable: Permission denied"
    assert facts.cpu_features == frozenset()
    assert facts.missing(("aes",)) == (
        "CPU features unknown (/proc/cpuinfo unreadable: Permission denied)"
    )
    assert facts.as_dict()["cpuinfo_problem"] == facts.cpuinfo_problem


def test_unreadable_cpuinfo_makes_aes_native_with_the_reason(unreadable_cpuinfo):
    from accel_agent import registry

    chosen = registry.choice("aes-ecb")
    assert chosen.outcome == registry.NOT_ACCELERATED
    assert chosen.reason == "CPU features unknown (/proc/cpuinfo unreadable: Permission denied)"


def test_facts_are_read_once(agent_state):
    assert platform.facts() is platform.facts()


def test_openssl_number():
    assert platform._openssl_number("OpenSSL 3.0.19 27 Jan 2026") == "3.0.19"
    assert platform._openssl_number("LibreSSL 3.8.2") == "LibreSSL 3.8.2"


def test_windows_is_inert_with_its_reason(monkeypatch):
    """No os.uname and no os.confstr there: the facts say why, rather than start-up failing."""
    monkeypatch.delattr(platform.os, "uname", raising=False)
    monkeypatch.delattr(platform.os, "confstr", raising=False)
    monkeypatch.setattr(platform.sys, "platform", "win32")
    monkeypatch.setenv("PROCESSOR_ARCHITECTURE", "AMD64")
    facts = platform._read_this_machine()
    assert (facts.os_name, facts.arch) == ("Windows", "AMD64")
    assert facts.unsupported_reason == "Windows is not supported (Linux only)"
    assert facts.cpu_features == frozenset()
