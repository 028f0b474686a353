"""pycryptodome's own test suite gives the same results under the agent as natively.

For each flavour installed in this interpreter (``Crypto``, ``Cryptodome``),
:mod:`run_selftest` runs the suite twice in fresh interpreters, with
``ACCEL_AGENT=off`` and ``ACCEL_AGENT=quiet``, and compares test by test.
A test that fails natively too is pycryptodome's (or its test vectors')
business and is only listed; one that fails only under the agent, or an
accelerated primitive that served no call, fails this test.

``ACCEL_SUITE_SKIP_SLOW=1`` leaves out the suite's slow tests;
``ACCEL_SUITE_SELECT=expr`` narrows it (pytest ``-k`` for 4.x, an id
substring for 3.x).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().with_name("run_selftest.py")
FLAVOURS = [name for name in ("Crypto", "Cryptodome") if importlib.util.find_spec(name)]
NONE_INSTALLED = pytest.param(
    None, marks=pytest.mark.skip(reason="neither pycryptodome nor pycryptodomex is installed")
)


@pytest.mark.suite
@pytest.mark.parametrize("flavour", FLAVOURS or [NONE_INSTALLED])
def test_selftest_same_under_agent(flavour, tmp_path):
    command = [sys.executable, str(RUNNER), "--flavour", flavour, "--parallel"]
    command += ["--work-dir", str(tmp_path), "--json-out", str(tmp_path / "verdict.json")]
    if os.environ.get("ACCEL_SUITE_SKIP_SLOW", "") not in ("", "0"):
        command.append("--skip-slow")
    if os.environ.get("ACCEL_SUITE_SELECT"):
        command += ["--select", os.environ["ACCEL_SUITE_SELECT"]]
    result = subprocess.run(command, capture_output=True, text=True, timeout=7200)
    report = result.stdout + result.stderr
    print(report)  # shown with -s, and on failure
    assert result.returncode in (0, 1), report
    verdict = json.loads(result.stdout.strip().splitlines()[-1])["flavours"][flavour]
    assert "problems" not in verdict, verdict.get("problems")
    assert verdict["agent"]["run"] > 0, "the suite ran no test"
    differences = {
        test: (outcomes, verdict["agent_only_failures"].get(test, "")[-400:])
        for test, outcomes in verdict["differences"].items()
    }
    assert verdict["same_results"], "%d tests differ from native: %s" % (
        verdict["differing_count"],
        json.dumps(differences, indent=1),
    )
    assert not verdict["accelerated_without_calls"], (
        "accelerated, yet no call reached the agent: %s" % verdict["accelerated_without_calls"]
    )
    assert verdict["patched"], "the agent patched nothing in %s" % flavour
    assert result.returncode == 0, report
