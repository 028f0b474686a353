"""Dask distributed: a LocalCluster whose workers are processes spawned by their nannies.

A spawned worker runs Python's start-up with the nanny's environment, so
``ACCEL_AGENT``, ``accel-agent run`` and ``accel-agent enable`` reach it, and
so does Dask's own ``distributed.nanny.pre-spawn-environ``. Dask's
``distributed.nanny.environ`` (like ``Nanny(env=...)``) is applied inside the
worker after Python started: too late for the start-up hook, as shown below.
"""

from __future__ import annotations

import json

import pytest
from engine_helpers import (
    APPS,
    ENABLE,
    OFF,
    START_TIMEOUT,
    WAYS,
    Engine,
    check_workers,
    launch,
)

pytestmark = pytest.mark.engines

WORKERS = 2


def run_cluster(start, tmp_path, setting=None, env_extra=None) -> list[dict]:
    result_file = tmp_path / "reports.json"
    command = [*start.prefix, str(start.python), str(APPS / "dask_driver.py"), str(result_file)]
    if setting:
        command.append(setting)
    with Engine(command, start.environment(**(env_extra or {})), tmp_path / "dask.log") as engine:
        code = engine.wait_for_exit(START_TIMEOUT)
        if code != 0 or not result_file.exists():
            raise engine.fail("the driver exited %s" % code)
    return json.loads(result_file.read_text())


@pytest.mark.parametrize("way", WAYS)
def test_every_worker_is_accelerated_and_matches_native(way, tmp_path, request):
    venv = request.getfixturevalue("venv") if way == ENABLE else None
    check_workers(run_cluster(launch(way, venv), tmp_path), WORKERS, accelerated=True)


def test_with_the_agent_off_workers_are_native_and_give_the_same_results(tmp_path):
    check_workers(run_cluster(launch(OFF), tmp_path), WORKERS, accelerated=False)


def test_pre_spawn_environ_reaches_the_workers_start_up(tmp_path):
    reports = run_cluster(launch(OFF), tmp_path, "pre-spawn-environ", {"ACCEL_AGENT": None})
    check_workers(reports, WORKERS, accelerated=True)


def test_nanny_environ_comes_too_late_for_the_agent(tmp_path):
    reports = run_cluster(launch(OFF), tmp_path, "environ", {"ACCEL_AGENT": None})
    check_workers(reports, WORKERS, accelerated=False)
    assert {r["env_mode"] for r in reports} == {"quiet"}
