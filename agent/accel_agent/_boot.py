"""The start-up hook: what ``accel_agent.pth`` (and ``accel_agent.start``) runs.

This module runs in every interpreter of an environment the agent is
installed in, before ``__main__``, so it follows three rules:

* it is not even imported unless the agent is asked for: the .pth line
  itself looks at ``-X accel``, ``ACCEL_AGENT`` and the environment-wide
  default file (two dictionary lookups and one ``stat``); the .start entry
  point of Python 3.15+ comes here directly and makes the same checks;
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


PTH_NAME = "accel_agent.pth"


def default_file_path() -> str:
    """Where ``accel-agent enable`` keeps this environment's default: next to the .pth.

    The .pth line looks for the file in its own directory before importing
    anything, so the two must agree: next to the package in an ordinary
    install, in the site-packages directory that holds the .pth otherwise
    (an editable install keeps the package in the source tree).
    """
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.exists(os.path.join(package_parent, PTH_NAME)):
        for entry in sys.path:
            if entry and os.path.exists(os.path.join(entry, PTH_NAME)):
                return os.path.join(entry, DEFAULT_FILE_NAME)
    return os.path.join(package_parent, DEFAULT_FILE_NAME)


def mark_started() -> None:
    """Record that this process activated already, so a later ``start()`` does nothing."""
    global _started
    _started = True


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
