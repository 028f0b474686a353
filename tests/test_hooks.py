"""Post-import hooks: when they fire, how often, under threads, and when a patch fails."""

from __future__ import annotations

import importlib
import sys
import textwrap
import threading
import time

import pytest

from accel_agent import hooks, patching, report
from accel_agent.targets import HOOKS
from helpers import REPORT_CODE, parse_report, requires_aes_acceleration, run_python


class ToyModules:
    """Writes importable modules into a temporary directory and forgets them afterwards.

    Every name is made unique per test, so importlib's caches never see a
    module of another test.
    """

    def __init__(self, root, prefix: str) -> None:
        self.root = root
        self.prefix = prefix
        self.names: list[str] = []

    def write(self, stem: str, source: str) -> str:
        name = "%s_%s" % (self.prefix, stem)
        (self.root / ("%s.py" % name)).write_text(textwrap.dedent(source))
        self.names.append(name)
        importlib.invalidate_caches()
        return name


@pytest.fixture
def toys(tmp_path, monkeypatch, agent_state, request):
    monkeypatch.syspath_prepend(str(tmp_path))
    prefix = "toy_%s" % "".join(c if c.isalnum() else "_" for c in request.node.name)
    modules = ToyModules(tmp_path, prefix)
    hooks.install_finder()
    yield modules
    for name in modules.names:
        sys.modules.pop(name, None)


# The hook functions: each records the module it was called on in the hook module's
# ``log`` and patches through the one registry of originals, as real targets do.
HOOK_SOURCE = """
    import time
    from accel_agent import patching

    log = []

    def mark(module):
        log.append(module.__name__)
        patching.patch_attribute(module, "value", "patched")

    def slow_mark(module):
        time.sleep(0.05)
        mark(module)

    def patch_call(module):
        log.append(module.__name__)
        native = module.call
        patching.patch_attribute(module, "call", lambda x: ("patched", native(x)))

    def boom(module):
        log.append(module.__name__)
        patching.patch_attribute(module, "value", "half-patched")
        raise RuntimeError("boom")
"""

WATCHED_SOURCE = """
    value = "native"
"""

CALLED_SOURCE = """
    def call(x):
        return ("native", x)

    def other(x):
        return x
"""

SLOW_SOURCE = """
    import time
    time.sleep(0.3)  # a wide window for a second importer
    value = "native"
"""


def hook_module(toys: ToyModules):
    name = toys.write("hookfns", HOOK_SOURCE)
    return importlib.import_module(name)


def test_hook_fires_once_right_after_import(toys):
    fns = hook_module(toys)
    watched = toys.write("watched", WATCHED_SOURCE)
    hooks.register(watched, "%s:mark" % fns.__name__)
    assert fns.log == []  # not imported yet: nothing to do
    module = importlib.import_module(watched)
    assert module.value == "patched"  # visible to the importing statement itself
    assert fns.log == [watched]
    importlib.import_module(watched)
    assert fns.log == [watched]
    assert patching.get_original(watched, "value") == "native"


def test_hook_fires_at_once_for_an_already_imported_module(toys):
    fns = hook_module(toys)
    module = importlib.import_module(toys.write("watched", WATCHED_SOURCE))
    hooks.register(module.__name__, "%s:mark" % fns.__name__)
    assert fns.log == [module.__name__]
    assert module.value == "patched"


def test_registering_the_same_hook_twice_fires_it_once(toys):
    fns = hook_module(toys)
    module = importlib.import_module(toys.write("watched", WATCHED_SOURCE))
    for _ in range(3):
        hooks.register(module.__name__, "%s:mark" % fns.__name__)
    assert fns.log == [module.__name__]
    assert hooks.watched().count(module.__name__) == 1


def test_real_loader_is_given_back_after_import(toys):
    fns = hook_module(toys)
    watched = toys.write("watched", WATCHED_SOURCE)
    hooks.register(watched, "%s:mark" % fns.__name__)
    module = importlib.import_module(watched)
    assert not isinstance(module.__spec__.loader, hooks._HookedLoader)
    assert not isinstance(module.__loader__, hooks._HookedLoader)
    assert module.__loader__ is module.__spec__.loader


