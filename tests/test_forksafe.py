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


# A thread makes the process's first SHA-256 call (the patch, the provider and
# its self-check import modules) while the main thread forks a few milliseconds
# in: the child must get complete modules and free import locks, and hash.
FIRST_USE_AT_FORK = r"""
import faulthandler, os, sys, threading, time
from Crypto.Hash import SHA256
delay = float(sys.argv[1])
thread = threading.Thread(target=lambda: SHA256.new(b"abc").digest())
thread.start()
time.sleep(delay)
pid = os.fork()
if pid == 0:
    faulthandler.dump_traceback_later(10, exit=True)  # a hang: exit status 1
    ok = SHA256.new(b"abc").hexdigest().startswith("ba7816bf")
    os._exit(0 if ok else 2)
thread.join()
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def children_statuses(script: str, delays: list[float]) -> list[str]:
    """Run ``script`` under the agent once per delay; what each printed (the child's
    exit status), or the end of its stderr."""
    env = dict(os.environ, ACCEL_AGENT="quiet")
    statuses = []
    for delay in delays:
        done = subprocess.run(
            [sys.executable, "-c", script, str(delay)],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        statuses.append(done.stdout.strip() or done.stderr[-200:])
    return statuses


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_fork_during_another_threads_first_use_leaves_the_child_working():
    # Without the wait at fork, 5-7 of 20 such children hung on this machine.
    delays = [step * 0.0004 for step in range(16)]
    assert children_statuses(FIRST_USE_AT_FORK, delays) == ["0"] * 16


WAIT_SCRIPT = r"""
import threading, time
from accel_agent import forksafe
inside, leave = threading.Event(), threading.Event()
def first_use():
    with forksafe.importing_first_use:
        inside.set()
        leave.wait()
thread = threading.Thread(target=first_use)
thread.start()
inside.wait()
forksafe.FORK_WAIT_SECONDS = 0.2
start = time.monotonic()
forksafe._wait_for_first_uses()  # another thread inside: waits, at most the bound
waited = time.monotonic() - start
leave.set()
thread.join()
with forksafe.importing_first_use:
    start = time.monotonic()
    forksafe._wait_for_first_uses()  # only this thread inside: no wait
    own = time.monotonic() - start
print(0.15 < waited < 2, own < 0.05, forksafe._importing == {})
"""


def test_the_fork_waits_for_other_threads_first_uses_only_and_for_a_bounded_time():
    done = subprocess.run([sys.executable, "-c", WAIT_SCRIPT], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.stdout.split() == ["True", "True", "True"], done.stderr


# As above, with logging imported after the agent's start-up and an import hook
# that logs (import tracers do): logging's own before-fork handler takes its
# module lock, which the importing thread then waits for while it holds the
# import lock. The agent's wait must run before logging's handler, or the
# parent deadlocks (7 of 10 did when the wait was registered at start-up only).
LOGGING_HOOK_AT_FORK = r"""
import logging, os, sys, threading, time
class LoggingFinder:
    def find_spec(self, name, path=None, target=None):
        logging.getLogger("importwatch").debug("import %s", name)
        return None
sys.meta_path.insert(0, LoggingFinder())
from Crypto.Hash import SHA256
thread = threading.Thread(target=lambda: SHA256.new(b"a").digest(), daemon=True)
thread.start()
time.sleep(float(sys.argv[1]))
pid = os.fork()
if pid == 0:
    import faulthandler
    faulthandler.dump_traceback_later(10, exit=True)
    SHA256.new(b"abc").digest()
    os._exit(0)
thread.join()
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_the_wait_at_fork_runs_before_logging_takes_its_lock():
    delays = [step * 0.0007 for step in range(8)]
    assert children_statuses(LOGGING_HOOK_AT_FORK, delays) == ["0"] * 8
