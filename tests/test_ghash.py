"""GHASH's field arithmetic, with which a GCM object's state is computed back from a tag.

Checked against pyca/cryptography's AES-GCM (its tags are the GHASH value
masked with E(K, J0)) and against the field's own laws, not against itself.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_agent.targets.pycryptodome import _ghash

AESGCM = pytest.importorskip("cryptography.hazmat.primitives.ciphers.aead").AESGCM
_ciphers = pytest.importorskip("cryptography.hazmat.primitives.ciphers")

ONE = 1 << 127  # the field's one in SP 800-38D's bit order
blocks = st.integers(1, (1 << 128) - 1)


def _ecb(key: bytes, block: bytes) -> bytes:
    algorithm = _ciphers.algorithms.AES(key)
    return _ciphers.Cipher(algorithm, _ciphers.modes.ECB()).encryptor().update(block)


@settings(max_examples=200, deadline=None)
@given(x=blocks, y=blocks, z=blocks)
def test_multiplication_is_a_field_with_inverses(x, y, z):
    assert _ghash.multiply(x, ONE) == x
    assert _ghash.multiply(x, y) == _ghash.multiply(y, x)
    assert _ghash.multiply(x, y ^ z) == _ghash.multiply(x, y) ^ _ghash.multiply(x, z)
    assert _ghash.multiply(x, _ghash.inverse(x)) == ONE


def test_zero_has_no_inverse():
    with pytest.raises(ZeroDivisionError):
        _ghash.inverse(0)


@settings(max_examples=60, deadline=None)
@given(
    nonce_size=st.sampled_from([8, 12, 16, 20, 64]),
    aad=st.binary(max_size=40),
    message=st.binary(max_size=80),
)
def test_the_state_behind_a_tag_is_ghash_of_the_whole_blocks(nonce_size, aad, message):
    """``state_before_tag`` gives back GHASH of the associated data and the whole
    ciphertext blocks, the value native's GHASH buffer holds, from AES-GCM's tag."""
    key = os.urandom(16)
    nonce = os.urandom(nonce_size)
    sealed = AESGCM(key).encrypt(nonce, message, aad)
    ciphertext, tag = sealed[:-16], sealed[-16:]
    h = int.from_bytes(_ecb(key, bytes(16)), "big")
    j0 = _ghash.pre_counter_block(h, nonce)
    masked = int.from_bytes(tag, "big") ^ int.from_bytes(_ecb(key, j0), "big")
    pending = len(message) % 16
    partial = ciphertext[len(ciphertext) - pending :] if pending else b""
    y = _ghash.state_before_tag(
        _ghash.inverse(h), masked, len(aad), len(message), partial
    )
    whole = ciphertext[: len(ciphertext) - pending]
    assert y == _ghash.ghash(h, aad + bytes(-len(aad) % 16) + whole)
