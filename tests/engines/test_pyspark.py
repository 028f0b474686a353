"""PySpark in local mode: the JVM starts PySpark's daemon, which forks the Python workers.

The daemon inherits the JVM's environment, which is the driver's, plus
``spark.executorEnv.*``: ``ACCEL_AGENT``, ``accel-agent run``, ``accel-agent
enable`` (the daemon is the enabled venv's Python, ``PYSPARK_PYTHON``) and
Spark's own ``spark.executorEnv.ACCEL_AGENT`` all reach the workers.
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

WORKERS = 2  # local[2]: two Python workers at most


def run_jobs(start, tmp_path, settings=("as-is",), env_extra=None) -> dict[str, list[dict]]:
    """{setting: reports}: one driver, one JVM, one session per setting (spark_driver.py)."""
    result_file = tmp_path / "reports.json"
    command = [*start.prefix, str(start.python), str(APPS / "spark_driver.py"), str(result_file)]
    command.extend(settings)
    variables = {"PYSPARK_PYTHON": str(start.python), "SPARK_LOCAL_IP": "127.0.0.1"}
    variables.update(env_extra or {})
    with Engine(command, start.environment(**variables), tmp_path / "spark.log") as engine:
        code = engine.wait_for_exit(START_TIMEOUT * 2)
        if code != 0 or not result_file.exists():
            raise engine.fail("the driver exited %s" % code)
    return json.loads(result_file.read_text())


def check_job(reports: list[dict], accelerated: bool) -> None:
    assert len(reports) == 8
    # Two partitions run at a time; with worker reuse one worker may take them all.
    check_workers(reports, 1, accelerated=accelerated)


@pytest.mark.parametrize("way", WAYS)
def test_every_worker_is_accelerated_and_matches_native(way, tmp_path, request):
    venv = request.getfixturevalue("venv") if way == ENABLE else None
    check_job(run_jobs(launch(way, venv), tmp_path)["as-is"], accelerated=True)


def test_spark_executor_env_reaches_the_workers_of_a_driver_without_the_agent(tmp_path):
    """One driver with no ACCEL_AGENT: a plain session is native, one with executorEnv is not."""
    reports = run_jobs(launch(OFF), tmp_path, ("as-is", "executor-env"), {"ACCEL_AGENT": None})
    check_job(reports["as-is"], accelerated=False)
    check_job(reports["executor-env"], accelerated=True)
    assert {r["env_mode"] for r in reports["executor-env"]} == {"quiet"}
