"""Hash and MAC objects as programs hold them, agent against native pycryptodome.

Shared by 2-16 threads with calls of 16 B to 1 MiB, copied mid-stream
(``copy.copy``, ``copy.deepcopy``, ``.copy()``), pickled, weakly referenced,
given attributes, subclassed, constructed by calling their class, checked
with ``isinstance`` against pycryptodome's public classes, driven through
their state rules, and fed inputs past 2**31 bytes. Every scenario runs under
the agent and natively (``transparency_helpers.both``).

Threads: natively, an object fed by many threads at once gives no fixed
result (pycryptodome's C code runs without the GIL, so concurrent updates
race on its state). What the tests require is what a program can rely on:
no exception native code never raises (both sides' exceptions are compared),
and, under the agent, the result of the same calls made one after another
natively (each call is atomic under the agent).
"""

from __future__ import annotations

import copy
import hmac as std_hmac
import pickle
import re
import warnings
import weakref

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_use import HASHES, MACS, compare_threaded, hammer

import transparency_helpers as th

FLAVOURS = th.flavours_or_skip()
EXAMPLES = th.env_int("ACCEL_OBJECT_EXAMPLES", 8)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
ALL = HASHES + MACS
# 16 B to 1 MiB, most examples small, a few large
SIZES = st.one_of(st.integers(16, 4096), st.integers(4096, 1 << 20))


def _params(cases):
    return [
        pytest.param(flavour, case, id="%s-%s" % (case.name, flavour))
        for case in cases
        for flavour in FLAVOURS
    ]


