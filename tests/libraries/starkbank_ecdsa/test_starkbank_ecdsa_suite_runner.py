"""The starkbank-ecdsa suite runner's verdict, and CI's wiring of it.

The suite itself runs in CI (``.ci/library-suites/starkbank-ecdsa.sh``,
about 30 s per mode); here, only what decides its verdict and what makes CI
run it with the pinned release and its tests.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# Loaded by path under a name of its own: other libraries have a run_suite.py too.
_SPEC = importlib.util.spec_from_file_location("starkbank_ecdsa_run_suite", HERE / "run_suite.py")
run_suite = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = run_suite
_SPEC.loader.exec_module(run_suite)

CI_SCRIPT = ROOT / ".ci" / "library-suites" / "starkbank-ecdsa.sh"
REQUIREMENTS = ROOT / "requirements" / "starkbank-ecdsa.txt"


def _run(outcomes: dict, calls: dict | None = None, patched=("ellipticcurve.ecdsa.Ecdsa.sign",)):
    return {
        "outcomes": outcomes,
        "details": {test: "Traceback ... AssertionError" for test in outcomes},
        "seconds": 1.0,
        "version": "2.3.1",
        "calls": calls if calls is not None else dict.fromkeys(run_suite.REQUIRED_PRIMITIVES, 3),
        "patched": list(patched),
        "log": "log",
    }


def test_same_outcomes_with_calls_on_both_curves_is_transparent():
    outcomes = {"test_a": "passed", "test_b": "skipped", "test_c": "failed"}
    verdict = run_suite.compare(_run(outcomes), _run(outcomes))
    assert verdict["ok"] and verdict["same_results"]
    assert verdict["native_failures"] == ["test_c"]


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


def test_a_curve_without_calls_or_nothing_patched_fails():
    calls = dict.fromkeys(run_suite.REQUIRED_PRIMITIVES, 1)
    calls["ecdsa-p256"] = 0
    verdict = run_suite.compare(_run({"t": "passed"}), _run({"t": "passed"}, calls))
    assert not verdict["ok"] and verdict["accelerated_without_calls"] == ["ecdsa-p256"]
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
    assert "starkbank-ecdsa==2.3.1" in pins
    assert all("==" in pin for pin in pins), pins
    script = CI_SCRIPT.read_text()
    assert "requirements/starkbank-ecdsa.txt" in script
    assert "tests/libraries/starkbank_ecdsa/run_suite.py" in script
    assert "refs/tags/v%s" in script  # the tests of the pinned release's tag
    assert CI_SCRIPT.stat().st_mode & 0o111, "the CI script must be executable"
