"""accel-agent for interactive sessions: a ``PYTHONSTARTUP`` file.

    export PYTHONSTARTUP=/path/to/accel_startup.py

Python runs this file before the first prompt of an interactive session
(never for scripts, ``-c`` or ``-m``). Setting it is itself the request, so
the agent activates as ``import accel_agent.auto`` does: in the mode that
``-X accel``, ``ACCEL_AGENT`` or the environment's default names, ``quiet``
when none does; ``off`` is honoured. If the start-up hook already activated
the agent, nothing happens again (no second pair of status lines).

Nothing is left in the session's namespace, and a broken or missing agent
is one line on stderr, never a failed session. Assert mode that finds the
agent unhealthy ends the session, as it ends a program.
"""


def _accel_agent_startup():
    import sys

    try:
        from accel_agent import activation

        if activation.is_active():
            return  # the .pth line (or sitecustomize) activated it already
        import accel_agent.auto  # noqa: F401 - importing it activates the agent
    except Exception as exc:  # noqa: BLE001 - the session must start regardless
        sys.stderr.write(
            "accel-agent: not started (%s: %s); running without it\n" % (type(exc).__name__, exc)
        )


_accel_agent_startup()
del _accel_agent_startup
