"""CI runs the engine tests, with every engine pinned, and a missing engine fails there.

The engine tests (``tests/engines/``) are left out of ``make test``; these
checks keep them from silently dropping out of CI instead.
"""

from __future__ import annotations

import re

import helpers

ENGINES = ("gunicorn", "uwsgi", "uvicorn", "celery", "distributed", "pyspark")


def test_ci_runs_make_engines():
    """A step of its own, or one of a group run together (``together "NAME|make engines"``)."""
    ci = (helpers.REPO / ".ci/run").read_text()
    alone = re.search(r"^step .*\bmake engines\b", ci, re.M)
    grouped = re.search(r"^(?:together |    )\"[^\"|]*\|make engines\"", ci, re.M)
    assert alone or grouped


def test_make_engines_requires_every_engine_and_runs_the_engine_tests():
    makefile = (helpers.REPO / "Makefile").read_text()
    recipe = makefile[makefile.index("\nengines:") :].split("\n\n")[0]
    assert "ACCEL_ENGINE_TESTS=require" in recipe
    assert "-m engines tests/engines" in recipe
    assert 'not engines"' in makefile[makefile.index("\ntest:") :].split("\n\n")[0]


def test_every_engine_is_pinned_exactly():
    lines = (helpers.REPO / "requirements/engines.txt").read_text().splitlines()
    pins = dict(line.split("==") for line in lines if line and not line.startswith("#"))
    assert set(ENGINES) <= set(pins), sorted(set(ENGINES) - set(pins))
    assert all(re.fullmatch(r"\d+(\.\d+)+", version) for version in pins.values()), pins
