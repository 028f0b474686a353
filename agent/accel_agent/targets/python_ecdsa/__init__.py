"""The python-ecdsa target: the ``ecdsa`` package's key classes.

Only this module is imported at start-up; the patch code (:mod:`.keys`)
loads when ``ecdsa.keys`` is imported. Supported: python-ecdsa 0.18 and later.
"""

from __future__ import annotations


def hooks() -> list[tuple[str, str]]:
    """(watched module name, patch spec): the classes live in ``ecdsa.keys``."""
    return [("ecdsa.keys", "accel_agent.targets.python_ecdsa.keys:patch_keys")]
