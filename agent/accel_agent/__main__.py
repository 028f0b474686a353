"""``python -m accel_agent`` is the ``accel-agent`` command."""

import sys

from accel_agent.cli import main

sys.exit(main())
