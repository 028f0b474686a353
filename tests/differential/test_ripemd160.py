"""RIPEMD-160 under the agent: which calls OpenSSL serves, and that each is native's answer.

The generated comparisons (``update`` in pieces, copies, HMAC, PBKDF2,
HKDF) are in :mod:`test_hashes` and ``tests/objects``, which list
RIPEMD-160 among their cases. Here: the deprecated ``Hash.RIPEMD`` alias,
the size from which native serves one-shot messages (OpenSSL 3.0's
RIPEMD-160 is no faster there), the KDFs' accelerated calls, and the status
when this OpenSSL has no RIPEMD-160.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import diff_strategies as ds
import pytest
from hypothesis import given
from hypothesis import strategies as st

import transparency_helpers as th
from accel_agent import calibration
from transparency_helpers import both, import_from, with_flavours

NATIVE_FROM = calibration.native_from_size("ripemd160")


@with_flavours
def test_the_alias_module_is_served_as_ripemd160(flavour):
    alias = import_from(flavour, "Hash.RIPEMD")
    th.require_acceleration("ripemd160")
    with th.accelerated_calls() as made:
        digest = alias.new(b"abc").hexdigest()
    assert made.get("ripemd160") == 1, made
    assert digest == "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"  # the RIPEMD-160 paper's 'abc'
    assert alias.new is import_from(flavour, "Hash.RIPEMD160").new

    def scenario(rec, module):
        h = rec.call("new", module.new, b"x" * 100)
        rec.call("copy", lambda: h.copy().hexdigest())
        rec.call("facts", lambda: (module.digest_size, module.block_size, h.oid))

    both(scenario, alias)


def _child_under_the_agent(code: str):
    """What a fresh interpreter under ``ACCEL_AGENT=quiet`` prints last, as JSON."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ACCEL_"))}
    env["ACCEL_AGENT"] = "quiet"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


ALIAS_AFTER_SOURCE = """
import json
from {flavour}.Hash import RIPEMD160  # its patch waits for a first call
from {flavour}.Hash import RIPEMD  # the alias, imported before that call
digest = RIPEMD.new(b"abc").hexdigest()
RIPEMD160.new(b"x").digest()
print(json.dumps([RIPEMD.new is RIPEMD160.new, digest]))
"""


@with_flavours
def test_the_alias_imported_before_the_first_call_holds_the_patched_new(flavour):
    """Imported while RIPEMD160's patch waits for its first call, the alias must not keep
    the stand-in (one frame more per call, forever): it holds what the patch installs."""
    same, digest = _child_under_the_agent(ALIAS_AFTER_SOURCE.format(flavour=flavour))
    assert digest == "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"
    assert same


@with_flavours
@pytest.mark.skipif(NATIVE_FROM is None, reason="calibration names no size where native wins")
def test_long_one_shot_messages_go_native(flavour):
    module = import_from(flavour, "Hash.RIPEMD160")
    th.require_acceleration("ripemd160")
    with th.accelerated_calls() as made:
        short = module.new(b"a" * (NATIVE_FROM - 1)).digest()
    assert made.get("ripemd160") == 1, made
    with th.accelerated_calls() as made:
        long = module.new(b"a" * NATIVE_FROM).digest()
    assert not made.get("ripemd160"), made
    with th.natively():
        assert short == module.new(b"a" * (NATIVE_FROM - 1)).digest()
        assert long == module.new(b"a" * NATIVE_FROM).digest()


@with_flavours
@ds.DIFF_SETTINGS
@given(
    size=st.one_of(st.integers(0, 256), st.integers(1000, 40000)),
    pieces=st.integers(1, 5),
)
def test_one_shot_and_streamed_across_the_native_size(flavour, size, pieces):
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))

    def scenario(rec, module):
        rec.call("one-shot", lambda: module.new(data).hexdigest())
        h = module.new()
        step = max(1, size // pieces)
        for start in range(0, size, step):
            h.update(data[start : start + step])
        rec.call("streamed", h.hexdigest)
        rec.call("copied", lambda: h.copy().digest())

    both(scenario, import_from(flavour, "Hash.RIPEMD160"))


@with_flavours
def test_hmac_and_kdfs_with_ripemd160_are_accelerated(flavour):
    ripemd = import_from(flavour, "Hash.RIPEMD160")
    hmac = import_from(flavour, "Hash.HMAC")
    kdf = import_from(flavour, "Protocol.KDF")
    for primitive in ("hmac", "pbkdf2", "hkdf"):
        th.require_acceleration(primitive)
    with th.accelerated_calls() as made:
        tag = hmac.new(b"Jefe", b"what do ya want for nothing?", ripemd).hexdigest()
        derived = kdf.PBKDF2(b"password", b"salt", 20, 1000, hmac_hash_module=ripemd)
        okm = kdf.HKDF(b"k" * 20, 40, b"salt", ripemd)
    assert tag == "dda6c0213a485a9e24f4742064a7f033b43c4069"  # RFC 2286, test case 2
    assert made.get("hmac", 0) >= 1 and made.get("pbkdf2") == 1 and made.get("hkdf") == 1, made
    with th.natively():
        assert derived == kdf.PBKDF2(b"password", b"salt", 20, 1000, hmac_hash_module=ripemd)
        assert okm == kdf.HKDF(b"k" * 20, 40, b"salt", ripemd)


NO_RIPEMD = """
import _hashlib, json
_new = _hashlib.new
def new(name, *args, **kwargs):
    if str(name).lower() == "ripemd160":
        raise ValueError("unsupported hash type")  # as an OpenSSL without it says
    return _new(name, *args, **kwargs)
_hashlib.new = new
import accel_agent
from {flavour}.Hash import RIPEMD160, HMAC
out = [RIPEMD160.new(b"abc").hexdigest(), HMAC.new(b"k", b"m", RIPEMD160).hexdigest()]
choice = accel_agent.status()["primitives"]["ripemd160"]
print(json.dumps({{"out": out, "choice": choice, "healthy": accel_agent.status()["healthy"]}}))
"""


@with_flavours
def test_an_openssl_without_ripemd160_leaves_it_native_by_choice_and_says_why(flavour):
    facts = _child_under_the_agent(NO_RIPEMD.format(flavour=flavour))
    hmac = import_from(flavour, "Hash.HMAC")
    ripemd = import_from(flavour, "Hash.RIPEMD160")
    with th.natively():
        expected = [ripemd.new(b"abc").hexdigest(), hmac.new(b"k", b"m", ripemd).hexdigest()]
    assert facts["out"] == expected
    choice = facts["choice"]
    assert choice["provider"] == "native" and choice["outcome"] == "native-by-choice"
    assert "ripemd160" in choice["reason"], choice
    assert choice["calls"] == 0
    assert facts["healthy"], facts  # an OpenSSL without it is not a broken installation
