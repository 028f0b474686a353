"""Shared helpers: running interpreters, reading the agent's stderr, test providers.

Imported by the test modules as ``helpers`` (pytest puts ``tests/`` on
``sys.path``; conftest.py makes sure of it for the registry's factories).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import accel_agent
from accel_agent import _boot, config
from accel_agent import platform as agent_platform
from accel_agent.providers.base import ProviderUnavailable, SelfCheckFailed

TESTS_DIR = Path(__file__).resolve().parent
REPO = TESTS_DIR.parent
FIXTURES = TESTS_DIR / "fixtures"
TEMPLATE_DIR = REPO / "sitecustomize_template"

# Every variable the agent reads: a test starts without them unless it sets them.
AGENT_VARIABLES = (
    "ACCEL_AGENT",
    "ACCEL_AGENT_EXCLUDE",
    "ACCEL_AGENT_KEY_REUSE",
    "ACCEL_AGENT_SPEEDUPS",
    "ACCEL_AGENT_SHADOW_RATE",
    "ACCEL_AGENT_REPORT",
    "ACCEL_AGENT_TEST_HOOKS",
    "ACCEL_AGENT_TEST_CORRUPT",
    "OPENSSL_ia32cap",
)
MASK_AES_NI = "~0x200000200000000"  # clears AES-NI (bit 57) and PCLMULQDQ (bit 33)

# design.md, "Status output": the two greppable lines.
STATUS_LINE_1 = re.compile(
    r"^accel-agent (?P<version>\d+\.\d+\.\d+): OpenSSL (?P<openssl>\S+) "
    r"\(cryptography (?P<cryptography>\S+)\) on (?P<os>Linux) (?P<arch>x86_64|aarch64) "
    r"(?P<libc>glibc \d+\.\d+); cpu (?P<cpu>\S.*)$"
)
STATUS_LINE_2 = re.compile(
    r"^accel-agent self-check (?P<verdict>PASSED|FAILED): (?P<accelerated>\d+) accelerated, "
    r"(?P<native>\d+) native(?: \((?P<notes>.+)\))?$"
)

# A child that says what the agent did in it, as one line of "key=value" words.
REPORT_CODE = """\
import os, sys
import Crypto.Cipher.AES as AES
from accel_agent import activation, patching
patched = patching.is_patched("Crypto.Cipher.AES", "new")
print("REPORT mode=%s active=%s patched=%s env=%s xoption=%s" % (
    activation.current_mode(), activation.is_active(), patched,
    os.environ.get("ACCEL_AGENT"), "accel" in sys._xoptions))
"""


def parse_report(stdout: str) -> dict[str, str]:
    """The key=value words of the REPORT line a REPORT_CODE child printed."""
    lines = [line for line in stdout.splitlines() if line.startswith("REPORT ")]
    assert len(lines) == 1, "expected one REPORT line in %r" % stdout
    return dict(word.split("=", 1) for word in lines[0].split()[1:])


def conf_with(**values: str) -> config.ConfFile:
    """A default file's contents, as ``config.read_conf_file`` would return them."""
    conf = config.ConfFile()
    conf.values.update(values)
    return conf


def clean_environment(**overrides: str | None) -> dict[str, str]:
    """This process's environment without the agent's or Python's start-up variables.

    A value of None removes the variable.
    """
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in AGENT_VARIABLES and not key.startswith("PYTHON")
    }
    for key, value in overrides.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return environment


