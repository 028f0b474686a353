"""The one registry of originals, uninstall, and activating again after it."""

from __future__ import annotations

import sys
import types

import pytest

import accel_agent
from accel_agent import activation, hooks, patching
from accel_agent.targets import HOOKS
from helpers import clean_environment, requires_supported_platform, run_python


@pytest.fixture
def toy_module(agent_state):
    module = types.ModuleType("accel_test_toy_module")
    module.function = lambda: "native"
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def test_patch_attribute_remembers_the_first_original(toy_module):
    original = toy_module.function
    first, second = (lambda: "first"), (lambda: "second")
    patching.patch_attribute(toy_module, "function", first)
    patching.patch_attribute(toy_module, "function", second)
    assert toy_module.function is second
    assert patching.get_original(toy_module.__name__, "function") is original
    assert patching.is_patched(toy_module.__name__)
    assert patching.is_patched(toy_module.__name__, "function")
    assert not patching.is_patched(toy_module.__name__, "other")
    assert patching.patched_names()[toy_module.__name__] == ["function"]


def test_restore_module_puts_back_the_original(toy_module):
    original = toy_module.function
    patching.patch_attribute(toy_module, "function", lambda: "fast")
    assert patching.restore_module(toy_module.__name__) == ["function"]
    assert toy_module.function is original
    assert not patching.is_patched(toy_module.__name__)
    with pytest.raises(KeyError):
        patching.get_original(toy_module.__name__, "function")


def test_an_attribute_added_by_a_patch_is_removed_on_restore(toy_module):
    patching.patch_attribute(toy_module, "added", 1)
    with pytest.raises(KeyError, match="did not exist before patching"):
        patching.get_original(toy_module.__name__, "added")
    patching.restore_all()
    assert not hasattr(toy_module, "added")


def test_restore_all_names_what_it_restored(toy_module):
    patching.patch_attribute(toy_module, "function", lambda: "fast")
    patching.patch_attribute(toy_module, "added", 1)
    assert patching.restore_all() == [
        "accel_test_toy_module.added",
        "accel_test_toy_module.function",
    ]
    assert patching.restore_all() == []
    assert patching.patched_names() == {}


def test_restore_of_a_module_no_longer_imported_forgets_it(toy_module):
    patching.patch_attribute(toy_module, "function", lambda: "fast")
    del sys.modules[toy_module.__name__]
    try:
        assert patching.restore_module(toy_module.__name__) == ["function"]
    finally:
        sys.modules[toy_module.__name__] = toy_module
    assert patching.patched_names() == {}


def test_a_dotted_name_patches_a_class_in_place_and_restores_its_own_entry(toy_module):
    class Key:
        def sign(self):
            return "native"

        @classmethod
        def generate(cls):
            return cls()

    class SubKey(Key):
        pass

    toy_module.Key = Key
    original_generate = Key.__dict__["generate"]
    patching.patch_attribute(toy_module, "Key.sign", lambda self: "fast")
    patching.patch_attribute(toy_module, "Key.generate", classmethod(lambda cls: "fast"))
    patching.patch_attribute(toy_module, "Key.added", 1)
    assert Key().sign() == "fast" and SubKey().sign() == "fast"
    assert SubKey.generate() == "fast"
    assert patching.get_original(toy_module.__name__, "Key.generate") is original_generate
    assert patching.current_value(toy_module, "Key.added") == 1
    assert patching.current_value(SubKey, "sign") is patching.MISSING  # inherited: not its own
    assert sorted(patching.restore_module(toy_module.__name__)) == [
        "Key.added",
        "Key.generate",
        "Key.sign",
    ]
    assert Key().sign() == "native"
    assert Key.__dict__["generate"] is original_generate and type(SubKey.generate()) is SubKey
    assert not hasattr(Key, "added")


# ------------------------------------------------------------------ the real targets


