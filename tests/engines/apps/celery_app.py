"""The Celery worker's app (``celery -A celery_app worker``): one task, the crypto task.

The worker's main process imports this module, and with it pycryptodome,
before its prefork pool forks the children. ``ENGINE_ACTIVATE_IN_CHILD=1``
turns the agent on in each child from Celery's ``worker_process_init``
signal instead of at start-up.
"""

from __future__ import annotations

import os

import celery_config
import prefork
import workload
from celery.signals import worker_process_init

app = celery_config.make_app(os.environ["ENGINE_CELERY_DIR"])
prefork.prepare_master()


@app.task(name=celery_config.TASK_NAME)
def run_task(index: int) -> dict:
    return prefork.with_master(workload.task(index))


if os.environ.get("ENGINE_ACTIVATE_IN_CHILD"):

    @worker_process_init.connect
    def _activate_agent(**_kwargs) -> None:
        import accel_agent

        accel_agent.activate("quiet")
