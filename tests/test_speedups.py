"""The compiled fast path (``accel_agent._speedups``) and its pure-Python twin.

What these tests hold it to (docs/per-call-cost.md, "The compiled fast path"):

* it is built wherever a C compiler and Python's headers are found (a wheel
  that silently lost it would pass every other test, slower);
* each compiled function gives what its pure-Python equivalent in
  ``accel_agent.speedups`` gives, errors included, and never changes an
  object someone else holds (``seal_split`` cuts a result short in place
  only when it holds the sole reference);
* the fronts it installs (``AES.new``, a hash module's ``new``) keep the
  native function's name and wrapped original, count the calls they serve,
  stop serving when the registry forgets its choice, and leak no reference;
* with ``ACCEL_AGENT_SPEEDUPS=off`` (and so on a machine without a
  compiler) the pure-Python paths give native pycryptodome's results.

Whole-API correctness against native pycryptodome is the differential,
Wycheproof and suite tests' work; they run on the compiled path.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
import textwrap

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_agent import registry, speedups
from helpers import REPO, clean_environment, run_python
from transparency_helpers import ensure_agent, import_from, require_acceleration, with_flavours


def _compiler_and_headers() -> tuple[bool, str]:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = os.path.join(sysconfig.get_paths()["include"], "Python.h")
    if shutil.which(compiler) is None:
        return False, "no C compiler (%s) on PATH" % compiler
    if not os.path.exists(headers):
        return False, "no Python headers (%s)" % headers
    return True, ""


def needs_compiled(test):
    return pytest.mark.skipif(
        not speedups.COMPILED, reason="the C fast path is not built here: %s" % speedups.describe()
    )(test)


def test_the_fast_path_is_compiled_where_it_can_be():
    can_build, why_not = _compiler_and_headers()
    if not can_build:
        pytest.skip("the wheel is pure Python here: %s" % why_not)
    assert speedups.COMPILED, speedups.describe()
    assert speedups.describe() == "compiled (accel_agent._speedups)"


def test_a_machine_without_a_compiler_gets_a_pure_wheel_unless_required(tmp_path):
    def build(choice: str, into: str):
        environment = clean_environment(CC="/nonexistent/cc", ACCEL_AGENT_BUILD_SPEEDUPS=choice)
        command = ["-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path / into, REPO]
        return run_python(*command, env=environment, timeout=300)

    tried = build("try", "try")
    assert tried.returncode == 0, tried.stderr
    (wheel,) = (tmp_path / "try").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")  # pure Python, for any interpreter
    required = build("require", "require")
    assert required.returncode != 0 and not list((tmp_path / "require").glob("*.whl"))


# --------------------------------------------------------------------------- AEAD helpers

AEADS = {"aes-128-gcm": (AESGCM, 16), "aes-256-gcm": (AESGCM, 32), "chacha": (ChaCha20Poly1305, 32)}


def _outcome(function, *args):
    try:
        return ("returned", function(*args))
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(exc), str(exc))


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(
    aead=st.sampled_from(sorted(AEADS)),
    data=st.one_of(st.binary(max_size=2048), st.integers(0, 70_000).map(os.urandom)),
    aad=st.one_of(st.none(), st.binary(max_size=64)),
    mac_len=st.integers(4, 16),
)
def test_seal_split_and_open_joined_match_their_python_twins(aead, data, aad, mac_len):
    cls, key_size = AEADS[aead]
    box = cls(os.urandom(key_size))
    nonce = os.urandom(12)
    compiled_pair = speedups._speedups.seal_split(box.encrypt, nonce, data, aad, mac_len)
    python_pair = speedups._seal_split(box.encrypt, nonce, data, aad, mac_len)
    assert compiled_pair == python_pair
    assert [type(part) for part in compiled_pair] == [bytes, bytes]
    sealed = box.encrypt(nonce, data, aad)
    assert compiled_pair[0] + compiled_pair[1] == sealed[: len(data) + mac_len]
    full_tag = speedups._seal_split(box.encrypt, nonce, data, aad, 16)[1]
    opened = [
        _outcome(join, box.decrypt, nonce, compiled_pair[0], tag, aad)
        for join in (speedups._speedups.open_joined, speedups._open_joined)
        for tag in (full_tag, bytes(16))
    ]
    assert opened[0] == opened[2] == ("returned", data)
    assert opened[1][:2] == opened[3][:2] and opened[1][0] == "raised"  # InvalidTag, both


@needs_compiled
def test_seal_split_never_changes_a_result_someone_else_holds():
    box = AESGCM(os.urandom(16))
    kept = []

    def encrypt_and_keep(nonce, data, aad):
        sealed = box.encrypt(nonce, data, aad)
        kept.append(sealed)  # a second reference: cutting it in place would show here
        return sealed

    nonce, data = os.urandom(12), os.urandom(1000)
    ct, tag = speedups._speedups.seal_split(encrypt_and_keep, nonce, data, None, 16)
    assert kept[0] == box.encrypt(nonce, data, None) and len(kept[0]) == 1016
    assert ct + tag == kept[0] and ct is not kept[0]


@needs_compiled
@pytest.mark.parametrize(
    ("encrypt", "mac_len", "error"),
    [
        (lambda nonce, data, aad: b"short", 16, TypeError),  # no room for a tag
        (lambda nonce, data, aad: bytearray(32), 16, TypeError),  # not bytes
        (lambda nonce, data, aad: bytes(32), 0, ValueError),
        (lambda nonce, data, aad: bytes(32), 17, ValueError),
        (lambda nonce, data, aad: 1 / 0, 16, ZeroDivisionError),  # raised inside: passed on
    ],
)
def test_seal_split_refuses_what_is_not_ct_and_tag(encrypt, mac_len, error):
    with pytest.raises(error):
        speedups._speedups.seal_split(encrypt, b"n" * 12, b"", None, mac_len)


@needs_compiled
def test_open_joined_takes_bytes_only():
    box = AESGCM(os.urandom(16))
    with pytest.raises(TypeError):
        speedups._speedups.open_joined(box.decrypt, b"n" * 12, bytearray(16), bytes(16), None)
    with pytest.raises(TypeError):
        speedups._speedups.seal_split(box.encrypt, b"n" * 12)


@needs_compiled
@pytest.mark.parametrize("size", [0, 1000, 65535, 65536, 65537, 300_000, 1 << 20])
@pytest.mark.parametrize("mode", ["ctr", "gcm-decrypt", "cbc"])
def test_stream_update_matches_update(size, mode):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key, iv = os.urandom(16), os.urandom(16)
    size -= size % 16 if mode == "cbc" else 0
    make = {
        "ctr": lambda: Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor(),
        "gcm-decrypt": lambda: Cipher(algorithms.AES(key), modes.GCM(iv[:12])).decryptor(),
        "cbc": lambda: Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor(),
    }[mode]
    data = os.urandom(size)
    compiled_context, python_context = make(), make()
    for chunk in (data, data[: size // 2], b"", data):  # a stream goes on where it was
        result = speedups._speedups.stream_update(compiled_context, chunk)
        assert type(result) is bytes
        assert result == speedups._stream_update(python_context, chunk)


class _ReenteringEcb:
    """An ECB context that fails once, or calls back into the stream it serves, then works."""

    def __init__(self, key: bytes, behaviour: str) -> None:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        self._real = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        self.behaviour = behaviour
        self.stream = None
        self.inner = None

    def _misbehave(self) -> None:
        behaviour, self.behaviour = self.behaviour, None
        if behaviour == "raise":
            raise ValueError("from the context")
        if behaviour == "reenter":
            try:
                self.stream.update(bytes(3))
            except RuntimeError as exc:
                self.inner = exc

    def update(self, data):
        self._misbehave()
        return self._real.update(data)

    def update_into(self, data, buf):
        self._misbehave()
        return self._real.update_into(data, buf)


def _counter_stream_classes() -> list:
    return [speedups._CounterStream] + ([speedups.CounterStream] if speedups.COMPILED else [])


@pytest.mark.parametrize("stream_class", _counter_stream_classes(), ids=lambda c: c.__module__)
@pytest.mark.parametrize("size", [5, 100, 8192, 20000])
def test_counter_stream_is_unchanged_by_a_failed_call_and_refuses_a_second_caller(
    stream_class, size
):
    """A context's error leaves the key stream where it was; a caller from inside is refused.

    The refusal is pyca/cryptography's own for a busy context ("Already
    borrowed"), which the targets wait on (providers/contexts.py).
    """
    key, block = os.urandom(16), os.urandom(16)
    reference = stream_class(_ReenteringEcb(key, None), block, 4, 8, True)
    failing = stream_class(_ReenteringEcb(key, "raise"), block, 4, 8, True)
    data = os.urandom(size)
    with pytest.raises(ValueError, match="from the context"):
        failing.update(data)
    assert failing.update(data) == reference.update(data)
    context = _ReenteringEcb(key, "reenter")
    reentered = stream_class(context, block, 4, 8, True)
    context.stream = reentered
    fresh = stream_class(_ReenteringEcb(key, None), block, 4, 8, True)
    assert reentered.update(data) == fresh.update(data)
    assert type(context.inner) is RuntimeError and "borrowed" in str(context.inner)


@needs_compiled
@pytest.mark.parametrize(
    "block, offset, counter_len",
    [(b"", 0, 1), (bytes(33), 0, 1), (bytes(16), 0, 0), (bytes(16), 10, 7), (bytes(16), -1, 2)],
)
def test_counter_stream_refuses_a_counter_outside_its_block(block, offset, counter_len):
    with pytest.raises(ValueError, match="no counter field"):
        speedups.CounterStream(object(), block, offset, counter_len, False)


class _FakeContext:
    """A streaming context whose update_into misbehaves in a chosen way."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.kept = None

    def update(self, data):
        return b"update:" + bytes(data[:4])

    def update_into(self, data, buf):
        if self.behaviour == "raise":
            raise ValueError("from update_into")
        if self.behaviour == "keep":
            self.kept = memoryview(buf)  # an export of the buffer outlives the call
            return 0
        if self.behaviour == "overflow":
            return len(memoryview(buf)) + 1
        if self.behaviour == "keep-object":
            self.kept = buf  # the object outlives the call, but no buffer of it
        with memoryview(buf) as view:  # as pyca/cryptography: a buffer for the call only
            view[: len(data)] = data
        return len(data)


