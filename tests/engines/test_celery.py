"""Celery's prefork pool: a worker imports the app (and pycryptodome), then forks its children.

The broker is Kombu's filesystem transport and the results are files
(``apps/celery_config.py``): nothing to install or listen on. The children
are forks of the worker's main process, so the agent is on in them when it
was on there at start-up (``ACCEL_AGENT``, ``accel-agent run``, ``accel-agent
enable``). Celery has no option that sets a variable before Python starts;
its own per-child hook, the ``worker_process_init`` signal, can call
``accel_agent.activate()`` in each child instead, shown below.
"""

from __future__ import annotations

import time

import pytest
from engine_helpers import (
    ENABLE,
    ENVIRONMENT,
    OFF,
    START_TIMEOUT,
    WAYS,
    Engine,
    check_workers,
    launch,
)

pytestmark = pytest.mark.engines

CONCURRENCY = 2


def celery_worker(start, tmp_path, env_extra=None):
    directory = tmp_path / "celery"
    command = start.command(
        "celery", "-A", "celery_app", "worker",
        "--pool", "prefork",
        "--concurrency", str(CONCURRENCY),
        "-O", "fair",
        "--without-heartbeat", "--without-mingle", "--without-gossip",
        "--loglevel", "INFO",
    )  # fmt: skip
    variables = {"ENGINE_CELERY_DIR": str(directory), **(env_extra or {})}
    engine = Engine(command, start.environment(**variables), tmp_path / "celery.log")
    return engine, directory


def reports_from_every_child(engine, directory, fixed_index=None, max_tasks=60) -> list[dict]:
    """Send tasks, a pair at a time, until every child of the pool answered (bounded)."""
    import celery_config

    app = celery_config.make_app(str(directory))
    reports: list[dict] = []
    deadline = time.monotonic() + START_TIMEOUT
    index = 0
    try:
        while len({r["pid"] for r in reports}) < CONCURRENCY:
            if index >= max_tasks or time.monotonic() > deadline or not engine.alive():
                raise engine.fail("%d answers from %d children" % (
                    len(reports), len({r["pid"] for r in reports})))  # fmt: skip
            pending = []
            for _ in range(CONCURRENCY):
                index += 1
                asked = index if fixed_index is None else fixed_index
                pending.append(app.send_task(celery_config.TASK_NAME, args=[asked]))
            for result in pending:
                remaining = max(1.0, deadline - time.monotonic())
                reports.append(result.get(timeout=remaining, interval=0.05))
    finally:
        app.close()
    return reports


@pytest.mark.parametrize("way", WAYS)
def test_every_child_is_accelerated_and_matches_native(way, tmp_path, request):
    venv = request.getfixturevalue("venv") if way == ENABLE else None
    engine, directory = celery_worker(launch(way, venv), tmp_path)
    with engine:
        check_workers(reports_from_every_child(engine, directory), CONCURRENCY, accelerated=True)


def test_with_the_agent_off_children_are_native_and_give_the_same_results(tmp_path):
    engine, directory = celery_worker(launch(OFF), tmp_path)
    with engine:
        check_workers(reports_from_every_child(engine, directory), CONCURRENCY, accelerated=False)


def test_worker_process_init_activates_the_agent_in_each_child(tmp_path):
    engine, directory = celery_worker(launch(OFF), tmp_path, env_extra={
        "ACCEL_AGENT": None, "ENGINE_ACTIVATE_IN_CHILD": "1"})  # fmt: skip
    with engine:
        reports = reports_from_every_child(engine, directory)
    check_workers(reports, CONCURRENCY, accelerated=True)
    assert {r["env_mode"] for r in reports} == {None}


def test_keys_made_and_used_in_the_main_process_before_the_fork(tmp_path):
    """The app module ran the task in the worker's main process; every child matches native."""
    before_fork = {"ENGINE_PRELOAD_WORK": "1", "ENGINE_HOLD_LOCKS": "1"}
    engine, directory = celery_worker(launch(ENVIRONMENT), tmp_path, env_extra=before_fork)
    with engine:
        reports = reports_from_every_child(engine, directory, fixed_index=0)
    check_workers(reports, CONCURRENCY, accelerated=True)
    masters = {r["master"]["pid"] for r in reports}
    assert len(masters) == 1 and masters.isdisjoint(r["pid"] for r in reports), masters
    master = reports[0]["master"]
    assert master["held"]
    check_workers([master["task"]], 1, accelerated=True)
    signatures = [r["results"]["signature"] for r in reports]
    signatures.append(master["task"]["results"]["signature"])
    assert len(set(signatures)) == len(signatures), "two processes drew the same ECDSA nonce"
