"""The engine tests: the agent under real web servers, task queues and distributed engines.

Every test module here carries the ``engines`` marker (``pytestmark``). They need the engines
pinned in ``requirements/engines.txt``, which ``make engines`` installs into
``.venv-engines`` before running them; ``make test`` leaves them out
(``-m "not suite and not engines"``). Run by hand in a venv without an
engine, a test skips and names what is missing, unless
``ACCEL_ENGINE_TESTS=require`` (set by ``make engines``), where a missing
engine fails instead: a broken install must not pass as a skip.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

ENGINES_DIR = Path(__file__).resolve().parent
if str(ENGINES_DIR) not in sys.path:
    sys.path.insert(0, str(ENGINES_DIR))

# test module -> what it needs: importable modules, and executables next to this Python.
NEEDS = {
    "test_gunicorn.py": (("gunicorn",), ()),
    "test_uwsgi.py": ((), ("uwsgi",)),
    "test_uvicorn.py": (("uvicorn", "dotenv"), ()),
    "test_celery.py": (("celery",), ()),
    "test_dask.py": (("distributed",), ()),
    "test_pyspark.py": (("pyspark",), ("java",)),
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "engines: runs the agent under a real engine (gunicorn, uWSGI, uvicorn, Celery, Dask,"
        " PySpark); make engines installs them",
    )


def _missing(module_file: str) -> list[str]:
    modules, executables = NEEDS.get(module_file, ((), ()))
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    bin_dir = os.path.dirname(sys.executable)
    for name in executables:
        if not (os.path.exists(os.path.join(bin_dir, name)) or shutil.which(name)):
            missing.append(name)
    return missing


def pytest_collection_modifyitems(config, items):
    required = os.environ.get("ACCEL_ENGINE_TESTS") == "require"
    for item in items:
        if ENGINES_DIR not in Path(str(item.fspath)).parents:
            continue
        missing = _missing(Path(str(item.fspath)).name)
        if not missing:
            continue
        reason = "not installed here: %s (make engines installs requirements/engines.txt)" % (
            ", ".join(missing)
        )
        if required:
            raise pytest.UsageError("ACCEL_ENGINE_TESTS=require: %s: %s" % (item.nodeid, reason))
        item.add_marker(pytest.mark.skip(reason=reason))
