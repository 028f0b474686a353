"""accel_agent.forksafe: a lock held by another thread at fork time is free in the child.

The fork happens in a fresh interpreter (forking pytest's own process, with
its threads, is unsafe). As a control, a plain RLock held the same way stays
locked in the child: the test can tell the two apart.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import _thread, os, sys, threading
from accel_agent import forksafe

namespace = {}
forksafe.rlock(namespace, "lock")
plain = _thread.RLock()
held, release = threading.Event(), threading.Event()

def holder():
    with namespace["lock"], plain:
        held.set()
        release.wait()

threading.Thread(target=holder, daemon=True).start()
held.wait()
pid = os.fork()
if pid == 0:
    renewed = namespace["lock"].acquire(timeout=2)
    stuck = not plain.acquire(timeout=0.5)
    os._exit(0 if renewed and stuck else 1)
_, status = os.waitpid(pid, 0)
release.set()
print("child exit", os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_lock_held_at_fork_is_free_in_the_child_and_a_plain_one_is_not():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "child exit 0", done.stdout + done.stderr
