"""Each engine's start-up cost per worker, with the agent off and in quiet mode.

``.venv-engines/bin/python tests/engines/startup_cost.py [--runs N] [--engines a,b]``
(``make engines`` first, for the venv). Not a test: it prints a table.

Every run starts each engine twice, with ``ACCEL_AGENT=off`` and with
``ACCEL_AGENT=quiet``, in alternating order, the way its test does
(``tests/engines/test_*.py``). Each worker reports its own CPU time
(``time.process_time()``) when its first task finished
(``apps/workload.py``): for a forked worker from the fork, for a spawned one
from its interpreter's start; imports, pycryptodome's first use and, under
the agent, activation, loading cryptography and the three self-checks on
first use. CPU time, not wall time: other processes' load on a shared
machine hardly moves it. The table gives medians over every worker of
every run.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: helpers

import engine_helpers as eh  # noqa: E402
import test_celery  # noqa: E402
import test_dask  # noqa: E402
import test_gunicorn  # noqa: E402
import test_pyspark  # noqa: E402
import test_uvicorn  # noqa: E402
import test_uwsgi  # noqa: E402


def _http(start_engine, workers):
    def collect(start, tmp_path):
        engine, url = start_engine(start, tmp_path)
        with engine:
            eh.wait_for_http(engine, url + "/task?index=0")
            return eh.reports_from_every_worker(engine, url, workers)

    return collect


def _celery(start, tmp_path):
    engine, directory = test_celery.celery_worker(start, tmp_path)
    with engine:
        return test_celery.reports_from_every_child(engine, directory)


ENGINES = {
    "gunicorn sync": ("fork", _http(lambda s, t: test_gunicorn.gunicorn(s, t, "sync"), 2)),
    "gunicorn gthread": ("fork", _http(lambda s, t: test_gunicorn.gunicorn(s, t, "gthread"), 2)),
    "uwsgi": ("fork, app in master", _http(test_uwsgi.uwsgi, 2)),
    "uvicorn": ("spawn", _http(test_uvicorn.uvicorn, 2)),
    "celery prefork": ("fork, app in master", _celery),
    "dask": ("spawn", test_dask.run_cluster),
    "pyspark": ("fork from daemon", lambda s, t: test_pyspark.run_jobs(s, t)["as-is"]),
}
MODES = {"off": eh.OFF, "quiet": eh.ENVIRONMENT}


def first_task_cpu(reports: list[dict]) -> list[tuple[float, float]]:
    """Per worker: (CPU time when its first task began, and when it ended)."""
    return list(
        {r["pid"]: (r["cpu_before_first_task_s"], r["first_task_cpu_s"]) for r in reports}.values()
    )


def _stop_on_sigterm() -> None:
    # A plain SIGTERM would end this process before the engines' finally blocks stop them.
    def raise_exit(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, raise_exit)


def _cell(pairs: list[tuple[float, float]]) -> tuple[float, float, float]:
    """Medians in ms: before the first task, the first task, both."""
    before = statistics.median(a for a, _ in pairs) * 1000
    task = statistics.median(b - a for a, b in pairs) * 1000
    return before, task, statistics.median(b for _, b in pairs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engines", default=",".join(ENGINES))
    args = parser.parse_args()
    _stop_on_sigterm()
    chosen = [name.strip() for name in args.engines.split(",") if name.strip()]
    samples = {(name, mode): [] for name in chosen for mode in MODES}
    with tempfile.TemporaryDirectory() as work:
        for run in range(args.runs):
            for name in chosen:
                order = list(MODES) if run % 2 == 0 else list(reversed(MODES))
                for mode in order:
                    tmp_path = Path(work) / ("%s-%s-%d" % (name.replace(" ", "-"), mode, run))
                    tmp_path.mkdir()
                    pairs = first_task_cpu(ENGINES[name][1](eh.launch(MODES[mode]), tmp_path))
                    samples[(name, mode)].extend(pairs)
                    shown = "  ".join("%.1f+%.1f" % (a * 1000, (b - a) * 1000) for a, b in pairs)
                    print("run %d %-16s %-5s %s" % (run + 1, name, mode, shown), flush=True)
    print()
    print("CPU ms per worker, medians: before its first task (start-up, imports) + the first task")
    print("%-17s %-20s %15s %15s %15s %4s" % ("engine", "workers", "off", "quiet", "added", "n"))
    for name in chosen:
        off, quiet = (_cell(samples[(name, mode)]) for mode in MODES)
        added = tuple(q - o for q, o in zip(quiet, off))
        count = min(len(samples[(name, mode)]) for mode in MODES)
        row = ("%.0f+%.0f=%.0f" % off, "%.0f+%.0f=%.0f" % quiet, "%+.0f%+.0f=%+.0f" % added)
        print("%-17s %-20s %15s %15s %15s %4d" % (name, ENGINES[name][0], *row, count))


if __name__ == "__main__":
    main()
