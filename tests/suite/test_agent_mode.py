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


def _primitives(asked: bool) -> dict:
    return {
        "aes": {"accelerated": True, "calls": 5, "asked": True},
        "ecdsa-p192": {"accelerated": True, "calls": 0, "asked": asked},
    }


def test_a_primitive_no_call_asked_for_is_listed_apart():
    """Shadow mode decides every primitive at start-up: a --select GCM run never asks for
    ECDSA. Such a primitive is listed, with why, and fails nothing; the outcomes still count."""
    agent = a_run(NATIVE, shadow=_shadow({}), primitives=_primitives(asked=False))
    verdict = run_selftest.compare("Crypto", a_run(NATIVE), agent)
    assert verdict["ok"]
    assert verdict["accelerated_without_calls"] == []
    assert verdict["decided_at_start_not_called"] == ["ecdsa-p192"]
    different = a_run(
        dict(NATIVE, **{"t.py::a": "failed"}), shadow=_shadow({}), primitives=_primitives(False)
    )
    assert not run_selftest.compare("Crypto", a_run(NATIVE), different)["ok"]


def test_a_primitive_a_call_asked_for_without_a_call_fails_in_either_mode():
    """What the check is for: a call asked for the provider, and none was counted."""
    for shadow in (_shadow({}), None):
        agent = a_run(NATIVE, shadow=shadow, primitives=_primitives(asked=True))
        verdict = run_selftest.compare("Crypto", a_run(NATIVE), agent)
        assert not verdict["ok"]
        assert verdict["accelerated_without_calls"] == ["ecdsa-p192"]
        assert verdict["decided_at_start_not_called"] == []


def test_a_run_without_the_asked_fact_keeps_the_strict_check():
    """Records and runs made before the fact existed: every uncalled primitive fails."""
    primitives = {"ecdsa-p192": {"accelerated": True, "calls": 0}}
    verdict = run_selftest.compare("Crypto", a_run(NATIVE), a_run(NATIVE, primitives=primitives))
    assert verdict["accelerated_without_calls"] == ["ecdsa-p192"] and not verdict["ok"]
