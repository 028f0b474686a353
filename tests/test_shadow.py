"""Shadow mode: a sampled share of accelerated work is redone natively and compared.

The cases (tests/shadow_cases.py) run in child processes, natively and under
``ACCEL_AGENT=shadow`` at rate 1, with and without the test-only hook that
flips one output bit of the agent's side. With the hook, every family (AES
modes, ChaCha, hashes, MACs, KDFs, public key), in single calls and in
streaming objects, must be caught: the caller gets native's bytes, the
primitive turns native, stderr has one data-free line per primitive, and
``status()`` and the report record it. Without it, nothing differs.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

import accel_agent
from accel_agent import activation, instrument, registry, savings, shadow
from helpers import clean_environment, run_python
from shadow_cases import CASES, DETERMINISTIC, verify_natively
from transparency_helpers import natively

CASES_SCRIPT = Path(__file__).resolve().parent / "shadow_cases.py"
GROUPS = DETERMINISTIC  # the randomized group's results are checked natively instead
FAMILIES = {"aes", "chacha", "hash", "mac", "kdf", "public key"}
MISMATCH_LINE = re.compile(
    r"^accel-agent: shadow mismatch: (?P<primitive>[a-z0-9-]+) (?P<method>[A-Za-z0-9_]+) "
    r"(?P<size><=64B|<=1KiB|<=16KiB|<=1MiB|>1MiB)$"
)


def _run_cases(group: str, mode: str, tmp_path: Path, corrupt: bool = False, **extra: str):
    env = clean_environment(ACCEL_AGENT=mode, ACCEL_AGENT_SHADOW_RATE="1", **extra)
    if mode != "off":
        env["ACCEL_AGENT_REPORT"] = str(tmp_path)
    if corrupt:
        env["ACCEL_AGENT_TEST_HOOKS"] = "1"
    args = [CASES_SCRIPT, group] + (["--corrupt"] if corrupt else [])
    result = run_python(*args, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def _report(tmp_path: Path) -> dict:
    files = sorted(tmp_path.glob("accel-agent-*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def _secrets() -> dict[str, bytes]:
    import shadow_cases

    return {
        "key16": shadow_cases.KEY16,
        "key32": shadow_cases.KEY32,
        "iv": shadow_cases.IV,
        "nonce": shadow_cases.NONCE,
        "plaintext": shadow_cases.DATA,
        "aad": shadow_cases.AAD,
    }


def _leaks(text: str, values: dict[str, bytes]) -> list[str]:
    """Which values appear in ``text``: raw, hex (either case) or base64, 8-byte windows."""
    found = []
    for name, value in values.items():
        for start in range(0, max(1, len(value) - 7)):
            window = value[start : start + 8]
            forms = {
                window.decode("latin-1"),
                window.hex(),
                window.hex().upper(),
                base64.b64encode(window).decode()[:8],
            }
            if any(form in text for form in forms):
                found.append(name)
                break
    return found


@pytest.mark.parametrize("group", tuple(CASES))
def test_every_family_is_covered(group):
    if group in ("single", "streaming"):
        assert {family for _, family, _ in CASES[group].values()} == FAMILIES
    primitives = [primitive for primitive, _, _ in CASES[group].values()]
    assert len(primitives) == len(set(primitives)), "a primitive caught once turns native"


@pytest.mark.parametrize("group", GROUPS)
def test_a_flipped_bit_is_caught_and_the_caller_gets_native(group, tmp_path):
    native, _ = _run_cases(group, "off", tmp_path)
    shadowed, stderr = _run_cases(group, "shadow", tmp_path, corrupt=True)
    assert shadowed["results"] == native["results"]
    primitives = {primitive for primitive, _, _ in CASES[group].values()}
    agent = shadowed["agent"]
    for primitive in primitives:
        entry = agent["primitives"][primitive]
        assert entry["outcome"] == registry.NOT_ACCELERATED, primitive
        assert entry["reason"].startswith("shadow mismatch ("), entry
    assert set(agent["shadow"]["mismatches"]) == primitives
    assert not agent["healthy"]
    lines = [line for line in stderr.splitlines() if "shadow mismatch" in line]
    named = []
    for line in lines:
        match = MISMATCH_LINE.match(line)
        assert match, line
        named.append(match["primitive"])
    assert sorted(named) == sorted(primitives)  # one line per primitive
    report = _report(tmp_path)
    for primitive in primitives:
        row = report["primitives"][primitive]
        assert row["mismatches"], primitive
        assert row["outcome"] == registry.NOT_ACCELERATED
        assert row["native_reason"].startswith("shadow mismatch (")
    secrets = dict(_secrets())
    for label, value in native["results"].items():
        if not value.startswith("raised") and value != "none":
            secrets["result of " + label] = bytes.fromhex(value)
    report_text = json.dumps(report)
    assert not _leaks(stderr, secrets)
    assert not _leaks(report_text, secrets)
    assert not _leaks(json.dumps(agent), secrets)


def _randomized_run(tmp_path: Path, corrupt: bool):
    shadowed, stderr = _run_cases("randomized", "shadow", tmp_path, corrupt=corrupt)
    with natively():
        refused = [
            label
            for label, value in shadowed["results"].items()
            if value.startswith("raised") or not verify_natively(label, bytes.fromhex(value))
        ]
    return shadowed, stderr, refused


def test_randomized_outputs_are_proved_not_skipped(tmp_path):
    """A PSS or random-k signature, an OAEP or PKCS#1 v1.5 ciphertext, a generated key: native
    verifies, decrypts or rebuilds the agent's. Each is a comparison, none is uncomparable."""
    shadowed, stderr, refused = _randomized_run(tmp_path, corrupt=False)
    assert refused == []
    assert shadowed["agent"]["shadow"]["mismatches"] == {} and shadowed["agent"]["healthy"]
    assert "shadow mismatch" not in stderr
    rows = _report(tmp_path)["primitives"]
    for primitive, _, _ in CASES["randomized"].values():
        assert rows[primitive]["comparisons"] >= 1, primitive
        assert rows[primitive]["uncomparable"] == 0, primitive


