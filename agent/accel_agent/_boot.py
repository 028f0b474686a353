"""The start-up hook: what ``accel_agent.pth`` (and ``accel_agent.start``) runs.

This module runs in every interpreter of an environment the agent is
installed in, before ``__main__``, so it follows three rules:

* it imports nothing beyond ``os`` and ``sys`` (which ``site`` has already
  imported) unless the agent is asked for: idle, it costs two dictionary
  lookups and one ``stat`` of the environment-wide default file;
* it never raises: a broken agent must not break Python. Problems become one
  line on stderr; only assert mode ends the process, on purpose;
* it is idempotent: a ``.pth`` can run twice in one process (cpython#75723,
  coverage.py #340), and on Python 3.15+ the ``.start`` entry point may run
  beside it.

Precedence (design.md): ``-X accel`` wins over ``ACCEL_AGENT``, which wins over
the environment-wide default written by ``accel-agent enable``.
"""

import os
import sys

XOPTION = "accel"
ENV_MODE = "ACCEL_AGENT"
DEFAULT_FILE_NAME = "accel_agent.conf"

_started = False


def default_file_path() -> str:
    """Where ``accel-agent enable`` keeps this environment's default: next to the .pth."""
    package_dir = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(package_dir), DEFAULT_FILE_NAME)


def start() -> None:
    """Activate the agent if ``-X accel``, ``ACCEL_AGENT`` or the default asks for it."""
    global _started
    if _started:
        return
    _started = True
    try:
        xoption = sys._xoptions.get(XOPTION)
        env_value = os.environ.get(ENV_MODE)
        if xoption is None and env_value is None:
            try:
                os.stat(default_file_path())
            except OSError:
                return  # the idle path: nothing asked for, nothing loaded
        from accel_agent import activation

        activation.activate_at_startup(xoption, env_value)
    except BaseException as exc:  # noqa: BLE001 - the hook must never break Python
        _report_failure(exc)
        if _assert_requested():
            # Assert mode promises never to run unaccelerated, a broken agent included.
            _exit_now(1)


def _assert_requested() -> bool:
    """Whether -X accel, ACCEL_AGENT or the default file asks for assert mode (stdlib only)."""
    requested = sys._xoptions.get(XOPTION, os.environ.get(ENV_MODE))
    if requested is None:
        try:
            with open(default_file_path(), encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return False
        for line in lines:
            key, _, value = line.partition("=")
            if key.strip() == "mode":
                requested = value
    return isinstance(requested, str) and requested.strip().lower() == "assert"


def _exit_now(code: int) -> None:
    try:
        sys.stderr.flush()
    finally:
        os._exit(code)


def _report_failure(exc: BaseException) -> None:
    try:
        sys.stderr.write(
            "accel-agent: start-up failed (%s: %s); running without the agent\n"
            % (type(exc).__name__, exc)
        )
    except BaseException:  # noqa: BLE001 - stderr may be closed
        pass
