"""Fault injection: whatever breaks, the program gets native results and one clear line.

An agent installed environment-wide runs in every Python process; it must
never be the reason a program fails. Each fault of :data:`FAULTS` runs in a
real child (``child.py``) in each active mode:

* ``quiet`` and ``on``: the program runs, its results equal native
  pycryptodome's (``native_results``), the primitives the fault hits made no
  accelerated call, and stderr says why, in lines of the agent's own (no
  traceback);
* ``assert``: the program does not run; the exit status is non-zero and
  stderr says why.

How a fault gets in: a directory first on ``PYTHONPATH`` that shadows a
package (the real start-up path, ``.pth`` included, in every mode); an
environment variable; or code run before the agent's first use (``quiet``:
providers load lazily) or, for on/assert and platform facts (read at
activation), under ``python -S`` before ``import accel_agent.auto``.
"""

from __future__ import annotations

import re

import pytest
from child import MARKER
from families import FAMILIES
from reliability_helpers import run_child

import helpers
from accel_agent import catalog
from helpers import MASK_AES_NI, requires_aes_acceleration, requires_aes_ni

MODES = ("quiet", "on", "assert")


# Which primitives a fault must leave native, decided from the catalog's facts,
# so that a new family is held to the right expectation without a new line here.
def every_primitive(spec) -> bool:
    return True


def needs_aes_instructions(spec) -> bool:  # what masking AES-NI and PCLMULQDQ hits
    return bool({"aes", "clmul"} & set(spec.requires))


def needs_cpu_facts(spec) -> bool:  # what an unknown CPU hits
    return bool(spec.requires)


def needs_cryptography(spec) -> bool:  # what a missing pyca/cryptography hits
    # Primitives with a provider on CPython's own _hashlib stay accelerated.
    return not any(provider.name == "hashlib" for provider in spec.providers)


def only(*names):
    return lambda spec: spec.name in names


class Fault:
    """One way for the agent's world to be broken, and what the user must see."""

    def __init__(
        self,
        name: str,
        cause: str,
        shadow: str | None = None,
        env: dict | None = None,
        inject: str | None = None,
        lazy: bool = True,
        native=every_primitive,
        marks=(),
    ) -> None:
        self.name = name
        self.cause = re.compile(cause)  # what some stderr line must say
        self.shadow = shadow  # a directory of the ``shadows`` fixture, first on PYTHONPATH
        self.env = env or {}
        self.inject = inject  # a child.INJECTIONS name
        self.lazy = lazy  # the injection works after start-up in quiet mode
        self.native = native  # catalog spec -> must that primitive stay native?
        self.marks = marks

    def __repr__(self) -> str:
        return self.name


FAULTS = (
    Fault(
        "cryptography not installed",
        r"cryptography cannot be imported",
        shadow="cryptography-missing",
        native=needs_cryptography,
        marks=(requires_aes_acceleration,),
    ),
    Fault(
        "OpenSSL bindings do not import",
        r"cryptography cannot be imported",
        shadow="openssl-bindings-broken",
        native=needs_cryptography,
        marks=(requires_aes_acceleration,),
    ),
    Fault(
        "OpenSSL too old for AES-GCM",
        r"OpenSSL 1\.0\.2 is too old for AES-GCM",
        inject="openssl-too-old",
        native=only("aes-gcm"),
        marks=(requires_aes_acceleration,),
    ),
    Fault(
        "provider factory crashes",
        r"aes-gcm.*RuntimeError|RuntimeError.*aes-gcm|simulated OpenSSL initialisation error",
        inject="provider-factory-crashes",
        native=only("aes-gcm"),
        marks=(requires_aes_acceleration,),
    ),
    Fault(
        "known answer fails",
        r"self-check of aes-cbc \(openssl\) FAILED",
        inject="known-answer-fails",
        native=only("aes-cbc"),
        marks=(requires_aes_acceleration,),
    ),
    Fault(
        "AES-NI masked",
        r"AES-NI.*masked by OPENSSL_ia32cap",
        env={"OPENSSL_ia32cap": MASK_AES_NI},
        native=needs_aes_instructions,
        marks=(requires_aes_ni,),
    ),
    Fault("musl libc", r"musl libc is not supported", inject="musl", lazy=False),
    Fault("not Linux", r"Darwin is not supported", inject="not-linux", lazy=False),
    Fault(
        "/proc/cpuinfo unreadable",
        r"/proc/cpuinfo unreadable",
        inject="cpuinfo-unreadable",
        lazy=False,
        native=needs_cpu_facts,
        marks=(requires_aes_acceleration,),
    ),
    Fault(
        "agent's activation module fails to import",
        r"^accel-agent: start-up failed \(RuntimeError: simulated",
        shadow="agent-activation-broken",
    ),
    Fault(
        "agent's boot module fails to import (.pth fallback)",
        r"^accel-agent: start-up hook not loaded \(ImportError\); running without it$",
        shadow="agent-boot-broken",
    ),
)


