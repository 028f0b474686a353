"""Starting an engine, talking to it, stopping it; what every engine test asserts of a worker.

Every engine runs in its own process group, on 127.0.0.1 and ports the
kernel picked, with its output in a log file the failure message quotes.
:class:`Engine` stops the whole group (SIGTERM, then SIGKILL) when its
``with`` block ends, whatever happened inside; every wait is bounded.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import helpers

ENGINES_DIR = Path(__file__).resolve().parent
APPS = ENGINES_DIR / "apps"
if str(APPS) not in sys.path:
    sys.path.insert(0, str(APPS))

import workload  # noqa: E402 - the apps directory is on sys.path only now

BIN = Path(sys.executable).parent  # this venv's console scripts: gunicorn, uwsgi, celery...
START_TIMEOUT = 90.0  # seconds an engine may take to come up (a JVM on a loaded machine)
STOP_TIMEOUT = 10.0  # after SIGTERM, before SIGKILL
QUIET = "quiet"

# The ways a user turns the agent on, as each test names them.
ENVIRONMENT = "environment"  # ACCEL_AGENT=quiet in the engine's environment
RUN = "run"  # accel-agent run --mode quiet -- ENGINE...
ENABLE = "enable"  # accel-agent enable in the engine's venv
OFF = "off"  # ACCEL_AGENT=off: the baseline
WAYS = (ENVIRONMENT, RUN, ENABLE)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def engine_environment(**overrides: str | None) -> dict[str, str]:
    """A clean environment (no agent or PYTHON* variables) whose Pythons find the apps."""
    return helpers.clean_environment(PYTHONPATH=str(APPS), **overrides)


class Launch:
    """How one activation way starts an engine: the interpreter, a command prefix, variables."""

    def __init__(self, way: str, python: Path, prefix: list[str], variables: dict) -> None:
        self.way = way
        self.python = python
        self.prefix = prefix
        self.variables = variables

    def command(self, module: str, *args: str) -> list[str]:
        """``python -m module args`` started this way."""
        return [*self.prefix, str(self.python), "-m", module, *args]

    def script(self, executable: Path, *args: str) -> list[str]:
        """A compiled executable (uWSGI) started this way."""
        return [*self.prefix, str(executable), *args]

    def environment(self, **overrides: str | None) -> dict[str, str]:
        return engine_environment(**{**self.variables, **overrides})


def launch(way: str, venv=None) -> Launch:
    """The Launch of ``way``; ``venv`` is the throwaway venv ``enable`` was run in."""
    python = Path(sys.executable)
    if way == ENVIRONMENT:
        return Launch(way, python, [], {"ACCEL_AGENT": QUIET})
    if way == OFF:
        return Launch(way, python, [], {"ACCEL_AGENT": "off"})
    if way == RUN:
        return Launch(way, python, [str(BIN / "accel-agent"), "run", "--mode", QUIET, "--"], {})
    if way == ENABLE:
        result = venv.cli("enable")
        assert result.returncode == 0, result.stderr
        return Launch(way, venv.python, [], {})
    raise ValueError(way)


class EngineFailed(AssertionError):
    pass


class Engine:
    """A process group started from ``command``, stopped (bounded) when the block ends."""

    def __init__(self, command: list[str], env: dict, log: Path, cwd: Path | None = None) -> None:
        self.command = [str(part) for part in command]
        self.log_path = log
        self._log = open(log, "wb")  # noqa: SIM115 - closed in __exit__
        self.process = subprocess.Popen(
            self.command,
            env=env,
            cwd=str(cwd or APPS),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def fail(self, message: str) -> EngineFailed:
        return EngineFailed("%s\ncommand: %s\n--- engine log ---\n%s" % (
            message, " ".join(self.command), self.log()[-6000:]))  # fmt: skip

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        try:
            if self.alive():
                self._signal(signal.SIGTERM)
                try:
                    self.process.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    pass
            self._signal(signal.SIGKILL)  # anything of the group still there
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
        finally:
            self._log.close()

    def _signal(self, signum: int) -> None:
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def wait_for_exit(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise self.fail("still running after %.0f s" % timeout) from None


def get_json(url: str, timeout: float = 30.0) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


def wait_for_http(engine: Engine, url: str, timeout: float = START_TIMEOUT) -> None:
    """Until ``url`` answers; fails with the log if the engine exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not engine.alive():
            raise engine.fail("the engine exited (%s) before answering" % engine.process.returncode)
        try:
            urllib.request.urlopen(url, timeout=5).read()
            return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    raise engine.fail("no answer from %s in %.0f s" % (url, timeout))


