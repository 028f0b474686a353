"""Turning the agent on and off in this process.

The order of :func:`activate` matters and is fixed here:

1. platform check (cheap: uname, confstr; /proc/cpuinfo waits for the first
   primitive decided), so an unsupported machine is reported and left untouched;
2. the import finder goes in, then every target's hooks are registered, which
   patches at once the modules that were imported before the agent;
3. warnings about references bound before patching are printed after all
   patches are in (never between two halves of a patch);
4. in ``on`` and ``assert`` modes, every provider's self-check runs now and
   the status lines are printed; assert ends the process if anything that
   should be accelerated is not.

In ``quiet`` mode nothing heavy is imported: providers load on first use.
Nor is anything the mode does not need: ``off`` loads only this module,
:mod:`.config` and :mod:`.messages`; ``quiet`` adds the import hooks and the
platform check, and the registry (with the catalog of primitives) loads
when the first patch runs: at the first call of a patched pycryptodome
function, at the import of the other libraries' modules.
"""

from __future__ import annotations

import os
import sys

from accel_agent import _boot, config, messages

EXIT_UNHEALTHY = 1  # assert mode: something that should be accelerated is not
EXIT_BAD_MODE = 2  # assert mode was asked for with a value that is not a mode

_state = {"mode": "off", "source": "built-in default", "active": False}
# A second activation only matters when it asks for more (quiet -> on -> assert).
_MODE_LEVEL = {"off": 0, "quiet": 1, "on": 2, "shadow": 3, "assert": 4}


def current_mode() -> str:
    return str(_state["mode"])


def is_active() -> bool:
    return bool(_state["active"])


def activate_at_startup(
    xoption: object,
    env_value: str | None,
    mode_when_unset: str = config.DEFAULT_MODE,
    exit_function=None,
) -> None:
    """Resolve the mode, make children inherit it, and act on it.

    The start-up hook calls this with the built-in default ``off``;
    ``import accel_agent.auto`` calls it with ``quiet``, since importing it
    is itself the request.
    """
    exit_function = exit_function or _exit_now
    conf = config.read_conf_file(_boot.default_file_path())
    for warning in conf.warnings:
        messages.problem(warning)
    config.choose_exclusions(conf)
    chosen = config.choose_mode(xoption, env_value, conf)
    if xoption is not None:
        # CPython passes only whitelisted -X options to children: spawn,
        # forkserver and subprocess children learn the mode from the variable.
        os.environ[config.ENV_MODE] = chosen.mode if chosen.problem is None else str(xoption)
    if chosen.problem:
        messages.problem(chosen.problem)
        if chosen.fatal:
            exit_function(EXIT_BAD_MODE)
        return
    mode = mode_when_unset if chosen.source == "built-in default" else chosen.mode
    _state["source"] = chosen.source
    if mode != "off":
        _set_key_reuse(conf)
        activate(mode, exit_function=exit_function)


def _set_key_reuse(conf: config.ConfFile) -> None:
    key_reuse, problem = config.choose_key_reuse(conf)
    if problem:
        messages.problem(problem)
    # The providers read the choice when they load; ones already loaded (an
    # activation from code after a first use) are told now.
    base = sys.modules.get("accel_agent.providers.base")
    if base is not None:
        base.set_key_reuse(key_reuse)


def activate(mode: str = "quiet", exit_function=sys.exit) -> None:
    """Activate in ``mode`` (on, quiet, shadow, assert); a second call only raises the mode's level.

    ``exit_function`` ends the process in assert mode; the start-up hook passes
    one that works inside ``site`` (where SystemExit would be a fatal error).
    """
    mode = config.parse_mode(mode)
    if mode == "off":
        return
    if _state["active"] and _MODE_LEVEL[mode] <= _MODE_LEVEL[str(_state["mode"])]:
        return  # already active at this level: nothing to redo, nothing to print again
    _state["mode"] = mode
    from accel_agent import platform as _platform

    unsupported = _platform.unsupported_reason()  # CPU features: at a primitive's first use
    if unsupported is not None:
        messages.problem("%s; nothing is patched" % unsupported)
        _report_and_enforce(mode, exit_function)
        return
    _instrument(mode)
    if not _state["active"]:
        _state["active"] = True
        already_imported = _install_hooks()
        _warn_early_references(already_imported)
    _report_and_enforce(mode, exit_function)


