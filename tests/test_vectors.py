"""The known-answer data ships with the repository: no Wycheproof test can skip for want of it.

Every ``*_test.json`` file a test names must be in ``tests/vectors/wycheproof/``,
gzip-compressed, whole (its ``numberOfTests`` matches its tests), and listed
in that folder's README, whatever ``ACCEL_WYCHEPROOF_DIR`` says.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
FOLDER = TESTS / "vectors" / "wycheproof"
NAMED = re.compile(r"\b([a-z0-9_]+_test\.json)\b")


def named_files() -> set[str]:
    names = set()
    for source in TESTS.rglob("*.py"):
        names.update(NAMED.findall(source.read_text(encoding="utf-8")))
    return names


def test_the_tests_name_vector_files():
    assert len(named_files()) >= 25


@pytest.mark.parametrize("name", sorted(named_files()))
def test_each_named_file_is_in_the_repository(name):
    path = FOLDER / (name + ".gz")
    assert path.is_file(), "%s is named by a test but not kept in %s" % (name, FOLDER)
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    tests = sum(len(group["tests"]) for group in document["testGroups"])
    assert tests == document["numberOfTests"] > 0


def test_only_named_files_are_kept_and_each_has_a_licence_and_source():
    kept = {path.name[: -len(".gz")] for path in FOLDER.glob("*.json.gz")}
    assert kept == named_files()
    assert (FOLDER / "LICENSE").read_text().lstrip().startswith("Apache License")
    readme = (FOLDER / "README.md").read_text()
    assert "C2SP/wycheproof" in readme and "commit" in readme


def test_missing_vectors_skip_with_their_reason_and_never_error(tmp_path):
    """Pointed at an empty folder, the Wycheproof tests skip, teardown included."""
    import os
    import subprocess
    import sys

    modules = [
        "tests/libraries/python_rsa/test_python_rsa_wycheproof.py",
        "tests/wycheproof/test_wycheproof_mac_kdf.py",
        "tests/wycheproof/test_chacha20_poly1305_wycheproof.py",
    ]
    env = dict(os.environ, ACCEL_WYCHEPROOF_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", "-rs",
         *modules],
        cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "skipped" in summary and "error" not in summary and "passed" not in summary, summary
    assert "Wycheproof vectors not found" in done.stdout
