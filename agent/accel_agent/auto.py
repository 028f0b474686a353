"""``import accel_agent.auto``: activate from code.

For interpreters where no start-up hook runs (``python -S``, zipapps,
frozen applications), as ``ddtrace.auto`` does. The mode comes from
``-X accel``, ``ACCEL_AGENT`` or the environment's default as at start-up;
when none is set it is ``quiet``, since importing this module is itself the
request. ``off`` is honoured, and assert mode raises SystemExit when unhealthy.
"""

import os
import sys

from accel_agent import _boot, activation, config

_boot.mark_started()  # the .pth, if it runs later in this process, has nothing left to do
activation.activate_at_startup(
    config.xoption_value(),
    os.environ.get(config.ENV_MODE),
    mode_when_unset="quiet",
    exit_function=sys.exit,
)