def _instrument(mode: str) -> None:
    """Shadow mode and the savings report: wrappers around replacements, only when asked.

    With neither, nothing is imported and patching installs replacements bare.
    """
    report_path = config.report_path()
    # Shadow mode asked for by the environment stays on through a later
    # activation from code (accel_agent.auto, an uninstall and activate).
    shadow_on = mode == "shadow" or config.shadow_requested()
    if not shadow_on and report_path is None:
        return
    from accel_agent import instrument, savings, shadow

    rate = seed = None
    if shadow_on:
        rate, problem = config.shadow_rate_choice()
        if problem:
            messages.problem(problem)
        seed, problem = config.shadow_seed_choice()
        if problem:
            messages.problem(problem)
    instrument.enable(rate, report_path is not None, seed)
    if report_path is not None:
        savings.write_at_exit(report_path)
    shadow.corrupt_from_environment()


def uninstall() -> list[str]:
    """Restore every original and stop watching imports; returns what was restored."""
    from accel_agent import hooks, patching

    instrument = sys.modules.get("accel_agent.instrument")
    if instrument is not None:
        instrument.disable()
    hooks.remove_finder()
    hooks.clear()
    restored = patching.restore_all()
    from accel_agent.providers import base

    base.forget_all()
    _state["active"] = False
    _state["mode"] = "off"
    return restored


def _install_hooks() -> list[str]:
    from accel_agent import hooks, patching
    from accel_agent.targets import FIRST_CALL, HOOKS

    # A module patched before an uninstall() is not news when it is patched again.
    already_imported = [
        name for name in HOOKS if name in sys.modules and not patching.was_ever_patched(name)
    ]
    hooks.install_finder()
    with messages.batch():
        hooks.register_all(HOOKS, FIRST_CALL)
    return already_imported


def _warn_early_references(module_names: list[str]) -> None:
    """gevent's lesson: say which names were bound to an original before patching."""
    # hashlib and hmac are imported early by much of the standard library, and
    # a reference to their originals stays correct (only not accelerated):
    # they are not news. Modules whose patch changed nothing are not either.
    from accel_agent import patching

    module_names = [
        name
        for name in module_names
        if name not in ("hashlib", "hmac") and patching.is_patched(name)
    ]
    if not module_names:
        return
    originals = {}
    for module_name in module_names:
        for attribute in patching.patched_names().get(module_name, []):
            originals[id(patching.get_original(module_name, attribute))] = module_name
    holders = []
    for holder_name, holder in list(sys.modules.items()):
        if holder_name in module_names or holder is None:
            continue
        try:
            namespace = vars(holder)
        except TypeError:
            continue
        for attribute, value in list(namespace.items()):
            if id(value) in originals:
                holders.append("%s.%s" % (holder_name, attribute))
    message = "%s was imported before the agent started; patched now" % ", ".join(module_names)
    if holders:
        message += ", but these references bound earlier stay native: %s" % ", ".join(holders)
    messages.problem(message)


def _report_and_enforce(mode: str, exit_function) -> None:
    if mode not in ("on", "assert", "shadow"):
        return
    from accel_agent import registry, report

    registry.report_fallbacks = False  # the second status line names every fallback
    registry.resolve_all()
    summary = report.summary()
    for line in report.status_lines(summary):
        messages.status_line(line)
    if mode == "assert" and not summary["healthy"]:
        for reason in summary["unhealthy_reasons"]:
            messages.problem("assert: %s" % reason)
        exit_function(EXIT_UNHEALTHY)


def _exit_now(code: int) -> None:
    """End the process from inside ``site``: SystemExit there is a fatal error."""
    try:
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        os._exit(code)