def test_concurrent_imports_patch_once_and_both_see_the_patch(toys):
    fns = hook_module(toys)
    watched = toys.write("slow", SLOW_SOURCE)
    hooks.register(watched, "%s:slow_mark" % fns.__name__)
    barrier = threading.Barrier(2)
    seen, errors = [], []

    def importer():
        try:
            barrier.wait()
            seen.append(importlib.import_module(watched).value)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=importer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert seen == ["patched", "patched"]
    assert fns.log == [watched]
    assert patching.get_original(watched, "value") == "native"


def test_concurrent_registration_and_import_patch_once(toys):
    fns = hook_module(toys)
    watched = toys.write("slow", SLOW_SOURCE)
    spec = "%s:mark" % fns.__name__
    hooks.register(watched, spec)
    worker = threading.Thread(target=importlib.import_module, args=(watched,))
    worker.start()
    deadline = time.monotonic() + 10
    while watched not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.001)
    assert watched in sys.modules  # the module exists, its body still sleeping
    hooks.register(watched, spec)  # must not fire on the half-executed module
    worker.join(timeout=30)
    hooks.register(watched, spec)
    assert fns.log == [watched]
    assert patching.get_original(watched, "value") == "native"  # patched after its body ran


@pytest.mark.parametrize("already_imported", [False, True], ids=["on import", "registered late"])
def test_failing_patch_leaves_the_module_native_and_working(toys, capsys, already_imported):
    fns = hook_module(toys)
    watched = toys.write("watched", WATCHED_SOURCE)
    if already_imported:
        importlib.import_module(watched)
    hooks.register(watched, "%s:boom" % fns.__name__)
    module = importlib.import_module(watched)  # never raises
    assert fns.log == [watched]
    assert module.value == "native"  # the half-applied patch was put back
    assert not patching.is_patched(watched)
    assert hooks.failures == {watched: "RuntimeError: boom"}
    assert capsys.readouterr().err == (
        "accel-agent: patching %s failed (RuntimeError); it stays native\n" % watched
    )


def test_failing_patch_makes_the_status_unhealthy(toys):
    fns = hook_module(toys)
    watched = toys.write("watched", WATCHED_SOURCE)
    hooks.register(watched, "%s:boom" % fns.__name__)
    importlib.import_module(watched)
    summary = report.summary(resolve=False)
    assert not summary["healthy"]
    assert "patching %s failed: RuntimeError: boom" % watched in summary["unhealthy_reasons"]


def test_unresolvable_hook_spec_does_not_break_the_import(toys, capsys):
    watched = toys.write("watched", WATCHED_SOURCE)
    hooks.register(watched, "no_such_module_anywhere:patch")
    module = importlib.import_module(watched)
    assert module.value == "native"
    assert hooks.failures[watched].startswith("ModuleNotFoundError")
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_watched_module_that_does_not_exist_fails_as_usual(toys):
    name = "%s_absent" % toys.prefix
    hooks.register(name, "whatever:patch")
    with pytest.raises(ModuleNotFoundError, match=name):
        importlib.import_module(name)
    assert hooks.failures == {}


def test_module_whose_own_code_raises_is_reported_as_usual(toys):
    fns = hook_module(toys)
    watched = toys.write("broken", "raise ValueError('module body failed')\n")
    hooks.register(watched, "%s:mark" % fns.__name__)
    with pytest.raises(ValueError, match="module body failed"):
        importlib.import_module(watched)
    assert fns.log == []
    assert watched not in sys.modules


class RecordingFinder:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        self.asked.append(fullname)
        return None


def test_finder_returns_at_once_for_names_it_does_not_watch(toys, monkeypatch):
    recorder = RecordingFinder()
    monkeypatch.setattr(sys, "meta_path", [hooks._finder, recorder, *sys.meta_path[1:]])
    assert hooks._finder.find_spec("json.decoder_not_watched") is None
    assert recorder.asked == []


def test_finder_asks_only_the_finders_behind_it_for_watched_names(toys, monkeypatch):
    watched = toys.write("watched", WATCHED_SOURCE)
    hooks.register(watched, "whatever:patch")
    recorder = RecordingFinder()
    monkeypatch.setattr(sys, "meta_path", [recorder, hooks._finder, *sys.meta_path[1:]])
    spec = hooks._finder.find_spec(watched)
    assert isinstance(spec.loader, hooks._HookedLoader)
    assert recorder.asked == [watched]  # asked directly, not through importlib.util.find_spec


