"""The Wycheproof tests' fixtures: the agent is on, calls are counted, markers are checked.

The machinery is shared with tests/differential (see :mod:`transparency_helpers`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: transparency_helpers

import transparency_helpers as th  # noqa: E402


def pytest_configure(config):
    th.register_plugin(config)


@pytest.fixture(autouse=True)
def _agent_on_and_counted(request):
    yield from th.track(request)
