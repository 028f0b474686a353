"""Every OpenSSL call the agent makes for bulk work releases the GIL, as native pycryptodome's do.

pycryptodome's C code runs through cffi or ctypes, which release the GIL
for each call, so natively threads encrypt and hash in parallel. The agent
calls pyca/cryptography and CPython's ``_hashlib`` instead; if those held
the GIL, threaded code would be slower under the agent than natively on any
machine with more cores than the agent's per-call gain. pyca/cryptography
releases it for its ciphers, AEADs, hashes and HMAC from 50.0 (for inputs
of 2,048 bytes and more) and for RSA and EC from 47.0; 43.0-49.x hold it
(docs/platforms.md gives the measurements), so the pyproject requires 50.

The probe (:func:`released_gil`) is binary and immune to a loaded machine:
with a switch interval of half a second, a worker makes calls for a quarter
of a second while the main thread spins; the main thread can run during
them only if a call released the GIL. It is checked first against a call known to hold the
GIL and one known to release it, so a probe that always answered one way
would fail here.
"""

from __future__ import annotations

import _hashlib
import hashlib
import re
import sys
import threading
import time
from importlib import metadata

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import (
    AESCCM,
    AESGCM,
    AESOCB3,
    AESSIV,
    ChaCha20Poly1305,
)

# The first pyca/cryptography release that releases the GIL, per family the
# agent uses; measured with this probe on every minor release from 42.0.0
# to 50.0.2 (42.x's cffi-backed AES contexts released it per C call, 43.0
# moved them to Rust, which held it until 50.0).
FIRST_RELEASING = {"aead": (50, 0), "cipher": (50, 0), "hash": (50, 0), "rsa-ec": (47, 0)}

SIZE = 64 * 1024  # above the 2,048 bytes from which both libraries release the GIL
KEY16, KEY32, NONCE, IV = bytes(16), bytes(32), bytes(12), bytes(16)


class _Spin:
    count = 0
    stop = False


SWITCH_INTERVAL = 0.5  # seconds before a thread waiting for the GIL forces a switch
BUDGET = 0.25  # seconds of calls per probe: below the interval, so no forced switch


def released_gil(function) -> bool:
    """Whether the main thread ran while a worker called ``function`` for up to BUDGET s."""
    spin = _Spin()
    seen = {}

    def worker() -> None:
        before = spin.count
        deadline = time.perf_counter() + BUDGET
        while spin.count == before and time.perf_counter() < deadline:
            function()
        seen["released"] = spin.count > before
        spin.stop = True

    function()  # lazy set-up outside the probe
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        while not spin.stop:
            spin.count += 1
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    return seen["released"]


def test_the_probe_sees_a_call_that_holds_the_gil():
    data = bytes(1024)  # hashlib holds the GIL below 2,048 bytes
    assert not released_gil(lambda: hashlib.sha256(data).digest())


def test_the_probe_sees_a_call_that_releases_the_gil():
    assert released_gil(lambda: time.sleep(0.001))


def _cipher(mode):
    data = bytes(SIZE)
    return lambda: Cipher(algorithms.AES(KEY16), mode).encryptor().update(data)


def _update_into():
    data, out = bytes(SIZE), bytearray(SIZE + 15)
    return lambda: Cipher(algorithms.AES(KEY16), modes.CTR(IV)).encryptor().update_into(data, out)


def _aead(make, *arguments):
    data = bytes(SIZE)
    return lambda: make().encrypt(*arguments[:1], data, *arguments[1:])


def _siv():
    data = bytes(SIZE)
    return lambda: AESSIV(KEY32).encrypt(data, [NONCE])


def _crypto_hash():
    data = bytes(SIZE)

    def call():
        context = hashes.Hash(hashes.SHA256())
        context.update(data)
        return context.finalize()

    return call


