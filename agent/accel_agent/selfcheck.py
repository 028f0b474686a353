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


# NIST SP 800-38A appendix F: key, IV and the four plaintext blocks they share.
_SP800_38A_KEY = _h("2b7e151628aed2a6abf7158809cf4f3c")
_SP800_38A_IV = _h("000102030405060708090a0b0c0d0e0f")
_SP800_38A_PT = _h(
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
)

# (label, key, iv or None, plaintext, ciphertext)
AES_ECB_VECTORS = (
    (
        "SP 800-38A F.1.1 ECB-AES128",
        _SP800_38A_KEY,
        None,
        _SP800_38A_PT[:32],
        _h("3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"),
    ),
    (
        "SP 800-38A F.1.3 ECB-AES192",
        _h("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"),
        None,
        _SP800_38A_PT[:16],
        _h("bd334f1d6e45f25ff712a214571fa5cc"),
    ),
    (
        "FIPS-197 C.3 AES-256",
        _h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
        None,
        _h("00112233445566778899aabbccddeeff"),
        _h("8ea2b7ca516745bfeafc49904b496089"),
    ),
)
AES_CBC_VECTORS = (
    (
        "SP 800-38A F.2.1 CBC-AES128",
        _SP800_38A_KEY,
        _SP800_38A_IV,
        _SP800_38A_PT,
        _h(
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
            "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"
        ),
    ),
)
AES_CTR_VECTORS = (
    (
        "SP 800-38A F.5.1 CTR-AES128",
        _SP800_38A_KEY,
        _h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
        _SP800_38A_PT,
        _h(
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
            "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"
        ),
    ),
)
AES_OFB_VECTORS = (
    (
        "SP 800-38A F.4.1 OFB-AES128",
        _SP800_38A_KEY,
        _SP800_38A_IV,
        _SP800_38A_PT,
        _h(
            "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"
            "9740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e"
        ),
    ),
)
# (label, segment size in bits, key, iv, plaintext, ciphertext)
AES_CFB_VECTORS = (
    (
        "SP 800-38A F.3.7 CFB8-AES128",
        8,
        _SP800_38A_KEY,
        _SP800_38A_IV,
        _SP800_38A_PT[:18],
        _h("3b79424c9c0dd436bace9e0ed4586a4f32b9"),
    ),
    (
        "SP 800-38A F.3.13 CFB128-AES128",
        128,
        _SP800_38A_KEY,
        _SP800_38A_IV,
        _SP800_38A_PT,
        _h(
            "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
            "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6"
        ),
    ),
)

# The GCM specification (McGrew and Viega), test cases 4 (96-bit nonce) and 6 (60-byte nonce).
_GCM_KEY = _h("feffe9928665731c6d6a8f9467308308")
_GCM_PT = _h(
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
)
_GCM_AAD = _h("feedfacedeadbeeffeedfacedeadbeefabaddad2")
# (label, key, nonce, aad, plaintext, ciphertext, tag)
AES_GCM_VECTORS = (
    (
        "GCM spec test case 4",
        _GCM_KEY,
        _h("cafebabefacedbaddecaf888"),
        _GCM_AAD,
        _GCM_PT,
        _h(
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
            "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
        ),
        _h("5bc94fbc3221a5db94fae95ae7121a47"),
    ),
    (
        "GCM spec test case 6",
        _GCM_KEY,
        _h(
            "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
            "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b"
        ),
        _GCM_AAD,
        _GCM_PT,
        _h(
            "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
            "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5"
        ),
        _h("619cc5aefffe0bfa462af43c1699d050"),
    ),
)


def check_block_mode(provider: Any, vectors: tuple) -> None:
    """Encrypt and decrypt each vector through the provider's contexts, whole and in pieces."""
    for label, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        decryptor = provider.decryptor(key, iv)
        pieces = decryptor.update(ciphertext[:16]) + decryptor.update(ciphertext[16:])
        if pieces != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


def check_cfb(provider: Any, vectors: tuple) -> None:
    for label, segment_size, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv, segment_size).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if provider.decryptor(key, iv, segment_size).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


def check_gcm(provider: Any, vectors: tuple) -> None:
    """Streaming and one-shot encryption, tag acceptance, and tag rejection."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        encryptor = provider.encryptor(key, nonce)
        encryptor.authenticate_additional_data(aad)
        if encryptor.update(plaintext) + encryptor.finalize() != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if encryptor.tag != tag:
            raise SelfCheckFailed("%s: wrong tag" % label)
        if provider.one_shot(key).encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong one-shot result" % label)
        decryptor = provider.decryptor(key, nonce)
        decryptor.authenticate_additional_data(aad)
        if decryptor.update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        decryptor.finalize_with_tag(tag[:12])  # a truncated tag is accepted
        forged = provider.decryptor(key, nonce)
        forged.authenticate_additional_data(aad)
        forged.update(ciphertext)
        try:
            forged.finalize_with_tag(bytes(16))
        except provider.InvalidTag:
            pass
        else:
            raise SelfCheckFailed("%s: a forged tag was accepted" % label)


# primitive name -> (checker, vectors)
KNOWN_ANSWERS: dict[str, tuple[Callable[[Any, tuple], None], tuple]] = {
    "aes-ecb": (check_block_mode, AES_ECB_VECTORS),
    "aes-cbc": (check_block_mode, AES_CBC_VECTORS),
    "aes-ctr": (check_block_mode, AES_CTR_VECTORS),
    "aes-ofb": (check_block_mode, AES_OFB_VECTORS),
    "aes-cfb": (check_cfb, AES_CFB_VECTORS),
    "aes-gcm": (check_gcm, AES_GCM_VECTORS),
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
