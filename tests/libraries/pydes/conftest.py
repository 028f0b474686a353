"""pyDes under the agent: the agent is on, calls are counted, markers are checked.

The same machinery as tests/differential (:mod:`transparency_helpers`): each
test's accelerated calls are tallied, ``@accelerates("tdes-cbc")`` fails a test
that made none while the primitive is accelerated. The tests skip, saying
so, where pyDes is not installed (``pip install -r requirements/pyDes.txt``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: transparency_helpers

from transparency_helpers import agent_on_and_counted, pytest_configure  # noqa: E402, F401
