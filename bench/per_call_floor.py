"""Where the per-call goals' floor lies: the AEAD API's own unavoidable costs, measured.

    python -m bench.per_call_floor [--sizes 64,1K,16K,1M] [--reps 15]

pycryptodome's ``encrypt_and_digest`` returns ``(ciphertext, tag)`` as two
``bytes``; pyca/cryptography's ``AESGCM.encrypt`` returns ``ct || tag``. The
bench's direct row times the latter alone. This script times, in one process
with interleaved samples on the thread's CPU clock (``accel_agent.bench.timing``,
as ``accel-agent bench``):

* ``direct``: ``AESGCM(key).encrypt(nonce, data, None)`` (the bench's row);
* ``direct, same job``: the same, then split into ``(ct, tag)`` as a
  cryptography user who needs them apart writes it (for decryption:
  ``ct + tag`` joined first), i.e. the work pycryptodome's API asks for;
* ``agent``: ``AES.new(key, MODE_GCM, nonce=nonce).encrypt_and_digest(data)``;

and the same for ChaCha20-Poly1305 (``new``, ``update(aad)``,
``encrypt_and_digest``), plus SHA-256 at 64 bytes with and without the
registry's call counter (a local copy of the target's fast path). It prints
each time and the paired ratio ``direct / this``.
"""

from __future__ import annotations

import argparse
import os

from accel_agent.bench import timing
from accel_agent.bench.families import size_label

SIZES = {"64": 64, "1K": 1024, "16K": 16 * 1024, "1M": 1024 * 1024}


SAMPLE_NS = 20e6  # each sample lasts about 20 ms


def measure(variants: dict, reps: int) -> None:
    """Interleaved samples of every variant (``accel-agent bench``'s timing); the first
    is the base of the ratios."""
    measured = timing.measure(
        [timing.Variant(name, function) for name, function in variants.items()],
        reps=reps,
        loops=1,
        sample_ns=SAMPLE_NS,
    )
    base = measured[next(iter(variants))]
    for name, result in measured.items():
        ratio = timing.paired_ratio(base, result)
        print("  %-34s %10.0f ns   %.2fx" % (name, result.median, ratio))


def gcm(size: int, reps: int) -> None:
    from Crypto.Cipher import AES
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key, nonce, data = os.urandom(16), os.urandom(12), os.urandom(size)
    sealed = AESGCM(key).encrypt(nonce, data, None)
    ct, tag = sealed[:-16], sealed[-16:]
    mode = AES.MODE_GCM

    def same_job():
        s = AESGCM(key).encrypt(nonce, data, None)
        return s[:-16], s[-16:]

    print("AES-128-GCM encrypt, %s" % size_label(size))
    measure(
        {
            "direct": lambda: AESGCM(key).encrypt(nonce, data, None),
            "direct, same job (ct, tag apart)": same_job,
            "agent": lambda: AES.new(key, mode, nonce=nonce).encrypt_and_digest(data),
        },
        reps,
    )
    print("AES-128-GCM decrypt, %s" % size_label(size))
    measure(
        {
            "direct": lambda: AESGCM(key).decrypt(nonce, sealed, None),
            "direct, same job (ct + tag)": lambda: AESGCM(key).decrypt(nonce, ct + tag, None),
            "agent": lambda: AES.new(key, mode, nonce=nonce).decrypt_and_verify(ct, tag),
        },
        reps,
    )


def chacha(size: int, reps: int) -> None:
    from Crypto.Cipher import ChaCha20_Poly1305
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    key, nonce, aad, data = os.urandom(32), os.urandom(12), os.urandom(16), os.urandom(size)

    def same_job():
        s = ChaCha20Poly1305(key).encrypt(nonce, data, aad)
        return s[:-16], s[-16:]

    def agent():
        cipher = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        cipher.update(aad)
        return cipher.encrypt_and_digest(data)

    print("ChaCha20-Poly1305 encrypt, 16-byte AAD, %s" % size_label(size))
    measure(
        {
            "direct": lambda: ChaCha20Poly1305(key).encrypt(nonce, data, aad),
            "direct, same job (ct, tag apart)": same_job,
            "agent": agent,
        },
        reps,
    )


def sha256(reps: int) -> None:
    """The target's SHA-256 fast path, copied, with and without ``slot.calls += 1``."""
    import _hashlib
    import hashlib

    from Crypto.Hash import SHA256

    data = os.urandom(64)
    ctor = _hashlib.openssl_sha256

    class Slot:
        __slots__ = ("calls",)

    slot = Slot()
    slot.calls = 10_000  # past CPython's cached small ints, as a running counter is

    class Hash:
        __slots__ = ("_h",)

        def digest(self):
            return self._h.digest()

    def counted(data=None):
        if type(data) is bytes and ctor is not None:
            h = Hash()
            h._h = ctor(data)
            slot.calls += 1
            return h
        return None

    def uncounted(data=None):
        if type(data) is bytes and ctor is not None:
            h = Hash()
            h._h = ctor(data)
            return h
        return None

    print("SHA-256, 64 B (the agent's fast path copied, to isolate the counter)")
    measure(
        {
            "hashlib": lambda: hashlib.sha256(data).digest(),
            "agent (SHA256.new(data).digest())": lambda: SHA256.new(data).digest(),
            "copy, counted": lambda: counted(data).digest(),
            "copy, not counted": lambda: uncounted(data).digest(),
        },
        reps,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,1K,16K,1M")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args(argv)
    import accel_agent

    accel_agent.activate("quiet")
    for name in args.sizes.split(","):
        gcm(SIZES[name], args.reps)
    for name in args.sizes.split(","):
        if SIZES[name] in (1024, 1024 * 1024):
            chacha(SIZES[name], args.reps)
    sha256(args.reps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
