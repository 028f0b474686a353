"""Reaching pyca/cryptography: its modules, or the reason a provider cannot use them.

Every provider that runs on pyca/cryptography imports it through here, at
its first use (never at start-up): a missing or broken installation
becomes :class:`~.base.ProviderUnavailable` with one reason, the same
wherever it is met, and no exception of pyca/cryptography's escapes.
"""

from __future__ import annotations

import sys

from accel_agent.providers.base import ProviderUnavailable


def cryptography_module(dotted: str):
    """``cryptography.<dotted>``, or ProviderUnavailable with the reason.

    ``__import__`` and ``sys.modules``, not ``importlib.import_module``: a
    program that never imported ``importlib`` (pyaes's, python-rsa's) does not
    load it for this.
    """
    name = "cryptography." + dotted
    try:
        __import__(name)
        return sys.modules[name]
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None

