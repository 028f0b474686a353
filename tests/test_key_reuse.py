"""Key reuse: OpenSSL's expanded key, or the key's algorithm object, of the last key object.

``providers.base.LastKeyReuse`` keeps the AEAD object of the most recent key
object per AEAD kind (GCM, ChaCha20-Poly1305, OCB, SIV), so a new
pycryptodome cipher per message with the same key object does not expand the
key again; the AES mode, CMAC, CCM and EAX providers keep the
``algorithms.AES`` object (~370 ns of validation per message) the same way.
What these tests hold it to (docs/security.md):

* the same object is reused, an equal key in another object is not (identity
  only: nothing depends on the key's value);
* at most one key is kept: the previous one is released, as its reference
  count shows;
* ``ACCEL_AGENT_KEY_REUSE=off`` keeps no key at all, a value that is neither
  on nor off means off (with a warning), and ``uninstall()`` forgets;
* threads with different keys never get each other's AEAD object (results
  checked against pyca/cryptography used directly).

Correctness of the ciphertexts themselves against native pycryptodome is the
differential and Wycheproof tests' work; they run with key reuse on.
"""

from __future__ import annotations

import os
import sys
import threading

import pytest

from accel_agent import config, registry
from accel_agent.providers import base
from helpers import clean_environment, conf_with, run_python
from transparency_helpers import ensure_agent


@pytest.fixture(autouse=True)
def _reuse_on():
    ensure_agent()
    base.set_key_reuse(True)
    yield
    base.set_key_reuse(True)


class CountingMaker:
    """Stands in for an AEAD class: counts expansions, returns a new object each time."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self, key: bytes) -> object:
        self.made += 1
        return object()


def fresh_key(size: int = 16) -> bytes:
    return os.urandom(size)


def test_the_same_key_object_is_expanded_once():
    maker = CountingMaker()
    reuse = base.LastKeyReuse(maker)
    key = fresh_key()
    first = reuse.for_key(key)
    assert all(reuse.for_key(key) is first for _ in range(5))
    assert maker.made == 1


def test_an_equal_key_in_another_object_is_expanded_again():
    maker = CountingMaker()
    reuse = base.LastKeyReuse(maker)
    key = fresh_key()
    twin = bytes(bytearray(key))
    assert twin == key and twin is not key
    assert reuse.for_key(key) is not reuse.for_key(twin)
    assert maker.made == 2


def test_only_the_last_key_is_kept():
    reuse = base.LastKeyReuse(CountingMaker())
    first, second = fresh_key(), fresh_key()
    baseline = sys.getrefcount(first)
    reuse.for_key(first)
    assert sys.getrefcount(first) == baseline + 1  # kept
    reuse.for_key(second)
    assert sys.getrefcount(first) == baseline  # released once another key came


def test_off_keeps_nothing_and_forgets_what_was_kept():
    maker = CountingMaker()
    reuse = base.LastKeyReuse(maker)
    key = fresh_key()
    baseline = sys.getrefcount(key)
    reuse.for_key(key)
    base.set_key_reuse(False)
    assert sys.getrefcount(key) == baseline  # forgotten at once
    reuse.for_key(key)
    reuse.for_key(key)
    assert sys.getrefcount(key) == baseline  # and nothing kept since
    assert maker.made == 3


class CountingTables:
    """Stands in for pyDes's DesTables: counts schedules, returns pyDes-shaped ones."""

    def __init__(self) -> None:
        self.made = 0

    def schedule(self, key: bytes):
        self.made += 1
        return [[key[0] & 1] * 48 for _ in range(16)], [0] * 28, [1] * 28


