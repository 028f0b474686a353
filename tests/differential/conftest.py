"""The differential tests' fixtures: the agent is on, calls are counted, markers are checked.

The shared machinery (markers ``accelerates``/``native_only``, the tally of
comparisons and accelerated calls, its xdist merge and the terminal summary)
lives in :mod:`transparency_helpers`; this file only wires it in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: transparency_helpers

import transparency_helpers as th  # noqa: E402
from transparency_helpers import agent_on_and_counted, pytest_configure  # noqa: E402, F401


@pytest.fixture(autouse=True, scope="session")
def _modules_native_code_imports():
    # Native EAX imports Hash.CMAC, which the agent patches: imported for the
    # first time inside a native run, the import hook would patch it there and
    # that run would not be native. Import it under the agent first.
    th.ensure_agent()
    for flavour in th.installed_flavours():
        th.import_from(flavour, "Hash.CMAC")