@pytest.fixture
def aes_modules(agent_state):
    """Every installed AES module with its original ``new``, kept before any activation."""
    modules = {}
    for name in HOOKS:
        try:
            __import__(name)
        except ImportError:
            continue
        module = sys.modules[name]
        # Modules patched through another name (Protocol.KDF) or only on some
        # interpreters (hashlib without _hashlib) are not about new().
        if name.startswith(("Crypto.", "Cryptodome.")) and hasattr(module, "new"):
            modules[name] = (module, module.new)
    return modules


def finders() -> list:
    return [f for f in sys.meta_path if isinstance(f, hooks.PostImportFinder)]


@requires_supported_platform
def test_uninstall_restores_every_original(aes_modules):
    accel_agent.activate("quiet")
    for module, original in aes_modules.values():
        assert module.new is not original
    restored = accel_agent.uninstall()
    # Every hooked module's new, and only attributes of hooked modules (hash
    # modules of 4.x have a one-shot digest() patched beside new).
    assert {"%s.new" % name for name in aes_modules} <= set(restored)
    # (python-ecdsa's are methods of its classes: "ecdsa.keys.SigningKey.sign_digest".)
    assert all(any(name.startswith(hooked + ".") for hooked in HOOKS) for name in restored)
    for module, original in aes_modules.values():
        assert module.new is original
    assert finders() == []
    assert hooks.watched() == []
    assert patching.patched_names() == {}
    assert not activation.is_active()
    assert activation.current_mode() == "off"


@requires_supported_platform
def test_activation_after_uninstall_patches_again(aes_modules):
    accel_agent.activate("quiet")
    accel_agent.uninstall()
    accel_agent.activate("quiet")
    for name, (module, original) in aes_modules.items():
        assert module.new is not original
        assert patching.get_original(name, "new") is original
        assert module.new.__wrapped__ is original
    assert finders() == [hooks._finder]
    assert activation.is_active()
    accel_agent.uninstall()
    for module, original in aes_modules.values():
        assert module.new is original


@requires_supported_platform
def test_a_module_imported_after_uninstall_stays_native(aes_modules, monkeypatch):
    accel_agent.activate("quiet")
    accel_agent.uninstall()
    name = "Crypto.Cipher.AES"
    module, original = aes_modules[name]
    # The real module goes back into sys.modules at the end of this block,
    # before agent_state restores (and re-patches) what was there: after it,
    # agent_state would patch the fresh module and leave the real one native
    # for the later tests of this process.
    with monkeypatch.context() as swap:
        swap.delitem(sys.modules, name)
        swap.setattr(sys.modules["Crypto.Cipher"], "AES", module)
        fresh = __import__(name, fromlist=["new"])
        assert fresh is not module
        assert not patching.is_patched(name)
        assert fresh.new.__module__ == name and not hasattr(fresh.new, "__wrapped__")


def test_uninstall_without_activation_is_harmless(aes_modules):
    assert accel_agent.uninstall() == []
    for module, original in aes_modules.values():
        assert module.new is original


BLAKE2_NEW_AFTER_UNINSTALL = """\
import accel_agent
from Crypto.Hash import BLAKE2b
made = BLAKE2b.new(data=b"x")  # the first call: the patch runs on a copy of the module
agents = type(made)
accel_agent.uninstall()
print(agents is not BLAKE2b.BLAKE2b_Hash, type(made.new(data=b"y")) is BLAKE2b.BLAKE2b_Hash)
"""


@requires_supported_platform
def test_an_objects_new_follows_the_module_after_uninstall():
    # Native's BLAKE2 object's new() calls its module's new() at call time: after
    # uninstall(), native's; the agent's object must not keep the patch's copy of it.
    result = run_python(
        "-c", BLAKE2_NEW_AFTER_UNINSTALL, env=clean_environment(ACCEL_AGENT="quiet")
    )
    assert result.stdout.split() == ["True", "True"], result.stderr