def test_a_flipped_bit_in_a_randomized_output_is_caught(tmp_path):
    """The hook flips a bit of the agent's signature or ciphertext, or of a generated key's
    private part: native's check refuses it, the caller gets native's (which native accepts),
    the primitive turns native, one data-free line each."""
    shadowed, stderr, refused = _randomized_run(tmp_path, corrupt=True)
    assert refused == []  # what the caller got is native's, and sound
    primitives = {primitive for primitive, _, _ in CASES["randomized"].values()}
    assert set(shadowed["agent"]["shadow"]["mismatches"]) == primitives
    for primitive in primitives:
        entry = shadowed["agent"]["primitives"][primitive]
        assert entry["outcome"] == registry.NOT_ACCELERATED, primitive
    named = [MISMATCH_LINE.match(line) for line in stderr.splitlines() if "mismatch" in line]
    assert all(named) and sorted(m["primitive"] for m in named) == sorted(primitives)
    secrets = dict(_secrets())
    for label, value in shadowed["results"].items():
        secrets["result of " + label] = bytes.fromhex(value)
    assert not _leaks(stderr, secrets)
    assert not _leaks(json.dumps(_report(tmp_path)), secrets)


@pytest.mark.parametrize("group", GROUPS)
def test_an_honest_provider_has_no_mismatch(group, tmp_path):
    native, _ = _run_cases(group, "off", tmp_path)
    shadowed, stderr = _run_cases(group, "shadow", tmp_path)
    assert shadowed["results"] == native["results"]
    assert shadowed["agent"]["shadow"]["mismatches"] == {}
    assert shadowed["agent"]["shadow"]["comparisons"] >= len(CASES[group])
    assert shadowed["agent"]["healthy"]
    assert "shadow mismatch" not in stderr
    report = _report(tmp_path)
    compared = sum(row["comparisons"] for row in report["primitives"].values())
    assert compared == shadowed["agent"]["shadow"]["comparisons"]