@needs_compiled
def test_stream_update_never_returns_bytes_someone_can_still_write():
    data = os.urandom(speedups.STREAM_UPDATE_FROM)
    assert speedups._speedups.stream_update(_FakeContext("copy"), data) == data
    short = speedups._speedups.stream_update(_FakeContext("copy"), data[:10])
    assert short == b"update:" + data[:4]
    assert speedups._speedups.stream_update(_FakeContext("copy"), bytearray(data)).startswith(
        b"update:"
    )  # not bytes: update() itself
    with pytest.raises(ValueError, match="from update_into"):
        speedups._speedups.stream_update(_FakeContext("raise"), data)
    with pytest.raises(ValueError, match="wrote past its buffer"):
        speedups._speedups.stream_update(_FakeContext("overflow"), data)
    keeper = _FakeContext("keep")
    with pytest.raises(BufferError):  # the view is still exported: nothing is returned
        speedups._speedups.stream_update(keeper, data)
    keeper.kept[:4] = b"safe"  # the storage is kept alive (deliberately never freed)
    keeper.kept.release()
    keeper = _FakeContext("keep-object")
    assert speedups._speedups.stream_update(keeper, data) == data
    with pytest.raises(BufferError):  # closed: it gives no buffer on the returned bytes
        memoryview(keeper.kept)


# --------------------------------------------------------------------------- the fronts


@needs_compiled
@with_flavours
def test_gcm_objects_have_one_layout_whichever_path_made_them(flavour):
    """The compiled AES.new, the Python one and GcmCipher() lay a fresh object out alike."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-gcm")
    from accel_agent.targets.pycryptodome._aes_gcm import FRESH_FIELDS, GcmCipher

    key, nonce = bytes(16), bytes(12)
    compiled = aes.new(key, aes.MODE_GCM, nonce=nonce)
    python = aes.new.fallback(key, aes.MODE_GCM, nonce=nonce)
    direct = GcmCipher(compiled._backing, compiled._provider, key, nonce)
    for cipher in (compiled, python, direct):
        assert type(cipher) is GcmCipher
        assert tuple(vars(cipher)) == FRESH_FIELDS
        assert vars(cipher)["_one_shot"] == [16] and cipher.nonce is nonce
    assert compiled._backing is python._backing and compiled._provider is python._provider
    assert compiled.encrypt_and_digest(b"data") == python.encrypt_and_digest(b"data")


@needs_compiled
@with_flavours
def test_ccm_objects_have_one_layout_whichever_path_made_them(flavour):
    """The compiled AES.new, the builder's flat path and its general path lay CCM out alike."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-ccm")
    from accel_agent.targets.pycryptodome._aes_ccm import FRESH_FIELDS, CcmCipher

    key, nonce = bytes(16), bytes(11)
    aes.new.fallback(key, aes.MODE_CCM, nonce=nonce)  # loads CCM's code: the front serves it
    compiled = aes.new(key, aes.MODE_CCM, nonce=nonce)
    again = aes.new(key, aes.MODE_CCM, nonce=nonce)
    flat = aes.new.fallback(key, aes.MODE_CCM, nonce=nonce)
    general = aes.new(key, aes.MODE_CCM, nonce=nonce, mac_len=16)
    for cipher in (compiled, flat, general):
        assert type(cipher) is CcmCipher
        assert tuple(vars(cipher)) == FRESH_FIELDS
        assert cipher.nonce is nonce and cipher._mac_len == 16
        assert cipher._msg_len is cipher._assoc_len is None
    assert compiled._native_kwargs == flat._native_kwargs == {"nonce": nonce}
    assert general._native_kwargs == {"nonce": nonce, "mac_len": 16}
    assert compiled._native_kwargs is not again._native_kwargs  # new()'s own, per call
    assert compiled._backing is flat._backing and compiled._provider is flat._provider
    sealed = compiled.update(b"aad").encrypt_and_digest(b"data")
    assert sealed == flat.update(b"aad").encrypt_and_digest(b"data")
    assert general.update(b"aad").encrypt_and_digest(b"data") == sealed


