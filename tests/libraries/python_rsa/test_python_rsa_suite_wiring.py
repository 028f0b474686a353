"""The python-rsa suite's CI script and runner are wired as docs/compatibility-python-rsa.md says.

The suite itself runs in CI (``.ci/library-suites/python-rsa.sh``, about two
minutes): these checks are the cheap part, in ``make test``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / ".ci" / "library-suites" / "python-rsa.sh"
PINS = (
    ROOT / "requirements" / "python-rsa.txt",
    ROOT / "requirements" / "oldest" / "python-rsa.txt",
)
RUNNER = Path(__file__).resolve().with_name("run_suite.py")


def _runner():
    spec = importlib.util.spec_from_file_location("python_rsa_run_suite", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_is_valid_bash_and_names_both_pins():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    text = SCRIPT.read_text()
    for pin in PINS:
        assert str(pin.relative_to(ROOT)) in text
    assert "tests/libraries/python_rsa/run_suite.py" in text
    assert "--no-binary :all:" in text and "rsa==4.7.2" in text


def test_pins_are_exact_and_distinct():
    versions = []
    for pin in PINS:
        found = re.findall(r"^rsa==([0-9.]+)$", pin.read_text(), re.M)
        assert len(found) == 1, pin
        versions.append(found[0])
    assert versions == ["4.9.1", "4.7.2"]
    # make bench installs every requirements/python-*.txt at once: one python-rsa among them.
    assert len(list((ROOT / "requirements").glob("python-rsa*.txt"))) == 1


def test_runner_leaves_out_mypy_and_adds_the_doctests(tmp_path):
    pytest.importorskip("rsa", reason="python-rsa is not installed")
    tests = tmp_path / "sdist_tests_of_rsa"  # not "tests": that name may be taken here
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    (tests / "test_mypy.py").write_text("import mypy_is_not_here\n")
    (tests / "test_one.py").write_text(
        "import unittest\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n"
    )
    saved_path = list(sys.path)
    try:
        ids = [test.id() for test in _runner()._flatten_ids(tests)]
    finally:
        sys.path[:] = saved_path  # unittest's discovery put tmp_path there
        for name in [n for n in sys.modules if n.startswith("sdist_tests_of_rsa")]:
            del sys.modules[name]
    assert "sdist_tests_of_rsa.test_one.T.test_x" in ids
    assert not [i for i in ids if "test_mypy" in i]
    assert any(i.startswith("rsa.pkcs1.") for i in ids)  # python-rsa's own doctests
