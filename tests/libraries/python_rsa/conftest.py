"""python-rsa under the agent: the agent is on, calls are counted, markers are checked.

The machinery (markers ``accelerates``/``native_only``, the tally, ``both``)
is the differential tests' (:mod:`transparency_helpers`); this file wires it
in for this folder. Without python-rsa installed the folder skips, saying so.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: transparency_helpers

import transparency_helpers as th  # noqa: E402

collect_ignore = ["run_suite.py"]  # the suite runner, not a test module


def pytest_configure(config):
    th.register_plugin(config)


@pytest.fixture(autouse=True)
def _agent_on_and_counted(request):
    yield from th.track(request)
