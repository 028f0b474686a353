"""Known-answer tests that gate every provider.

A provider is used only after its known answers came out right in this
process (design.md, gate 2). The vectors are published ones (NIST, RFC),
kept here as data; one checker per kind of primitive runs them through the
provider's own interface, the same one the targets call. A failure names the
vector, never its bytes.
"""

from __future__ import annotations

from accel_agent.providers.base import SelfCheckFailed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def _h(text: str) -> bytes:
    return bytes.fromhex(text)


# NIST SP 800-38A F.1 (ECB-AES128/192/256, first block) and FIPS-197 C.3.
AES_ECB_VECTORS = (
    (
        "SP 800-38A F.1.1 ECB-AES128",
        _h("2b7e151628aed2a6abf7158809cf4f3c"),
        _h("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"),
        _h("3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"),
    ),
    (
        "SP 800-38A F.1.3 ECB-AES192",
        _h("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"),
        _h("6bc1bee22e409f96e93d7e117393172a"),
        _h("bd334f1d6e45f25ff712a214571fa5cc"),
    ),
    (
        "FIPS-197 C.3 AES-256",
        _h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
        _h("00112233445566778899aabbccddeeff"),
        _h("8ea2b7ca516745bfeafc49904b496089"),
    ),
)


def check_block_mode(provider: Any, vectors: tuple) -> None:
    """Encrypt and decrypt each vector through the provider's contexts."""
    for label, key, plaintext, ciphertext in vectors:
        if provider.encryptor(key).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if provider.decryptor(key).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


# primitive name -> (checker, vectors)
KNOWN_ANSWERS: dict[str, tuple[Callable[[Any, tuple], None], tuple]] = {
    "aes-ecb": (check_block_mode, AES_ECB_VECTORS),
}


def run(primitive: str, provider: Any) -> None:
    """Run the known answers of ``primitive`` on ``provider``; raise SelfCheckFailed.

    A primitive without known answers fails: nothing is trusted unchecked.
    """
    entry = KNOWN_ANSWERS.get(primitive)
    if entry is None:
        raise SelfCheckFailed("no known-answer test for %s" % primitive)
    checker, vectors = entry
    try:
        checker(provider, vectors)
    except SelfCheckFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - an exception is a failed check too
        raise SelfCheckFailed("raised %s" % type(exc).__name__) from None
