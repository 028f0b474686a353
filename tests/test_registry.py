"""The provider table: the four gates, what status() records, and what the user sees.

Most tests use two toy primitives (conftest's ``fake_catalog``) whose
provider needs no CPU feature; the ones marked for AES acceleration drive
the real AES-ECB provider through pycryptodome, as a user's program would.
"""

from __future__ import annotations

import pytest

import accel_agent
from accel_agent import calibration, catalog, registry, report, selfcheck
from accel_agent.providers.base import ProviderUnavailable
from helpers import WRONG_VECTORS, check_transform, requires_aes_acceleration

# ------------------------------------------------------------------ toy primitives


def test_a_provider_passing_every_gate_is_chosen(fake_catalog):
    chosen = registry.choice("toy-a")
    assert (chosen.provider_name, chosen.outcome, chosen.reason) == (
        "openssl",
        registry.ACCELERATED,
        "self-check passed",
    )
    assert chosen.provider.transform(b"ab") == b"ba"
    assert registry.slot("toy-a").get() is chosen.provider


def test_choices_are_made_once(fake_catalog):
    assert registry.choice("toy-a") is registry.choice("toy-a")
    assert registry.slot("toy-a") is registry.slot("toy-a")


def test_a_failing_self_check_disables_only_its_provider(fake_catalog, monkeypatch, capsys):
    monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, "toy-a", (check_transform, WRONG_VECTORS))
    failed, passed = registry.choice("toy-a"), registry.choice("toy-b")
    assert (failed.provider_name, failed.outcome) == ("native", registry.NOT_ACCELERATED)
    assert failed.reason == "self-check failed: reverse-bad: wrong output"
    assert failed.refusals == {"openssl": failed.reason}
    assert registry.slot("toy-a").get() is None
    assert passed.outcome == registry.ACCELERATED
    assert capsys.readouterr().err == (
        "accel-agent: self-check of toy-a (openssl) FAILED: reverse-bad: wrong output; "
        "using native\n"
    )


def test_status_records_why_a_primitive_is_native(fake_catalog, monkeypatch):
    monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, "toy-a", (check_transform, WRONG_VECTORS))
    summary = accel_agent.status()
    entry = summary["primitives"]["toy-a"]
    assert entry["provider"] == "native"
    assert entry["accelerated"] is False
    assert entry["outcome"] == registry.NOT_ACCELERATED
    assert entry["reason"] == "self-check failed: reverse-bad: wrong output"
    assert summary["primitives"]["toy-b"]["accelerated"] is True
    assert summary["counts"] == {"primitives": 2, "accelerated": 1, "native": 1}
    assert not summary["healthy"]
    assert summary["unhealthy_reasons"] == [
        "toy-a not accelerated: self-check failed: reverse-bad: wrong output"
    ]


@pytest.mark.parametrize("exclusion", ["toy", "toy-a", "openssl", "all", "TOY-A, rsa"])
def test_an_excluded_primitive_is_native_by_choice_and_healthy(
    fake_catalog, monkeypatch, exclusion
):
    monkeypatch.setenv("ACCEL_AGENT_EXCLUDE", exclusion)
    chosen = registry.choice("toy-a")
    assert (chosen.provider_name, chosen.outcome) == ("native", registry.NATIVE_BY_CHOICE)
    assert chosen.reason == "excluded by the user"
    summary = report.summary()
    assert summary["healthy"], summary["unhealthy_reasons"]


def test_exclusions_set_at_activation_win_over_the_variable(fake_catalog, monkeypatch):
    monkeypatch.setenv("ACCEL_AGENT_EXCLUDE", "toy")
    registry.set_exclusions(frozenset())
    assert registry.choice("toy-a").outcome == registry.ACCELERATED


def test_calibration_preferring_native_is_a_healthy_choice(fake_catalog, monkeypatch):
    monkeypatch.setattr(catalog.BY_NAME["toy-a"], "default", calibration.NATIVE)
    chosen = registry.choice("toy-a")
    assert (chosen.provider_name, chosen.outcome) == ("native", registry.NATIVE_BY_CHOICE)
    assert chosen.reason == "native is faster here"
    assert chosen.provider is None
    assert report.summary()["healthy"]


def test_calibration_is_consulted_before_the_self_check(fake_catalog, monkeypatch):
    ran = []
    monkeypatch.setattr(catalog.BY_NAME["toy-a"], "default", calibration.NATIVE)
    monkeypatch.setattr(registry, "_selfcheck_run", lambda *args: ran.append(args))
    registry.choice("toy-a")
    assert ran == []  # no process pays for a check whose provider will not be used


def _use_factory(monkeypatch, primitive: str, factory: str) -> None:
    spec = catalog.BY_NAME[primitive]
    replaced = catalog.PrimitiveSpec(
        spec.name, spec.family, spec.requires, (catalog.ProviderSpec("openssl", factory),)
    )
    monkeypatch.setitem(catalog.BY_NAME, primitive, replaced)