def run_fault(fault: Fault, mode: str, shadows) -> object:
    pythonpath = (shadows[fault.shadow],) if fault.shadow else ()
    no_site = fault.inject is not None and (mode != "quiet" or not fault.lazy)
    return run_child(
        "workload",
        mode=mode,
        fault=fault.inject,
        no_site=no_site,
        pythonpath=pythonpath,
        env=fault.env,
    )


def family_primitives() -> list[str]:
    return [name for family in FAMILIES for name in family.primitives]


def must_stay_native(fault: Fault) -> list[str]:
    """The primitives the workloads reach that ``fault`` must leave native."""
    return [
        name
        for name in family_primitives()
        if name not in catalog.BY_NAME or fault.native(catalog.BY_NAME[name])
    ]


def assert_explained(child, fault: Fault) -> None:
    """stderr: the agent's own lines only, no traceback, one of them naming the cause."""
    lines = child.stderr_lines
    helpers.assert_no_traceback(child.stderr)
    assert lines, "nothing on stderr: the fault went unexplained\n" + child.describe()
    assert all(line.startswith("accel-agent") for line in lines), child.describe()
    assert any(fault.cause.search(line) for line in lines), "no stderr line says %r\n%s" % (
        fault.cause.pattern,
        child.describe(),
    )
    assert len(lines) == len(set(lines)), "a line repeated\n" + child.describe()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", [pytest.param(f, marks=f.marks, id=f.name) for f in FAULTS])
def test_fault(fault, mode, shadows, native_results):
    child = run_fault(fault, mode, shadows)
    assert_explained(child, fault)
    if mode == "assert":
        assert child.returncode != 0, "assert mode let the program run\n" + child.describe()
        assert MARKER not in child.stdout, child.describe()
        return
    assert child.returncode == 0, child.describe()
    assert child.report is not None, child.describe()
    assert child.report["results"] == native_results
    calls = child.report["agent"]["calls"]
    native = must_stay_native(fault)
    served = {name: calls.get(name, 0) for name in native if calls.get(name)}
    assert not served, "accelerated calls under the fault: %s" % served
    # The rest is still accelerated (the agent broken as a whole accelerates nothing).
    if not (fault.shadow or "").startswith("agent-"):
        idle = [name for name in family_primitives() if name not in native and not calls.get(name)]
        assert not idle, "no accelerated call of %s\n%s" % (idle, child.describe())


# ------------------------------------------------------------------ healthy: the baseline


@requires_aes_acceleration
@pytest.mark.parametrize("mode", ["quiet", "on", "assert"])
def test_healthy_workload_is_accelerated_and_native_equal(mode, native_results):
    """Without a fault, every primitive the workload reaches is accelerated (else the fault
    tests, which count no accelerated call, would prove little)."""
    child = run_child("workload", mode=mode)
    assert child.returncode == 0, child.describe()
    assert child.report["results"] == native_results
    calls = child.report["agent"]["calls"]
    idle = [name for name in family_primitives() if not calls.get(name)]
    assert not idle, "the workload made no accelerated call of %s" % idle
    if mode == "quiet":
        assert child.stderr == ""