def test_install_finder_is_idempotent_and_first(agent_state):
    hooks.install_finder()
    hooks.install_finder()
    finders = [f for f in sys.meta_path if isinstance(f, hooks.PostImportFinder)]
    assert finders == [hooks._finder]
    assert sys.meta_path[0] is hooks._finder
    hooks.remove_finder()
    assert not any(isinstance(f, hooks.PostImportFinder) for f in sys.meta_path)


def test_both_package_names_are_watched():
    assert set(HOOKS) >= {"Crypto.Cipher.AES", "Cryptodome.Cipher.AES"}
    assert HOOKS["Crypto.Cipher.AES"] == HOOKS["Cryptodome.Cipher.AES"]


@requires_aes_acceleration
def test_crypto_and_cryptodome_are_both_patched_on_import(clean_env):
    pytest.importorskip("Cryptodome", reason="pycryptodomex is not installed in this venv")
    code = REPORT_CODE + textwrap.dedent(
        """
        import Cryptodome.Cipher.AES as AESX
        for module in (AES, AESX):
            key = bytes(16)
            native = patching.get_original(module.__name__, "new")(key, module.MODE_ECB)
            fast = module.new(key, module.MODE_ECB)
            print(module.__name__, patching.is_patched(module.__name__, "new"),
                  type(fast) is not type(native),
                  fast.encrypt(bytes(32)) == native.encrypt(bytes(32)))
        """
    )
    result = run_python("-X", "accel=quiet", "-c", code, env=clean_env)
    assert result.returncode == 0, result.stderr
    assert parse_report(result.stdout)["patched"] == "True"
    lines = result.stdout.splitlines()[1:]
    assert lines == ["Crypto.Cipher.AES True True True", "Cryptodome.Cipher.AES True True True"]


# ------------------------------------------------------------------ patches at the first call


def test_a_first_call_hook_waits_for_the_first_call(toys):
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:patch_call" % fns.__name__, ("call", "missing"))
    module = importlib.import_module(watched)
    native = patching.get_original(watched, "call")
    assert fns.log == []  # imported, stand-in in place, the hook not run
    assert module.call is not native and module.call.__wrapped__ is native
    assert patching.patched_names()[watched] == ["call"]  # a name the module lacks is left alone
    early = module.call  # bound to the stand-in
    assert early(1) == ("patched", ("native", 1))
    assert fns.log == [watched]
    assert module.call is not early and module.call(2) == ("patched", ("native", 2))
    assert early(3) == ("patched", ("native", 3))  # the stand-in hands on to the patch
    assert fns.log == [watched]  # once
    assert patching.get_original(watched, "call") is native


def test_a_first_call_hook_that_raises_leaves_the_module_native(toys, capsys):
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE + "    value = 1\n")
    hooks.register(watched, "%s:boom" % fns.__name__, ("call",))
    module = importlib.import_module(watched)
    assert module.call(1) == ("native", 1)
    assert fns.log == [watched]
    assert not patching.is_patched(watched)
    assert module.value == 1  # what the hook had patched is put back
    assert "patching %s failed (RuntimeError)" % watched in capsys.readouterr().err


def test_a_stand_in_called_after_uninstall_patches_nothing(toys):
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:patch_call" % fns.__name__, ("call",))
    module = importlib.import_module(watched)
    early = module.call
    patching.restore_all()
    hooks.clear()
    assert early(1) == ("native", 1)
    assert fns.log == [] and not patching.is_patched(watched)


def test_waiting_patches_can_be_run_at_once(toys):
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:patch_call" % fns.__name__, ("call",))
    module = importlib.import_module(watched)
    hooks.run_waiting()
    assert fns.log == [watched]
    assert module.call(1) == ("patched", ("native", 1))


