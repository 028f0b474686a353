"""``run_selftest.py --agent-mode shadow``: shadow mode for the agent's run, counts in the verdict.

The runs are built by hand (the suite itself takes minutes): the agent's
child gets shadow mode at rate 1, and a shadow mismatch fails a verdict
whose outcomes are native's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run_selftest  # noqa: E402 - the runner is a script beside this file
from test_native_records import NATIVE, a_run  # noqa: E402


def test_the_agent_child_runs_in_shadow_mode_at_rate_1(monkeypatch):
    monkeypatch.delenv("ACCEL_AGENT_SHADOW_RATE", raising=False)
    env = run_selftest.child_env("shadow")
    assert env["ACCEL_AGENT"] == "shadow" and env["ACCEL_AGENT_SHADOW_RATE"] == "1"
    assert "ACCEL_AGENT_SHADOW_RATE" not in run_selftest.child_env("quiet")


def _shadow(mismatches: dict) -> dict:
    return {"rate": 1.0, "comparisons": 7, "uncomparable": 2, "mismatches": mismatches}


def test_the_verdict_holds_the_shadow_counts():
    native = a_run(NATIVE)
    verdict = run_selftest.compare("Crypto", native, a_run(NATIVE, shadow=_shadow({})))
    assert verdict["ok"]
    assert verdict["shadow"] == _shadow({})
    assert "shadow" not in run_selftest.compare("Crypto", native, a_run(NATIVE, shadow=None))


def test_a_shadow_mismatch_fails_a_verdict_with_native_outcomes():
    found = {"aes-gcm": [{"method": "encrypt", "size_class": "<=64B"}]}
    verdict = run_selftest.compare("Crypto", a_run(NATIVE), a_run(NATIVE, shadow=_shadow(found)))
    assert verdict["same_results"]
    assert not verdict["ok"]
