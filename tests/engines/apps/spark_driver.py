"""PySpark, local mode: Python workers forked by PySpark's daemon run the task; reports to a file.

``python spark_driver.py RESULT_FILE SETTING...``: for each SETTING in turn,
a local[2] session on 127.0.0.1 with no UI maps the task over eight
partitions; RESULT_FILE gets ``{SETTING: reports}``. The JVM starts
PySpark's daemon (``PYSPARK_PYTHON``) with its own environment plus
``spark.executorEnv.*``; the daemon forks the workers. SETTING ``as-is``
adds nothing; ``executor-env`` gives ``ACCEL_AGENT=quiet`` as
``spark.executorEnv.ACCEL_AGENT``. The sessions share one JVM (its start
is most of a run's time); each has its own daemon, since its environment
differs.
"""

from __future__ import annotations

import json
import sys

import workload
from pyspark.sql import SparkSession


def run(setting: str) -> list[dict]:
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("accel-agent-engines")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.python.worker.reuse", "true")
    )
    if setting == "executor-env":
        builder = builder.config("spark.executorEnv.ACCEL_AGENT", "quiet")
    spark = builder.getOrCreate()
    try:
        spark.sparkContext.setLogLevel("ERROR")
        return spark.sparkContext.parallelize(range(1, 9), 8).map(workload.task).collect()
    finally:
        spark.stop()


def main(result_file: str, settings: list[str]) -> None:
    reports = {setting: run(setting) for setting in settings}
    with open(result_file, "w") as handle:
        json.dump(reports, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["as-is"])
