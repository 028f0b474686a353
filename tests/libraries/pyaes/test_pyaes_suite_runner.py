"""The verdict of run_suite.py (pyaes's own tests, native vs agent) on made-up runs.

The real runs are CI's (.ci/library-suites/pyaes.sh); here the judging is
checked to fail on each kind of difference, so a green CI step means something.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# Loaded by path under its own name: other libraries' folders have a run_suite.py too.
_SPEC = importlib.util.spec_from_file_location(
    "pyaes_run_suite", Path(__file__).resolve().parent / "run_suite.py"
)
run_suite = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = run_suite
_SPEC.loader.exec_module(run_suite)

SCRIPTS = [Path("test-aes.py"), Path("test-blockfeeder.py")]
CALLS = {name: 5 for name in run_suite.PRIMITIVES}


def run(active: bool, error=None, output=("Mode: CBC", "All test cases passes!"), calls=None):
    output = list(output)
    return {
        "active": active,
        "error": error,
        "output": output,
        "failed_checks": [line for line in output if "passed=False" in line],
        "calls": dict(CALLS if calls is None else calls) if active else {},
        "accelerated": list(run_suite.PRIMITIVES) if active else [],
        "seconds": 0.1,
    }


def runs(**agent_changes) -> dict:
    return {
        "native": {s.name: run(False) for s in SCRIPTS},
        "agent": {s.name: run(True, **agent_changes) for s in SCRIPTS},
    }


def test_same_results_pass():
    result = run_suite.verdict(SCRIPTS, runs())
    assert result["ok"] and result["calls"]["aes-ctr"] == 10


def test_an_exception_only_under_the_agent_fails():
    result = run_suite.verdict(SCRIPTS, runs(error="Exception: Failed encypt test case (CTR)"))
    assert not result["ok"] and result["differences"]


def test_a_failed_check_under_the_agent_fails():
    result = run_suite.verdict(SCRIPTS, runs(output=["  cipher-length=1008 passed=False"]))
    assert not result["ok"]


def test_an_accelerated_mode_without_calls_fails():
    result = run_suite.verdict(SCRIPTS, runs(calls={**CALLS, "aes-ofb": 0}))
    assert not result["ok"] and result["idle_accelerated"] == ["aes-ofb"]


def test_an_agent_that_was_not_active_is_broken():
    broken = runs()
    broken["agent"]["test-aes.py"]["active"] = False
    result = run_suite.verdict(SCRIPTS, broken)
    assert not result["ok"] and result["broken"]