def _quiet(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # HMAC without digestmod: 4.x's deprecation warning
        return function(*args)


# --------------------------------------------------------------------------- shape


def _constructor_args(case, flavour):
    """Arguments native's class takes (``type(obj)(*args)``), per kind."""
    if case.module == "Hash.HMAC":
        return (b"another key", b"msg", th.import_from(flavour, "Hash.SHA256"))
    if case.module == "Hash.CMAC":
        return (bytes(16), b"msg", th.import_from(flavour, "Cipher.AES"), {}, 16, False)
    if case.module == "Hash.Poly1305":
        return (bytes(range(16)), bytes(range(16, 32)), b"msg")
    if case.module == "Hash.SHA512":
        return (b"msg", "256")
    if case.module.startswith("Hash.SHA3_"):
        return (b"msg", True)
    if case.module.startswith("Hash.BLAKE2"):
        return (b"msg", b"", 32, False)
    return (b"msg",)


def shape_scenario(rec, module, case, flavour, prefix, more):
    h = case.make(module, prefix)
    public = case.native_class(flavour)
    rec.note("isinstance of the public class", isinstance(h, public))
    rec.note("class", (type(h).__module__, type(h).__qualname__))
    rec.note("repr", _ADDRESS.sub("", repr(h)))
    reference = weakref.ref(h)
    rec.note("weak reference", reference() is h)
    rec.call("set an attribute", setattr, h, "anything", 1)
    rec.note("the attribute", getattr(h, "anything", None))
    shallow = rec.call("copy.copy", copy.copy, h)
    if shallow is not th.RAISED:
        rec.note("shallow: isinstance", isinstance(shallow, public))
        rec.note("shallow: attribute", getattr(shallow, "anything", None))
        if case.module != "Hash.CMAC":  # natively CMAC's shallow copies share half a state
            rec.call("shallow: update", shallow.update, more)
            rec.call("original after the shallow copy's update", case.out, h)
    clone = rec.call("copy()", lambda: h.copy())
    if clone is not th.RAISED:
        rec.call("clone: update", clone.update, more)
        rec.call("clone: result", case.out, clone)
        rec.note("clone: isinstance", isinstance(clone, public))
    rec.call("copy.deepcopy", copy.deepcopy, h)
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        rec.call("pickle protocol %d" % protocol, pickle.dumps, h, protocol)
    made = rec.call("type(obj)(*args)", _quiet, type(h), *_constructor_args(case, flavour))
    if made is not th.RAISED:
        rec.call("made: result", case.out, made)
        rec.note("made: isinstance", isinstance(made, public))
    rec.call("type(obj)(b'x')", _quiet, type(h), b"x")
    subclass = type("Mine", (type(h),), {"extra": 5})
    mine = rec.call("subclass(*args)", _quiet, subclass, *_constructor_args(case, flavour))
    if mine is not th.RAISED:
        rec.call("subclass: result", case.out, mine)
        rec.call("subclass: update", lambda: mine.update(more))
        rec.note("subclass: isinstance", (isinstance(mine, public), mine.extra))
    rec.call("result", case.out, h)
    rec.note("weak reference still alive", reference() is h)


@pytest.mark.parametrize(("flavour", "case"), _params(ALL))
@SETTINGS
@given(prefix=st.binary(max_size=200), more=st.binary(max_size=300))
def test_objects_are_shaped_as_native_ones(flavour, case, prefix, more):
    module = case.module_of(flavour)
    th.both(shape_scenario, module, case, flavour, prefix, more)


@pytest.mark.parametrize(("flavour", "case"), _params(ALL))
def test_the_fast_path_serves_the_objects(flavour, case):
    module = case.module_of(flavour)
    case.make(module, b"")  # the slot exists once the module was patched and used
    th.require_acceleration(case.primitive)
    with th.accelerated_calls() as made:
        obj = case.make(module, b"data")
    assert made.get(case.primitive), made
    assert isinstance(obj, case.native_class(flavour))
    assert type(obj) is not case.native_class(flavour)  # the agent's subclass


# --------------------------------------------------------------------------- threads


def threads_update_scenario(rec, module, case, threads, chunk, calls, concurrent):
    h = case.make(module, b"")
    update = h.update
    rec.note("exceptions", hammer(lambda thread, i: update(chunk), threads, calls, concurrent))
    rec.call("result", case.out, h)  # every update the same chunk: one answer, whatever the order


@pytest.mark.parametrize(("flavour", "case"), _params(ALL))
@SETTINGS
@given(
    threads=st.integers(2, 16),
    size=SIZES,
    calls=st.integers(1, 3),
    seed=st.binary(min_size=8, max_size=8),
)
def test_threads_feeding_one_object(flavour, case, threads, size, calls, seed):
    chunk = (seed * (size // 8 + 1))[:size]
    compare_threaded(threads_update_scenario, case.module_of(flavour), case, threads, chunk, calls)


def threads_reading_scenario(rec, module, case, threads, data, concurrent):
    h = case.make(module, data)
    tag = h.digest()
    seen: list = []

    def read(thread, i):
        step = (thread + i) % 4
        if step == 0:
            seen.append(h.digest())
        elif step == 1:
            seen.append(bytes.fromhex(h.hexdigest()))
        elif step == 2:
            seen.append(h.copy().digest())
        else:
            h.verify(tag)
            seen.append(tag)

    rec.note("exceptions", hammer(read, threads, 8, concurrent))
    rec.note("every result is the tag", (len(seen), all(value == tag for value in seen)))
    rec.note("tag", tag)


# Digest, hexdigest, copy and verify from many threads. SHAKE has no digest;
# Poly1305 and BLAKE2 have no copy (natively too).
READABLE = [c for c in ALL if not c.name.startswith(("shake", "poly1305", "blake2"))]


@pytest.mark.parametrize(("flavour", "case"), _params(READABLE))
@SETTINGS
@given(threads=st.integers(2, 16), data=st.binary(max_size=1 << 12))
def test_threads_reading_one_object(flavour, case, threads, data):
    compare_threaded(threads_reading_scenario, case.module_of(flavour), case, threads, data)


def threads_mixed_scenario(rec, module, case, threads, chunk, concurrent):
    h = case.make(module, b"")

    def call(thread, i):
        if thread % 2:
            h.update(chunk)
        else:
            (h.digest, h.hexdigest, lambda: h.copy().update(chunk))[i % 3]()

    rec.note("exceptions", hammer(call, threads, 6, concurrent))
    rec.call("result", case.out, h)  # digests and copies leave the state as it is


# Objects whose update() goes on after digest(): updates and digests may interleave.
REUSABLE = [
    c
    for c in ALL
    if c.name.split("-")[0] in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "ripemd160")
    or c.name
    in (
        "sha3-256-after",
        "hmac-sha256",
        "hmac-sha1",
        "hmac-sha512",
        "hmac-ripemd160",
        "cmac-aes128",
    )
]


@pytest.mark.parametrize(("flavour", "case"), _params(REUSABLE))
@SETTINGS
@given(threads=st.integers(2, 16), size=SIZES)
def test_threads_updating_and_digesting_at_once(flavour, case, threads, size):
    compare_threaded(threads_mixed_scenario, case.module_of(flavour), case, threads, bytes(size))


def shake_reads_scenario(rec, module, threads, length, calls, concurrent):
    xof = module.new(b"a shared stream")
    found: list = []
    read = xof.read
    rec.note(
        "exceptions",
        hammer(lambda thread, i: found.append(read(length)), threads, calls, concurrent),
    )
    rec.note("the pieces, in any order", sorted(found))  # each thread its own part


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("name", ["Hash.SHAKE128", "Hash.SHAKE256"])
@SETTINGS
@given(threads=st.integers(2, 16), length=st.integers(16, 1 << 16), calls=st.integers(1, 4))
def test_threads_reading_one_xof(flavour, name, threads, length, calls):
    module = th.import_from(flavour, name)
    compare_threaded(shake_reads_scenario, module, threads, length, calls)


# --------------------------------------------------------------------------- state rules


def after_digest_scenario(rec, module, case, data):
    h = case.make(module, data)
    rec.call("digest", h.digest)
    rec.call("update after digest", lambda: h.update(b"more"))
    rec.call("digest again", h.digest)
    clone = rec.call("copy after digest", lambda: h.copy())
    if clone is not th.RAISED:
        rec.call("update the copy", lambda: clone.update(b"more"))
        rec.call("the copy's digest", clone.digest)
    if hasattr(h, "verify"):
        rec.call("verify", h.verify, bytes(h.digest_size))
        rec.call("update after verify", lambda: h.update(b"x"))


# A XOF has no digest: test_shake_copy_after_read covers its rule.
@pytest.mark.parametrize(("flavour", "case"), _params(c for c in ALL if "shake" not in c.name))
@SETTINGS
@given(data=st.binary(max_size=100))
def test_update_after_digest_as_natively(flavour, case, data):
    th.both(after_digest_scenario, case.module_of(flavour), case, data)


def shake_copy_scenario(rec, module, data, first, second):
    xof = module.new(data)
    rec.call("read", xof.read, first)
    clone = rec.call("copy after read", xof.copy)
    rec.call("update the copy", lambda: clone.update(b"x"))
    rec.call("update the original", lambda: xof.update(b"x"))
    rec.call("read the copy", clone.read, second)
    rec.call("read the original", xof.read, second)
    rec.note("copy: squeezing flag", getattr(clone, "_is_squeezing", "absent"))
    again = rec.call("copy of the copy", clone.copy)
    rec.call("update the copy's copy", lambda: again.update(b"x"))


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("name", ["Hash.SHAKE128", "Hash.SHAKE256"])
@SETTINGS
@given(data=st.binary(max_size=300), first=st.integers(0, 300), second=st.integers(0, 300))
def test_shake_copy_after_read(flavour, name, data, first, second):
    th.both(shake_copy_scenario, th.import_from(flavour, name), data, first, second)


POLY1305_ARGUMENTS = {
    "key None": lambda aes, chacha: dict(key=None, cipher=aes, nonce=bytes(16)),
    "key None, ChaCha20": lambda aes, chacha: dict(key=None, cipher=chacha),
    "short key": lambda aes, chacha: dict(key=bytes(31), cipher=aes),
    "long key": lambda aes, chacha: dict(key=bytes(33), cipher=chacha),
    "str key": lambda aes, chacha: dict(key="k" * 32, cipher=aes),
    "int key": lambda aes, chacha: dict(key=5, cipher=aes),
    "list key": lambda aes, chacha: dict(key=[0] * 32, cipher=chacha),
    "no cipher": lambda aes, chacha: dict(key=bytes(32), cipher=None),
    "no key": lambda aes, chacha: dict(cipher=aes),
    "only key": lambda aes, chacha: dict(key=bytes(32)),
    "bad AES nonce": lambda aes, chacha: dict(key=bytes(32), cipher=aes, nonce=bytes(12)),
    "bad ChaCha20 nonce": lambda aes, chacha: dict(key=bytes(32), cipher=chacha, nonce=bytes(9)),
    "str nonce": lambda aes, chacha: dict(key=bytes(32), cipher=aes, nonce="n" * 16),
    "int data": lambda aes, chacha: dict(key=bytes(32), cipher=aes, nonce=bytes(16), data=3),
    "unknown keyword": lambda aes, chacha: dict(key=bytes(32), cipher=aes, colour=1),
    "memoryview key": lambda aes, chacha: dict(
        key=memoryview(bytes(range(32))), cipher=chacha, nonce=bytes(8)
    ),
}


def poly1305_arguments_scenario(rec, module, flavour, name):
    aes = th.import_from(flavour, "Cipher.AES")
    chacha = th.import_from(flavour, "Cipher.ChaCha20")
    mac = rec.call("new", module.new, **POLY1305_ARGUMENTS[name](aes, chacha))
    if mac is not th.RAISED:
        rec.call("digest", mac.digest)
    rec.call("positional", lambda: module.new(bytes(32), aes))


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("name", sorted(POLY1305_ARGUMENTS))
def test_poly1305_argument_errors(flavour, name):
    th.both(poly1305_arguments_scenario, th.import_from(flavour, "Hash.Poly1305"), flavour, name)


# --------------------------------------------------------------------------- data kept


def kept_scenario(rec, module, case, secret):
    h = case.make(module, secret)
    rec.note("input kept after new", th.reachable(h, secret))
    h.update(secret[::-1])
    rec.note("input kept after update", th.reachable(h, secret[::-1]))
    h.digest() if not case.name.startswith("shake") else h.read(8)
    rec.note("input kept after the result", th.reachable(h, secret))


@pytest.mark.parametrize(("flavour", "case"), _params(HASHES))
@SETTINGS
@given(secret=st.binary(min_size=24, max_size=1 << 16))
def test_hash_objects_keep_none_of_their_input(flavour, case, secret):
    th.both(kept_scenario, case.module_of(flavour), case, secret)


def hmac_key_scenario(rec, module, flavour, key, message):
    sha256 = th.import_from(flavour, "Hash.SHA256")
    mac = module.new(key, message, sha256)
    rec.note("key kept, message given to new", th.reachable(mac, key))
    mac = module.new(key, digestmod=sha256)
    mac.update(message)
    rec.note("key kept after the first update", th.reachable(mac, key))
    rec.note("key kept by a copy", th.reachable(mac.copy(), key))


@pytest.mark.parametrize("flavour", FLAVOURS)
@SETTINGS
@given(key=st.binary(min_size=24, max_size=200), message=st.binary(min_size=1, max_size=100))
def test_hmac_keeps_no_key_once_fed(flavour, key, message):
    th.both(hmac_key_scenario, th.import_from(flavour, "Hash.HMAC"), flavour, key, message)


# --------------------------------------------------------------------------- 2**31 bytes


@pytest.fixture(scope="module")
def huge():
    """2**31 + 7 zero bytes, allocated once (calloc: untouched pages cost no memory)."""
    return bytes(2**31 + 7)


def huge_hash_scenario(rec, module, case, data):
    h = rec.call("new", case.make, module, data)
    if h is not th.RAISED:
        rec.call("result", case.out, h)
        rec.call("update", lambda: h.update(b"tail"))


HUGE_HASHES = [c for c in ALL if c.name in ("sha256", "sha3-256", "blake2b", "shake128")]
HUGE_MACS = [c for c in ALL if c.name in ("hmac-sha256", "cmac-aes128", "poly1305-chacha")]


@pytest.mark.slow
@pytest.mark.parametrize("case", HUGE_HASHES + HUGE_MACS, ids=repr)
def test_data_past_2_31_bytes(case, huge, request):
    module = case.module_of(FLAVOURS[0])
    th.against_native_transcript(request.node.nodeid, huge_hash_scenario, module, case, huge)


def huge_secrets_scenario(rec, module, flavour, big):
    sha256 = th.import_from(flavour, "Hash.SHA256")
    hmac_module = th.import_from(flavour, "Hash.HMAC")
    rec.call("HMAC key", lambda: hmac_module.new(big, b"m", sha256).digest())
    rec.call("PBKDF2 password", module.PBKDF2, big, b"salt", 16, 1, hmac_hash_module=sha256)
    rec.call("PBKDF2 salt", module.PBKDF2, b"pw", big, 16, 2, hmac_hash_module=sha256)
    rec.call("HKDF salt", module.HKDF, b"secret", 32, big, sha256)
    rec.call("HKDF secret", module.HKDF, big, 32, b"salt", sha256)
    rec.call("scrypt password", module.scrypt, big, b"salt", 16, 2, 1, 1)
    rec.call("hmac.new key", lambda: std_hmac.new(big, b"m", sha256).digest())
    rec.call("hmac.digest message", std_hmac.digest, b"k", big, sha256)


@pytest.mark.slow
def test_keys_passwords_and_salts_past_2_31_bytes(huge, request):
    flavour = FLAVOURS[0]
    module = th.import_from(flavour, "Protocol.KDF")
    th.against_native_transcript(request.node.nodeid, huge_secrets_scenario, module, flavour, huge)
