"""Objects as programs hold them: the agent is on, calls are counted, markers are checked.

The tests in this folder compare the agent with native pycryptodome on
objects used the way real programs use them: shared by threads with KiB-MiB
calls, copied mid-stream, pickled, weakly referenced, subclassed and
type-checked, given ``output=`` buffers that alias the input, and fed inputs
at the size limits of OpenSSL's one-call APIs. The comparison machinery
(markers, the tally and its terminal summary) is :mod:`transparency_helpers`'.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: transparency_helpers

from transparency_helpers import agent_on_and_counted, pytest_configure  # noqa: E402, F401
