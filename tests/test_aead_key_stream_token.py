"""The key stream token of the AEAD objects: one nonce, one start of its key stream.

A fresh GCM or ChaCha20-Poly1305 object may start its key stream two ways:
a whole message through the one-shot AEAD call (``encrypt_and_digest``,
``decrypt_and_verify``) or a streaming context opened by the first
``encrypt``/``decrypt``/``digest``/``verify``. Whichever comes first takes
the object's token (``list.pop()``, atomic without a lock); the other must
then never start the key stream again, or two threads racing on one fresh
object would encrypt under the same key stream (a two-time pad).

These tests put an object in the exact state a lost race leaves (the token
taken by "another thread") and check that no ciphertext comes out of the key
stream's start; then they race real threads. Sequential use, where no race
exists, is covered by the differential tests against native pycryptodome.
"""

from __future__ import annotations

import threading

import pytest

from accel_agent import patching, registry
from transparency_helpers import ensure_agent, import_from, installed_flavours

FLAVOURS = installed_flavours()
KEY16, KEY32, NONCE = bytes(range(16)), bytes(range(32)), bytes(range(12))
MESSAGE = bytes(1000)


@pytest.fixture(autouse=True)
def _agent():
    ensure_agent()


def _gcm(flavour: str):
    aes = import_from(flavour, "Cipher.AES")
    if registry.slot("aes-gcm").get() is None:
        pytest.skip("aes-gcm is not accelerated on this machine")
    return aes.new(KEY16, aes.MODE_GCM, nonce=NONCE)


def _chacha(flavour: str):
    aead = import_from(flavour, "Cipher.ChaCha20_Poly1305")
    if registry.slot("chacha20-poly1305").get() is None:
        pytest.skip("chacha20-poly1305 is not accelerated on this machine")
    return aead.new(key=KEY32, nonce=NONCE)


MAKERS = {"gcm": _gcm, "chacha20-poly1305": _chacha}
CASES = [(kind, flavour) for kind in MAKERS for flavour in FLAVOURS]


def _token(cipher) -> list:
    return cipher._one_shot if hasattr(type(cipher), "_one_shot") else cipher._fresh


@pytest.mark.parametrize(("kind", "flavour"), CASES)
@pytest.mark.parametrize("call", ["encrypt", "decrypt"])
def test_a_taken_token_stops_a_streaming_start(kind, flavour, call):
    """Token taken by another thread's one-shot call: encrypt/decrypt must not start the stream."""
    cipher = MAKERS[kind](flavour)
    _token(cipher).pop()  # what the winning one-shot call did
    with pytest.raises(TypeError, match="nonce was used by a concurrent call"):
        getattr(cipher, call)(MESSAGE)


@pytest.mark.parametrize(("kind", "flavour"), CASES)
def test_a_taken_token_stops_a_one_shot(kind, flavour):
    """Token taken by a streaming call: a one-shot call must not start the key stream again."""
    cipher = MAKERS[kind](flavour)
    first = cipher.encrypt(MESSAGE[:10])  # opens the stream: takes the token
    # The state a racing encrypt_and_digest() sees if it read the object as
    # fresh just before: it finds no token and continues the stream instead.
    assert not _token(cipher)
    ciphertext, _ = cipher.encrypt_and_digest(MESSAGE[10:])
    reference = MAKERS[kind](flavour)
    expected, _ = reference.encrypt_and_digest(MESSAGE)
    assert first + ciphertext == expected


@pytest.mark.parametrize(("kind", "flavour"), CASES)
def test_threads_sealing_one_fresh_object_never_reuse_its_key_stream(kind, flavour):
    """Eight threads call encrypt_and_digest on one fresh object at once, many times.

    Native pycryptodome gives each racing call its own part of the key
    stream (or raises TypeError); the agent must never hand out two
    ciphertexts of the same plaintext from the same key stream position.
    """
    reused = 0
    for _ in range(40):
        cipher = MAKERS[kind](flavour)
        barrier = threading.Barrier(8)
        results: list = []

        def seal(cipher=cipher, barrier=barrier, results=results) -> None:
            barrier.wait()
            try:
                results.append(cipher.encrypt_and_digest(MESSAGE)[0])
            except TypeError:
                pass

        threads = [threading.Thread(target=seal) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results, "no call succeeded"
        reused += len(results) - len(set(results))
    assert reused == 0


@pytest.mark.parametrize(("kind", "flavour"), CASES)
def test_a_failed_one_shot_decryption_still_verifies_later(kind, flavour):
    """After decrypt_and_verify failed, verify() rebuilds the real tag without taking the token."""
    cipher = MAKERS[kind](flavour)
    ciphertext, tag = cipher.encrypt_and_digest(MESSAGE)
    forged = bytes([tag[0] ^ 1]) + tag[1:]
    dec = MAKERS[kind](flavour)
    with pytest.raises(ValueError, match="MAC check failed"):
        dec.decrypt_and_verify(ciphertext, forged)
    dec.verify(tag)  # the real tag: accepted, as native accepts it
    with pytest.raises(ValueError, match="MAC check failed"):
        dec.verify(forged)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_gcm_message_length_set_from_outside_disables_the_one_shot(flavour):
    """pycryptodome's own tests set ``_msg_len`` near the limit; the limit must then be judged."""
    aes = import_from(flavour, "Cipher.AES")
    cipher = _gcm(flavour)
    cipher._msg_len = 2**36 - 32 - 1  # pycryptodome 4.x's limit minus one
    assert cipher._msg_len == 2**36 - 33
    native = patching.get_original(aes.__name__, "new")(KEY16, aes.MODE_GCM, nonce=NONCE)
    native._msg_len = 2**36 - 33
    outcomes = []
    for obj in (cipher, native):
        try:
            obj.encrypt_and_digest(bytes(2))
            outcomes.append("ok")
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("method", ["encrypt", "decrypt"])
def test_a_finished_gcm_message_never_serves_an_odd_buffer_from_the_key_streams_start(
    flavour, method
):
    """A call that passed the order check while another thread's digest() or verify() ended
    the message leaves the object marked mid-message. A buffer native accepts but the fast
    path does not (two-byte items) must then be refused with native's TypeError, or served
    after the bytes already processed: a native object asked to serve it from scratch would
    start from the key stream's first byte, used already."""
    import array

    from accel_agent.targets.pycryptodome import _order_rules

    cipher = _gcm(flavour)
    key_stream_start = getattr(cipher, method)(bytes(32))  # zeros in: the key stream itself
    if method == "encrypt":
        cipher.digest()
    else:
        with pytest.raises(ValueError):
            cipher.verify(bytes(16))
    after = _order_rules.STATES[1 if method == "encrypt" else 2]  # AFTER_ENCRYPT / _DECRYPT
    cipher._next = after  # what the lost race leaves
    output = memoryview(array.array("I", bytes(32)))
    try:
        getattr(cipher, method)(memoryview(array.array("I", bytes(32))), output=output)
    except TypeError:
        assert method == "encrypt"  # its tag is known: the message is over
    assert bytes(output) != key_stream_start, "the key stream's start was used again"
