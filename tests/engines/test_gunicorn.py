"""gunicorn, sync and gthread workers: forked from the master, never started afresh.

A worker is a fork of the master, so the agent runs in a worker exactly
when it ran in the master at start-up: ``ACCEL_AGENT`` in the master's
environment, ``accel-agent run``, ``accel-agent enable``, or an activation
in code the master executes (the config file). gunicorn's own ``--env``
sets the variable after Python started, too late for the start-up hook:
the test below shows it, and docs/deploying.md says what to use instead.
"""

from __future__ import annotations

import pytest
from engine_helpers import (
    APPS,
    ENABLE,
    ENVIRONMENT,
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
WORKER_CLASSES = {"sync": [], "gthread": ["--threads", "2"]}


def gunicorn(start, tmp_path, worker_class: str, *extra: str, env_extra=None):
    port = free_port()
    command = start.command(
        "gunicorn",
        "--bind", "127.0.0.1:%d" % port,
        "--workers", str(WORKERS),
        "--worker-class", worker_class,
        *WORKER_CLASSES[worker_class],
        "--no-control-socket",
        "--graceful-timeout", "2",
        "--chdir", str(APPS),
        *extra,
        "wsgi_app:application",
    )  # fmt: skip
    engine = Engine(command, start.environment(**(env_extra or {})), tmp_path / "gunicorn.log")
    return engine, "http://127.0.0.1:%d" % port


def served_reports(engine, url, **kwargs):
    wait_for_http(engine, url + "/task?index=0")
    return reports_from_every_worker(engine, url, WORKERS, **kwargs)


@pytest.mark.parametrize("worker_class", sorted(WORKER_CLASSES))
@pytest.mark.parametrize("way", WAYS)
def test_every_worker_is_accelerated_and_matches_native(way, worker_class, tmp_path, request):
    venv = request.getfixturevalue("venv") if way == ENABLE else None
    engine, url = gunicorn(launch(way, venv), tmp_path, worker_class)
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=True)


def test_with_the_agent_off_workers_are_native_and_give_the_same_results(tmp_path):
    engine, url = gunicorn(launch(OFF), tmp_path, "sync")
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=False)


def test_gunicorns_env_option_comes_too_late_for_the_agent(tmp_path):
    """``--env ACCEL_AGENT=quiet``: the workers see the variable, but Python had started."""
    engine, url = gunicorn(launch(OFF), tmp_path, "sync", "--env", "ACCEL_AGENT=quiet",
                           env_extra={"ACCEL_AGENT": None})  # fmt: skip
    with engine:
        reports = served_reports(engine, url)
    check_workers(reports, WORKERS, accelerated=False)
    assert {r["env_mode"] for r in reports} == {"quiet"}


def test_activation_in_the_config_file_reaches_every_worker(tmp_path):
    """What to do instead of ``--env``: the config file runs in the master, before the fork."""
    config = tmp_path / "gunicorn.conf.py"
    config.write_text("import accel_agent.auto  # noqa: F401 - quiet mode, in the master\n")
    engine, url = gunicorn(launch(OFF), tmp_path, "sync", "--config", str(config),
                           env_extra={"ACCEL_AGENT": None})  # fmt: skip
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=True)


@pytest.mark.parametrize("worker_class", sorted(WORKER_CLASSES))
def test_keys_made_and_used_in_the_master_before_the_fork(worker_class, tmp_path):
    """``--preload``: pycryptodome imported, keys made and used in the master, then the fork.

    Every worker must still give native's results (the key object whose
    OpenSSL context the master's agent kept for reuse is the worker's copy
    too) and draw its own ECDSA nonces: no two processes sign alike.
    """
    engine, url = gunicorn(launch(ENVIRONMENT), tmp_path, worker_class, "--preload",
                           env_extra={"ENGINE_PRELOAD_WORK": "1"})  # fmt: skip
    with engine:
        reports = served_reports(engine, url, fixed_index=0)
    check_workers(reports, WORKERS, accelerated=True)
    master = check_master(reports)
    check_workers([master["task"]], 1, accelerated=True)
    signatures = [r["results"]["signature"] for r in reports]
    signatures.append(master["task"]["results"]["signature"])
    assert len(set(signatures)) == len(signatures), "two processes drew the same ECDSA nonce"


def test_agent_locks_held_by_a_master_thread_at_the_fork(tmp_path):
    """A master thread holds every lock of the agent while the workers are forked.

    Nothing was decided in the master, so each worker takes those locks on
    its first calls: a copy left locked by the fork would hang it.
    """
    engine, url = gunicorn(launch(ENVIRONMENT), tmp_path, "sync", "--preload",
                           env_extra={"ENGINE_HOLD_LOCKS": "1"})  # fmt: skip
    with engine:
        reports = served_reports(engine, url, timeout=30)
    check_workers(reports, WORKERS, accelerated=True)
    assert check_master(reports)["held"]


def check_master(reports: list[dict]) -> dict:
    """The one master every worker came from (not a worker itself); what it reported."""
    masters = {r["master"]["pid"] for r in reports}
    assert len(masters) == 1 and masters.isdisjoint(r["pid"] for r in reports), masters
    return reports[0]["master"]