def test_an_unavailable_provider_is_not_accelerated_with_its_reason(fake_catalog, monkeypatch):
    _use_factory(monkeypatch, "toy-a", "helpers:unavailable_provider")
    chosen = registry.choice("toy-a")
    assert (chosen.provider_name, chosen.outcome) == ("native", registry.NOT_ACCELERATED)
    assert chosen.reason == "toy library 9.9 is too old"
    assert registry.choice("toy-b").outcome == registry.ACCELERATED


def test_a_provider_module_that_cannot_be_imported_is_unavailable(fake_catalog, monkeypatch):
    _use_factory(monkeypatch, "toy-a", "accel_agent.providers.no_such_family:factory")
    chosen = registry.choice("toy-a")
    assert chosen.outcome == registry.NOT_ACCELERATED
    assert chosen.reason.startswith("accel_agent.providers.no_such_family cannot be imported")


def test_a_factory_that_crashes_leaves_the_primitive_native(fake_catalog, monkeypatch):
    # A provider is "used only when" it passes the gates; a factory raising
    # anything (an OpenSSL error, an AttributeError in a half-installed
    # library) must make it unavailable, never escape into the user's call.
    _use_factory(monkeypatch, "toy-a", "helpers:crashing_provider")
    chosen = registry.choice("toy-a")
    assert (chosen.provider_name, chosen.outcome) == ("native", registry.NOT_ACCELERATED)
    assert "RuntimeError" in chosen.reason
    assert registry.slot("toy-a").get() is None


def test_a_provider_missing_from_its_module_leaves_the_primitive_native(fake_catalog, monkeypatch):
    _use_factory(monkeypatch, "toy-a", "helpers:no_such_factory")
    chosen = registry.choice("toy-a")
    assert chosen.outcome == registry.NOT_ACCELERATED


def test_platform_gate_comes_first(fake_catalog, monkeypatch):
    spec = catalog.BY_NAME["toy-a"]
    needs_sha3 = catalog.PrimitiveSpec(
        spec.name, spec.family, ("no-such-capability",), spec.providers
    )
    monkeypatch.setitem(catalog.BY_NAME, "toy-a", needs_sha3)
    chosen = registry.choice("toy-a")
    assert chosen.outcome == registry.NOT_ACCELERATED
    assert chosen.reason.startswith("CPU lacks ")


def test_resolve_all_decides_every_primitive_in_catalog_order(fake_catalog):
    assert registry.decided() == []
    assert [c.primitive for c in registry.resolve_all()] == ["toy-a", "toy-b"]
    assert [c.primitive for c in registry.decided()] == ["toy-a", "toy-b"]


def test_reset_forgets_choices_and_call_counts(fake_catalog):
    slot = registry.slot("toy-a")
    slot.get()
    slot.calls = 5
    registry.reset()
    assert registry.decided() == []
    assert slot.calls == 0
    assert slot.provider is registry.UNRESOLVED


def test_unknown_primitive_raises_at_first_use(fake_catalog):
    """The catalog is read at a slot's first use (a patch's import does not load it)."""
    unknown = registry.slot("rot13")
    with pytest.raises(KeyError, match="unknown primitive"):
        unknown.get()
    with pytest.raises(KeyError, match="unknown primitive"):
        registry.choice("rot13")
    assert "rot13" not in {choice.primitive for choice in registry.decided()}
    registry._slots.pop("rot13", None)


# Every patch a user can trigger, both pycryptodome flavours and the pure-Python
# libraries; a slot's name is only checked against the catalog at its first
# use, so a misspelt one would fail in an application's call, not at the patch.
_EVERY_PATCH = """
import importlib, sys
from accel_agent import catalog, hooks, registry, targets
for name in sorted(targets.HOOKS):
    try:
        importlib.import_module(name)
    except ImportError:
        pass  # a flavour or library not installed here
hooks.run_waiting()
for name in ("Crypto.Cipher.AES", "Cryptodome.Cipher.AES"):
    aes = sys.modules.get(name)
    if aes is not None:  # the modes whose code loads at their first use
        aes.new(bytes(16), aes.MODE_CCM, nonce=bytes(11))
print(len(registry.slots()))
print(sorted(set(registry.slots()) - set(catalog.BY_NAME)))
"""


def test_every_slot_a_patch_makes_names_a_catalog_primitive(clean_env):
    from helpers import run_python

    result = run_python("-c", _EVERY_PATCH, env={**clean_env, "ACCEL_AGENT": "quiet"})
    assert result.returncode == 0, result.stderr
    made, unknown = result.stdout.splitlines()
    assert int(made) >= 40  # the patches ran: pycryptodome's and the libraries' slots
    assert unknown == "[]"


