"""accel-agent: routes pycryptodome calls to OpenSSL, transparently, from start-up.

The public API is small and imports nothing heavy until called:

* :func:`activate` - turn the agent on from code (``import accel_agent.auto`` does it for you);
* :func:`status` - the agent's facts as a dict (what ``accel-agent verify --json`` prints);
* :func:`uninstall` - put every patched function back;
* :func:`write_report` - write the savings report now (``ACCEL_AGENT_REPORT``).
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__", "activate", "status", "uninstall", "write_report"]


def activate(mode: str = "quiet") -> None:
    """Activate the agent in this process (``on``, ``quiet``, ``shadow`` or ``assert``)."""
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


def write_report(path: str | None = None) -> str | None:
    """Write this process's savings report now; returns the file written.

    ``path`` (a file or a directory) defaults to ``ACCEL_AGENT_REPORT``;
    with neither, nothing is written and None is returned.
    """
    from accel_agent import savings

    return savings.write_report(path)