def test_the_hook_is_refused_in_a_process_outside_pytest(tmp_path):
    env = clean_environment(
        ACCEL_AGENT="shadow",
        ACCEL_AGENT_SHADOW_RATE="1",
        ACCEL_AGENT_TEST_HOOKS="1",
        ACCEL_AGENT_TEST_CORRUPT="sha256",
        PYTEST_CURRENT_TEST="",
    )
    code = (
        "import hashlib; from Crypto.Hash import SHA256\n"
        "assert SHA256.new(b'abc').digest() == hashlib.sha256(b'abc').digest()\n"
        "import accel_agent; print(accel_agent.status(resolve=False)['shadow']['mismatches'])\n"
    )
    result = run_python("-c", code, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "{}"
    assert "the corruption hook needs ACCEL_AGENT_TEST_HOOKS=1" in result.stderr


def test_the_hook_needs_both_the_variable_and_a_running_test(monkeypatch):
    monkeypatch.delenv(shadow.ENV_TEST_HOOKS, raising=False)
    with pytest.raises(shadow.TestHookRefused):
        shadow.corrupt_for_tests("sha256")
    monkeypatch.setenv(shadow.ENV_TEST_HOOKS, "1")
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    with pytest.raises(shadow.TestHookRefused):
        shadow.corrupt_for_tests("sha256")
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "test_shadow.py::this (call)")
    shadow.corrupt_for_tests("sha256")
    shadow.corrupt_for_tests(None)
    shadow.corrupt_for_tests(None)  # stopping is always allowed


# --------------------------------------------------------------------------- in process


@pytest.fixture
def shadowed(agent_state, monkeypatch):
    """The agent active in this process, in shadow mode at rate 1; all put back after."""
    monkeypatch.setenv("ACCEL_AGENT_SHADOW_RATE", "1")
    monkeypatch.setenv(shadow.ENV_TEST_HOOKS, "1")
    savings.reset()
    activation.activate("shadow", exit_function=lambda code: None)
    try:
        yield
    finally:
        shadow.corrupt_for_tests(None)
        instrument.disable()
        savings.reset()


def test_objects_in_shadow_mode_look_native(shadowed):
    import copy

    from Crypto.Cipher import AES
    from Crypto.Cipher._mode_gcm import GcmMode
    from Crypto.Hash import SHA256

    h = SHA256.new(b"abc")
    assert getattr(type(h), "__accel_follower__", False)  # followed by a native twin
    assert isinstance(h, SHA256.SHA256Hash)
    assert type(h).__name__ == "SHA256Hash" and type(h).__module__ == "Crypto.Hash.SHA256"
    clone = h.copy()
    assert getattr(type(clone), "__accel_follower__", False)  # its twin is the twin's copy
    clone.update(b"d")
    assert clone.hexdigest() == SHA256.new(b"abcd").hexdigest()
    assert h.hexdigest() == SHA256.new(b"abc").hexdigest()
    cipher = AES.new(b"k" * 16, AES.MODE_GCM, nonce=b"n" * 12)
    assert getattr(type(cipher), "__accel_follower__", False)
    assert isinstance(cipher, GcmMode)
    assert type(cipher).__name__ == "GcmMode"
    assert repr(cipher).startswith("<Crypto.Cipher._mode_gcm.GcmMode object at")
    first = cipher.encrypt(b"x" * 20)
    shared = copy.copy(cipher)  # natively, a copy shares the original's state
    assert getattr(type(shared), "__accel_follower__", False)
    second = shared.encrypt(b"y" * 20)
    third = cipher.encrypt(b"z" * 20)
    instrument.disable()
    reference = AES.new(b"k" * 16, AES.MODE_GCM, nonce=b"n" * 12)
    expected = [reference.encrypt(data * 20) for data in (b"x", b"y", b"z")]
    assert [first, second, third] == expected
    with pytest.raises(TypeError):
        copy.deepcopy(cipher)  # as natively: the C state cannot be copied deeply
    assert savings.shadow_summary()["mismatches"] == {}