def _rsa(operation):
    key = rsa.generate_private_key(65537, 2048)
    digest, prehashed = bytes(32), utils.Prehashed(hashes.SHA256())
    signature = key.sign(digest, padding.PKCS1v15(), prehashed)
    if operation == "sign":
        return lambda: key.sign(digest, padding.PKCS1v15(), prehashed)
    public = key.public_key()
    return lambda: public.verify(signature, digest, padding.PKCS1v15(), prehashed)


def _ec(operation):
    key = ec.generate_private_key(ec.SECP256R1())
    digest, algorithm = bytes(32), ec.ECDSA(utils.Prehashed(hashes.SHA256()))
    signature = key.sign(digest, algorithm)
    if operation == "sign":
        return lambda: key.sign(digest, algorithm)
    public = key.public_key()
    return lambda: public.verify(signature, digest, algorithm)


# (family, name, builder of the call): the calls the providers make, as they make them.
CALLS = (
    ("aead", "aes-gcm", lambda: _aead(lambda: AESGCM(KEY16), NONCE, None)),
    ("aead", "chacha20-poly1305", lambda: _aead(lambda: ChaCha20Poly1305(KEY32), NONCE, None)),
    ("aead", "aes-ocb3", lambda: _aead(lambda: AESOCB3(KEY16), NONCE, None)),
    ("aead", "aes-ccm", lambda: _aead(lambda: AESCCM(KEY16), NONCE, None)),
    ("aead", "aes-siv", lambda: _siv()),
    ("cipher", "cbc update", lambda: _cipher(modes.CBC(IV))),
    ("cipher", "ctr update", lambda: _cipher(modes.CTR(IV))),
    ("cipher", "ecb update", lambda: _cipher(modes.ECB())),
    ("cipher", "ctr update_into", _update_into),
    ("hash", "cryptography sha256", _crypto_hash),
    ("rsa-ec", "rsa2048 sign", lambda: _rsa("sign")),
    ("rsa-ec", "rsa2048 verify", lambda: _rsa("verify")),
    ("rsa-ec", "p256 sign", lambda: _ec("sign")),
    ("rsa-ec", "p256 verify", lambda: _ec("verify")),
)


@pytest.mark.parametrize("family, build", [c[::2] for c in CALLS], ids=[c[1] for c in CALLS])
def test_pyca_cryptography_releases_the_gil(family, build):
    assert released_gil(build()), (
        "this pyca/cryptography holds the GIL for %s calls (released from %d.%d)"
        % (family, *FIRST_RELEASING[family])
    )


def test_hashlib_releases_the_gil_from_2_kib():
    """CPython's _hashlib (the hashes' and HMAC's provider) releases it from 2,048 bytes."""
    small, large = bytes(2047), bytes(2048)
    assert not released_gil(lambda: _hashlib.new("sha256", small).digest())
    assert released_gil(lambda: _hashlib.new("sha256", large).digest())
    assert released_gil(lambda: _hashlib.hmac_digest(KEY16, bytes(SIZE), "sha256"))


def floor(requirements: list[str], name: str) -> tuple[int, ...]:
    """The ``>=`` floor of ``name`` in a distribution's requirements, as (major, minor)."""
    for requirement in requirements:
        found = re.match(r"%s\s*>=\s*([0-9.]+)\s*(;|,|$)" % re.escape(name), requirement)
        if found:
            parts = tuple(int(part) for part in found.group(1).split("."))
            return (parts + (0, 0))[:2]
    raise LookupError("no >= requirement on %s" % name)


def test_floor_reads_a_requirement():
    assert floor(["click>=8.1", "cryptography>=49"], "cryptography") == (49, 0)
    assert floor(["cryptography>=47.0.1"], "cryptography") == (47, 0)
    with pytest.raises(LookupError):
        floor(["cryptography"], "cryptography")


def test_the_installed_agent_requires_a_cryptography_that_releases_the_gil():
    required = floor(metadata.requires("accel-agent") or [], "cryptography")
    assert required >= max(FIRST_RELEASING.values())
