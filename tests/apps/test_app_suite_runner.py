"""The pytest suite runner's verdict, CI's wiring of it, and the bench's crypto share.

The suites themselves run in CI (``make app-suites``: .ci/app-suites/*.sh);
here, what decides their verdict, that every script has exact pins and
states its exclusions, and how the apps family measures an application's
share of time in its crypto library.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPTS = sorted((ROOT / ".ci" / "app-suites").glob("*.sh"))

# Loaded by path: the runner is a script in tests/suite/.
_SPEC = importlib.util.spec_from_file_location(
    "pytest_suite", HERE.parent / "suite" / "pytest_suite.py"
)
run_suite = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = run_suite
_SPEC.loader.exec_module(run_suite)


def _run(outcomes: dict, calls: dict | None = None, patched=("Crypto.Cipher.AES.new",)):
    return {
        "outcomes": outcomes,
        "details": {test: "Traceback ... AssertionError" for test in outcomes},
        "seconds": 1.0,
        "cpu_seconds": 1.0,
        "python": "3.11",
        "calls": {"aes-ctr": 5} if calls is None else calls,
        "patched": list(patched),
        "log": "log",
    }


def test_same_outcomes_with_the_required_calls_is_transparent():
    outcomes = {"t::a": "passed", "t::b": "skipped", "t::c": "failed"}
    verdict = run_suite.compare("app", ["aes-ctr"], _run(outcomes, calls={}), _run(outcomes))
    assert verdict["ok"] and verdict["same_results"]
    assert verdict["native_failures"] == ["t::c"]  # listed, not held against the agent
    assert verdict["calls"] == {"aes-ctr": 5}


def test_a_test_failing_only_under_the_agent_is_not():
    verdict = run_suite.compare(
        "app", [], _run({"t::a": "passed"}, calls={}), _run({"t::a": "error", "t::new": "passed"})
    )
    assert not verdict["ok"]
    assert verdict["differences"] == {
        "t::a": {"native": "passed", "agent": "error"},
        "t::new": {"native": "absent", "agent": "passed"},
    }
    assert "t::a" in verdict["agent_only_failures"]


def test_crypto_that_never_reached_the_agent_fails():
    # An application that took its own cryptography fallback: nothing counted.
    native, agent = _run({"t": "passed"}, calls={}), _run({"t": "passed"}, calls={"sha256": 2})
    verdict = run_suite.compare("app", ["aes-ctr", "sha256"], native, agent)
    assert not verdict["ok"] and verdict["required_without_calls"] == ["aes-ctr"]
    verdict = run_suite.compare(
        "app", [], _run({"t": "passed"}, calls={}), _run({"t": "passed"}, patched=())
    )
    assert not verdict["ok"] and verdict["problems"]


def test_calls_counted_natively_or_an_empty_suite_fail():
    verdict = run_suite.compare("app", [], _run({"t": "passed"}), _run({"t": "passed"}))
    assert not verdict["ok"] and "natively" in verdict["problems"][0]
    verdict = run_suite.compare("app", [], _run({}, calls={}), _run({}))
    assert not verdict["ok"] and verdict["problems"] == ["the suite ran no tests"]


def test_a_run_that_could_not_be_made_is_reported():
    verdict = run_suite.compare("app", [], {"problem": "timed out"}, _run({"t": "passed"}))
    assert verdict == {"name": "app", "ok": False, "problems": ["timed out"]}


def test_every_app_script_has_exact_pins_and_runs_the_runner():
    assert len(SCRIPTS) >= 5
    for script in SCRIPTS:
        name = script.stem
        pins = [
            line.split("#")[0].strip()
            for line in (ROOT / "requirements" / "apps" / ("%s.txt" % name))
            .read_text()
            .splitlines()
            if line.split("#")[0].strip()
        ]
        assert any(pin.startswith(name + "==") for pin in pins), (name, pins)
        assert all("==" in pin for pin in pins), pins
        text = script.read_text()
        assert "app_suite %s " % name in text
        assert script.stat().st_mode & 0o111, "%s must be executable" % script


def test_exclusions_are_read_with_their_reasons_left_in_the_script(tmp_path):
    script = tmp_path / "app.sh"
    script.write_text(
        "# exclude: tests/test_x.py::test_one  needs a file the sdist lacks\n"
        "# not an exclusion: tests/test_y.py\n"
        "# exclude: tests/test_x.py::Class  needs pyOpenSSL\n"
    )
    command = 'source .ci/lib.sh; source .ci/app_suite_lib.sh; excluded "$1"'
    lines = subprocess.run(
        ["bash", "-c", command, "-", script], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert lines == ["--deselect=tests/test_x.py::test_one", "--deselect=tests/test_x.py::Class"]


def test_crypto_share_counts_the_time_inside_the_named_package(tmp_path, monkeypatch):
    from accel_agent.bench import amdahl

    package = tmp_path / "fakecrypto"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import hashlib\n"
        "def work():\n"
        "    for _ in range(400):\n"
        "        hashlib.sha256(b'x' * 4096).digest()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import fakecrypto

    def outside(seconds: float) -> None:
        end = time.perf_counter() + seconds
        total = 0
        while time.perf_counter() < end:
            total += sum(range(50))

    only_crypto = amdahl.crypto_share(fakecrypto.work, ("fakecrypto",))
    no_crypto = amdahl.crypto_share(lambda: outside(0.01), ("fakecrypto",))
    assert only_crypto > 0.9  # its C calls (hashlib) count where they were called from
    assert no_crypto < 0.05
    assert amdahl.crypto_share(fakecrypto.work, ("Crypto",)) < 0.1
    assert amdahl.ceiling(0.5) == 2.0 and amdahl.ceiling(1.0) == float("inf")