def test_pydes_schedules_of_the_last_three_keys_by_value():
    from accel_agent.targets.pydes.ciphers import RecentSchedules

    tables = CountingTables()
    schedules = RecentSchedules(tables)
    oldest, second, third, fourth = (fresh_key(8) for _ in range(4))
    baseline = sys.getrefcount(oldest)
    first = schedules.get(oldest)
    assert sys.getrefcount(oldest) == baseline + 1  # kept
    # by value (a triple_des slices a new key object per part), compared in constant time
    assert schedules.get(bytes(bytearray(oldest)))[0] is first[0]
    schedules.get(second)
    schedules.get(third)
    assert tables.made == 3
    schedules.get(fourth)  # a fourth key pushes out the oldest
    assert sys.getrefcount(oldest) == baseline
    schedules.get(oldest)
    assert tables.made == 5
    base.forget_all()
    schedules.get(oldest)
    assert tables.made == 6
    base.set_key_reuse(False)
    assert sys.getrefcount(oldest) == baseline  # off forgets what was kept...
    schedules.get(oldest)
    schedules.get(oldest)
    assert tables.made == 8
    assert sys.getrefcount(oldest) == baseline  # ...and keeps nothing
    assert schedules.contexts(oldest) is None  # nor its single-DES contexts
    base.set_key_reuse(True)
    schedules.get(oldest)
    kept = schedules.contexts(bytes(bytearray(oldest)))
    assert kept == {} and schedules.contexts(oldest) is kept


def test_forget_all_releases_every_kept_key():
    reuses = [base.LastKeyReuse(CountingMaker()) for _ in range(3)]
    keys = [fresh_key() for _ in reuses]
    baselines = [sys.getrefcount(key) for key in keys]
    for index, reuse in enumerate(reuses):
        reuse.for_key(keys[index])
    base.forget_all()
    assert [sys.getrefcount(key) for key in keys] == baselines


# -- the real providers ------------------------------------------------------------

PROVIDERS = {
    "aes-gcm": 16,
    "chacha20-poly1305": 32,
    "aes-ocb": 16,
    "aes-siv": 32,
}


def _provider(primitive: str):
    provider = registry.slot(primitive).get()
    if provider is None:
        pytest.skip("%s is not accelerated on this machine" % primitive)
    return provider


@pytest.mark.parametrize("primitive", sorted(PROVIDERS))
def test_each_aead_provider_reuses_the_last_key_object(primitive):
    provider = _provider(primitive)
    key = fresh_key(PROVIDERS[primitive])
    assert provider.one_shot(key) is provider.one_shot(key)
    assert provider.one_shot(bytes(bytearray(key))) is not provider.one_shot(key)


ALGORITHM_OBJECTS = ("aes-ecb", "aes-cbc", "aes-ctr", "aes-ofb", "aes-gcm")


@pytest.mark.parametrize("primitive", ALGORITHM_OBJECTS)
def test_aes_context_providers_reuse_the_algorithm_object_of_the_last_key(primitive):
    """Streaming contexts are made from an ``algorithms.AES(key)``: reused too."""
    provider = _provider(primitive)
    key = fresh_key()
    algorithm = provider.algorithm  # the modes' and GCM's
    assert algorithm(key) is algorithm(key)
    assert algorithm(key).key is key


def test_cmac_copies_an_empty_context_of_the_last_key_object():
    from cryptography.hazmat.primitives import cmac
    from cryptography.hazmat.primitives.ciphers import algorithms

    provider = _provider("aes-cmac")
    key, other = fresh_key(), fresh_key()
    first, second = provider.new(key), provider.new(key)
    assert first is not second
    assert provider._template(key) is provider._template(key)
    first.update(b"one message")  # a context handed out never changes the kept one
    for message in (b"", b"another", bytes(100)):
        mac = provider.new(key)
        mac.update(message)
        direct = cmac.CMAC(algorithms.AES(key))
        direct.update(message)
        assert mac.finalize() == direct.finalize()
    # an equal key in another object, then another key: each its own context
    assert provider._template(bytes(bytearray(key))) is not provider._template(key)
    mac = provider.new(other)
    mac.update(b"x")
    direct = cmac.CMAC(algorithms.AES(other))
    direct.update(b"x")
    assert mac.finalize() == direct.finalize()
    # off: the kept context is dropped, and none is kept for the next calls
    base.set_key_reuse(False)
    fresh = fresh_key()
    baseline = sys.getrefcount(fresh)
    mac = provider.new(fresh)
    mac.update(b"y")
    direct = cmac.CMAC(algorithms.AES(fresh))
    direct.update(b"y")
    assert mac.finalize() == direct.finalize()
    del mac
    assert sys.getrefcount(fresh) == baseline


