"""pyaes under the agent: the agent is on, calls are counted, markers are checked.

The same machinery as tests/differential (:mod:`transparency_helpers`): each
test's accelerated calls are tallied, ``@accelerates("aes-ctr")`` fails a test
that made none while the primitive is accelerated. The tests skip, saying
so, where pyaes is not installed (``pip install -r requirements/pyaes.txt``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: transparency_helpers

import transparency_helpers as th  # noqa: E402


def pytest_configure(config):
    th.register_plugin(config)


@pytest.fixture(autouse=True)
def _agent_on_and_counted(request):
    yield from th.track(request)
