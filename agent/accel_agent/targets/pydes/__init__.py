"""The pyDes target: pyDes 2.0.1's ``des`` and ``triple_des`` served by OpenSSL's DES-EDE3.

pyDes (https://pypi.org/project/pyDes/) is DES and Triple DES in pure
Python: about 40 us a DES block, 1 KiB of 3DES-CBC in 0.2 s. Its objects
keep their state in plain attributes; the patch of :mod:`.ciphers` replaces
methods of its classes (the classes stay the same objects) with ones that
hand whole messages to the Triple DES providers and write pyDes's own state
back after every call. Only this module is imported at start-up: the rest
loads when pyDes is imported.
"""

from __future__ import annotations


def hooks() -> list[tuple[str, str]]:
    """(watched module name, patch spec): pyDes is one module."""
    return [("pyDes", "accel_agent.targets.pydes.ciphers:patch")]