def test_xchacha_derives_a_key_per_message_and_keeps_none():
    provider = _provider("xchacha20-poly1305")
    key = fresh_key(32)
    baseline = sys.getrefcount(key)
    provider.one_shot(key)
    assert sys.getrefcount(key) == baseline


def _run_threads(work, count: int) -> None:
    """``work(index)`` on ``count`` threads at once, until all have returned."""
    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_threads_with_different_keys_get_their_own_results():
    """16 threads, 4 keys, interleaved: every ciphertext is AESGCM's for that thread's key."""
    from Crypto.Cipher import AES
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    _provider("aes-gcm")
    keys = [fresh_key() for _ in range(4)]
    nonce, message = bytes(12), os.urandom(300)
    expected = {key: AESGCM(key).encrypt(nonce, message, None) for key in keys}
    wrong: list[int] = []
    start = threading.Barrier(16)

    def work(index: int) -> None:
        key = keys[index % 4]
        start.wait()
        for _ in range(300):
            ciphertext, tag = AES.new(key, AES.MODE_GCM, nonce=nonce).encrypt_and_digest(message)
            if ciphertext + tag != expected[key]:
                wrong.append(index)

    _run_threads(work, 16)
    assert wrong == []


def test_threads_sharing_and_switching_cmac_keys_get_their_own_tags():
    """16 threads, 2 shared key objects: copies of one kept context taken at once."""
    from Crypto.Cipher import AES
    from Crypto.Hash import CMAC
    from cryptography.hazmat.primitives import cmac
    from cryptography.hazmat.primitives.ciphers import algorithms

    _provider("aes-cmac")
    keys = [fresh_key(), fresh_key(32)]
    messages = [os.urandom(size) for size in (0, 15, 64, 1000)]

    def expected_tag(key: bytes, message: bytes) -> bytes:
        mac = cmac.CMAC(algorithms.AES(key))
        mac.update(message)
        return mac.finalize()

    expected = {(k, m): expected_tag(keys[k], messages[m]) for k in range(2) for m in range(4)}
    wrong: list[int] = []
    start = threading.Barrier(16)

    def work(index: int) -> None:
        start.wait()
        for turn in range(300):
            k, m = (index + turn // 7) % 2, turn % 4
            if CMAC.new(keys[k], messages[m], ciphermod=AES).digest() != expected[(k, m)]:
                wrong.append(index)

    _run_threads(work, 16)
    assert wrong == []


# -- the setting -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "conf", "expected"),
    [
        (None, None, (True, None)),
        ("on", None, (True, None)),
        ("1", None, (True, None)),
        ("off", None, (False, None)),
        (" OFF ", None, (False, None)),
        ("no", "on", (False, None)),  # the variable wins over the file
        (None, "off", (False, None)),
        ("", "off", (False, None)),  # an empty variable says nothing
    ],
)
def test_key_reuse_setting(monkeypatch, env, conf, expected):
    if env is None:
        monkeypatch.delenv(config.ENV_KEY_REUSE, raising=False)
    else:
        monkeypatch.setenv(config.ENV_KEY_REUSE, env)
    conf_file = conf_with(key_reuse=conf) if conf is not None else config.ConfFile()
    assert config.key_reuse_choice(conf_file) == expected


