"""The crypto task every engine runs in its workers, and what a worker says about the agent.

Imported in the workers of each engine (the engine's process gets this
directory on ``PYTHONPATH``) and, natively, by the tests, which compute
the same task in their own process and compare. Stdlib and pycryptodome
only: the engines' own packages import this module, never the reverse.

``task(index)`` runs, on inputs drawn from ``index``:

* AES-128-GCM seal and open with a header, and an open of a tampered tag;
* SHA-256 of the plaintext;
* an ECDSA P-256 signature (FIPS 186-3, random k) of the plaintext's
  SHA-256, verified in the worker, and a tampered one refused.

and reports, from inside the worker, ``accel_agent.status()``'s mode and,
for the three primitives, who serves them and how many calls they served
during the task, with the worker's pid and its CPU time when its first
task began and when it ended (its start-up cost, which other processes'
load hardly moves).
"""

from __future__ import annotations

import os
import random
import time

from Crypto.Cipher import AES
from Crypto.Hash import SHA256
from Crypto.PublicKey import ECC
from Crypto.Signature import DSS

# One key object for the process's life, as an application loads its key once:
# the agent reuses what OpenSSL made of it (providers/base.py, LastKeyReuse).
KEY = bytes(range(16))
# The ECDSA key: a fixed private scalar, so the tests verify with its public key.
SIGNING_SCALAR = 0x1F2E3D4C5B6A79880796A5B4C3D2E1F00112233445566778899AABBCCDDEEFF0
PRIMITIVES = ("aes-gcm", "sha256", "ecdsa-p256")

_process = {"first_task_cpu_s": None, "cpu_before_first_task_s": None, "signing_key": None}


def signing_key():
    key = _process["signing_key"]
    if key is None:
        key = _process["signing_key"] = ECC.construct(curve="P-256", d=SIGNING_SCALAR)
    return key


def inputs(index: int) -> tuple[bytes, bytes, bytes]:
    """(plaintext, header, nonce) for task ``index``: the same in every process."""
    rng = random.Random(index)
    size = 200 + rng.randrange(2000)
    return rng.randbytes(size), rng.randbytes(20), rng.randbytes(12)


def _error(call) -> str:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the type and message are the result
        return "%s: %s" % (type(exc).__name__, exc)
    return "no error"


def crypto(index: int) -> dict:
    """The task's results; every field but ``signature`` is the same natively."""
    plaintext, header, nonce = inputs(index)
    sealer = AES.new(KEY, AES.MODE_GCM, nonce=nonce)
    sealer.update(header)
    ciphertext, tag = sealer.encrypt_and_digest(plaintext)

    def open_with(tag_used: bytes) -> bytes:
        opener = AES.new(KEY, AES.MODE_GCM, nonce=nonce)
        opener.update(header)
        return opener.decrypt_and_verify(ciphertext, tag_used)

    opened = open_with(tag)
    tampered_tag = bytes([tag[0] ^ 1]) + tag[1:]
    digest = SHA256.new(plaintext)
    signature = DSS.new(signing_key(), "fips-186-3").sign(digest)
    verifier = DSS.new(signing_key().public_key(), "fips-186-3")
    tampered_signature = bytes([signature[0] ^ 1]) + signature[1:]
    return {
        "index": index,
        "sealed": (ciphertext + tag).hex(),
        "opened": opened == plaintext,
        "tampered_open": _error(lambda: open_with(tampered_tag)),
        "sha256": digest.hexdigest(),
        "signature": signature.hex(),
        "verify_own": _error(lambda: verifier.verify(SHA256.new(plaintext), signature)),
        "verify_tampered": _error(
            lambda: verifier.verify(SHA256.new(plaintext), tampered_signature)
        ),
    }


def agent_facts() -> dict:
    """What ``accel_agent.status()`` says in this process about the task's primitives."""
    try:
        import accel_agent
    except ImportError:
        return {"installed": False}
    status = accel_agent.status(resolve=False)
    primitives = status["primitives"]
    return {
        "installed": True,
        "mode": status["mode"],
        "active": status["active"],
        "key_reuse": status["key_reuse"],
        "speedups": status["speedups"],
        "providers": {name: primitives.get(name, {}).get("provider") for name in PRIMITIVES},
        "calls": {name: primitives.get(name, {}).get("calls", 0) for name in PRIMITIVES},
    }


def task(index: int) -> dict:
    """Run the crypto task in this worker; its results, and the agent's counts for it."""
    asking_started = time.process_time()
    if _process["cpu_before_first_task_s"] is None:  # the first of concurrent first tasks
        _process["cpu_before_first_task_s"] = asking_started
    before = agent_facts()
    asking = time.process_time() - asking_started
    results = crypto(index)
    if _process["first_task_cpu_s"] is None:
        # What asking the agent cost is not the worker's start-up.
        _process["first_task_cpu_s"] = time.process_time() - asking
    after = agent_facts()
    served = (
        {name: after["calls"][name] - before["calls"][name] for name in PRIMITIVES}
        if (after.get("installed"))
        else {}
    )
    return {
        "pid": os.getpid(),
        "results": results,
        "agent": after,
        "served": served,
        "env_mode": os.environ.get("ACCEL_AGENT"),
        "cpu_before_first_task_s": _process["cpu_before_first_task_s"],
        "first_task_cpu_s": _process["first_task_cpu_s"],
    }