def _python_calls(function, *args, **kwargs):
    """``function(...)``'s result and the names of the Python functions it ran."""
    called = []

    def profile(frame, event, arg):
        if event == "call":
            called.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        result = function(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return result, called


def _counter_slots(cipher) -> dict:
    from accel_agent.targets.pycryptodome._block_modes import CounterBlock

    return {name: getattr(cipher._counter, name) for name in CounterBlock.__slots__}


@needs_compiled
@with_flavours
@pytest.mark.parametrize("nonce_size", [0, 1, 8, 12, 15])
def test_ctr_objects_have_one_layout_whichever_path_made_them(flavour, nonce_size):
    """The compiled AES.new (no Python run), the Python one and CtrCipher() lay CTR out alike."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-ctr")
    from accel_agent.targets.pycryptodome._block_modes import CTR_FRESH_FIELDS, CounterBlock

    key, nonce = os.urandom(16), os.urandom(nonce_size)
    aes.new.fallback(key, aes.MODE_CTR, nonce=nonce)  # the slot resolved
    compiled, called = _python_calls(aes.new, key, aes.MODE_CTR, nonce=nonce)
    assert called == []
    python = aes.new.fallback(key, aes.MODE_CTR, nonce=nonce)
    counter = CounterBlock(nonce, 16 - nonce_size)
    direct = type(compiled)(compiled._backing, compiled._provider, key, counter)
    for cipher in (compiled, python, direct):
        assert type(cipher) is type(python)
        assert tuple(vars(cipher)) == CTR_FRESH_FIELDS
        assert [vars(cipher)[name] for name in CTR_FRESH_FIELDS if name != "_counter"] == [
            vars(python)[name] for name in CTR_FRESH_FIELDS if name != "_counter"
        ]
        assert _counter_slots(cipher) == _counter_slots(python)
        assert cipher.nonce is nonce and cipher._counter.prefix is nonce
    assert compiled._counter is not aes.new(key, aes.MODE_CTR, nonce=nonce)._counter
    data = os.urandom(100)
    expected = aes.new.__wrapped__(key, aes.MODE_CTR, nonce=nonce).encrypt(data)
    assert compiled.encrypt(data) == python.encrypt(data) == direct.encrypt(data) == expected


@needs_compiled
@with_flavours
@pytest.mark.parametrize("mode_name", ["MODE_KW", "MODE_KWP"])
def test_key_wrap_objects_have_one_layout_whichever_path_made_them(flavour, mode_name):
    """``AES.new(key, mode)``, no keyword: the compiled front makes the builder's object."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    if not hasattr(aes, mode_name):
        pytest.skip("this pycryptodome has no %s" % mode_name)
    require_acceleration("aes-kw" if mode_name == "MODE_KW" else "aes-kwp")
    from accel_agent.targets.pycryptodome._aes_kw import FRESH_FIELDS

    key, mode, data = os.urandom(24), getattr(aes, mode_name), os.urandom(32)
    aes.new.fallback(key, mode)  # loads the key wraps' code: the front serves them
    compiled, called = _python_calls(aes.new, key, mode)
    assert called == []
    python = aes.new.fallback(key, mode)
    for cipher in (compiled, python):
        assert type(cipher) is type(python) and tuple(vars(cipher)) == FRESH_FIELDS
        assert cipher._done is False and cipher._key is key
    assert compiled._backing is python._backing and compiled._provider is python._provider
    wrapped = aes.new.__wrapped__(key, mode).seal(data)
    assert compiled.seal(data) == python.seal(data) == wrapped
    assert aes.new(key, mode).unseal(wrapped) == data


@needs_compiled
@with_flavours
@pytest.mark.parametrize("mode_name", ["MODE_ECB", "MODE_CBC", "MODE_OFB"])
def test_classic_objects_have_one_layout_whichever_path_made_them(flavour, mode_name):
    """``AES.new(key, AES.MODE_ECB)`` and ``AES.new(key, mode, iv=iv)`` (CBC, OFB): the
    compiled front (no Python run) makes the builder's object, a ciphertext tail of its own."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    mode = getattr(aes, mode_name)
    require_acceleration("aes-" + mode_name[5:].lower())
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(64)
    kwargs = {} if mode_name == "MODE_ECB" else {"iv": iv}
    aes.new.fallback(key, mode, **kwargs)  # the slot resolved
    compiled, called = _python_calls(aes.new, key, mode, **kwargs)
    assert called == []
    python = aes.new.fallback(key, mode, **kwargs)
    assert type(compiled) is type(python)
    assert list(vars(compiled)) == list(vars(python))
    for name, value in vars(python).items():
        made = vars(compiled)[name]
        if name == "_ciphertext_tail":  # an object per message, holding the IV
            assert made is not python._ciphertext_tail and type(made) is type(value)
            assert made._data is iv and value._data is iv
            assert made is not aes.new(key, mode, **kwargs)._ciphertext_tail
        else:
            assert made is value or (name in ("iv", "IV") and made is iv), name
    expected = aes.new.__wrapped__(key, mode, **kwargs).encrypt(data)
    assert compiled.encrypt(data) == python.encrypt(data) == expected
    if mode_name != "MODE_ECB":  # the chaining state: a second message continues it
        follow = aes.new.__wrapped__(key, mode, **kwargs)
        follow.encrypt(data)
        assert compiled.encrypt(data) == follow.encrypt(data)


@needs_compiled
@with_flavours
@pytest.mark.parametrize("nonce_size", [12, 15])
def test_ocb_objects_have_one_layout_whichever_path_made_them(flavour, nonce_size):
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-ocb")
    from accel_agent.targets.pycryptodome._aes_ocb import FRESH_FIELDS, OcbCipher

    key, nonce = os.urandom(16), os.urandom(nonce_size)
    aes.new.fallback(key, aes.MODE_OCB, nonce=nonce)  # loads OCB's code
    compiled, called = _python_calls(aes.new, key, aes.MODE_OCB, nonce=nonce)
    assert called == []
    flat = aes.new.fallback(key, aes.MODE_OCB, nonce=nonce)
    general = aes.new(key, aes.MODE_OCB, nonce=nonce, mac_len=16)
    for cipher in (compiled, flat, general):
        assert type(cipher) is OcbCipher and tuple(vars(cipher)) == FRESH_FIELDS
        assert cipher.nonce is nonce
    sealed = compiled.update(b"aad").encrypt_and_digest(b"data")
    native = aes.new.__wrapped__(key, aes.MODE_OCB, nonce=nonce)
    assert sealed == flat.update(b"aad").encrypt_and_digest(b"data")
    assert sealed == native.update(b"aad").encrypt_and_digest(b"data")


@with_flavours
def test_siv_objects_have_one_layout_whichever_path_made_them(flavour):
    """The builder's flat path (bytes nonce) and its general one make the same object."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-siv")
    from accel_agent.targets.pycryptodome._aes_siv import FRESH_FIELDS, SivCipher

    key, nonce = os.urandom(32), os.urandom(16)
    flat = aes.new(key, aes.MODE_SIV, nonce=nonce)
    general = aes.new(key, aes.MODE_SIV, nonce=bytearray(nonce), use_aesni=True)
    for cipher in (flat, general):
        assert isinstance(cipher, SivCipher) and tuple(vars(cipher)) == FRESH_FIELDS
        assert cipher.nonce == nonce
    native = aes.new.__wrapped__(key, aes.MODE_SIV, nonce=nonce)
    for cipher in (flat, general, native):
        cipher.update(b"aad")
    sealed = flat.encrypt_and_digest(b"data")
    assert sealed == general.encrypt_and_digest(b"data") == native.encrypt_and_digest(b"data")


@needs_compiled
@with_flavours
def test_the_aes_front_leaves_other_shapes_to_python(flavour):
    """Shapes no table entry serves run the Python new (and so native's checks and errors)."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-ctr")
    key = os.urandom(16)
    aes.new.fallback(key, aes.MODE_OCB, nonce=bytes(12))  # the later modes' shapes added
    calls = [
        ((key, aes.MODE_CTR), {"nonce": bytearray(8)}),  # not bytes
        ((key, aes.MODE_CTR), {"nonce": bytes(8), "initial_value": 1}),
        ((key, aes.MODE_CTR), {"counter": None}),  # native's error
        ((key, aes.MODE_CTR), {"nonce": bytes(16)}),  # too long: native's error
        ((key, aes.MODE_CTR), {}),  # a random nonce
        ((key, aes.MODE_OCB), {"nonce": bytes(11)}),  # a size AESOCB3 does not take
        ((key, aes.MODE_OCB), {"iv": bytes(12)}),
        ((bytearray(key), aes.MODE_OCB), {"nonce": bytes(12)}),
        ((key[:15], aes.MODE_CTR), {"nonce": bytes(8)}),
        ((key, True), {"nonce": bytes(8)}),
        ((key, 2**70), {"nonce": bytes(8)}),
        ((key, aes.MODE_CTR, bytes(8)), {}),
        ((key, aes.MODE_ECB), {"use_aesni": True}),
        ((key, aes.MODE_ECB), {"nonce": bytes(8)}),  # native's error
        ((key, aes.MODE_CBC), {"IV": bytes(16)}),  # another spelling
        ((key, aes.MODE_CBC), {"iv": bytearray(16)}),  # not bytes
        ((key, aes.MODE_CBC), {"iv": bytes(15)}),  # native's error
        ((key, aes.MODE_CBC, bytes(16)), {}),  # positional
        ((key, aes.MODE_CBC), {"nonce": bytes(16)}),  # native's error
        ((key, aes.MODE_CBC), {}),  # a random IV
        ((key, aes.MODE_OFB), {"iv": bytes(17)}),
        ((key, aes.MODE_CFB), {"iv": bytes(16)}),  # CFB stays with its builder
        ((key, aes.MODE_GCM), {}),  # a random nonce
        ((key, aes.MODE_GCM), {"iv": bytes(12)}),  # native's error
    ]
    if not hasattr(aes, "MODE_KW"):  # 3.x: no key wrap, and native's error for its number
        calls += [((key, 13), {}), ((key, 14), {})]
    for args, kwargs in calls:
        result, called = _python_calls(_new_outcome, aes.new, args, kwargs)
        assert "new" in called, (args, kwargs)
        assert result == _new_outcome(aes.new.__wrapped__, args, kwargs), (args, kwargs)


def _new_outcome(new, args: tuple, kwargs: dict) -> tuple:
    try:
        return ("made", type(new(*args, **kwargs)).__name__)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(exc), str(exc))


class _Slot:
    def __init__(self, provider):
        self.provider = provider


class _Made:
    pass


class _Counter:
    __slots__ = ("prefix", "length")


def _bare_front(fallback=None):
    """A GcmNew of its own, its GCM shape never met (mode 99)."""
    unresolved = object()
    front = speedups._speedups.GcmNew(
        _Made, ("a", "b", "c", "d", "e"), None, _Slot(None), unresolved,
        fallback or (lambda *args, **kwargs: ("fallback", args, kwargs)),
        mode=99, key_sizes=(16,), nonce_min=1, nonce_max=2,
    )  # fmt: skip
    return front, unresolved


@needs_compiled
def test_added_shapes_fill_their_values_per_nonce_size_and_call():
    front, unresolved = _bare_front()
    provider, key = object(), bytes(16)
    counter = speedups.fresh(_Counter, ("prefix", "length"), (speedups.NONCE, 0))
    speedups.add_shape(
        front, 6, _Made, ("p", "k", "n", "kw", "counter", "size"),
        lambda size: (speedups.PROVIDER, speedups.KEY, speedups.NONCE, speedups.KEYWORDS,
                      counter, size),
        _Slot(provider), range(0, 3),
    )  # fmt: skip
    speedups.add_shape(front, 13, _Made, ("p", "done"), (speedups.PROVIDER, False), _Slot(provider))
    for size in range(3):
        nonce = os.urandom(size)
        made = front(key, 6, nonce=nonce)
        assert tuple(vars(made)) == ("p", "k", "n", "kw", "counter", "size")
        assert made.p is provider and made.k is key and made.n is nonce and made.size == size
        assert made.kw == {"nonce": nonce} and made.counter.prefix is nonce
        assert made.counter.length == 0
    assert front(key, 6, nonce=bytes(3))[0] == "fallback"  # a size not added
    assert front(key, 6)[0] == "fallback"  # no keyword: another shape
    assert front(key, 6, iv=bytes(2))[0] == "fallback"
    made = front(key, 13)
    assert vars(made) == {"p": provider, "done": False}
    assert front(key, 13, nonce=bytes(1))[0] == "fallback"
    assert front(bytes(15), 13)[0] == "fallback"  # a key size the front does not take
    # the first shape of a mode stays
    speedups.add_shape(front, 13, _Made, ("other",), (1,), _Slot(provider))
    assert vars(front(key, 13)) == {"p": provider, "done": False}
    # a slot not (or no longer) resolved: the fallback
    slot = _Slot(unresolved)
    speedups.add_shape(front, 14, _Made, ("p",), (speedups.PROVIDER,), slot)
    assert front(key, 14)[0] == "fallback"
    slot.provider = None
    assert front(key, 14)[0] == "fallback"
    slot.provider = provider
    assert front(key, 14).p is provider
    # a shape whose keyword is iv= (CBC, OFB): that keyword only, and {"iv": iv} as KEYWORDS
    speedups.add_shape(
        front, 2, _Made, ("n", "kw"), (speedups.NONCE, speedups.KEYWORDS), _Slot(provider),
        range(16, 17), keyword="iv",
    )  # fmt: skip
    iv = os.urandom(16)
    made = front(key, 2, iv=iv)
    assert made.n is iv and made.kw == {"iv": iv}
    assert front(key, 2, nonce=iv)[0] == "fallback"
    assert front(key, 2, IV=iv)[0] == "fallback"
    assert front(key, 6, iv=bytes(1))[0] == "fallback"  # a nonce= shape: not with iv=


@needs_compiled
@pytest.mark.parametrize(
    ("fields", "values", "nonce_sizes"),
    [
        (("a", "b"), (1,), None),  # values shorter than fields
        (("a",), (speedups.NONCE,), None),  # no nonce to put there
        (("a",), (speedups.KEYWORDS,), None),
        (("a", 2), (1, 2), None),  # a name that is no string
        (("a",), (speedups.fresh(_Counter, ("prefix",), (speedups.fresh(_Counter, (), ()),)),),
         range(1, 2)),  # a fresh object inside a fresh object
        (("a",), (speedups.fresh(_Counter, ("prefix",), ()),), range(1, 2)),
        (("a",), (1,), (1, 3)),  # sizes with a gap
    ],
)  # fmt: skip
def test_add_shape_refuses_what_it_could_not_make(fields, values, nonce_sizes):
    front, _ = _bare_front()
    with pytest.raises(ValueError):
        speedups.add_shape(front, 6, _Made, fields, values, _Slot(None), nonce_sizes)


@needs_compiled
def test_add_shape_refuses_the_front_own_mode_and_a_full_table():
    front, _ = _bare_front()
    with pytest.raises(ValueError):
        speedups.add_shape(front, 99, _Made, (), (), _Slot(None))
    for mode in range(12):  # the table's size: AES adds eight shapes
        speedups.add_shape(front, mode, _Made, (), (), _Slot(None))
    speedups.add_shape(front, 0, _Made, (), (), _Slot(None))  # already there: nothing changes
    with pytest.raises(ValueError, match="no room"):
        speedups.add_shape(front, 12, _Made, (), (), _Slot(None))


def test_add_shape_changes_nothing_without_the_compiled_front():
    def new(*args, **kwargs):
        return "python"

    def values(size):
        raise AssertionError("not called")

    speedups.add_shape(new, 6, _Made, ("a",), values, _Slot(None), range(0, 16))
    assert new(bytes(16), 6, nonce=bytes(8)) == "python"


class _BusyContext:
    """An ECB context another thread is inside (pyo3's refusal), or that fails otherwise."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.calls = 0

    def update(self, data):
        self.calls += 1
        raise RuntimeError(self.message)


@needs_compiled
@with_flavours
def test_ecb_methods_serve_bytes_in_c_and_leave_the_rest_to_python(flavour):
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-ecb")
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key, block = os.urandom(16), os.urandom(32)
    expected = Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(block)
    cipher = aes.new(key, aes.MODE_ECB)
    kind = type(cipher)
    assert type(kind.__dict__["encrypt"]).__name__ == "EcbMethod"
    assert kind.encrypt.__name__ == "encrypt" and cipher.encrypt.__self__ is cipher
    before = registry.calls()["aes-ecb"]
    assert cipher.encrypt(block) == expected  # opens the context (Python)
    assert cipher.encrypt(block) == expected  # served in C
    bound = cipher.encrypt  # a bound method, as a function's
    assert bound(block) == expected
    assert kind.encrypt(cipher, block) == expected
    assert cipher.decrypt(expected) == block and cipher.decrypt(expected) == block
    out = bytearray(32)
    assert cipher.encrypt(block, output=out) is None and out == expected
    assert cipher.encrypt(bytearray(block)) == expected
    assert registry.calls()["aes-ecb"] - before == 8
    with pytest.raises(ValueError, match="aligned to block boundary"):
        cipher.encrypt(block[:15])  # not whole blocks: the twin (native) raises
    # another thread inside the shared context: a context of the call's own serves it
    busy = cipher._encryptor = _BusyContext("Already borrowed")
    assert cipher.encrypt(block) == expected and busy.calls == 2  # C's try, then Python's
    cipher._encryptor = _BusyContext("something else")
    with pytest.raises(RuntimeError, match="something else"):
        cipher.encrypt(block)


@needs_compiled
@with_flavours
def test_ecb_methods_follow_the_class_native_from(flavour):
    """Calibration's size from which native serves ECB, changed on the class, is read anew."""
    ensure_agent()
    aes = import_from(flavour, "Cipher.AES")
    require_acceleration("aes-ecb")
    key, block = os.urandom(16), os.urandom(16)
    cipher = aes.new(key, aes.MODE_ECB)
    expected = cipher.encrypt(block)
    kind = type(cipher)
    saved = kind.__dict__.get("_native_from")
    try:
        before = registry.calls()["aes-ecb"]
        assert cipher.encrypt(block) == expected
        assert registry.calls()["aes-ecb"] - before == 1
        kind._native_from = 16  # from one block on, native serves
        assert cipher.encrypt(block) == expected
        assert registry.calls()["aes-ecb"] - before == 1
    finally:
        if saved is None:
            del kind._native_from
        else:
            kind._native_from = saved
    assert cipher.encrypt(block) == expected
    assert registry.calls()["aes-ecb"] - before == 2


@needs_compiled
@with_flavours
def test_the_fronts_carry_the_native_functions_names(flavour):
    ensure_agent()
    from accel_agent import hooks, patching

    aes = import_from(flavour, "Cipher.AES")
    sha256 = import_from(flavour, "Hash.SHA256")
    hooks.run_waiting()  # the patches wait for a first call: run them now
    for module in (aes, sha256):
        front = module.new
        original = patching.get_original(module.__name__, "new")
        assert type(front).__module__ == "accel_agent._speedups"
        assert front.__wrapped__ is original
        assert front.__name__ == "new" and front.__doc__ == original.__doc__
        assert front.fallback.__wrapped__ is original  # errors name new() as native's do


@needs_compiled
@with_flavours
def test_the_hash_front_counts_and_stops_when_the_registry_forgets(flavour):
    ensure_agent()
    require_acceleration("sha256")
    sha256 = import_from(flavour, "Hash.SHA256")
    import hashlib

    sha256.new(b"resolve")  # the first call resolves the slot
    assert sha256.new.ctor is not None
    before = registry.calls()["sha256"]
    for size in range(50):
        data = os.urandom(size)
        assert sha256.new(data).digest() == hashlib.sha256(data).digest()
    assert registry.calls()["sha256"] - before == 50
    registry.reset()
    try:
        assert sha256.new.ctor is None and registry.calls()["sha256"] == 0
        assert sha256.new(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest()
        assert sha256.new.ctor is not None  # resolved again, by the Python path
    finally:
        registry.reset()


@needs_compiled
@with_flavours
def test_the_sha512_front_serves_its_truncations_as_the_python_new(flavour):
    ensure_agent()
    from accel_agent import patching

    sha512 = import_from(flavour, "Hash.SHA512")
    sha512.new(b"patch", truncate="256")  # the patch waits for a first call
    require_acceleration("sha512-256")
    require_acceleration("sha512-224")
    native_new = patching.get_original(sha512.__name__, "new")
    python_new = sha512.new.fallback

    class Text(str):
        pass

    try:
        kinds = {}  # the class of the Python new's objects for each truncation
        for truncate in ("224", "256"):
            sha512.new(b"resolve", truncate=truncate)  # the first call resolves the slot
            kinds[truncate] = type(python_new(b"", truncate))
        before = registry.calls()
        for size in (0, 1, 64, 111, 112, 1000):
            data = os.urandom(size)
            for truncate in ("224", "256"):
                expected = native_new(data, truncate=truncate).digest()
                for h in (sha512.new(data, truncate=truncate), sha512.new(data, truncate)):
                    assert h.digest() == expected
                    assert type(h) is kinds[truncate]
                    assert h.digest_size == native_new(data, truncate=truncate).digest_size
        after = registry.calls()
        assert after["sha512-256"] - before["sha512-256"] == 12
        assert after["sha512-224"] - before["sha512-224"] == 12
        # served in C (the variants, one per flavour, count for the slot), not by the Python new
        compiled = [c for c in registry.slot("sha512-256").counters if type(c) is type(sha512.new)]
        assert sum(counter.calls for counter in compiled) >= 12
        # Shapes the front leaves to the Python new, which gives native's answers
        data = b"abc"
        expected = native_new(data, truncate="256").digest()
        assert sha512.new(data, truncate=Text("256")).digest() == expected
        assert sha512.new(bytearray(data), truncate="256").digest() == expected
        assert sha512.new(data=data, truncate="256").digest() == expected
        assert sha512.new(data, None).digest() == native_new(data).digest()
        for bad in ("384", b"256", 256):
            with pytest.raises(ValueError) as ours:
                sha512.new(data, truncate=bad)
            with pytest.raises(ValueError) as theirs:
                native_new(data, truncate=bad)
            assert str(ours.value) == str(theirs.value)
        with pytest.raises(TypeError):
            sha512.new(data, "256", truncate="256")  # as natively: two values for truncate
        registry.reset()  # the variants stop until the Python new resolves them again
        assert registry.calls().get("sha512-256", 0) == 0
        assert sha512.new(data, truncate="256").digest() == expected
        assert sha512.new(data, truncate="256").digest() == expected
        assert registry.calls()["sha512-256"] == 2
    finally:
        registry.reset()


def _encrypt_outcome(new, args, kwargs, data):
    """What ``new(*args, **kwargs).encrypt(data)`` gave: ("ok", result) or (type, message)."""
    try:
        return ("ok", new(*args, **kwargs).encrypt(data))
    except Exception as exc:  # noqa: BLE001 - compared with native's
        return (type(exc), str(exc))


@needs_compiled
@with_flavours
def test_the_chacha_fronts_serve_bytes_keywords_and_leave_the_rest_to_python(flavour):
    ensure_agent()
    from accel_agent import patching

    key, nonce, data = os.urandom(32), os.urandom(12), os.urandom(100)
    for name in ("Cipher.ChaCha20", "Cipher.ChaCha20_Poly1305"):
        module = import_from(flavour, name)
        module.new(key=key, nonce=nonce)  # the patch waits for a first call
        front, native_new = module.new, patching.get_original(module.__name__, "new")
        assert type(front).__name__ == "KeywordNew" and front.__wrapped__ is native_new
        shapes = [
            ((), {"key": key, "nonce": nonce}),
            ((), {"nonce": nonce, "key": key}),
            ((), {"key": bytearray(key), "nonce": nonce}),
            ((), {"key": key, "nonce": memoryview(nonce)}),
            ((), {"key": key, "nonce": nonce[:8]}),
            ((), {"key": key, "nonce": nonce + nonce}),
            ((), {"key": key[:16], "nonce": nonce}),
            ((), {"key": key, "nonce": nonce[:5]}),
            ((), {"key": key, "nonce": None}),
            ((key,), {"nonce": nonce}),
            ((), {"key": key, "nonce": nonce, "bogus": 1}),
            ((), {"key": key}),
        ]
        for args, kwargs in shapes:
            ours = _encrypt_outcome(front, args, kwargs, data)
            theirs = _encrypt_outcome(native_new, args, kwargs, data)
            if kwargs.get("nonce") is None:  # a random nonce: the same kind of outcome
                assert ours[0] == theirs[0], (args, kwargs)
            else:
                assert ours == theirs, (args, kwargs)


@needs_compiled
@with_flavours
def test_the_fronts_keep_no_reference(flavour):
    ensure_agent()
    require_acceleration("aes-gcm")
    aes = import_from(flavour, "Cipher.AES")
    sha256 = import_from(flavour, "Hash.SHA256")
    key, nonce, data = os.urandom(16), os.urandom(12), os.urandom(100)

    ctr_nonce = nonce[:8]
    wrap = getattr(aes, "MODE_KWP", None)  # 4.x only

    def work():
        for _ in range(200):
            ct, tag = aes.new(key, aes.MODE_GCM, nonce=nonce).encrypt_and_digest(data)
            aes.new(key, aes.MODE_GCM, nonce=nonce).decrypt_and_verify(ct, tag)
            sha256.new(data).digest()
            # the added shapes: a fresh counter block (CTR), new()'s keywords (CCM)
            aes.new(key, aes.MODE_CTR, nonce=ctr_nonce).encrypt(data)
            aes.new(key, aes.MODE_CCM, nonce=nonce).encrypt_and_digest(data)
            aes.new(key, aes.MODE_OCB, nonce=nonce).encrypt_and_digest(data)
            if wrap is not None:
                aes.new(key, wrap).seal(data)

    work()  # first use: slots resolved, the last key kept (key reuse)
    values = (key, nonce, ctr_nonce, data)
    counts = [sys.getrefcount(value) for value in values]
    work()
    assert [sys.getrefcount(value) for value in values] == counts


@with_flavours
def test_the_hash_class_can_be_subclassed_and_survives_a_rebound_h(flavour):
    """As native pycryptodome's classes; and digest() holds _h while it runs."""
    ensure_agent()
    import gc
    import hashlib

    sha256 = import_from(flavour, "Hash.SHA256")
    cls = type(sha256.new(b"x"))

    class Mine(cls):
        pass

    mine = Mine()
    mine._h = hashlib.sha256(b"abc")
    assert mine.hexdigest() == hashlib.sha256(b"abc").hexdigest() and isinstance(mine, cls)
    del mine
    gc.collect()

    h = sha256.new(b"y")

    class Rebinding:
        def digest(self):
            h._h = None  # the last reference to this object, dropped mid-call
            return b"still here"

    h._h = Rebinding()
    assert h.digest() == b"still here" and h._h is None


@with_flavours
def test_hash_objects_have_a_dictionary_weak_references_and_are_collected(flavour):
    """The objects of hash_class() classes: attributes, weak references, cycles collected."""
    ensure_agent()
    import gc
    import weakref

    sha256 = import_from(flavour, "Hash.SHA256")
    require_acceleration("sha256")
    h = sha256.new(b"abc")
    assert isinstance(h, sha256.SHA256Hash) and type(h) is not sha256.SHA256Hash
    h.label = "mine"
    h.me = h  # a cycle through the instance dictionary
    assert h.__dict__ == {"label": "mine", "me": h}
    reference = weakref.ref(h)
    del h
    gc.collect()
    assert reference() is None  # the collector found the cycle and freed the object

    class Mine(type(sha256.new(b""))):
        __slots__ = ("extra",)

    mine = Mine(b"abc")
    mine.extra, mine.other = 1, 2
    assert mine.digest() == sha256.new(b"abc").digest() and (mine.extra, mine.other) == (1, 2)
    reference = weakref.ref(mine)
    del mine
    gc.collect()
    assert reference() is None


# --------------------------------------------------------------------------- pure Python

WORKLOAD = textwrap.dedent(
    """
    import hashlib, json, os, random
    import accel_agent
    from accel_agent import registry, speedups
    from Crypto.Cipher import AES, ChaCha20_Poly1305
    from Crypto.Hash import MD5, SHA256, SHA512

    rng = random.Random(1)
    sizes = [0, 1, 15, 16, 17, 64, 1000, 16384, 40000, 70000]
    WATCHED = [
        "aes-gcm", "aes-ctr", "aes-ocb", "chacha20-poly1305", "xchacha20-poly1305", "sha256",
        "sha512-224", "sha512-256",
    ]
    if hasattr(AES, "MODE_KW"):
        WATCHED += ["aes-kw", "aes-kwp"]

    def transcript():
        out = []
        for size in sizes:
            data = rng.randbytes(size)
            for key_size in (16, 32):
                key, nonce = rng.randbytes(key_size), rng.randbytes(12)
                for mac_len in (16, 12):
                    cipher = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=mac_len)
                    ct, tag = cipher.encrypt_and_digest(data)
                    out.append((ct.hex(), tag.hex()))
                    plain = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=mac_len)
                    out.append(plain.decrypt_and_verify(ct, tag).hex())
                ct, tag = AES.new(key, AES.MODE_GCM, nonce=nonce).encrypt_and_digest(data)
                try:
                    AES.new(key, AES.MODE_GCM, nonce=nonce).decrypt_and_verify(ct, bytes(16))
                except ValueError as exc:
                    out.append(str(exc))
                # the shapes the compiled front adds (speedups.add_shape)
                out.append(AES.new(key, AES.MODE_CTR, nonce=nonce[:8]).encrypt(data).hex())
                ct, tag = AES.new(key, AES.MODE_OCB, nonce=nonce).encrypt_and_digest(data)
                out.append((ct.hex(), tag.hex()))
                opener = AES.new(key, AES.MODE_OCB, nonce=nonce)
                out.append(opener.decrypt_and_verify(ct, tag).hex())
            wrap_data = bytes(16) + data[: len(data) // 8 * 8][:1024]  # native's is slow
            for mode_name in ("MODE_KW", "MODE_KWP"):
                mode = getattr(AES, mode_name, None)  # 4.x only
                out.append(mode and AES.new(key, mode).seal(wrap_data).hex())
            key, nonce = rng.randbytes(32), rng.randbytes(12)
            ct, tag = ChaCha20_Poly1305.new(key=key, nonce=nonce).encrypt_and_digest(data)
            xnonce = rng.randbytes(24)  # XChaCha20-Poly1305: new()'s flat path
            sealer = ChaCha20_Poly1305.new(key=key, nonce=xnonce)
            sealer.update(nonce)
            xct, xtag = sealer.encrypt_and_digest(data)
            out.append((ct.hex(), tag.hex(), xct.hex(), xtag.hex()))
            opener = ChaCha20_Poly1305.new(key=key, nonce=nonce)
            out.append(opener.decrypt_and_verify(ct, tag).hex())
            for module in (MD5, SHA256, SHA512):
                h = module.new(data)
                copy = h.copy()
                copy.update(b"more")
                out.append((h.hexdigest(), copy.hexdigest(), h.new(data).digest().hex()))
            out.append([  # SHA-512's truncations: the compiled front's variants
                (SHA512.new(data, truncate=t).hexdigest(), SHA512.new(data, t).hexdigest())
                for t in ("224", "256")
            ])
        return out

    agent = transcript()
    calls = registry.calls()
    accel_agent.uninstall()
    rng = random.Random(1)
    native = transcript()
    print(json.dumps({
        "speedups": accel_agent.status()["speedups"],
        "compiled": speedups.COMPILED,
        "same": agent == native,
        "entries": len(agent),
        "calls": {name: calls.get(name, 0) for name in WATCHED},
    }))
    """
)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [("off", "off"), ("0", "off"), (None, "compiled"), ("on", "compiled")],
)
def test_both_paths_give_native_results(setting, expected):
    if expected == "compiled" and not speedups.COMPILED:
        pytest.skip("the C fast path is not built here: %s" % speedups.describe())
    require_acceleration("aes-gcm")
    result = run_python(
        "-c",
        WORKLOAD,
        env=clean_environment(ACCEL_AGENT="quiet", ACCEL_AGENT_SPEEDUPS=setting),
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["speedups"] == expected
    assert report["compiled"] == (expected == "compiled")
    assert report["same"] and report["entries"] == 10 * 24  # sizes x entries per size
    assert all(count > 0 for count in report["calls"].values()), report["calls"]


def test_an_unknown_setting_keeps_the_default_and_says_so():
    result = run_python(
        "-c",
        "from accel_agent import speedups; print(speedups.describe())",
        env=clean_environment(ACCEL_AGENT_SPEEDUPS="fast"),
    )
    assert result.returncode == 0, result.stderr
    assert "ACCEL_AGENT_SPEEDUPS: 'fast' is neither on nor off" in result.stderr
    assert ("compiled" in result.stdout) == speedups.COMPILED


# ----------------------------------------------------------------- inverse_mod

# The orders of the curves whose nonces it inverts, and the sizes around its limits.
_ORDERS = [
    int("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16),  # P-256
    int("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16),  # secp256k1
    (1 << 521) - 1,  # a Mersenne prime of P-521's size
    (1 << 576) - 1,  # the widest modulus the compiled one takes (not prime)
    3,
    (1 << 64) - 59,
]


def _expected_inverse(a: int, m: int):
    try:
        return pow(a, -1, m)
    except ValueError as exc:
        return type(exc), str(exc)


def _inverse(a: int, m: int):
    try:
        return speedups.inverse_mod(a, m)
    except ValueError as exc:
        return type(exc), str(exc)


@needs_compiled
def test_the_compiled_inverse_is_built_on_the_platforms_the_agent_serves():
    import platform

    from accel_agent import _speedups

    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("%s is not a platform the agent serves" % platform.machine())
    assert hasattr(_speedups, "inverse_mod")
    assert speedups.inverse_mod.__name__ == "_compiled_inverse_mod"


@needs_compiled
@given(data=st.data(), bits=st.integers(2, 600))
@settings(max_examples=400, deadline=None)
def test_inverse_mod_matches_pow(data, bits):
    modulus = data.draw(st.integers(2, (1 << bits) - 1), label="modulus")
    value = data.draw(
        st.one_of(st.integers(-2, modulus + 2), st.sampled_from([1, modulus - 1, modulus // 2])),
        label="value",
    )
    assert _inverse(value, modulus) == _expected_inverse(value, modulus)


@needs_compiled
@pytest.mark.parametrize("modulus", _ORDERS, ids=lambda m: "%d-bit" % m.bit_length())
def test_inverse_mod_matches_pow_at_the_edges(modulus):
    import random

    rng = random.Random(modulus)
    values = [1, 2, modulus - 1, modulus - 2, (modulus - 1) // 2, 1 << (modulus.bit_length() - 1)]
    values += [rng.randrange(1, modulus) for _ in range(2000)]
    for value in values:
        if 0 < value < modulus:
            assert _inverse(value, modulus) == _expected_inverse(value, modulus), value


@needs_compiled
def test_inverse_mod_answers_as_pow_for_numbers_without_an_inverse():
    # a shares a factor with an odd modulus: the compiled path finds no inverse
    assert _inverse(21, 35) == _expected_inverse(21, 35)
    assert _inverse(3 * 5, 3 * 7 * (1 << 89) + 3) == _expected_inverse(15, 3 * 7 * (1 << 89) + 3)
    # outside what the compiled one takes: pow answers
    assert _inverse(0, 7) == _expected_inverse(0, 7)
    assert _inverse(3, 8) == _expected_inverse(3, 8)
    assert _inverse(5, (1 << 600) + 1) == _expected_inverse(5, (1 << 600) + 1)


@needs_compiled
@pytest.mark.parametrize(
    "args",
    [(b"\x01", b"\x03\x00"), (b"", b""), (bytes(73), bytes(73)), (b"\x01", "\x03"),
     (b"\x03", b"\x03"), (b"\x01", b"\x04"), (b"\x00", b"\x05")],
)  # fmt: skip
def test_the_compiled_inverse_refuses_what_it_cannot_take(args):
    from accel_agent import _speedups

    if not hasattr(_speedups, "inverse_mod"):
        pytest.skip("this build has no compiled inverse (no 128-bit integers)")

    with pytest.raises((TypeError, ValueError)):
        _speedups.inverse_mod(*args)


FRONTS_AS_FUNCTIONS = """\
import copy, dataclasses, inspect, pickle, typing, weakref
from Crypto.Hash import SHA256
from Crypto.Cipher import AES, ChaCha20_Poly1305
from Crypto.Protocol import KDF
print(inspect.signature(SHA256.new), inspect.signature(KDF.PBKDF2))  # stand-ins, under the agent
# first calls: under the agent each module's new() is now its compiled front
SHA256.new(b"x")
AES.new(bytes(16), AES.MODE_ECB)
ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12))
KDF.PBKDF2(b"p", b"s", 16, 1, hmac_hash_module=SHA256)
fronts = (SHA256.new, AES.new, ChaCha20_Poly1305.new)
print(sorted({type(f).__name__ for f in fronts}))
print([str(inspect.signature(f)) for f in fronts + (KDF.PBKDF2,)])
for f in fronts:
    print(all(pickle.loads(pickle.dumps(f, protocol)) is f for protocol in range(6)),
          copy.copy(f) is f, copy.deepcopy(f) is f, weakref.ref(f)() is f)

@dataclasses.dataclass
class Settings:
    new: typing.Callable = SHA256.new

print(dataclasses.asdict(Settings())["new"] is SHA256.new)
"""


def test_the_compiled_fronts_pickle_copy_and_weakref_as_functions_do():
    """A module's new() served in C is pickled and copied by reference, and weakly
    referenced, as native's Python function is (a dataclass of settings holding
    SHA256.new goes through asdict's deepcopy); it, and a stand-in before the
    first call, has native's signature."""
    outputs = {}
    for mode in ("quiet", "off"):
        result = run_python(
            "-c", FRONTS_AS_FUNCTIONS, env=clean_environment(ACCEL_AGENT=mode)
        )
        assert result.returncode == 0, result.stderr
        outputs[mode] = result.stdout.splitlines()
    quiet, off = outputs["quiet"], outputs["off"]
    if speedups.COMPILED:
        assert quiet[1] == "['GcmNew', 'HashNew', 'KeywordNew']"
    assert off[1] == "['function']"
    assert quiet[0] == off[0] and quiet[2] == off[2]  # the signatures
    assert quiet[3:] == off[3:] == ["True True True True"] * 3 + ["True"]