@pytest.mark.parametrize("raw", ["of", "disable", "2"])
def test_an_unknown_value_turns_key_reuse_off_with_a_warning(monkeypatch, raw):
    monkeypatch.setenv(config.ENV_KEY_REUSE, raw)
    enabled, problem = config.key_reuse_choice(config.ConfFile())
    assert enabled is False
    assert problem.startswith("ACCEL_AGENT_KEY_REUSE: ") and "key reuse is off" in problem


KEPT_KEY_PROBE = """
import sys
from Crypto.Cipher import AES
import accel_agent
key = bytes(range(16)) + b""  # an object of its own, not a shared constant
key = bytes(bytearray(key))
baseline = sys.getrefcount(key)
for _ in range(3):
    AES.new(key, AES.MODE_GCM, nonce=bytes(12)).encrypt_and_digest(b"message")
assert accel_agent.status(resolve=False)["primitives"]["aes-gcm"]["calls"] == 3
kept = sys.getrefcount(key) - baseline
accel_agent.uninstall()
print(kept, sys.getrefcount(key) - baseline)
"""


@pytest.mark.parametrize(
    ("value", "kept", "warned"),
    [(None, True, False), ("on", True, False), ("off", False, False), ("bogus", False, True)],
)
def test_a_process_keeps_one_key_or_none_and_uninstall_forgets(value, kept, warned):
    result = run_python(
        "-c",
        KEPT_KEY_PROBE,
        env=clean_environment(ACCEL_AGENT="quiet", ACCEL_AGENT_KEY_REUSE=value),
    )
    assert result.returncode == 0, result.stderr
    # References held past the messages (the pair kept, and the AEAD object's
    # own reference to its key), then after uninstall().
    held, held_after_uninstall = map(int, result.stdout.split())
    assert (held > 0) == kept
    assert held_after_uninstall == 0
    assert ("ACCEL_AGENT_KEY_REUSE: 'bogus' is neither on nor off" in result.stderr) == warned


def _gcm_whole_message(key: bytes) -> None:
    from Crypto.Cipher import AES

    AES.new(key, AES.MODE_GCM, nonce=bytes(12)).encrypt_and_digest(b"a whole message")


def _gcm_stream(key: bytes) -> None:
    from Crypto.Cipher import AES

    cipher = AES.new(key, AES.MODE_GCM, nonce=bytes(12))
    cipher.encrypt(b"streamed")
    cipher.encrypt(b" in two calls")
    cipher.digest()


def _cfb(segment_size: int):
    def encrypt(key: bytes) -> None:
        from Crypto.Cipher import AES

        cipher = AES.new(key, AES.MODE_CFB, iv=bytes(16), segment_size=segment_size)
        cipher.encrypt(b"thirty-three bytes of plaintext!!")

    return encrypt


# A primitive whose provider keeps two caches: one key between them, as
# docs/security.md says (a new key in either drops the other's).
TWO_CACHES = {
    "aes-gcm": (_gcm_whole_message, _gcm_stream),
    "aes-cfb": (_cfb(8), _cfb(128)),
}


@pytest.mark.parametrize("primitive", sorted(TWO_CACHES))
@pytest.mark.parametrize("order", ["forwards", "backwards"])
def test_one_key_across_a_primitives_two_caches(primitive, order):
    _provider(primitive)
    first, second = TWO_CACHES[primitive]
    if order == "backwards":
        first, second = second, first
    before = registry.calls().get(primitive, 0)
    old, new = fresh_key(), fresh_key()
    old_baseline, new_baseline = sys.getrefcount(old), sys.getrefcount(new)
    first(old)
    assert sys.getrefcount(old) > old_baseline, "the first key is kept by its cache"
    second(new)
    assert sys.getrefcount(old) == old_baseline, "a new key in the other cache drops the first"
    assert sys.getrefcount(new) > new_baseline, "and is kept itself"
    assert registry.calls().get(primitive, 0) > before, "the calls went through the agent"
