"""A Celery app on Kombu's filesystem transport and a file result backend: no broker to run.

The worker and the test's client make the same app from the same directory
(``ENGINE_CELERY_DIR`` in the worker): queued messages and results are files
under it, so nothing listens on any port.
"""

from __future__ import annotations

import os

from celery import Celery

TASK_NAME = "engine.task"


def make_app(directory: str) -> Celery:
    queue = os.path.join(directory, "queue")
    results = os.path.join(directory, "results")
    control = os.path.join(directory, "control")  # else "control" in the working directory
    for path in (queue, results, control):
        os.makedirs(path, exist_ok=True)
    app = Celery("engine_tasks")
    app.conf.update(
        broker_url="filesystem://",
        broker_transport_options={
            "data_folder_in": queue,
            "data_folder_out": queue,
            "control_folder": control,
            "store_processed": False,
            "polling_interval": 0.1,
        },
        result_backend="file://" + results,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    return app
