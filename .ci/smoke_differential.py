"""Differential smoke test: under the agent, pycryptodome gives what it gives natively.

Run with the agent active, as .ci/multipython.sh does on every Python:

    python -X accel=quiet .ci/smoke_differential.py [--seed N] [--rounds N]

For each primitive the agent knows (``accel_agent.status()["primitives"]``)
that has a check below, the check runs a seeded random transcript of calls
(outputs, attributes, errors with their messages) through ``Crypto`` and,
when installed, ``Cryptodome``: first with the agent's patches in, then after
``accel_agent.uninstall()`` has restored pycryptodome's own functions. The two
transcripts must be identical, every checked primitive must be
``accelerated``, and its call counter must show the agent served the calls.

It is a smoke test, seconds long; tests/differential/ goes deeper. A
primitive without a check here is listed, not failed, so adding a primitive
never breaks CI by itself. Nothing secret is printed: only operation labels.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys

KEY_SIZES = (16, 24, 32)


def _outcome(function, *args, **kwargs):
    """The result of a call, or its exception as (type name, message)."""
    try:
        value = function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(exc).__name__, str(exc))
    if isinstance(value, (bytearray, memoryview)):
        value = bytes(value)
    return ("returned", value)


def _lengths(rng: random.Random, block: int | None) -> list[int]:
    """Message lengths: empty, small, odd, large; whole blocks only when ``block`` is set."""
    lengths = [0, 1, 15, 16, 17, 31, 32, 64, 100, 1000, 4096, rng.randrange(1, 20000)]
    if block:
        lengths = sorted({(n // block) * block for n in lengths})
    return lengths


def check_aes_ecb(aes, rng: random.Random, record) -> None:
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, 16):
            data = rng.randbytes(length)
            label = "ECB-%d len %d" % (key_size * 8, length)
            cipher = aes.new(key, aes.MODE_ECB)
            record(label + " encrypt", _outcome(cipher.encrypt, data))
            record(label + " decrypt", _outcome(cipher.decrypt, data))
            record(label + " attrs", (cipher.block_size, getattr(cipher, "mode", None)))
            out = bytearray(length)
            record(label + " encrypt output=", (_outcome(cipher.encrypt, data, output=out), out))
            record(label + " decrypt memoryview", _outcome(cipher.decrypt, memoryview(data)))
    key = rng.randbytes(16)
    record("ECB bad length", _outcome(aes.new(key, aes.MODE_ECB).encrypt, b"x" * 15))
    record("ECB bad key", _outcome(aes.new, b"k" * 17, aes.MODE_ECB))
    record("ECB str input", _outcome(aes.new(key, aes.MODE_ECB).encrypt, "sixteen chars!!!"))
    out = bytearray(15)
    record("ECB short output", _outcome(aes.new(key, aes.MODE_ECB).encrypt, b"y" * 16, output=out))


def check_aes_cbc(aes, rng: random.Random, record) -> None:
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, 16):
            iv = rng.randbytes(16)
            data = rng.randbytes(length)
            label = "CBC-%d len %d" % (key_size * 8, length)
            encryptor = aes.new(key, aes.MODE_CBC, iv=iv)
            record(label + " iv", encryptor.iv)
            record(label + " encrypt", _outcome(encryptor.encrypt, data))
            record(label + " encrypt again", _outcome(encryptor.encrypt, data))
            record(label + " decrypt after encrypt", _outcome(encryptor.decrypt, data))
            record(label + " decrypt", _outcome(aes.new(key, aes.MODE_CBC, iv).decrypt, data))
    key = rng.randbytes(16)
    record("CBC bad length", _outcome(aes.new(key, aes.MODE_CBC, iv=bytes(16)).encrypt, b"x" * 17))
    record("CBC bad iv", _outcome(aes.new, key, aes.MODE_CBC, iv=b"short"))


def _stream_mode(name: str, mode_attribute: str, nonce_argument: str, nonce_size: int, **extra):
    def check(aes, rng: random.Random, record) -> None:
        mode = getattr(aes, mode_attribute)
        for key_size in KEY_SIZES:
            key = rng.randbytes(key_size)
            for length in _lengths(rng, None):
                nonce = rng.randbytes(nonce_size)
                data = rng.randbytes(length)
                label = "%s-%d len %d" % (name, key_size * 8, length)
                encryptor = aes.new(key, mode, **{nonce_argument: nonce}, **extra)
                record(label + " " + nonce_argument, getattr(encryptor, nonce_argument))
                split = length // 3
                record(label + " encrypt 1/2", _outcome(encryptor.encrypt, data[:split]))
                record(label + " encrypt 2/2", _outcome(encryptor.encrypt, data[split:]))
                record(label + " decrypt after encrypt", _outcome(encryptor.decrypt, data))
                decryptor = aes.new(key, mode, **{nonce_argument: nonce}, **extra)
                record(label + " decrypt", _outcome(decryptor.decrypt, data))

    check.__name__ = "check_aes_" + name.lower()
    return check


def check_aes_gcm(aes, rng: random.Random, record) -> None:
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, None):
            nonce = rng.randbytes(rng.choice((12, 12, 16, 8)))
            aad = rng.randbytes(rng.choice((0, 13, 32)))
            data = rng.randbytes(length)
            label = "GCM-%d len %d" % (key_size * 8, length)
            encryptor = aes.new(key, aes.MODE_GCM, nonce=nonce)
            encryptor.update(aad)
            sealed = _outcome(encryptor.encrypt_and_digest, data)
            record(label + " encrypt_and_digest", sealed)
            record(label + " nonce", encryptor.nonce)
            record(label + " update after encrypt", _outcome(encryptor.update, b"late"))
            if sealed[0] != "returned":
                continue
            ciphertext, tag = sealed[1]
            decryptor = aes.new(key, aes.MODE_GCM, nonce=nonce)
            decryptor.update(aad)
            record(
                label + " decrypt_and_verify",
                _outcome(decryptor.decrypt_and_verify, ciphertext, tag),
            )
            forged = aes.new(key, aes.MODE_GCM, nonce=nonce)
            forged.update(aad)
            bad_tag = bytes([tag[0] ^ 1]) + tag[1:]
            record(label + " forged tag", _outcome(forged.decrypt_and_verify, ciphertext, bad_tag))


# primitive -> check; a check runs only when the agent's catalog has the primitive.
CHECKS = {
    "aes-ecb": check_aes_ecb,
    "aes-cbc": check_aes_cbc,
    "aes-ctr": _stream_mode("CTR", "MODE_CTR", "nonce", 8),
    "aes-cfb": _stream_mode("CFB", "MODE_CFB", "iv", 16, segment_size=128),
    "aes-ofb": _stream_mode("OFB", "MODE_OFB", "iv", 16),
    "aes-gcm": check_aes_gcm,
}
MODULES = {"aes": "Cipher.AES"}  # family -> pycryptodome module (without prefix)


def installed_prefixes() -> list[str]:
    prefixes = []
    for prefix in ("Crypto", "Cryptodome"):
        try:
            importlib.import_module(prefix)
        except ImportError:
            continue
        prefixes.append(prefix)
    return prefixes


def transcripts(primitives: dict, prefixes: list[str], seed: int, rounds: int) -> dict:
    """primitive -> list of (label, outcome), from the same seed whoever serves the calls."""
    result = {}
    for name in sorted(primitives):
        check = CHECKS.get(name)
        if check is None:
            continue
        entries: list[tuple[str, object]] = []
        for prefix in prefixes:
            module = importlib.import_module("%s.%s" % (prefix, MODULES[primitives[name]]))
            for round_number in range(rounds):
                rng = random.Random("%d/%s/%d" % (seed, name, round_number))

                def record(label, outcome, _prefix=prefix, _round=round_number, _into=entries):
                    _into.append(("%s round %d %s" % (_prefix, _round, label), outcome))

                check(module, rng, record)
        result[name] = entries
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    parser.add_argument("--rounds", type=int, default=3, help="transcripts per primitive")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    if not hasattr(random.Random, "randbytes"):  # Python 3.9 has it; keep a clear message
        print("smoke: Python %s lacks random.randbytes" % sys.version.split()[0])
        return 2

    import accel_agent

    facts = accel_agent.status(resolve=False)
    if not facts["active"]:
        print("smoke: the agent is not active; run me as python -X accel=quiet %s" % sys.argv[0])
        return 2
    prefixes = installed_prefixes()
    if not prefixes:
        print("smoke: neither pycryptodome nor pycryptodomex is installed")
        return 2
    facts = accel_agent.status()
    primitives = {name: entry["family"] for name, entry in facts["primitives"].items()}
    versions = ", ".join(
        "%s %s" % (dist, facts["libraries"].get(dist))
        for dist in ("pycryptodome", "pycryptodomex")
        if facts["libraries"].get(dist)
    )
    print(
        "smoke: Python %s, accel-agent %s, %s; seed %d"
        % (sys.version.split()[0], facts["agent_version"], versions, seed)
    )

    failures = []
    for name, entry in sorted(facts["primitives"].items()):
        if name in CHECKS and not entry["accelerated"]:
            failures.append("%s is not accelerated: %s" % (name, entry["reason"]))
    with_agent = transcripts(primitives, prefixes, seed, args.rounds)
    served = {name: entry["calls"] for name, entry in accel_agent.status()["primitives"].items()}

    accel_agent.uninstall()
    leftover = accel_agent.status(resolve=False)["patched"]
    if leftover:
        failures.append("uninstall left patches in place: %s" % leftover)
    native = transcripts(primitives, prefixes, seed, args.rounds)

    for name in sorted(with_agent):
        differing = [
            label
            for (label, ours), (_, theirs) in zip(with_agent[name], native[name])
            if ours != theirs
        ]
        if len(with_agent[name]) != len(native[name]):
            differing.append(
                "transcript lengths %d vs %d" % (len(with_agent[name]), len(native[name]))
            )
        if not served.get(name):
            failures.append("%s: no call reached the agent's provider" % name)
        if differing:
            failures.append(
                "%s: %d of %d outcomes differ from native, first: %s"
                % (name, len(differing), len(with_agent[name]), "; ".join(differing[:3]))
            )
        print(
            "smoke: %-8s %5d outcomes compared, %5d calls served by the agent: %s"
            % (name, len(with_agent[name]), served.get(name, 0), "FAIL" if differing else "ok")
        )
    unchecked = sorted(set(primitives) - set(CHECKS))
    if unchecked:
        print("smoke: no differential check here yet for: %s" % ", ".join(unchecked))
    if not with_agent:
        failures.append("no primitive was checked")
    for failure in failures:
        print("smoke: FAILED: %s" % failure)
    print("smoke: %s" % ("FAILED" if failures else "PASSED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