def test_a_drawn_nonce_is_given_to_the_twin(shadowed):
    from Crypto.Cipher import AES

    cipher = AES.new(b"k" * 16, AES.MODE_GCM)  # the nonce is drawn at random
    ciphertext, tag = cipher.encrypt_and_digest(b"data" * 10)
    opener = AES.new(b"k" * 16, AES.MODE_GCM, nonce=cipher.nonce)
    assert opener.decrypt_and_verify(ciphertext, tag) == b"data" * 10
    summary = accel_agent.status(resolve=False)["shadow"]
    assert summary["mismatches"] == {} and summary["comparisons"] >= 4


def test_output_buffers_that_alias_the_input_get_native_bytes(shadowed):
    from Crypto.Cipher import AES

    shadow.corrupt_for_tests("aes-ctr")
    buffer = bytearray(b"p" * 64)
    cipher = AES.new(b"k" * 16, AES.MODE_CTR, nonce=b"n" * 8)
    assert cipher.encrypt(buffer, output=buffer) is None
    cipher.encrypt(buffer[:16], output=memoryview(buffer)[:16])
    instrument.disable()
    reference = AES.new(b"k" * 16, AES.MODE_CTR, nonce=b"n" * 8)
    expected = bytearray(reference.encrypt(b"p" * 64))
    expected[:16] = reference.encrypt(bytes(expected[:16]))
    assert buffer == expected
    assert registry.choice("aes-ctr").provider_name == "native"


def test_a_mismatch_turns_later_calls_native(shadowed):
    from Crypto.Hash import SHA256

    shadow.corrupt_for_tests("sha256")
    SHA256.new(b"abc").digest()
    assert registry.choice("sha256").provider_name == "native"
    before = registry.calls().get("sha256", 0)
    h = SHA256.new(b"later")
    assert h.digest() == __import__("hashlib").sha256(b"later").digest()
    assert registry.calls().get("sha256", 0) == before  # served natively now
    assert "Crypto.Hash.SHA256" in type(h).__module__


def test_randomized_outputs_are_uncomparable_not_mismatches(shadowed):
    from Crypto.Cipher import PKCS1_OAEP
    from Crypto.PublicKey import RSA

    key = RSA.import_key((Path(__file__).parent / "fixtures" / "shadow_rsa_2048.pem").read_bytes())
    sealed = PKCS1_OAEP.new(key.public_key()).encrypt(b"secret")
    assert PKCS1_OAEP.new(key).decrypt(sealed) == b"secret"
    summary = savings.shadow_summary()
    assert summary["mismatches"] == {}
    assert summary["uncomparable"] >= 1


def _native(call):
    """What native pycryptodome does with ``call()``: ("returned", value) or ("raised", type)."""
    with natively():
        return _outcome(call)


def _outcome(call):
    try:
        return ("returned", call())
    except Exception as exc:  # noqa: BLE001 - the exception's type is the outcome
        return ("raised", type(exc))


def _ctr(aes):
    return aes.new(b"k" * 16, aes.MODE_CTR, nonce=b"n" * 8)


def test_an_input_beside_the_output_reaches_native_as_given(shadowed):
    """A strided view (of a buffer other than the output's) reaches native's side unchanged.

    Native refuses it (BufferError); a bytes copy, which it accepts, would
    make a mismatch of the agent's right answer and hand the caller a result.
    """
    from Crypto.Cipher import AES

    def call():
        backing = bytearray(range(64))
        return _ctr(AES).encrypt(memoryview(backing)[::2], output=bytearray(32))

    expected = _native(call)
    assert expected[0] == "raised"
    assert _outcome(call) == expected
    summary = savings.shadow_summary()
    assert summary["mismatches"] == {} and summary["comparisons"] >= 1
    assert registry.choice("aes-ctr").provider_name != "native"


