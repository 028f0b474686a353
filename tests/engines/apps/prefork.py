"""What an application's module may do in a master process before its workers are forked.

Engines that load the application once in a master (gunicorn ``--preload``,
uWSGI without ``lazy-apps``, Celery's prefork pool) fork workers from a
process that has already imported pycryptodome, made keys and used them.
The environment of the master asks for either or both:

* ``ENGINE_PRELOAD_WORK=1``: run the task once in the master, so the key
  objects, the agent's key-reuse entries and its provider choices exist
  before the fork;
* ``ENGINE_HOLD_LOCKS=1``: a thread of the master takes the agent's locks
  and keeps them, so every fork happens while they are held; a worker whose
  copy stayed locked would hang on its first call.
"""

from __future__ import annotations

import os
import threading
import time

import workload

MASTER: dict = {}


def _hold(locks: list, ready: threading.Event) -> None:
    for lock in locks:
        lock.acquire()
    ready.set()
    while True:
        time.sleep(3600)


def hold_agent_locks() -> list[str]:
    """Take the agent's locks in a daemon thread that never lets them go; their names."""
    from accel_agent import hooks, registry
    from accel_agent.targets.pycryptodome import _first_use
    from accel_agent.targets.python_rsa import _keys

    locks = {
        "registry": registry._lock,
        "hooks": hooks._lock,
        "first-use": _first_use.FIRST_USE_LOCK,
        "python-rsa private keys": _keys.private_twins._lock,
        "python-rsa public keys": _keys.public_twins._lock,
    }
    ready = threading.Event()
    threading.Thread(target=_hold, args=(list(locks.values()), ready), daemon=True).start()
    if not ready.wait(10):
        raise RuntimeError("could not take the agent's locks")
    return sorted(locks)


def prepare_master() -> None:
    """Act on ENGINE_PRELOAD_WORK and ENGINE_HOLD_LOCKS, once, in the process that imports this."""
    if MASTER:
        return
    MASTER["pid"] = os.getpid()
    if os.environ.get("ENGINE_PRELOAD_WORK"):
        MASTER["task"] = workload.task(0)
    if os.environ.get("ENGINE_HOLD_LOCKS"):
        MASTER["held"] = hold_agent_locks()


def with_master(report: dict) -> dict:
    """A worker's report, with what its master did before forking it."""
    report["master"] = {key: value for key, value in MASTER.items() if key != "task"}
    if "task" in MASTER:
        report["master"]["task"] = MASTER["task"]
    return report
