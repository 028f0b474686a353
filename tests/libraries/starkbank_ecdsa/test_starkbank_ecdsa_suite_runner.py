"""CI's wiring of starkbank-ecdsa's own suite.

The suite runs in CI (``.ci/library-suites/starkbank-ecdsa.sh``, about 30 s
per mode) through ``tests/suite/pytest_suite.py``, whose verdict
``tests/apps/test_app_suite_runner.py`` tests; here, what makes CI run it
with the pinned release, its tests, and both curves' primitives.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CI_SCRIPT = ROOT / ".ci" / "library-suites" / "starkbank-ecdsa.sh"
REQUIREMENTS = ROOT / "requirements" / "starkbank-ecdsa.txt"


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
    assert "tests/suite/pytest_suite.py" in script
    assert "--package ellipticcurve" in script
    assert "--require ecdsa-p256,ecdsa-secp256k1" in script  # it signs on both of its curves
    assert "refs/tags/v$PIN" in script  # the tests of the pinned release's tag
    assert CI_SCRIPT.stat().st_mode & 0o111, "the CI script must be executable"
