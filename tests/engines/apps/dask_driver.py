"""Dask distributed: a LocalCluster of worker processes runs the task; the reports go to a file.

``python dask_driver.py RESULT_FILE [SETTING]``: two workers, each a
process its nanny spawned. ``client.run`` runs the task once in every
worker, ``client.map`` a few more across them. SETTING puts
``ACCEL_AGENT=quiet`` in Dask's own configuration instead of the
environment: ``pre-spawn-environ`` (set in the nanny before it spawns the
worker) or ``environ`` (set in the worker once it runs).
"""

from __future__ import annotations

import json
import sys

import dask
import workload
from distributed import Client, LocalCluster

WORKERS = 2


def main(result_file: str, setting: str | None) -> None:
    if setting:
        dask.config.set({"distributed.nanny.%s" % setting: {"ACCEL_AGENT": "quiet"}})
    with (
        LocalCluster(
            n_workers=WORKERS,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            scheduler_port=0,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        reports = list(client.run(workload.task, 1).values())
        reports += client.gather(client.map(workload.task, range(2, 8), pure=False))
    with open(result_file, "w") as handle:
        json.dump(reports, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
