"""Helpers and fixtures of the reliability tests: children with a fault in their way.

The children run ``child.py`` (a user's program) with this venv's python and
a clean environment (``helpers.clean_environment``). ``native_results`` runs
the same program once with the agent off; every other run must match it.
``conftest.py`` registers the fixtures; test modules import the rest from
here (never from ``conftest``: several folders have one, and the name
``conftest`` in ``sys.modules`` is whichever pytest loaded last).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # families.py, for the in-process tests
    sys.path.insert(0, str(HERE))

import helpers  # noqa: E402 - tests/ is on sys.path (tests/conftest.py)

CHILD = HERE / "child.py"
REPORT_PREFIX = "REL-REPORT "


class Child:
    """One finished child: its process result and the report it printed (or None)."""

    def __init__(self, result: subprocess.CompletedProcess) -> None:
        self.result = result
        self.returncode = result.returncode
        self.stdout = result.stdout
        self.stderr = result.stderr
        lines = [line for line in result.stdout.splitlines() if line.startswith(REPORT_PREFIX)]
        self.report = json.loads(lines[-1][len(REPORT_PREFIX) :]) if lines else None

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()

    def describe(self) -> str:
        """Exit status, stdout without the (long) report, the agent's facts, stderr."""
        stdout = [line for line in self.stdout.splitlines() if not line.startswith(REPORT_PREFIX)]
        agent = (self.report or {}).get("agent")
        return "exit %s\n--- stdout\n%s\n--- agent\n%s\n--- stderr\n%s" % (
            self.returncode,
            "\n".join(stdout)[-2000:],
            agent,
            self.stderr[-3000:],
        )


def no_site_paths() -> list[str]:
    """What a ``python -S`` child needs on sys.path: the agent and the installed libraries."""
    return list(dict.fromkeys([str(helpers.agent_source_dir()), str(helpers.purelib())]))


def run_child(
    scenario: str,
    *args: str,
    mode: str | None = None,
    fault: str | None = None,
    no_site: bool = False,
    pythonpath: tuple = (),
    env: dict | None = None,
    timeout: float = 120,
) -> Child:
    """Run ``child.py SCENARIO ARGS`` with the agent in ``mode`` (None: not asked for)."""
    variables = helpers.clean_environment(**(env or {}))
    if mode is not None:
        variables["ACCEL_AGENT"] = mode
    if fault is not None:
        variables["REL_FAULT"] = fault
    if pythonpath:
        variables["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    flags = []
    if no_site:
        flags.append("-S")
        variables["REL_PATHS"] = json.dumps(no_site_paths())
    result = helpers.run_python(*flags, CHILD, scenario, *args, env=variables, timeout=timeout)
    return Child(result)


@pytest.fixture(scope="session")
def native_results() -> dict:
    """The workloads' results with the agent off: what every other run must return."""
    helpers.fail_if_default_file_exists()
    child = run_child("workload", mode="off")
    assert child.returncode == 0 and child.report, child.describe()
    assert child.stderr == "", child.stderr
    assert not any(child.report["agent"]["calls"].values())
    return child.report["results"]


# --------------------------------------------------------------------------- shadow packages


def _real_package_dir(name: str) -> str:
    import importlib

    return os.path.dirname(importlib.import_module(name).__file__)


def _overlay_init(real_dir: str, before: str = "", own_dir: bool = False) -> str:
    """A package __init__ that runs the real one from ``real_dir`` (after ``before``).

    With ``own_dir`` the shadow directory comes first on ``__path__``, so a
    submodule placed beside this file replaces the real one.
    """
    path = "[os.path.dirname(__file__), %r]" % real_dir if own_dir else "[%r]" % real_dir
    return (
        "import os, sys\n"
        "__path__ = %s\n"
        "%s\n"
        "_real = os.path.join(%r, '__init__.py')\n"
        "exec(compile(open(_real).read(), _real, 'exec'))\n" % (path, before, real_dir)
    )


# name -> {relative path: source}; each becomes one directory for PYTHONPATH
def _shadow_sources() -> dict[str, dict[str, str]]:
    crypto_dir = _real_package_dir("cryptography")
    agent_dir = _real_package_dir("accel_agent")
    return {
        # pyca/cryptography is not installed at all.
        "cryptography-missing": {
            "cryptography/__init__.py": 'raise ModuleNotFoundError("No module named '
            "'cryptography' (simulated by tests/reliability)\", name='cryptography')\n",
        },
        # pyca/cryptography is there, its compiled OpenSSL bindings do not load.
        "openssl-bindings-broken": {
            "cryptography/__init__.py": _overlay_init(
                crypto_dir,
                before="sys.modules['cryptography.hazmat.bindings._rust'] = None",
            ),
        },
        # The agent's own package imports, its activation module does not.
        "agent-activation-broken": {
            "accel_agent/__init__.py": _overlay_init(agent_dir, own_dir=True),
            "accel_agent/activation.py": "raise RuntimeError('simulated: activation is "
            "half-installed')\n",
        },
        # The module the .pth line imports cannot be imported.
        "agent-boot-broken": {
            "accel_agent/__init__.py": _overlay_init(agent_dir, own_dir=True),
            "accel_agent/_boot.py": "raise ImportError('simulated: _boot is half-installed')\n",
        },
    }


@pytest.fixture(scope="session")
def shadows(tmp_path_factory) -> dict[str, Path]:
    """Directories that, first on PYTHONPATH, break one import the way a bad install does."""
    root = tmp_path_factory.mktemp("shadows")
    made = {}
    for name, files in _shadow_sources().items():
        for relative, source in files.items():
            path = root / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
        made[name] = root / name
    return made
