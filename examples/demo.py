"""A tiny pycryptodome program that knows nothing of the agent.

Run it as ``python -X accel examples/demo.py`` (``make run`` does): the agent
prints its two status lines, then this script encrypts and decrypts a few
blocks with ``Crypto.Cipher.AES`` in ECB mode (the mode the agent accelerates
today) and says whether the calls went through OpenSSL. Run it without
``-X accel`` and the same code runs on pycryptodome's own AES.
"""

from __future__ import annotations

import os
import sys

from Crypto.Cipher import AES

# FIPS-197 appendix C.1: the published AES-128 known answer.
FIPS_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
FIPS_PLAINTEXT = bytes.fromhex("00112233445566778899aabbccddeeff")
FIPS_CIPHERTEXT = bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a")

BLOCKS = 64


def served_by() -> str:
    """Who served AES-ECB in this process, as the agent reports it."""
    try:
        import accel_agent
    except ImportError:
        return "pycryptodome (accel-agent is not installed)"
    facts = accel_agent.status(resolve=False)
    if not facts["active"]:
        return "pycryptodome (the agent is off: try python -X accel)"
    entry = facts["primitives"].get("aes-ecb")
    if entry is None or not entry["calls"]:
        return "pycryptodome (no call reached the agent)"
    return "%s via accel-agent (%d calls)" % (entry["provider"], entry["calls"])


def main() -> int:
    known = AES.new(FIPS_KEY, AES.MODE_ECB).encrypt(FIPS_PLAINTEXT)
    if known != FIPS_CIPHERTEXT:
        print("demo: FIPS-197 C.1 known answer WRONG", file=sys.stderr)
        return 1

    key = os.urandom(32)
    plaintext = os.urandom(16 * BLOCKS)
    ciphertext = AES.new(key, AES.MODE_ECB).encrypt(plaintext)
    recovered = AES.new(key, AES.MODE_ECB).decrypt(ciphertext)
    if recovered != plaintext:
        print("demo: AES-256-ECB round trip FAILED", file=sys.stderr)
        return 1

    print("demo: FIPS-197 C.1 known answer OK")
    print("demo: AES-256-ECB round trip of %d blocks (%d bytes) OK" % (BLOCKS, len(plaintext)))
    print("demo: AES-ECB served by %s" % served_by())
    return 0


if __name__ == "__main__":
    sys.exit(main())
