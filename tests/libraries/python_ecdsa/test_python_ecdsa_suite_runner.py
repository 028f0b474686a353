"""The python-ecdsa suite runner's verdict, and CI's wiring of it.

The suite itself runs in CI (``.ci/library-suites/python-ecdsa.sh``, about
10 s of CPU per mode); here, only what decides its verdict and what makes
CI run it with the pinned release.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# Loaded by path under a name of its own: tests/libraries/pyaes has a run_suite.py too.
_SPEC = importlib.util.spec_from_file_location("python_ecdsa_run_suite", HERE / "run_suite.py")
run_suite = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = run_suite
_SPEC.loader.exec_module(run_suite)

CI_SCRIPT = ROOT / ".ci" / "library-suites" / "python-ecdsa.sh"
REQUIREMENTS = ROOT / "requirements" / "python-ecdsa.txt"


def _run(outcomes: dict, calls: dict | None = None, patched=("ecdsa.keys.SigningKey.sign",)):
    return {
        "outcomes": outcomes,
        "details": {test: "Traceback ... AssertionError" for test in outcomes},
        "seconds": 1.0,
        "cpu_seconds": 1.0,
        "version": "0.19.2",
        "python": "3.11",
        "calls": calls if calls is not None else dict.fromkeys(run_suite.REQUIRED_PRIMITIVES, 3),
        "patched": list(patched),
        "log": "log",
    }


def test_same_outcomes_with_calls_everywhere_is_transparent():
    outcomes = {"test_a": "passed", "test_b": "skipped", "test_c": "failed"}
    verdict = run_suite.compare(_run(outcomes), _run(outcomes))
    assert verdict["ok"] and verdict["same_results"]
    assert verdict["native_failures"] == ["test_c"]  # listed, not held against the agent


def test_a_test_failing_only_under_the_agent_is_not():
    verdict = run_suite.compare(
        _run({"test_a": "passed"}), _run({"test_a": "failed", "test_new": "passed"})
    )
    assert not verdict["ok"]
    assert verdict["differences"] == {
        "test_a": {"native": "passed", "agent": "failed"},
        "test_new": {"native": "absent", "agent": "passed"},
    }
    assert "test_a" in verdict["agent_only_failures"]


def test_a_primitive_without_calls_or_nothing_patched_fails():
    calls = dict.fromkeys(run_suite.REQUIRED_PRIMITIVES, 1)
    calls["ecdsa-secp256k1"] = 0
    verdict = run_suite.compare(_run({"t": "passed"}), _run({"t": "passed"}, calls))
    assert not verdict["ok"] and verdict["accelerated_without_calls"] == ["ecdsa-secp256k1"]
    verdict = run_suite.compare(_run({"t": "passed"}), _run({"t": "passed"}, patched=()))
    assert not verdict["ok"] and verdict["problems"]


def test_a_run_that_could_not_be_made_is_reported():
    verdict = run_suite.compare({"problem": "timed out"}, _run({"t": "passed"}))
    assert verdict == {"ok": False, "problems": ["timed out"]}


def test_ci_installs_the_exact_pin_and_runs_the_runner():
    pins = [
        line.split("#")[0].strip()
        for line in REQUIREMENTS.read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    assert "ecdsa==0.19.2" in pins
    assert all("==" in pin for pin in pins), pins
    script = CI_SCRIPT.read_text()
    assert "requirements/python-ecdsa.txt" in script
    assert "tests/libraries/python_ecdsa/run_suite.py" in script
    assert CI_SCRIPT.stat().st_mode & 0o111, "the CI script must be executable"
