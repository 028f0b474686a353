"""No lock of the agent stays locked in a child forked while another thread held it.

Prefork servers (gunicorn ``--preload``, uWSGI, Celery's prefork pool) fork
workers from a master whose other threads may be inside the agent at that
moment. ``fork()`` copies only the calling thread, so a lock another thread
held is copied locked, with nobody left to release it: the child's first
call that needs it would hang. Every lock of the agent is replaced in the
child (``accel_agent.forksafe``); this test holds each one in a thread of a
fresh interpreter, forks, and lets the child try them, bounded.
"""

from __future__ import annotations

import json

import helpers

CHILD = r"""
import json, os, threading, time
from accel_agent import hooks, registry
from accel_agent.targets.pycryptodome import _first_use
from accel_agent.targets.python_rsa import _keys

LOCKS = {
    "registry": lambda: registry._lock,
    "hooks": lambda: hooks._lock,
    "first-use": lambda: _first_use.FIRST_USE_LOCK,
    "python-rsa private twins": lambda: _keys.private_twins._lock,
    "python-rsa public twins": lambda: _keys.public_twins._lock,
}
held = [get() for get in LOCKS.values()]
ready = threading.Event()

def hold():
    for lock in held:
        lock.acquire()
    ready.set()
    time.sleep(60)

threading.Thread(target=hold, daemon=True).start()
assert ready.wait(10)
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:
    taken = {name: get().acquire(timeout=2) for name, get in LOCKS.items()}
    os.write(write_end, json.dumps(taken).encode())
    os._exit(0)
os.close(write_end)
print(os.read(read_end, 1 << 16).decode())
os.waitpid(pid, 0)
"""


def test_every_agent_lock_is_free_in_a_child_forked_while_a_thread_held_it():
    result = helpers.run_python("-c", CHILD, env=helpers.clean_environment(ACCEL_AGENT="quiet"),
                                timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    taken = json.loads(result.stdout)
    assert taken and all(taken.values()), "locked in the forked child: %s" % [
        name for name, free in taken.items() if not free
    ]