# ------------------------------------------------------------------ the environment's default file

DAMAGED_FILES = {
    "undecodable bytes": b"mode = quiet\n\xff\xfe\x00garbage\x81\n",
    "unknown key": b"mode = quiet\ncolour = blue\n",
    "no equals sign": b"mode quiet\n",
    "nul bytes": b"\x00" * 64,
    "unknown mode": b"mode = turbo\n",
    "truncated": b"mo",
}


# Every damage with the file alone deciding; two of them under each mode the variable asks for.
DAMAGE_AND_MODE = [(damage, None) for damage in sorted(DAMAGED_FILES)] + [
    (damage, mode)
    for damage in ("undecodable bytes", "unknown key")
    for mode in ("quiet", "on", "assert")
]


@pytest.mark.parametrize(
    ("damage", "mode"), DAMAGE_AND_MODE, ids=["%s, ACCEL_AGENT=%s" % p for p in DAMAGE_AND_MODE]
)
def test_damaged_default_file_is_ignored_with_a_warning(tmp_path, damage, mode, native_results):
    """A corrupted accel_agent.conf: a warning naming it, never a crash; the mode the
    environment asks for still applies (assert included), results are native's."""
    conf = tmp_path / "accel_agent.conf"
    conf.write_bytes(DAMAGED_FILES[damage])
    child = run_child(
        "workload", mode=mode, fault="config-file", no_site=True, env={"REL_CONF": str(conf)}
    )
    helpers.assert_no_traceback(child.stderr)
    assert child.returncode == 0, child.describe()
    assert child.report["results"] == native_results
    warnings = [line for line in child.stderr_lines if str(conf) in line or "default file" in line]
    assert warnings, "no warning names the damaged file\n" + child.describe()
    assert all(line.startswith("accel-agent") for line in child.stderr_lines), child.describe()


def test_unreadable_default_file_is_a_warning(tmp_path, native_results):
    """A directory where the file should be (EISDIR) stands for any unreadable file."""
    conf = tmp_path / "accel_agent.conf"
    conf.mkdir()
    child = run_child(
        "workload", mode="quiet", fault="config-file", no_site=True, env={"REL_CONF": str(conf)}
    )
    assert child.returncode == 0, child.describe()
    assert child.report["results"] == native_results
    assert child.stderr_lines == [
        "accel-agent: cannot read %s (IsADirectoryError); ignoring it" % conf
    ]


# ------------------------------------------------------------------ the calibration cache

DAMAGED_CACHES = {
    "undecodable bytes": b"\xff\xfe\x00{",
    "truncated JSON": b'{"version": 1, "preferred": {"aes-gcm": "openssl"',
    "unknown version": b'{"version": 99, "preferred": {}, "thresholds": {}}',
    "wrong types": b'{"version": 1, "preferred": {"aes-gcm": 5}, "thresholds": []}',
    "not an object": b"[1, 2, 3]",
    "a directory": None,
}
CACHE_AND_MODE = [(damage, "quiet") for damage in sorted(DAMAGED_CACHES)] + [
    ("undecodable bytes", "on"),
    ("undecodable bytes", "assert"),
    ("wrong types", "assert"),
]