def test_an_input_over_the_output_memory_another_way_is_not_comparable(shadowed):
    """An array built over the output's own bytes cannot be reproduced for native: uncomparable."""
    import ctypes

    from Crypto.Cipher import AES

    buffer = bytearray(b"p" * 32)
    # The output's memory through another exporter (a ctypes array): no view of the bytearray.
    alias = memoryview((ctypes.c_char * 32).from_buffer(buffer))
    assert _ctr(AES).encrypt(alias, output=buffer) is None
    alias.release()
    instrument.disable()
    assert buffer == _ctr(AES).encrypt(b"p" * 32)
    summary = savings.shadow_summary()
    assert summary["mismatches"] == {} and summary["uncomparable"] >= 1


def test_the_callers_own_code_is_not_run_twice(shadowed):
    """A decoder of the caller's runs once, as natively: native's side is not run with it."""
    ecdsa = pytest.importorskip("ecdsa")
    from ecdsa import util

    key = ecdsa.SigningKey.from_secret_exponent(12345, curve=ecdsa.NIST256p)
    digest = bytes(range(32))
    with_k = key.sign_digest(digest, sigencode=util.sigencode_string, k=777)
    seen = []

    def decoder(signature, order):
        seen.append(len(signature))
        return util.sigdecode_string(signature, order)

    before = savings.shadow_summary()["uncomparable"]
    assert key.verifying_key.verify_digest(with_k, digest, sigdecode=decoder) is True
    assert seen == [64]  # natively: one call
    summary = savings.shadow_summary()
    assert summary["mismatches"] == {}
    if registry.choice("ecdsa-p256").provider_name != "native":
        assert summary["uncomparable"] > before
    seen.clear()
    # The library's own decoder is no code of the caller's: compared as before.
    compared = summary["comparisons"]
    assert key.verifying_key.verify_digest(with_k, digest, sigdecode=util.sigdecode_string)
    if registry.choice("ecdsa-p256").provider_name != "native":
        assert savings.shadow_summary()["comparisons"] > compared


def test_a_nested_callback_is_the_callers_whatever_its_module(shadowed):
    """pycryptodome's own suite (in its package) hands OAEP a nested mask function that counts
    its calls: it is the caller's code, run as often as natively, not once more for native."""
    from Crypto.Cipher import PKCS1_OAEP
    from Crypto.PublicKey import RSA

    key = RSA.import_key((Path(__file__).parent / "fixtures" / "shadow_rsa_2048.pem").read_bytes())
    calls: list[int] = []

    def mask(seed, length):
        calls.append(length)
        return b"\x00" * length

    mask.__module__ = "Crypto.SelfTest.Cipher.test_pkcs1_oaep"  # where the suite's is defined

    def seal():
        calls.clear()
        PKCS1_OAEP.new(key.public_key(), mgfunc=mask).encrypt(b"secret")
        return len(calls)

    with natively():
        expected = seal()
    assert expected == 2
    assert seal() == expected
    assert savings.shadow_summary()["mismatches"] == {}


def test_a_broken_native_state_is_the_callers_under_shadow_mode_too(shadowed):
    """Native GcmMode, after a rejected multi-byte-item view mid-message, fails an assertion
    on every later call. The agent hands such a call, with the rest of the message, to a
    native twin in the object's state, which is left as broken: under shadow mode too the
    caller gets native's AssertionError, and no mismatch is counted."""
    from Crypto.Cipher import AES

    cipher = AES.new(bytes(16), AES.MODE_GCM, nonce=bytes(12))
    cipher.decrypt(bytes(32))
    with pytest.raises(ValueError):
        cipher.decrypt(memoryview(bytearray(48)).cast("H"))
    with pytest.raises(AssertionError):
        cipher.decrypt(bytes(16))
    summary = savings.shadow_summary()
    assert summary["mismatches"] == {}
    assert registry.choice("aes-gcm").provider_name != "native"


class _Buffer(bytearray):
    """A bytearray that a weak reference can watch."""


def _rejected_view_is_freed_at_once() -> bool:
    """Whether a rejected buffer is freed by its last reference going, with no collection."""
    import gc
    import weakref

    from Crypto.Cipher import AES

    buffer = _Buffer(48)
    watch = weakref.ref(buffer)
    cipher = AES.new(bytes(16), AES.MODE_GCM, nonce=bytes(12))
    cipher.decrypt(bytes(32))
    view = memoryview(buffer).cast("H")
    enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            cipher.decrypt(view)
        except ValueError:
            pass
        del view, buffer, cipher
        return watch() is None
    finally:
        if enabled:
            gc.enable()


