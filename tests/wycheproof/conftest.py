"""The Wycheproof tests' fixtures: the agent is on, calls are counted, markers are checked.

The machinery is shared with tests/differential (see :mod:`transparency_helpers`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: transparency_helpers

from transparency_helpers import agent_on_and_counted, pytest_configure  # noqa: E402, F401