def test_status_without_resolving_lists_only_what_was_used(fake_catalog):
    registry.slot("toy-b").get()
    summary = accel_agent.status(resolve=False)
    assert list(summary["primitives"]) == ["toy-b"]


# ------------------------------------------------------------------ the real AES-ECB provider

KEY = bytes(range(16))
BLOCKS = bytes(range(32))


def _corrupted(vectors: tuple) -> tuple:
    """The same vectors with the last byte of the first one's expected output flipped."""
    label, *fields, expected = vectors[0]
    broken = expected[:-1] + bytes([expected[-1] ^ 1])
    return ((label, *fields, broken), *vectors[1:])


@pytest.fixture
def ecb_native():
    from Crypto.Cipher import AES

    return AES.new(KEY, AES.MODE_ECB).encrypt(BLOCKS)


@requires_aes_acceleration
def test_a_wrong_aes_known_answer_in_quiet_mode(agent_state, monkeypatch, capsys, ecb_native):
    baseline = {c.primitive: c.outcome for c in registry.resolve_all() if c.primitive != "aes-ecb"}
    registry.reset()
    checker, vectors = selfcheck.load("aes-ecb")
    monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, "aes-ecb", (checker, _corrupted(vectors)))
    capsys.readouterr()
    accel_agent.activate("quiet")
    from Crypto.Cipher import AES

    assert AES.new(KEY, AES.MODE_ECB).encrypt(BLOCKS) == ecb_native  # served natively
    err_lines = capsys.readouterr().err.splitlines()
    failures = [line for line in err_lines if "FAILED" in line]
    assert len(failures) == 1, err_lines
    assert failures[0].startswith("accel-agent: self-check of aes-ecb (openssl) FAILED: ")
    assert KEY.hex() not in failures[0] and vectors[0][-1].hex() not in failures[0]
    summary = accel_agent.status()
    entry = summary["primitives"]["aes-ecb"]
    assert (entry["provider"], entry["outcome"]) == ("native", registry.NOT_ACCELERATED)
    assert entry["reason"].startswith("self-check failed: ")
    others = {name: e["outcome"] for name, e in summary["primitives"].items() if name != "aes-ecb"}
    assert others == baseline  # only the provider that failed is disabled
    assert not summary["healthy"]


@requires_aes_acceleration
def test_excluding_aes_keeps_it_native_and_healthy(agent_state, monkeypatch, ecb_native):
    monkeypatch.setenv("ACCEL_AGENT_EXCLUDE", "aes")
    accel_agent.activate("quiet")
    from Crypto.Cipher import AES

    assert AES.new(KEY, AES.MODE_ECB).encrypt(BLOCKS) == ecb_native
    summary = accel_agent.status()
    entry = summary["primitives"]["aes-ecb"]
    assert (entry["outcome"], entry["reason"]) == (
        registry.NATIVE_BY_CHOICE,
        "excluded by the user",
    )
    assert entry["calls"] == 0
    assert summary["healthy"], summary["unhealthy_reasons"]


@requires_aes_acceleration
def test_aes_calibrated_native_is_native_by_choice(agent_state, monkeypatch):
    monkeypatch.setattr(catalog.BY_NAME["aes-ecb"], "default", calibration.NATIVE)
    entry = accel_agent.status()["primitives"]["aes-ecb"]
    assert (entry["provider"], entry["outcome"], entry["reason"]) == (
        "native",
        registry.NATIVE_BY_CHOICE,
        "native is faster here",
    )


@requires_aes_acceleration
def test_aes_provider_unavailable_is_recorded(agent_state, monkeypatch):
    from accel_agent.providers import aes

    def unavailable():
        raise ProviderUnavailable("pyca/cryptography cannot be imported (ImportError)")

    monkeypatch.setattr(aes, "ecb_provider", unavailable)
    summary = accel_agent.status()
    entry = summary["primitives"]["aes-ecb"]
    assert (entry["outcome"], entry["reason"]) == (
        registry.NOT_ACCELERATED,
        "pyca/cryptography cannot be imported (ImportError)",
    )
    assert (
        "aes-ecb not accelerated: pyca/cryptography cannot be imported (ImportError)"
        in (summary["unhealthy_reasons"])
    )


@requires_aes_acceleration
def test_accelerated_calls_are_counted(agent_state, ecb_native):
    accel_agent.activate("quiet")
    from Crypto.Cipher import AES

    cipher = AES.new(KEY, AES.MODE_ECB)
    assert cipher.encrypt(BLOCKS) == ecb_native
    assert cipher.decrypt(ecb_native) == BLOCKS
    entry = accel_agent.status()["primitives"]["aes-ecb"]
    assert (entry["provider"], entry["accelerated"], entry["calls"]) == ("openssl", True, 2)
