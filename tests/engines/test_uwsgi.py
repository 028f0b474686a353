"""uWSGI: Python embedded in a C server; the application loaded in the master, workers forked.

uWSGI initialises Python in the master, so the start-up hook runs there
(``ACCEL_AGENT``, ``accel-agent run``, ``accel-agent enable``, and uWSGI's
own ``--env``, which it applies before Python starts), and the workers are
forked copies. Without ``--lazy-apps`` the application module, pycryptodome
and its keys are loaded in the master too.

uWSGI forks in C and, unless ``--py-call-osafterfork`` is given, does not
run Python's after-fork handlers in its workers (``os.register_at_fork``),
which the agent uses to replace a lock another thread of the master held at
the fork: the test below shows a worker hanging on such a lock, and the flag
curing it; docs/deploying.md says when the flag is needed.
"""

from __future__ import annotations

import urllib.error

import pytest
from engine_helpers import (
    BIN,
    ENABLE,
    ENVIRONMENT,
    OFF,
    WAYS,
    Engine,
    check_workers,
    free_port,
    get_json,
    launch,
    reports_from_every_worker,
    wait_for_http,
)

pytestmark = pytest.mark.engines

WORKERS = 2


def uwsgi(start, tmp_path, *extra: str, env_extra=None, home=None, log="uwsgi.log"):
    port = free_port()
    command = start.script(
        BIN / "uwsgi",
        "--master",
        "--processes", str(WORKERS),
        "--http-socket", "127.0.0.1:%d" % port,
        "--module", "wsgi_app:application",
        "--need-app",
        "--die-on-term",
        "--enable-threads",
        "--disable-logging",
        *(["--home", str(home)] if home else []),
        *extra,
    )  # fmt: skip
    engine = Engine(command, start.environment(**(env_extra or {})), tmp_path / log)
    return engine, "http://127.0.0.1:%d" % port


def served_reports(engine, url, **kwargs):
    wait_for_http(engine, url + "/task?index=0")
    return reports_from_every_worker(engine, url, WORKERS, **kwargs)


@pytest.mark.parametrize("way", WAYS)
def test_every_worker_is_accelerated_and_matches_native(way, tmp_path, request):
    venv = request.getfixturevalue("venv") if way == ENABLE else None
    # uWSGI's binary lives in this venv; --home points its Python at the enabled one.
    engine, url = uwsgi(launch(way, venv), tmp_path, home=venv.root if venv else None)
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=True)


def test_with_the_agent_off_workers_are_native_and_give_the_same_results(tmp_path):
    engine, url = uwsgi(launch(OFF), tmp_path)
    with engine:
        check_workers(served_reports(engine, url), WORKERS, accelerated=False)


def test_uwsgis_env_option_reaches_python_before_it_starts(tmp_path):
    engine, url = uwsgi(launch(OFF), tmp_path, "--env", "ACCEL_AGENT=quiet",
                        env_extra={"ACCEL_AGENT": None})  # fmt: skip
    with engine:
        reports = served_reports(engine, url)
    check_workers(reports, WORKERS, accelerated=True)


def test_lazy_apps_load_the_application_in_each_worker(tmp_path):
    engine, url = uwsgi(launch(ENVIRONMENT), tmp_path, "--lazy-apps")
    with engine:
        reports = served_reports(engine, url)
    check_workers(reports, WORKERS, accelerated=True)
    assert all(r["master"]["pid"] == r["pid"] for r in reports), "the app was loaded in a master"


def test_keys_made_and_used_in_the_master_before_the_fork(tmp_path):
    """The application module ran the task in the master; workers still match native.

    Each worker draws its own ECDSA nonces (OpenSSL reseeds on a new pid,
    even though uWSGI runs no Python after-fork handler here).
    """
    engine, url = uwsgi(launch(ENVIRONMENT), tmp_path, env_extra={"ENGINE_PRELOAD_WORK": "1"})
    with engine:
        reports = served_reports(engine, url, fixed_index=0)
    check_workers(reports, WORKERS, accelerated=True)
    masters = {r["master"]["pid"] for r in reports}
    assert len(masters) == 1 and masters.isdisjoint(r["pid"] for r in reports), masters
    master_task = reports[0]["master"]["task"]
    check_workers([master_task], 1, accelerated=True)
    signatures = [r["results"]["signature"] for r in reports]
    signatures.append(master_task["results"]["signature"])
    assert len(set(signatures)) == len(signatures), "two processes drew the same ECDSA nonce"


def test_locks_held_at_the_fork_hang_a_worker_unless_uwsgi_runs_the_after_fork_handlers(
    tmp_path,
):
    """A master thread holds the agent's locks while uWSGI forks.

    Without ``--py-call-osafterfork`` the workers keep the locked copies and
    the first call that needs one hangs; with it, every worker is served.
    """
    held = {"ENGINE_HOLD_LOCKS": "1"}
    engine, url = uwsgi(launch(ENVIRONMENT), tmp_path, env_extra=held)
    with engine:
        wait_for_http(engine, url + "/ping")  # answered without the agent's locks
        hung = False
        try:
            get_json(url + "/task?index=1", timeout=8)
        except (TimeoutError, urllib.error.URLError) as exc:
            hung = "timed out" in str(exc)
        assert hung, engine.fail("expected the worker to hang on a lock held at the fork")
    engine, url = uwsgi(launch(ENVIRONMENT), tmp_path, "--py-call-osafterfork", env_extra=held,
                        log="uwsgi-afterfork.log")  # fmt: skip
    with engine:
        check_workers(served_reports(engine, url, timeout=30), WORKERS, accelerated=True)
