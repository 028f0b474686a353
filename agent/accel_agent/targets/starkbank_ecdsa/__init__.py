"""The starkbank-ecdsa target: the ``ellipticcurve`` package's ``Ecdsa`` class.

Only this module is imported at start-up; the patch code (:mod:`.signing`)
loads when ``ellipticcurve.ecdsa`` is imported. Supported: starkbank-ecdsa
2.3.1 and later (its hedged RFC 6979 nonces and recovery ids).
"""

from __future__ import annotations


def hooks() -> list[tuple[str, str]]:
    """(watched module name, patch spec): ``Ecdsa`` lives in ``ellipticcurve.ecdsa``."""
    return [("ellipticcurve.ecdsa", "accel_agent.targets.starkbank_ecdsa.signing:patch_ecdsa")]
