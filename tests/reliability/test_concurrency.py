"""Threads, forked children, multiprocessing pools and racing imports, with the agent active.

In-process tests activate the agent under the ``agent_state`` fixture and
compute native references with ``transparency_helpers.natively()``. Anything
that forks or spawns runs in a child (``child.py``), never in the pytest
process (whose own threads make forking it unsafe).

Shared objects: pycryptodome's objects are not documented as thread-safe,
and native GCM is not (its GHASH and CTR halves are updated separately). The
property required here is the one a user can rely on natively for ECB, CBC,
CTR, CFB and OFB: each call is atomic, so with identical inputs the multiset
of outputs is the single-threaded one, whatever the interleaving. Above all,
no two calls may ever get the same keystream.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter

import pytest
from families import FAMILIES, installed_flavours
from reliability_helpers import CHILD, Child, run_child

import accel_agent
import helpers
from helpers import requires_aes_acceleration
from transparency_helpers import call_counts, count_delta, natively

THREADS = 16
PKGS = installed_flavours()
SHARED = [(family, pkg, case) for family in FAMILIES for pkg in PKGS for case in family.shared(pkg)]

pytestmark = requires_aes_acceleration


@pytest.fixture
def agent_on(agent_state):
    accel_agent.activate("quiet")
    yield


@pytest.fixture
def eager_switching():
    """Switch threads as often as CPython allows, so races show within a few runs."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(saved)


