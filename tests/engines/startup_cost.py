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


def first_task_cpu(reports: list[dict]) -> list[float]:
    """One figure per worker: its CPU time when its first task ended."""
    return list({r["pid"]: r["first_task_cpu_s"] for r in reports}.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engines", default=",".join(ENGINES))
    args = parser.parse_args()
    chosen = [name.strip() for name in args.engines.split(",") if name.strip()]
    samples = {(name, mode): [] for name in chosen for mode in MODES}
    with tempfile.TemporaryDirectory() as work:
        for run in range(args.runs):
            for name in chosen:
                order = list(MODES) if run % 2 == 0 else list(reversed(MODES))
                for mode in order:
                    tmp_path = Path(work) / ("%s-%s-%d" % (name.replace(" ", "-"), mode, run))
                    tmp_path.mkdir()
                    reports = ENGINES[name][1](eh.launch(MODES[mode]), tmp_path)
                    samples[(name, mode)].extend(first_task_cpu(reports))
                    print(
                        "run %d %-16s %-5s %s"
                        % (
                            run + 1,
                            name,
                            mode,
                            " ".join("%.1f" % (s * 1000) for s in first_task_cpu(reports)),
                        ),
                        flush=True,
                    )
    print()
    print("%-17s %-20s %9s %9s %9s %7s" % ("engine", "workers", "off ms", "quiet ms",
                                           "added ms", "n"))  # fmt: skip
    for name in chosen:
        off = statistics.median(samples[(name, "off")])
        quiet = statistics.median(samples[(name, "quiet")])
        count = min(len(samples[(name, "off")]), len(samples[(name, "quiet")]))
        print(
            "%-17s %-20s %9.1f %9.1f %+9.1f %7d"
            % (name, ENGINES[name][0], off * 1000, quiet * 1000, (quiet - off) * 1000, count)
        )


if __name__ == "__main__":
    main()
