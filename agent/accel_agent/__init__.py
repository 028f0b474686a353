"""accel-agent: routes pycryptodome calls to OpenSSL, transparently, from start-up.

The public API is small and imports nothing heavy until called:

* :func:`activate` - turn the agent on from code (``import accel_agent.auto`` does it for you);
* :func:`status` - the agent's facts as a dict (what ``accel-agent verify --json`` prints);
* :func:`uninstall` - put every patched function back.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__", "activate", "status", "uninstall"]


def activate(mode: str = "quiet") -> None:
    """Activate the agent in this process (``on``, ``quiet`` or ``assert``)."""
    from accel_agent import activation

    activation.activate(mode)


def status(resolve: bool = True) -> dict:
    """The agent's state: platform, versions, each primitive's provider and why.

    With ``resolve`` (the default) every primitive is decided now, which runs
    the self-checks of those not used yet.
    """
    from accel_agent import report

    return report.summary(resolve=resolve)


def uninstall() -> list:
    """Restore every original pycryptodome function; returns the names restored."""
    from accel_agent import activation

    return activation.uninstall()