def test_a_raised_error_leaves_no_cycle_over_the_callers_buffer(shadowed):
    """A kept exception's traceback holds the frames that keep it: shadow's outcomes once made
    such cycles over the caller's buffers, and a collection clearing a memoryview that C code
    still exported crashed the process (native GcmMode's rejected buffer). Natively the buffer
    goes with its last reference; so it does in shadow mode."""
    assert _rejected_view_is_freed_at_once()
    assert savings.shadow_summary()["comparisons"] >= 2
    with natively():
        assert _rejected_view_is_freed_at_once()


def test_one_function_under_two_names_stays_one(shadowed):
    """Natively Hash.RIPEMD's ``new`` is Hash.RIPEMD160's (imported from it): one wrapper."""
    from Crypto.Hash import RIPEMD, RIPEMD160

    with natively():
        assert RIPEMD.new is RIPEMD160.new
    assert getattr(RIPEMD160.new, "__accel_instrumented__", False)
    assert RIPEMD.new is RIPEMD160.new
    assert RIPEMD.new(b"abc").hexdigest() == "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"
    instrument.disable()
    assert RIPEMD.new is RIPEMD160.new
    assert not getattr(RIPEMD160.new, "__accel_instrumented__", False)


def test_an_attribute_the_caller_sets_ends_the_following(shadowed):
    """pycryptodome's suite sets ``_msg_len`` to start a GCM object near its limit: the twin
    cannot follow that, so the object goes on unobserved, answering as the agent's alone."""
    from Crypto.Cipher import AES, _mode_gcm

    limit = getattr(_mode_gcm, "_MAX_MSG_LEN", None)
    if limit is None:
        pytest.skip("this pycryptodome has no GCM message limit to start near")

    def near_the_limit():
        cipher = AES.new(bytes(16), AES.MODE_GCM, nonce=bytes(12))
        cipher._msg_len = limit - 1
        calls = (bytes(2), bytes(1), bytes(1))
        return [_outcome(lambda data=data: cipher.encrypt(data)) for data in calls]

    expected = _native(near_the_limit)[1]
    assert [kind for kind, _ in expected] == ["raised", "returned", "raised"]
    assert near_the_limit() == expected
    summary = savings.shadow_summary()
    assert summary["mismatches"] == {} and summary["uncomparable"] >= 1


def test_threads_sharing_a_followed_object_are_no_mismatch(shadowed):
    """pycryptodome's suite hammers one hash object from 8 threads (undefined results, but no
    crash): the twin sees the calls in the object's order, so no race passes for a mismatch."""
    import threading

    from Crypto.Hash import SHA256

    shared = SHA256.new()
    assert getattr(type(shared), "__accel_follower__", False)

    def hammer(index):
        for step in range(400):
            if step % 10:
                shared.update(bytes(range(index + step % 50)))
            else:
                shared.digest()

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert savings.shadow_summary()["mismatches"] == {}
    assert registry.choice("sha256").provider_name != "native"


def test_off_by_default_nothing_is_wrapped(agent_state):
    activation.activate("quiet")
    from accel_agent import patching

    for module_name, names in patching.patched_names().items():
        module = __import__("sys").modules[module_name]
        for name in names:
            value = patching.current_value(module, name)
            assert not getattr(value, "__accel_instrumented__", False), (module_name, name)
    assert instrument._on_patch not in patching.patch_listeners


