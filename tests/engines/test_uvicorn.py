"""uvicorn with ``--workers``: each worker is a new interpreter (multiprocessing's spawn).

A spawned worker runs Python's start-up, and with it the agent's hook, with
the environment the supervisor had: ``ACCEL_AGENT``, ``accel-agent run`` and
``accel-agent enable`` all reach it. uvicorn's own ``--env-file`` loads its
variables into the supervisor after Python started, so the supervisor stays
without the agent, but the workers it spawns afterwards inherit them.
"""

from __future__ import annotations

import pytest
from engine_helpers import (
    ENABLE,
    OFF,
    WAYS,
    Engine,
    check_workers,
    free_port,
    launch,
    reports_from_every_worker,
    wait_for_http,
)

pytestmark = pytest.mark.engines

WORKERS = 2


def uvicorn(start, tmp_path, *extra: str, env_extra=None):
    port = free_port()
    command = start.command(
        "uvicorn",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--workers", str(WORKERS),
        "--no-access-log",
        "--timeout-graceful-shutdown", "2",
        *extra,
        "asgi_app:application",
    )  # fmt: skip
    engine = Engine(command, start.environment(**(env_extra or {})), tmp_path / "uvicorn.log")
    return engine, "http://127.0.0.1:%d" % port


def served_reports(engine, url):
    wait_for_http(engine, url + "/task?index=0")
    return reports_from_every_worker(engine, url, WORKERS)


@pytest.mark.parametrize("way", WAYS)
def test_every_worker_is_accelerated_and_matches_native(way, tmp_path, request):
    venv = request.getfixturevalue("venv") if way == ENABLE else None
    engine, url = uvicorn(launch(way, venv), tmp_path)
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=True)


def test_with_the_agent_off_workers_are_native_and_give_the_same_results(tmp_path):
    engine, url = uvicorn(launch(OFF), tmp_path)
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=False)


def test_uvicorns_env_file_reaches_the_spawned_workers(tmp_path):
    env_file = tmp_path / "agent.env"
    env_file.write_text("ACCEL_AGENT=quiet\n")
    engine, url = uvicorn(launch(OFF), tmp_path, "--env-file", str(env_file),
                          env_extra={"ACCEL_AGENT": None})  # fmt: skip
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=True)
