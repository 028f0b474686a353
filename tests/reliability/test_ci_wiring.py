"""CI runs pycryptodome's own suite under the agent, for every pinned pycryptodome.

CI runs the whole pycryptodome suite with the agent active,
for pycryptodome 4.x, 3.x and pycryptodomex, each installed from a pinned
requirements file. The runner is ``tests/suite/run_selftest.py``; these
tests check that the CI scripts actually call it for each pin, so that the
evidence cannot silently drop out of CI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CI = REPO / ".ci"
RUNNER = "tests/suite/run_selftest.py"
PINS = {  # requirements file -> the distribution it must pin
    "requirements/pycryptodome-4.txt": "pycryptodome",
    "requirements/pycryptodome-3.txt": "pycryptodome",
    "requirements/pycryptodomex.txt": "pycryptodomex",
}


def ci_scripts() -> dict[str, str]:
    """Every CI script reachable from .ci/run (the files under .ci/ it names, transitively)."""
    if not (CI / "run").exists():
        pytest.fail(".ci/run is missing")
    texts, pending = {}, [CI / "run"]
    while pending:
        path = pending.pop()
        if path in texts or not path.is_file():
            continue
        texts[path] = path.read_text()
        for name in re.findall(r"\.ci/[\w./-]+", texts[path]):
            pending.append(REPO / name)
    return {str(path.relative_to(REPO)): text for path, text in texts.items()}


@pytest.mark.parametrize("requirements", sorted(PINS))
def test_each_pin_is_exact(requirements):
    path = REPO / requirements
    assert path.exists(), "%s is missing" % requirements
    pins = re.findall(r"^%s==(\S+)$" % PINS[requirements], path.read_text(), re.MULTILINE)
    assert len(pins) == 1, "%s must pin %s==VERSION once" % (requirements, PINS[requirements])


def test_the_suite_runner_exists():
    assert (REPO / RUNNER).exists(), "%s is missing" % RUNNER


def test_ci_runs_the_suite_runner():
    scripts = ci_scripts()
    callers = [name for name, text in scripts.items() if RUNNER in text]
    assert callers, "no CI script reachable from .ci/run calls %s (looked in: %s)" % (
        RUNNER,
        ", ".join(sorted(scripts)),
    )


@pytest.mark.parametrize("requirements", sorted(PINS))
def test_ci_installs_each_pin_for_the_suite(requirements):
    scripts = ci_scripts()
    users = [name for name, text in scripts.items() if requirements in text and RUNNER in text]
    loose = [name for name, text in scripts.items() if requirements in text]
    assert users, "no CI script installs %s and runs %s with it (%s mention the file)" % (
        requirements,
        RUNNER,
        ", ".join(loose) or "none",
    )


def test_multipython_runs_the_differential_harness_on_every_python():
    """One differential harness: CI's multi-Python job runs tests/differential itself."""
    script = (REPO / ".ci" / "multipython.sh").read_text()
    assert "DIFF_TESTS=tests/differential" in script
    assert "ACCEL_REQUIRE_EVERY_PRIMITIVE=1" in script
    assert not (REPO / ".ci" / "smoke_differential.py").exists()


def test_a_differential_run_that_misses_a_primitive_fails(tmp_path):
    """ACCEL_REQUIRE_EVERY_PRIMITIVE: a run reaching only MD5 names the primitives it missed."""
    env = dict(os.environ, ACCEL_REQUIRE_EVERY_PRIMITIVE="1", ACCEL_DIFF_EXAMPLES="3")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         "tests/differential/test_hashes.py", "-k", "md5"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:]
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("every accelerated primitive")]
    assert line and "FAILED, no accelerated call of" in line[0], done.stdout[-2000:]
    assert "aes-gcm" in line[0] and "md5" not in line[0].split(" of ", 1)[1].split(", ")
