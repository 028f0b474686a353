"""The pyaes target's structure: what is patched, what uninstall puts back, laziness.

The behaviour itself is compared with pyaes's in test_pyaes_differential.py.
"""

from __future__ import annotations

import pickle
import sys

import pytest

import accel_agent
from accel_agent import patching
from transparency_helpers import ensure_agent, natively

pyaes = pytest.importorskip("pyaes", reason="pyaes is not installed (requirements/pyaes.txt)")

CLASSES = ("AESModeOfOperationECB", "AESModeOfOperationCBC", "AESModeOfOperationCTR")
CLASSES += ("AESModeOfOperationCFB", "AESModeOfOperationOFB")


@pytest.fixture(autouse=True)
def _active():
    ensure_agent()


def test_the_classes_stay_pyaes_own_and_wrap_the_originals():
    assert pyaes.AESModesOfOperation["ctr"] is pyaes.AESModeOfOperationCTR
    assert pyaes.aes.AESModeOfOperationCTR is pyaes.AESModeOfOperationCTR
    for name in CLASSES:
        encrypt = vars(getattr(pyaes, name))["encrypt"]
        original = patching.get_original("pyaes.aes", "%s.encrypt" % name)
        assert encrypt.__wrapped__ is original
        assert encrypt.__name__ == "encrypt" and encrypt.__doc__ == original.__doc__
    feed = vars(pyaes.blockfeeder.BlockFeeder)["feed"]
    assert feed.__wrapped__ is patching.get_original("pyaes.blockfeeder", "BlockFeeder.feed")


def test_uninstall_puts_every_original_back(agent_state):
    accel_agent.activate("quiet")
    base = pyaes.aes.AESBlockModeOfOperation
    originals = {
        (module, name): original
        for module, saved in patching._originals.items()
        if module in ("pyaes.aes", "pyaes.blockfeeder")
        for name, original in saved.items()
    }
    # The base class's __init__, five modes' methods, Counter.__init__, BlockFeeder.feed
    # and the block modes' _final_encrypt.
    assert len(originals) == 12, sorted(originals)
    assert ("pyaes.blockfeeder", "AESBlockModeOfOperation._final_encrypt") in originals
    made_under_agent = pyaes.AESModeOfOperationCBC(b"k" * 16, iv=b"i" * 16)
    made_under_agent.encrypt(b"p" * 16)
    restored = accel_agent.uninstall()
    assert "pyaes.aes.AESModeOfOperationCTR.encrypt" in restored
    assert "pyaes.aes.Counter.__init__" in restored
    for (module, name), original in originals.items():
        assert patching.current_value(sys.modules[module], name) is original, (module, name)
    assert not hasattr(vars(base)["__init__"], "__wrapped__")
    # The two shims stay, so that objects made under the agent go on with pyaes's code.
    assert isinstance(vars(base)["_aes"], property) and "__getstate__" in vars(base)
    mode = pyaes.AESModeOfOperationCBC(b"k" * 16, iv=b"i" * 16)
    assert "_aes" in vars(mode)
    mode.encrypt(b"p" * 16)
    assert made_under_agent.encrypt(b"q" * 16) == mode.encrypt(b"q" * 16)
    assert sorted(vars(pickle.loads(pickle.dumps(made_under_agent)))) == sorted(vars(mode))


def test_the_key_schedule_is_built_when_read():
    mode = pyaes.AESModeOfOperationCBC(b"k" * 16, iv=b"i" * 16)
    assert "_aes" not in vars(mode)
    mode.encrypt(b"p" * 16)
    assert "_aes" not in vars(mode)
    with natively():
        native = pyaes.AESModeOfOperationCBC(b"k" * 16, iv=b"i" * 16)
    assert mode._aes._Ke == native._aes._Ke and mode._aes._Kd == native._aes._Kd


def test_objects_made_before_the_patch_go_on_natively_and_correctly():
    with natively():
        early = pyaes.AESModeOfOperationCTR(b"k" * 16)
        reference = pyaes.AESModeOfOperationCTR(b"k" * 16)
        first = early.encrypt(b"a" * 20)
        expected = reference.encrypt(b"a" * 20) + reference.encrypt(b"b" * 40)
    assert first + early.encrypt(b"b" * 40) == expected


def test_copies_and_pickles_carry_only_pyaes_attributes():
    mode = pyaes.AESModeOfOperationOFB(b"k" * 16, iv=b"i" * 16)
    mode.encrypt(b"p" * 20)
    data = pickle.dumps(mode)
    assert b"accel_agent" not in data
    restored = pickle.loads(data)
    assert sorted(vars(restored)) == ["_aes", "_last_precipherblock", "_remaining_block"]