def test_first_call_stand_ins_serve_concurrent_first_calls_once(toys):
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:patch_call" % fns.__name__, ("call",))
    module = importlib.import_module(watched)
    results = []
    threads = [threading.Thread(target=lambda: results.append(module.call(0))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [("patched", ("native", 0))] * 8
    assert fns.log == [watched]


# A package that re-exports a watched module's function, as ``rsa`` re-exports
# ``rsa.pkcs1.sign_hash``: its hook makes the re-export follow the stand-in.
REEXPORT_SOURCE = """
    from {source} import call
"""
FOLLOW_HOOK_SOURCE = """
    from accel_agent import hooks

    def follow_call(module):
        hooks.follow(module, "call", "{source}")
"""


def _reexporting(toys, fns, hook="patch_call"):
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:%s" % (fns.__name__, hook), ("call",))
    follower_fns = importlib.import_module(
        toys.write("followfns", FOLLOW_HOOK_SOURCE.format(source=watched))
    )
    holder_name = toys.write("holder", REEXPORT_SOURCE.format(source=watched))
    hooks.register(holder_name, "%s:follow_call" % follower_fns.__name__)
    module = importlib.import_module(watched)
    holder = importlib.import_module(holder_name)
    return watched, module, holder


def test_a_reexport_follows_the_first_call_patch(toys):
    fns = hook_module(toys)
    watched, module, holder = _reexporting(toys, fns)
    native = patching.get_original(watched, "call")
    stand_in = module.call
    assert holder.call is stand_in and fns.log == []
    assert patching.get_original(holder.__name__, "call") is native  # uninstall's value
    assert holder.call(1) == ("patched", ("native", 1))
    assert holder.call is module.call is not stand_in  # no stand-in stays behind
    assert patching.is_patched(holder.__name__, "call")


def test_a_reexport_of_a_patch_left_native_is_the_original_again(toys):
    fns = hook_module(toys)
    watched, module, holder = _reexporting(toys, fns, hook="boom")
    native = patching.get_original(watched, "call")
    assert module.call(1) == ("native", 1)
    assert holder.call is native and module.call is native
    assert not patching.is_patched(holder.__name__, "call")


def test_a_reexport_uninstalled_before_the_first_call_is_the_original(toys):
    fns = hook_module(toys)
    watched, module, holder = _reexporting(toys, fns)
    native = patching.get_original(watched, "call")
    stand_in = holder.call
    hooks.clear()  # as uninstall() does, then puts the originals back
    patching.restore_all()
    assert holder.call is native and module.call is native
    assert stand_in(1) == ("native", 1) and fns.log == []


def test_a_reexport_the_application_replaced_is_left_alone(toys):
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:patch_call" % fns.__name__, ("call",))
    module = importlib.import_module(watched)
    holder = type(module)("holder")
    holder.call = len  # something else under the same name
    assert hooks.follow(holder, "call", watched) is False
    holder.call = module.call
    module.call(1)  # the patch ran: nothing waits any more
    assert hooks.follow(holder, "call", watched) is False
    assert not patching.is_patched("holder")


def test_a_wrapper_of_the_stand_in_made_before_the_first_call_gets_the_patch(toys):
    """A tracer wraps the function (the stand-in, then) before its first call: the
    wrapper stays, and the stand-in it calls goes on to the replacement, never back
    to the wrapper (which recursed)."""
    fns = hook_module(toys)
    watched = toys.write("called", CALLED_SOURCE)
    hooks.register(watched, "%s:patch_call" % fns.__name__, ("call",))
    module = importlib.import_module(watched)
    inner = module.call

    def traced(x):
        return ("traced", inner(x))

    module.call = traced
    assert module.call(1) == ("traced", ("patched", ("native", 1)))
    assert module.call is traced and fns.log == [watched]


def test_a_mocked_function_at_the_first_call_leaves_the_patch_behind_the_mock(toys):
    """A test mocks the module's function when the first call comes through a
    re-export: the re-export gets the replacement, the mock stays the test's, and
    once the test puts the stand-in back it calls the replacement too."""
    fns = hook_module(toys)
    watched, module, holder = _reexporting(toys, fns)
    stand_in = module.call
    module.call = lambda x: "mocked"
    assert holder.call(1) == ("patched", ("native", 1))
    assert module.call(1) == "mocked"
    module.call = stand_in  # the mock undone
    assert module.call(2) == ("patched", ("native", 2)) and holder.call is not stand_in
    assert fns.log == [watched]