def run_python(
    *args: str | os.PathLike,
    env: dict[str, str] | None = None,
    python: str | os.PathLike = sys.executable,
    stdin: str | None = None,
    cwd: str | os.PathLike | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """Run an interpreter (by default this venv's) with a clean environment."""
    return subprocess.run(
        [str(python), *map(str, args)],
        env=clean_environment() if env is None else env,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


def stderr_lines(result: subprocess.CompletedProcess) -> list[str]:
    return result.stderr.splitlines()


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text, text


def assert_status_lines(lines: list[str], verdict: str = "PASSED") -> tuple[re.Match, re.Match]:
    """Exactly the two status lines of design.md, the first naming this agent's version."""
    assert len(lines) == 2, lines
    first, second = STATUS_LINE_1.match(lines[0]), STATUS_LINE_2.match(lines[1])
    assert first, lines[0]
    assert second, lines[1]
    assert first["version"] == accel_agent.__version__
    assert second["verdict"] == verdict
    return first, second


def purelib(python: str | os.PathLike = sys.executable) -> Path:
    """The site-packages directory of an interpreter."""
    if str(python) == sys.executable:
        return Path(sysconfig.get_paths()["purelib"])
    output = subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    )
    return Path(output.strip())


def agent_source_dir() -> Path:
    """The directory that holds the ``accel_agent`` package (agent/ in an editable install)."""
    return Path(accel_agent.__file__).resolve().parent.parent


def crypto_dir() -> Path:
    """The directory that holds pycryptodome's ``Crypto`` package."""
    import Crypto

    return Path(Crypto.__file__).resolve().parent.parent


def this_machine_accelerates_aes() -> tuple[bool, str]:
    """Whether the AES provider can be chosen here, ignoring any OPENSSL_ia32cap of the caller."""
    saved = os.environ.pop("OPENSSL_ia32cap", None)
    try:
        facts = agent_platform._read_this_machine()
    finally:
        if saved is not None:
            os.environ["OPENSSL_ia32cap"] = saved  # noqa: SIM112 - OpenSSL spells it so
    reason = facts.unsupported_reason or facts.missing(("aes",))
    return reason is None, reason or ""


_ACCELERATES, _WHY_NOT = this_machine_accelerates_aes()
requires_aes_acceleration = pytest.mark.skipif(
    not _ACCELERATES,
    reason="needs a supported platform with AES instructions (here: %s)" % _WHY_NOT,
)


requires_aes_ni = pytest.mark.skipif(
    not (_ACCELERATES and agent_platform.facts().arch == "x86_64"),
    reason="OPENSSL_ia32cap masks AES-NI on x86_64 only; here: %s %s"
    % (agent_platform.facts().arch, _WHY_NOT or "has AES instructions"),
)
requires_supported_platform = pytest.mark.skipif(
    agent_platform.facts().unsupported_reason is not None,
    reason="the agent patches nothing here: %s" % agent_platform.facts().unsupported_reason,
)


def fail_if_default_file_exists() -> None:
    """Tests of the built-in default need this environment to have no `accel-agent enable`."""
    path = _boot.default_file_path()
    if os.path.exists(path):
        pytest.fail(
            "%s exists (someone ran `accel-agent enable` in the test venv); these tests need "
            "the environment-wide default unset: run `accel-agent disable`" % path
        )


# Providers for registry tests: they need no CPU feature, so the tests run anywhere.


class ReversingProvider:
    """A toy provider of the fake primitives: its one operation reverses bytes."""

    name = "openssl"

    def transform(self, data: bytes) -> bytes:
        return data[::-1]


def reversing_provider() -> ReversingProvider:
    return ReversingProvider()


def unavailable_provider() -> ReversingProvider:
    raise ProviderUnavailable("toy library 9.9 is too old")


def crashing_provider() -> ReversingProvider:
    raise RuntimeError("OpenSSL said no")


def check_transform(provider: ReversingProvider, vectors: tuple) -> None:
    for label, data, expected in vectors:
        if provider.transform(data) != expected:
            raise SelfCheckFailed("%s: wrong output" % label)


REVERSE_VECTORS = (("reverse-1", b"abc", b"cba"), ("reverse-2", b"\x00\x01", b"\x01\x00"))
WRONG_VECTORS = (("reverse-1", b"abc", b"cba"), ("reverse-bad", b"abc", b"abc"))
