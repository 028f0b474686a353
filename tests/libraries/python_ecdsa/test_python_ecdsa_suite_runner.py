"""CI's wiring of python-ecdsa's own suite.

The suite runs in CI (``.ci/library-suites/python-ecdsa.sh``, about 10 s of
CPU per mode) through ``tests/suite/pytest_suite.py``, whose verdict
``tests/apps/test_app_suite_runner.py`` tests; here, what makes CI run it
with the pinned release and hold every curve's primitive to account.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CI_SCRIPT = ROOT / ".ci" / "library-suites" / "python-ecdsa.sh"
REQUIREMENTS = ROOT / "requirements" / "python-ecdsa.txt"
# Its tests sign, verify and generate keys on each of these curves.
REQUIRED_PRIMITIVES = (
    "ecdsa-p192", "ecdsa-p224", "ecdsa-p256", "ecdsa-p384", "ecdsa-p521", "ecdsa-secp256k1",
    "ecc-keygen",
)  # fmt: skip


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
    assert "tests/suite/pytest_suite.py" in script
    assert "--package ecdsa" in script and "--pyargs ecdsa" in script
    for primitive in REQUIRED_PRIMITIVES:
        assert primitive in script, "%s must serve calls in the suite" % primitive
    assert CI_SCRIPT.stat().st_mode & 0o111, "the CI script must be executable"
