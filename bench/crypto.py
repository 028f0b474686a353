"""``python -m bench.crypto ...`` is ``accel-agent bench ...``: the per-call benchmark.

The measurement lives in the package (``agent/accel_agent/bench/``) so that
an installed wheel has it; this name is kept for muscle memory and old docs.
Families: ``agent/accel_agent/bench/families/`` (its docstring is the API).
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from accel_agent.cli import main

    sys.exit(main(["bench", *sys.argv[1:]]))