@requires_aes_acceleration
@pytest.mark.parametrize(
    ("damage", "mode"), CACHE_AND_MODE, ids=["%s, %s" % pair for pair in CACHE_AND_MODE]
)
def test_damaged_calibration_cache_is_ignored_with_a_warning(
    tmp_path, damage, mode, native_results
):
    """A corrupted calibration cache: one warning, the built-in defaults, never a crash;
    still accelerated (so assert mode passes), results native's."""
    content = DAMAGED_CACHES[damage]
    source = tmp_path / "cache-content"
    if content is not None:
        source.write_bytes(content)
    child = run_child(
        "workload",
        mode=mode,
        fault="calibration-cache",
        no_site=mode != "quiet",
        env={
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "REL_CALIBRATION": str(source) if content is not None else "dir",
        },
    )
    helpers.assert_no_traceback(child.stderr)
    assert child.returncode == 0, child.describe()
    assert child.report["results"] == native_results
    warnings = [line for line in child.stderr_lines if "calibration cache" in line]
    assert len(warnings) == 1, child.describe()
    assert re.match(
        r"^accel-agent: calibration cache \S+ ignored \(\w+\); using built-in defaults$",
        warnings[0],
    ), warnings[0]
    calls = child.report["agent"]["calls"]
    idle = [name for name in family_primitives() if not calls.get(name)]
    assert not idle, "no accelerated call of %s\n%s" % (idle, child.describe())


# ------------------------------------------------------------------ enable/disable, read-only

READ_ONLY_CLI = """\
import errno, os, sys
from accel_agent import _boot, cli
site = sys.argv[1]
_boot.default_file_path = lambda: os.path.join(site, "accel_agent.conf")
def refuse(*args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied", args[0])
for name in sys.argv[2].split(","):
    owner, _, attribute = name.rpartition(".")
    if owner == "builtins":
        import builtins
        real_open = builtins.open
        def guarded(file, mode="r", *a, **k):
            if str(file).startswith(site) and any(c in mode for c in "wax+"):
                refuse(file)
            return real_open(file, mode, *a, **k)
        builtins.open = guarded
    else:
        setattr(os, attribute, refuse)
sys.exit(cli.main(sys.argv[3:]))
"""


@pytest.fixture
def fake_site(tmp_path):
    """A site-packages with the start-up hook and an earlier default, written by someone else."""
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "accel_agent.pth").write_text("import sys\n")
    (site / "accel_agent.conf").write_text("mode = on\n")
    return site


@pytest.mark.parametrize(
    ("refused", "command"),
    [
        ("os.replace", ["enable", "--mode", "quiet"]),
        ("builtins.open", ["enable", "--mode", "assert"]),
        ("os.remove", ["disable"]),
    ],
)
def test_read_only_site_packages(fake_site, refused, command):
    """enable/disable on a read-only site-packages: one line, exit 3, the old default intact,
    no temporary file left behind (as root, chmod does not stop writes: the calls are refused)."""
    result = helpers.run_python("-c", READ_ONLY_CLI, fake_site, refused, *command)
    helpers.assert_no_traceback(result.stderr)
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines() == [
        "accel-agent: cannot %s %s (Permission denied)"
        % ("remove" if command[0] == "disable" else "write", fake_site / "accel_agent.conf")
    ]
    assert sorted(p.name for p in fake_site.iterdir()) == ["accel_agent.conf", "accel_agent.pth"]
    assert (fake_site / "accel_agent.conf").read_text() == "mode = on\n"


# ------------------------------------------------------------------ the .pth line itself


def test_pth_line_survives_an_agent_that_raises_at_import(shadows):
    """Any exception from the agent's import (not only ImportError) leaves Python running."""
    code = "print(%r)" % MARKER
    result = helpers.run_python(
        "-c",
        code,
        env=helpers.clean_environment(
            PYTHONPATH=str(shadows["agent-activation-broken"]), ACCEL_AGENT="on"
        ),
    )
    assert result.returncode == 0
    assert result.stdout.strip() == MARKER
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_fault_table_covers_every_injection():
    """Every injection child.py offers is used by a fault or a test here."""
    import child

    used = {f.inject for f in FAULTS if f.inject} | {"config-file", "calibration-cache"}
    assert set(child.INJECTIONS) == used