def reports_from_every_worker(
    engine: Engine,
    base_url: str,
    workers: int,
    max_requests: int = 400,
    timeout: float = 60.0,
    fixed_index: int | None = None,
) -> list[dict]:
    """Task reports from at least ``workers`` distinct pids (two requests in flight at a time).

    Request N asks for task N, or for ``fixed_index`` when given.
    """
    reports: list[dict] = []
    errors: list[str] = []
    counter = iter(range(1, max_requests + 1))
    lock = threading.Lock()
    deadline = time.monotonic() + timeout

    def client() -> None:
        while time.monotonic() < deadline:
            with lock:
                if len({r["pid"] for r in reports}) >= workers:
                    return
                index = next(counter, None)
            if index is None:
                return
            try:
                asked = index if fixed_index is None else fixed_index
                report = get_json("%s/task?index=%d" % (base_url, asked))
            except Exception as exc:  # noqa: BLE001 - reported below with the engine's log
                with lock:
                    errors.append("%s: %s" % (type(exc).__name__, exc))
                return
            with lock:
                reports.append(report)

    threads = [threading.Thread(target=client) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout + 35)
    pids = {r["pid"] for r in reports}
    if errors or len(pids) < workers:
        raise engine.fail("%d reports from %d workers (wanted %d); errors: %s" % (
            len(reports), len(pids), workers, errors))  # fmt: skip
    return reports


# ------------------------------------------------------------------ what is asserted


_native_results: dict[int, dict] = {}


def native(index: int) -> dict:
    """The task's results computed in this process, natively."""
    if index not in _native_results:
        from accel_agent import activation

        assert not activation.is_active(), "the test process itself runs under the agent"
        _native_results[index] = workload.crypto(index)
    return _native_results[index]


def assert_same_results_as_native(report: dict) -> None:
    """Every result equal to native's; the worker's random-k signature verifies natively."""
    from Crypto.Hash import SHA256
    from Crypto.Signature import DSS

    results = dict(report["results"])
    expected = dict(native(results["index"]))
    signature = bytes.fromhex(results.pop("signature"))
    expected.pop("signature")
    assert results == expected, "worker %s differs from native" % report["pid"]
    plaintext = workload.inputs(results["index"])[0]
    public = workload.signing_key().public_key()
    DSS.new(public, "fips-186-3").verify(SHA256.new(plaintext), signature)  # raises if bad


def assert_served_by_agent(report: dict, mode: str = QUIET) -> None:
    """The worker said: the agent is active in ``mode`` and served the task's calls."""
    agent = report["agent"]
    where = "worker %s" % report["pid"]
    assert agent["installed"], where
    assert agent["active"], "%s: the agent is not active (%s)" % (where, agent)
    assert agent["mode"] == mode, "%s: mode %s" % (where, agent["mode"])
    for name in workload.PRIMITIVES:
        assert agent["providers"][name] not in (None, "native"), (where, name, agent)
        assert report["served"][name] > 0, "%s: the agent served no %s call" % (where, name)


def assert_not_served(report: dict) -> None:
    """The worker said: the agent is not active, and served nothing."""
    agent = report["agent"]
    assert not agent["active"], "worker %s: the agent is active (%s)" % (report["pid"], agent)
    assert not any(report["served"].values()), report["served"]


def check_workers(reports: list[dict], workers: int, accelerated: bool, mode: str = QUIET) -> None:
    """What every engine test asserts of every report, and that ``workers`` distinct pids sent."""
    assert len({r["pid"] for r in reports}) >= workers, [r["pid"] for r in reports]
    for report in reports:
        assert_same_results_as_native(report)
        if accelerated:
            assert_served_by_agent(report, mode)
        else:
            assert_not_served(report)
