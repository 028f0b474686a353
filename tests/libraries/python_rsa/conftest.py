"""python-rsa under the agent: the agent is on, calls are counted, markers are checked.

The machinery (markers ``accelerates``/``native_only``, the tally, ``both``)
is the differential tests' (:mod:`transparency_helpers`); this file wires it
in for this folder. Without python-rsa installed the folder skips, saying so.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: transparency_helpers

from transparency_helpers import agent_on_and_counted, pytest_configure  # noqa: E402, F401

collect_ignore = ["run_suite.py"]  # the suite runner, not a test module
