"""The pyDes suite runner's verdict, and CI's wiring of it.

The suite itself runs in CI (``.ci/library-suites/pydes.sh``: about 12 s
natively, 0.2 s under the agent); here, only what decides its verdict and
what makes CI run it with the pinned release and its tests.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# Loaded by path under a name of its own: other libraries have a run_suite.py too.
_SPEC = importlib.util.spec_from_file_location("pydes_run_suite", HERE / "run_suite.py")
run_suite = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = run_suite
_SPEC.loader.exec_module(run_suite)

CI_SCRIPT = ROOT / ".ci" / "library-suites" / "pydes.sh"
REQUIREMENTS = ROOT / "requirements" / "pyDes.txt"
FULLTEST = (
    "".join("Test %d: Successful\n" % n for n in range(1, 18)) + "Total time taken: <seconds>\n"
)


def _run(fulltest: str = FULLTEST, calls=None, patched=("pyDes.triple_des.encrypt",), written=None):
    functions = {name: {"output": "ok\n", "raised": None} for name in run_suite.FUNCTIONS}
    functions["_fulltest_"]["output"] = fulltest
    return {
        "functions": functions,
        "written": written or {"pyDes.py.enc": "aa", "pyDes.py.dec": "bb"},
        "seconds": 1.0,
        "version": "2.0.1",
        "calls": calls if calls is not None else dict.fromkeys(run_suite.REQUIRED_PRIMITIVES, 3),
        "patched": list(patched),
    }


def test_timings_are_masked_and_nothing_else():
    text = "DES time taken: 0.012345 (6 crypt operations)\nDES file test time: 1.5\nKey: b'x'\n"
    assert run_suite.masked(text) == (
        "DES time taken: <seconds> (6 crypt operations)\nDES file test time: <seconds>\nKey: b'x'\n"
    )


def test_same_outputs_with_calls_is_transparent():
    verdict = run_suite.compare(_run(), _run())
    assert verdict["ok"] and verdict["same_results"] and verdict["fulltest_successful"] == 17


def test_a_different_output_or_file_is_not():
    changed = FULLTEST.replace("Test 8: Successful", "Test 8:  Error: Triple DES CBC failed.")
    verdict = run_suite.compare(_run(), _run(changed))
    assert not verdict["ok"] and verdict["differences"] == ["_fulltest_"]
    assert verdict["problems"]  # and 16 of 17 Successful lines
    verdict = run_suite.compare(_run(), _run(written={"pyDes.py.enc": "cc", "pyDes.py.dec": "bb"}))
    assert not verdict["ok"] and verdict["differences"] == ["files written by _filetest_"]


def test_a_primitive_without_calls_or_nothing_patched_fails():
    calls = dict.fromkeys(run_suite.REQUIRED_PRIMITIVES, 1)
    calls["tdes-cbc"] = 0
    verdict = run_suite.compare(_run(), _run(calls=calls))
    assert not verdict["ok"] and verdict["accelerated_without_calls"] == ["tdes-cbc"]
    verdict = run_suite.compare(_run(), _run(patched=()))
    assert not verdict["ok"] and verdict["problems"]


def test_a_run_that_could_not_be_made_is_reported():
    verdict = run_suite.compare({"problem": "timed out"}, _run())
    assert verdict == {"ok": False, "problems": ["timed out"]}


def test_ci_installs_the_exact_pin_and_runs_the_runner():
    pins = [
        line.split("#")[0].strip()
        for line in REQUIREMENTS.read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    assert pins == ["pyDes==2.0.1"]
    script = CI_SCRIPT.read_text()
    assert "requirements/pyDes.txt" in script
    assert "tests/libraries/pydes/run_suite.py" in script
    assert "raw.githubusercontent.com/twhiteman/pyDes/$COMMIT/test_pydes.py" in script
    assert CI_SCRIPT.stat().st_mode & 0o111, "the CI script must be executable"