def test_with_both_off_nothing_of_shadow_or_report_is_imported():
    code = (
        "import sys\n"
        "from Crypto.Cipher import AES\n"
        "from Crypto.Hash import SHA256\n"
        "AES.new(b'k' * 16, AES.MODE_GCM, nonce=b'n' * 12).encrypt_and_digest(b'x')\n"
        "SHA256.new(b'x').digest()\n"
        "names = ('accel_agent.instrument', 'accel_agent.shadow', 'accel_agent.savings')\n"
        "print([name for name in names if name in sys.modules])\n"
    )
    result = run_python("-c", code, env=clean_environment(ACCEL_AGENT="quiet"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


_SAMPLED = """
import random
random.seed(1)
from Crypto.Hash import SHA256
import accel_agent
for i in range(300):
    SHA256.new(b"x").digest()
print(random.random(), accel_agent.status(resolve=False)["shadow"]["comparisons"])
"""


def _sampled_run(**env: str) -> tuple[str, int]:
    result = run_python("-c", _SAMPLED, env=clean_environment(**env))
    assert result.returncode == 0, result.stderr
    drawn, comparisons = result.stdout.split()
    return drawn, int(comparisons)


def test_sampling_leaves_the_programs_random_alone_and_repeats_under_a_seed():
    """Shadow mode draws from a generator of its own: a seeded program's random numbers are
    native's. ACCEL_AGENT_SHADOW_SEED makes a run sample the same calls again."""
    native, _ = _sampled_run(ACCEL_AGENT="off")
    seeded = dict(ACCEL_AGENT="shadow", ACCEL_AGENT_SHADOW_RATE="0.2", ACCEL_AGENT_SHADOW_SEED="7")
    first, second = _sampled_run(**seeded), _sampled_run(**seeded)
    other = _sampled_run(**dict(seeded, ACCEL_AGENT_SHADOW_SEED="8"))
    assert first[0] == second[0] == other[0] == native
    assert first[1] == second[1]
    assert 0 < first[1] < 600 and other[1] != first[1]


def test_a_seed_that_is_no_integer_is_said_and_ignored():
    result = run_python(
        "-c",
        _SAMPLED,
        env=clean_environment(
            ACCEL_AGENT="shadow", ACCEL_AGENT_SHADOW_RATE="0.2", ACCEL_AGENT_SHADOW_SEED="x"
        ),
    )
    assert result.returncode == 0
    assert "ACCEL_AGENT_SHADOW_SEED: 'x' is not an integer; sampling unseeded" in result.stderr


def test_pyaes_state_is_compared_and_a_mismatch_gives_the_object_natives_state(shadowed):
    """pyaes's native is its own code, run on a copy of the object: the state after the call
    is compared too, and on a mismatch the caller's object (and the feeder's mode it holds)
    takes native's state, so its next call goes on as natively."""
    pyaes = pytest.importorskip("pyaes")

    def stream():
        mode = pyaes.AESModeOfOperationCBC(b"k" * 16, iv=b"i" * 16)
        feeder = pyaes.Encrypter(mode)
        out = feeder.feed(b"a" * 40)
        shadow.corrupt_for_tests("aes-cbc")
        out += feeder.feed(b"b" * 40)
        shadow.corrupt_for_tests(None)
        return out + feeder.feed() + mode.encrypt(b"c" * 16)

    got = stream()
    assert set(savings.shadow_summary()["mismatches"]) == {"aes-cbc"}
    instrument.disable()
    with natively():
        assert got == stream()


def test_proving_a_signature_leaves_the_programs_call_counts_alone(shadowed):
    """The agent's own verify of its PSS signature is shadow mode's, not the program's: the
    registry counts one call, as with shadow mode off."""
    from Crypto.Hash import SHA256
    from Crypto.PublicKey import RSA
    from Crypto.Signature import pss

    key = RSA.import_key((Path(__file__).parent / "fixtures" / "shadow_rsa_2048.pem").read_bytes())
    signer = pss.new(key)
    before = registry.calls().get("rsa-pss", 0)
    signature = signer.sign(SHA256.new(b"counted"))
    if registry.choice("rsa-pss").provider_name == "native":
        pytest.skip("rsa-pss is native here: nothing of the agent's to prove")
    assert registry.calls()["rsa-pss"] - before == 1
    assert savings.shadow_summary()["comparisons"] >= 1
    assert savings.shadow_summary()["mismatches"] == {}
    with natively():
        pss.new(key.public_key()).verify(SHA256.new(b"counted"), signature)
