"""The recorded native outcomes of pycryptodome's suite stand in for native only when they fit.

``tests/suite/run_selftest.py`` leaves the native run out when a record of
native's outcomes (``tests/suite/native-outcomes/``) was made with the same
facts and the agent's outcomes hash the same. These tests build runs by hand
and check each way a record must be refused, and that CI has a record for
every pin it runs (without one, CI stays correct but runs native again).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run_selftest  # noqa: E402 - the runner is a script beside this file

REPO = Path(__file__).resolve().parents[2]
INTERNALS = "Crypto/SelfTest/Hash/test_BLAKE2.py::TestBlake2bRawCopy::test_copy"


def a_run(outcomes: dict[str, str], **facts) -> dict:
    """A child's results, made by hand (test_agent_mode.py builds on it too)."""
    run = {
        "flavour": "Crypto",
        "version": "9.9.9",
        "framework": "pytest",
        "test_vectors": "1.0",
        "python": "3.11.7",
        "machine": "x86_64",
        "cpu_features": {"have_aes_ni": True, "have_clmul": True},
        "outcomes": dict(outcomes),
        "details": {},
        "seconds": 10.0,
        "cpu_seconds": 9.0,
        "primitives": {"aes": {"accelerated": True, "calls": 5}},
        "patched": ["Crypto.Cipher.AES.new"],
        "log": "agent.log",
    }
    run.update(facts)
    return run


NATIVE = {"t.py::a": "passed", "t.py::b": "skipped", "t.py::c": "failed", INTERNALS: "passed"}


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setattr(run_selftest, "RECORDS", tmp_path)
    run_selftest.write_record(a_run(NATIVE), skip_slow=False, select=None)
    return tmp_path


def test_a_fitting_record_gives_native_outcomes(records):
    agent = a_run({**NATIVE, INTERNALS: "failed"})  # the accepted internals test differs
    native, source = run_selftest.recorded_native(agent, skip_slow=False, select=None)
    assert source.startswith("recorded ")
    assert native["outcomes"] == NATIVE
    verdict = run_selftest.compare("Crypto", native, agent)
    assert verdict["same_results"]
    assert list(verdict["internals_tests_accepted"]) == [INTERNALS]
    assert verdict["native"]["failures"] == 1


@pytest.mark.parametrize(
    "outcomes",
    [
        {**NATIVE, "t.py::a": "failed"},  # a test native passed fails
        {**NATIVE, "t.py::c": "passed"},  # a test native failed passes
        {k: v for k, v in NATIVE.items() if k != "t.py::b"},  # a test is missing
        {**NATIVE, "t.py::d": "passed"},  # a test native did not run
        {k: v for k, v in NATIVE.items() if k != INTERNALS},  # an internals test is missing
    ],
    ids=["pass-to-fail", "fail-to-pass", "missing", "extra", "internals-missing"],
)
def test_any_other_outcome_refuses_the_record(records, outcomes):
    native, source = run_selftest.recorded_native(a_run(outcomes), skip_slow=False, select=None)
    assert native is None
    assert "not the recorded native ones" in source


@pytest.mark.parametrize(
    ("facts", "options"),
    [
        ({"version": "9.9.8"}, {}),
        ({"test_vectors": None}, {}),
        ({"python": "3.12.1"}, {}),
        ({"machine": "aarch64"}, {}),
        ({"cpu_features": {"have_aes_ni": False, "have_clmul": True}}, {}),
        ({}, {"select": "AES"}),
    ],
    ids=["version", "vectors", "python", "machine", "cpu", "select"],
)
def test_other_facts_refuse_the_record(records, facts, options):
    agent = a_run(NATIVE, **facts)
    native, source = run_selftest.recorded_native(
        agent, skip_slow=False, select=options.get("select")
    )
    assert native is None
    assert "other" in source


def test_no_record_for_the_skip_slow_run(records):
    native, source = run_selftest.recorded_native(a_run(NATIVE), skip_slow=True, select=None)
    assert native is None
    assert "no record" in source


def test_a_record_of_a_selection_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(run_selftest, "RECORDS", tmp_path)
    with pytest.raises(SystemExit):
        run_selftest.write_record(a_run(NATIVE), skip_slow=False, select="AES")


def test_a_record_names_only_the_tests_that_did_not_pass(records):
    (path,) = records.glob("*.json")
    text = path.read_text()
    assert "t.py::a" not in text, "passed tests are in the digest only"
    assert "t.py::c" in text, "tests that did not pass are listed by name"


SUITES_SH = (REPO / ".ci" / "suites.sh").read_text()


@pytest.mark.parametrize(
    ("requirements", "flavour", "distribution"),
    [
        ("requirements/pycryptodome-4.txt", "Crypto", "pycryptodome"),
        ("requirements/pycryptodome-3.txt", "Crypto", "pycryptodome"),
        ("requirements/pycryptodomex.txt", "Cryptodome", "pycryptodomex"),
    ],
)
def test_ci_has_a_record_for_each_pin(requirements, flavour, distribution):
    """Without one CI is still right, but runs native again: minutes of CI's budget."""
    text = (REPO / requirements).read_text()
    (version,) = re.findall(r"^%s==(\S+)$" % distribution, text, re.MULTILINE)
    skip_slow = not requirements.endswith("-4.txt")
    facts = {"flavour": flavour, "version": version, "skip_slow": skip_slow}
    path = run_selftest.record_path(facts)
    assert path.exists(), "no record of native's outcomes for %s: %s" % (requirements, path)
    assert '--native "${SUITE_NATIVE:-recorded}"' in SUITES_SH
