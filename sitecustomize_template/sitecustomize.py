"""accel-agent's sitecustomize: the start-up hook where ``accel_agent.pth`` cannot go.

Some interpreters never read the agent's ``.pth`` (a system Python whose
site-packages you may not write, an embedded or vendored interpreter, an
image that installs packages outside site-packages). For those, put this
file in a directory of its own and put that directory on ``sys.path``
ahead of the others, e.g.::

    PYTHONPATH=/opt/accel-agent/site:$PYTHONPATH

It does what the ``.pth`` line does, with the same rules (_boot.py): the
agent activates only when ``-X accel``, ``ACCEL_AGENT`` or the environment's
default (``accel-agent enable``) asks; a broken agent is one line on stderr,
never a broken Python; where the ``.pth`` also runs, the second start is a
no-op.

Python imports only the first ``sitecustomize`` on ``sys.path``, so this one
would hide any other. It does not: after starting the agent it finds the
next ``sitecustomize`` further down ``sys.path`` and executes it under the
name ``sitecustomize``, as if this file were not there (OpenTelemetry's
shim hid the user's and users complained; ddtrace's chains). If that
module raises, the error reaches ``site`` as it would have without us.
"""

import os
import sys


def _start_agent():
    try:
        from accel_agent._boot import start
    except Exception as exc:  # noqa: BLE001 - a missing agent must not break Python
        sys.stderr.write(
            "accel-agent: start-up hook not loaded (%s); running without it\n" % type(exc).__name__
        )
    else:
        start()


def _where(entry):
    """The real directory a sys.path entry names ("" is the current directory)."""
    try:
        return os.path.realpath(os.fspath(entry) or os.curdir)
    except (TypeError, ValueError, OSError):
        return None


def _entries_after_this_directory():
    here = _where(os.path.dirname(os.path.abspath(__file__)))
    places = [_where(entry) for entry in sys.path]
    start = places.index(here) + 1 if here in places else 0
    # Entries naming this directory again would find this file again: skip them.
    return [
        entry
        for entry, place in zip(sys.path[start:], places[start:])
        if place is not None and place != here
    ]


def _run_next_sitecustomize():
    import importlib.util
    from importlib.machinery import PathFinder

    # PathFinder searches only the entries given, and never consults
    # sys.modules, where this module is already registered as "sitecustomize".
    spec = PathFinder.find_spec("sitecustomize", _entries_after_this_directory())
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    # The user's module takes the name: `import sitecustomize` finds it from now
    # on, and importlib keeps whatever sys.modules holds when this file ends.
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_start_agent()
_run_next_sitecustomize()
