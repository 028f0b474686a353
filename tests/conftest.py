"""Fixtures shared by the foundation tests.

* ``agent_state``: an in-process test starts from an inactive agent, and
  every piece of the agent's state (patched attributes and their originals,
  hooks, finder, registry choices, messages, mode, platform facts) is put back
  afterwards, so tests can activate, patch and fail freely in any order.
* ``installed_venv``: one throwaway venv per session with the agent installed
  from its wheel, for tests that write the environment-wide default
  (``accel-agent enable``), which must never touch the shared source tree.
* ``fake_catalog``: two toy primitives whose providers need no CPU feature.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:  # the registry imports helpers' factories by name
    sys.path.insert(0, str(TESTS_DIR))

import helpers  # noqa: E402
from accel_agent import (  # noqa: E402
    _boot,
    activation,
    catalog,
    config,
    hooks,
    messages,
    patching,
    registry,
    selfcheck,
)
from accel_agent import platform as agent_platform  # noqa: E402

# --------------------------------------------------------------------------- in-process state


def _snapshot() -> dict:
    current = {}
    for module_name, names in patching._originals.items():
        module = sys.modules.get(module_name)
        if module is not None:
            # patching's accessors: a dotted name is a method of a class (python-ecdsa).
            current[module_name] = {name: patching.current_value(module, name) for name in names}
    slots = registry._slots
    return {
        "originals": {name: dict(saved) for name, saved in patching._originals.items()},
        "current": current,
        "hooks": {name: list(specs) for name, specs in hooks._hooks.items()},
        "applied": set(hooks._applied),
        "first_call": dict(hooks._first_call),
        "waiting": list(hooks._waiting),
        "failures": dict(hooks.failures),
        "meta_path": list(sys.meta_path),
        "choices": dict(registry._choices),
        "slots": {name: (slot.provider, slot.calls) for name, slot in slots.items()},
        "exclusions": registry._exclusions,
        "chosen_exclusions": config._chosen_exclusions,
        "chosen_key_reuse": config._chosen_key_reuse,
        "activation": dict(activation._state),
        "seen": set(messages._seen),
        "history": list(messages.history),
        "facts": agent_platform._facts,
        "started": _boot._started,
    }


def _make_inactive() -> None:
    patching.restore_all()
    hooks.remove_finder()
    hooks.clear()
    registry.reset()
    registry.set_exclusions(None)
    config._chosen_exclusions = None
    config._chosen_key_reuse = None
    activation._state.update(mode="off", source="built-in default", active=False)
    messages.reset()
    agent_platform._facts = None  # re-read, so a test's OPENSSL_ia32cap counts


def _restore(saved: dict) -> None:
    patching._originals.clear()
    patching._originals.update(saved["originals"])
    for module_name, values in saved["current"].items():
        for name, value in values.items():
            patching.set_value(sys.modules[module_name], name, value)
    hooks._hooks.clear()
    hooks._hooks.update(saved["hooks"])
    hooks._applied.clear()
    hooks._applied.update(saved["applied"])
    hooks._first_call.clear()
    hooks._first_call.update(saved["first_call"])
    hooks._waiting[:] = saved["waiting"]  # stand-ins restored above still wait for their patch
    hooks.failures.clear()
    hooks.failures.update(saved["failures"])
    sys.meta_path[:] = saved["meta_path"]
    registry._choices.clear()
    registry._choices.update(saved["choices"])
    for name, (provider, calls) in saved["slots"].items():
        registry._slots[name].provider = provider
        registry._slots[name].calls = calls
    registry._exclusions = saved["exclusions"]
    config._chosen_exclusions = saved["chosen_exclusions"]
    config._chosen_key_reuse = saved["chosen_key_reuse"]
    activation._state.update(saved["activation"])
    messages.reset()
    messages._seen.update(saved["seen"])
    messages.history.extend(saved["history"])
    agent_platform._facts = saved["facts"]
    _boot._started = saved["started"]
    # A watched module first imported during the test (while the agent was
    # inactive) was imported unpatched; the restored agent patches it now, as
    # it would have on its import, so later tests do not meet it native.
    if activation._state["active"]:
        for module_name in list(hooks._hooks):
            module = sys.modules.get(module_name)
            if module is not None:
                hooks._fire(module)


@pytest.fixture
def agent_state(monkeypatch):
    """An inactive agent for the test; everything it changed is put back afterwards."""
    for name in helpers.AGENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    saved = _snapshot()
    _make_inactive()
    try:
        yield
    finally:
        _make_inactive()
        _restore(saved)


@pytest.fixture
def fake_catalog(monkeypatch, agent_state):
    """Replace the catalog with two toy primitives ("toy-a", "toy-b") that run anywhere."""
    specs = tuple(
        catalog.PrimitiveSpec(
            name, "toy", (), (catalog.ProviderSpec("openssl", "helpers:reversing_provider"),)
        )
        for name in ("toy-a", "toy-b")
    )
    monkeypatch.setattr(catalog, "PRIMITIVES", specs)
    monkeypatch.setattr(catalog, "BY_NAME", {spec.name: spec for spec in specs})
    for spec in specs:
        monkeypatch.setitem(
            selfcheck.KNOWN_ANSWERS, spec.name, (helpers.check_transform, helpers.REVERSE_VECTORS)
        )
    yield {spec.name: spec for spec in specs}
    for spec in specs:
        registry._slots.pop(spec.name, None)


# --------------------------------------------------------------------------- subprocesses


@pytest.fixture
def clean_env():
    """A child environment with no agent or PYTHON* variables, in an environment with no default."""
    helpers.fail_if_default_file_exists()
    return helpers.clean_environment()


class InstalledVenv:
    """A venv with the agent installed from its wheel; its dependencies come from this venv."""

    def __init__(self, root: Path, site_packages: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        self.command = root / "bin" / "accel-agent"
        self.site_packages = site_packages
        self.default_file = site_packages / _boot.DEFAULT_FILE_NAME
        self.pth = site_packages / "accel_agent.pth"

    def run(self, *args, env=None, **kwargs) -> subprocess.CompletedProcess:
        return helpers.run_python(*args, python=self.python, env=env, **kwargs)

    def cli(self, *args, env=None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.command), *args],
            env=helpers.clean_environment() if env is None else env,
            capture_output=True,
            text=True,
            timeout=120,
        )


def _check(args: list) -> None:
    result = subprocess.run([str(arg) for arg in args], capture_output=True, text=True)
    if result.returncode:
        pytest.fail("%s failed:\n%s%s" % (" ".join(map(str, args)), result.stdout, result.stderr))


@pytest.fixture(scope="session")
def installed_venv(tmp_path_factory) -> InstalledVenv:
    """Build the wheel and install it, without dependencies, into a fresh venv (once per session).

    ``ACCEL_TEST_WHEEL=PATH`` installs that wheel instead of building one.

    The venv gets no pip (creating it is then ~0.1 s); this venv's pip installs
    the wheel into it. Its dependencies (cryptography, pycryptodome, click) are
    this venv's: a path line in a .pth that sorts before accel_agent.pth puts
    them on sys.path in time for an activation at start-up. A path line adds a
    directory only, so this venv's own accel_agent.pth and editable finder are
    not run there.
    """
    work = tmp_path_factory.mktemp("installed")
    prebuilt = os.environ.get("ACCEL_TEST_WHEEL")
    if prebuilt:  # make engines: the wheel it just built from this tree, not built again
        wheel = Path(prebuilt)
    else:
        wheels = work / "wheels"
        _check(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, helpers.REPO]
        )
        (wheel,) = wheels.glob("accel_agent-*.whl")
    root = work / "venv"
    _check([sys.executable, "-m", "venv", "--without-pip", root])
    python = root / "bin" / "python"
    _check(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
         "--no-index", wheel]
    )  # fmt: skip
    site_packages = helpers.purelib(python)
    dependencies = helpers.purelib()
    (site_packages / "_accel_test_dependencies.pth").write_text("%s\n" % dependencies)
    return InstalledVenv(root, site_packages)


@pytest.fixture
def venv(installed_venv):
    """The installed venv with no environment-wide default, before and after the test."""
    installed_venv.default_file.unlink(missing_ok=True)
    yield installed_venv
    installed_venv.default_file.unlink(missing_ok=True)


def pytest_report_header(config) -> str:
    return "accel-agent tests: python %s; agent source %s" % (
        sys.version.split()[0],
        os.path.dirname(helpers.agent_source_dir()),
    )



@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Put the ``slow`` tests (inputs of 2**31 bytes) in one xdist group.

    ``make test`` runs ``--dist loadgroup``: one worker runs that group, the
    largest unit, so first, one test after another, while the other worker
    takes the rest. Two of these tests at once, one per worker, each ran two
    to three times slower (they stream gigabytes through memory), and
    together they need twice the memory. A wrapper, so the mark is there
    before xdist's own hook reads it.
    """
    if config.pluginmanager.hasplugin("xdist"):  # the mark is xdist's (not under -p no:xdist)
        for item in items:
            if item.get_closest_marker("slow") is not None:
                item.add_marker(pytest.mark.xdist_group("gigabyte-inputs"))
    return (yield)