def run_threads(count: int, target, *args) -> list[BaseException]:
    """Start ``count`` threads at once (a barrier), join them, return what they raised."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def body(index: int) -> None:
        try:
            barrier.wait()
            target(index, *args)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return errors


# ------------------------------------------------------------------ separate objects


@pytest.mark.parametrize("pkg", PKGS)
@pytest.mark.parametrize("family", FAMILIES, ids=repr)
def test_separate_objects_in_16_threads(agent_on, family, pkg):
    """Each thread its own objects, every entry point of the family: native results, every time."""
    with natively():
        expected = family.workload(pkg)
    before = call_counts()
    results: list = [None] * THREADS

    def work(index: int) -> None:
        results[index] = [family.workload(pkg) for _ in range(3)]

    assert run_threads(THREADS, work) == []
    for per_thread in results:
        for got in per_thread:
            assert got == expected
    delta = count_delta(before, call_counts())
    idle = [name for name in family.primitives if not delta.get(name)]
    assert not idle, "no accelerated call of %s: the threads tested native code" % idle


# ------------------------------------------------------------------ shared objects


def _reference(case, calls: int) -> tuple[Counter, bytes]:
    with natively():
        obj = case.make()
        outputs = Counter(case.step(obj) for _ in range(calls))
        return outputs, case.finish(obj)


@pytest.mark.parametrize(("family", "pkg", "case"), SHARED, ids=lambda v: repr(v))
def test_shared_object_hammered_by_16_threads(agent_on, eager_switching, family, pkg, case):
    """One object, 16 threads, ``case.calls`` calls each: the multiset of outputs and the final
    tag are the single-threaded native ones (no call lost, doubled or torn)."""
    expected, expected_final = _reference(case, THREADS * case.calls + 1)
    obj = case.make()
    outputs: list = [case.step(obj)]  # the first call alone: the race of first calls is below

    def work(index: int) -> None:
        for _ in range(case.calls):
            outputs.append(case.step(obj))

    assert run_threads(THREADS, work) == []
    assert Counter(outputs) == expected
    assert case.finish(obj) == expected_final


TRIALS = 60
FIRST_CALLERS = 8


@pytest.mark.parametrize(("family", "pkg", "case"), SHARED, ids=lambda v: repr(v))
def test_shared_object_first_calls_race(agent_on, eager_switching, family, pkg, case):
    """Eight threads make the *first* calls of a fresh shared object at once.

    The agent opens its OpenSSL context lazily on the first call; two threads
    both opening one would each start from the IV/counter, giving two calls
    the same keystream (a two-time pad for CTR, OFB and GCM). Native objects
    never do.
    """
    expected, _ = _reference(case, FIRST_CALLERS)
    bad = []
    for trial in range(TRIALS):
        obj = case.make()
        outputs: list = []

        def first_call(index: int, obj=obj, outputs=outputs) -> None:
            outputs.append(case.step(obj))

        assert run_threads(FIRST_CALLERS, first_call) == []
        if Counter(outputs) != expected:
            bad.append(trial)
    assert not bad, "%d of %d trials: outputs differ from native's, e.g. a keystream reused" % (
        len(bad),
        TRIALS,
    )


# ------------------------------------------------------------------ shared objects, big calls

# Calls of KiB to MiB: OpenSSL releases the GIL while it works, so two threads
# really are inside one context at once (with 16-byte calls they hardly ever are).
BIG_CALL_SIZES = (4 * 1024, 64 * 1024, 1024 * 1024)
BIG_CALLERS, BIG_CALLS = 8, 4


def _big_call_objects(pkg: str) -> dict:
    import importlib

    AES = importlib.import_module(pkg + ".Cipher.AES")
    ChaCha20 = importlib.import_module(pkg + ".Cipher.ChaCha20")
    ChaCha20_Poly1305 = importlib.import_module(pkg + ".Cipher.ChaCha20_Poly1305")
    Counter = importlib.import_module(pkg + ".Util.Counter")
    key, iv = bytes(range(16)), bytes(range(16, 32))
    return {
        "ecb": lambda: AES.new(key, AES.MODE_ECB),
        "cbc": lambda: AES.new(key, AES.MODE_CBC, iv=iv),
        "ctr": lambda: AES.new(key, AES.MODE_CTR, nonce=iv[:8]),
        # counter blocks through ECB (speedups.CounterStream)
        "ctr little-endian": lambda: AES.new(
            key, AES.MODE_CTR, counter=Counter.new(128, initial_value=1, little_endian=True)
        ),
        "cfb128": lambda: AES.new(key, AES.MODE_CFB, iv=iv, segment_size=128),
        "ofb": lambda: AES.new(key, AES.MODE_OFB, iv=iv),
        "gcm": lambda: AES.new(key, AES.MODE_GCM, nonce=iv[:12]),
        "chacha20": lambda: ChaCha20.new(key=key * 2, nonce=iv[:8]),
        "chacha20-poly1305": lambda: ChaCha20_Poly1305.new(key=key * 2, nonce=iv[:12]),
    }


BIG = [
    (pkg, name, size) for pkg in PKGS for name in _big_call_objects(pkg) for size in BIG_CALL_SIZES
]


@pytest.mark.parametrize(("pkg", "name", "size"), BIG, ids=lambda v: str(v))
def test_shared_object_with_kib_to_mib_calls(agent_on, pkg, name, size):
    """Eight threads share one object, four calls each of 4 KiB to 1 MiB of zeros.

    Nothing may be raised (pyca's ``RuntimeError: Already borrowed`` was), and,
    each call being atomic, the multiset of outputs (and a GCM or
    ChaCha20-Poly1305 tag) is the single-threaded native one. Native
    pycryptodome 3.x is not compared threaded: it crashes there.
    """
    make = _big_call_objects(pkg)[name]
    data = bytes(size)
    with natively():
        reference = make()
        expected = Counter(reference.encrypt(data) for _ in range(BIG_CALLERS * BIG_CALLS))
        expected_tag = reference.digest() if hasattr(reference, "digest") else None
    obj = make()
    outputs: list = []

    def work(index: int) -> None:
        for _ in range(BIG_CALLS):
            outputs.append(obj.encrypt(data))

    assert run_threads(BIG_CALLERS, work) == []
    assert Counter(outputs) == expected
    if expected_tag is not None:
        assert obj.digest() == expected_tag


@pytest.mark.parametrize("pkg", PKGS)
@pytest.mark.parametrize("name", ["ctr little-endian", "ctr", "gcm", "cbc"])
def test_objects_of_one_key_each_on_its_thread(agent_on, pkg, name):
    """Eight threads, each making its own objects of one key object, calls of 64 KiB to 1 MiB.

    What the providers keep of the last key (the key's algorithm object,
    CTR's shared ECB context for counter blocks) is used by all at once;
    a busy shared context is replaced by one of the caller's own, so each
    output is native's for that object.
    """
    make = _big_call_objects(pkg)[name]
    sizes = (64 * 1024, 1024 * 1024, 200 * 1024)
    with natively():
        expected = [make().encrypt(bytes(size)) for size in sizes]
    failures: list = []

    def work(index: int) -> None:
        for _ in range(BIG_CALLS):
            for size, want in zip(sizes, expected):
                if make().encrypt(bytes(size)) != want:
                    failures.append(size)

    assert run_threads(BIG_CALLERS, work) == []
    assert failures == []


# ------------------------------------------------------------------ fork


@pytest.fixture(scope="module")
def forked():
    """One child runs every fork scenario (``child.py fork``) with the agent in quiet mode."""
    return run_child("fork", mode="quiet")


def test_forked_children_are_accelerated_and_correct(forked, native_results):
    assert forked.returncode == 0, forked.describe()
    report = forked.report
    assert report["parent"] == native_results
    for when in ("before_decision", "after_decision"):
        child = report[when]
        assert "results" in child, "%s: %s" % (when, child)
        assert child["results"] == native_results
        assert child["agent"]["active"] is True
        calls = child["agent"]["calls"]
        idle = [n for family in FAMILIES for n in family.primitives if not calls.get(n)]
        assert not idle, "%s: the forked child made no accelerated call of %s" % (when, idle)
    assert report["decided"], "the parent decided nothing: 'after' would prove nothing"


def test_objects_mid_stream_continue_identically_in_parent_and_child(forked):
    """An OpenSSL context copied by fork continues where it was, on both sides, as native does."""
    report = forked.report
    assert report["streams_child"] == report["streams_parent"]


@pytest.fixture(scope="module")
def native_streams():
    """``streams_parent`` of the fork scenario with the agent off."""
    child = run_child("fork", mode="off")
    assert child.returncode == 0, child.describe()
    return child.report["streams_parent"]


def test_mid_stream_continuations_equal_native(forked, native_streams):
    assert forked.report["streams_parent"] == native_streams


def test_fork_while_another_thread_decides_a_provider(native_results):
    """A fork while a thread holds the registry's lock (deciding a provider, its self-check
    running): the child must neither hang nor fail; it decides again by itself."""
    child = run_child("fork-during-decision", mode="quiet", env={"REL_FORK_TIMEOUT": "5"})
    assert child.returncode == 0, child.describe()
    forked_child = child.report["child"]
    assert not forked_child.get("hung"), "the forked child deadlocked on the registry's lock"
    assert forked_child.get("results") == native_results, forked_child


# ------------------------------------------------------------------ multiprocessing pools


def _pool_methods() -> list:
    import multiprocessing

    available = multiprocessing.get_all_start_methods()
    return [
        pytest.param(m, marks=pytest.mark.skipif(m not in available, reason="no %s here" % m))
        for m in ("spawn", "forkserver", "fork")
    ]


@pytest.mark.parametrize("how", ["ACCEL_AGENT=quiet", "-X accel=quiet"])
@pytest.mark.parametrize("method", _pool_methods())
def test_pool_workers_run_the_agent(method, how, native_results):
    """Every pool worker has the agent active, accelerated, and native's results."""
    if how.startswith("-X"):
        result = helpers.run_python("-X", "accel=quiet", CHILD, "pool", method)
        child = Child(result)
    else:
        child = run_child("pool", method, mode="quiet")
    assert child.returncode == 0, child.describe()
    assert child.stderr == "", child.stderr
    workers = child.report["workers"]
    assert len({w["pid"] for w in workers}) >= 1
    for worker in workers:
        assert worker["results"] == native_results
        assert worker["agent"]["active"] is True and worker["agent"]["mode"] == "quiet"
        calls = worker["agent"]["calls"]
        idle = [n for family in FAMILIES for n in family.primitives if not calls.get(n)]
        assert not idle, "a %s worker made no accelerated call of %s" % (method, idle)


# ------------------------------------------------------------------ import hooks racing


@pytest.mark.parametrize("threads", ["2", "16"])
def test_racing_first_imports_execute_once_and_patch_once(threads):
    """Threads importing Crypto.Cipher.AES / Cryptodome.Cipher.AES for the first time at once,
    then calling it: each module executes once, is patched once (at the first call), every
    call is right, and every module ends patched."""
    child = run_child("import-race", threads, mode="quiet")
    assert child.returncode == 0, child.describe()
    report = child.report
    assert report["errors"] == []
    imported = [name for name in report["watched"] if name in report["executed"]]
    assert imported, report
    assert report["executed"] == {name: 1 for name in imported}
    assert report["patched"] == {name: 1 for name in imported}
    assert report["seen_same_module"] is True
    assert all(report["seen_right"]) and len(report["seen_right"]) == int(threads)
    assert all(report["seen_patched"]) and len(report["seen_patched"]) == int(threads)
    assert all(report["wrapped_once"]), report
