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


# --------------------------------------------------------------------------- ChaCha20 family
# RFC 8439 2.4.2 (ChaCha20), 2.8.2 (AEAD), draft-irtf-cfrg-xchacha-03 2.2.1
# (HChaCha20) and A.3.1 (XChaCha20-Poly1305). They share one plaintext.

_SUNSCREEN = (
    b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the"
    b" future, sunscreen would be it."
)
_CHACHA_KEY = _h("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
_AEAD_KEY = _h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
_AEAD_AAD = _h("50515253c0c1c2c3c4c5c6c7")

# (label, key, nonce, first block counter, plaintext, ciphertext)
CHACHA20_VECTORS = (
    (
        "RFC 8439 2.4.2 ChaCha20",
        _CHACHA_KEY,
        _h("000000000000004a00000000"),
        1,
        _SUNSCREEN,
        _h(
            "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
            "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
            "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
            "5af90bbf74a35be6b40b8eedf2785e42874d"
        ),
    ),
    (
        # The original construction (8-byte nonce, 64-bit counter): all-zero key and nonce.
        "RFC 8439 A.1 #1 (8-byte nonce layout)",
        bytes(32),
        bytes(8),
        0,
        bytes(64),
        _h(
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
            "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
        ),
    ),
)
# (label, key, 16-byte nonce, subkey)
HCHACHA20_VECTORS = (
    (
        "draft-irtf-cfrg-xchacha-03 2.2.1 HChaCha20",
        _CHACHA_KEY,
        _h("000000090000004a0000000031415927"),
        _h("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"),
    ),
)
# (label, key, nonce, aad, plaintext, ciphertext, tag)
CHACHA20_POLY1305_VECTORS = (
    (
        "RFC 8439 2.8.2 AEAD_CHACHA20_POLY1305",
        _AEAD_KEY,
        _h("070000004041424344454647"),
        _AEAD_AAD,
        _SUNSCREEN,
        _h(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
            "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
            "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
            "3ff4def08e4b7a9de576d26586cec64b6116"
        ),
        _h("1ae10b594f09e26a7e902ecbd0600691"),
    ),
)
XCHACHA20_POLY1305_VECTORS = (
    (
        "draft-irtf-cfrg-xchacha-03 A.3.1 XChaCha20-Poly1305",
        _AEAD_KEY,
        _h("404142434445464748494a4b4c4d4e4f5051525354555657"),
        _AEAD_AAD,
        _SUNSCREEN,
        _h(
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
            "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
            "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
            "21f9664c97637da9768812f615c68b13b52e"
        ),
        _h("c0875924c1c7987947deafd8780acf49"),
    ),
)


def check_chacha20(provider: Any, vectors: tuple) -> None:
    """Keystream at a block counter, whole and in pieces, and HChaCha20's subkey."""
    for label, key, nonce, counter, plaintext, ciphertext in vectors:
        if provider.keystream_context(key, nonce, counter).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        context = provider.keystream_context(key, nonce, counter)
        if context.update(ciphertext[:7]) + context.update(ciphertext[7:]) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
    for label, key, nonce, subkey in HCHACHA20_VECTORS:
        if provider.hchacha20(key, nonce) != subkey:
            raise SelfCheckFailed("%s: wrong subkey" % label)


def check_chacha20_poly1305(provider: Any, vectors: tuple) -> None:
    """One-shot and streamed (RFC 8439 composed from ChaCha20 and Poly1305), and a forged tag."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        if len(nonce) == 24:
            key, nonce = provider.extended(key, nonce)
        one_shot = provider.one_shot(key)
        if one_shot.encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong one-shot result" % label)
        if one_shot.decrypt(nonce, ciphertext + tag, aad) != plaintext:
            raise SelfCheckFailed("%s: wrong one-shot plaintext" % label)
        try:
            one_shot.decrypt(nonce, ciphertext + bytes(16), aad)
        except provider.InvalidTag:
            pass
        else:
            raise SelfCheckFailed("%s: a forged tag was accepted" % label)
        stream = provider.stream(key, nonce)
        stream.authenticate(aad[:5])
        stream.authenticate(aad[5:])
        if stream.encrypt(plaintext[:17]) + stream.encrypt(plaintext[17:]) != ciphertext:
            raise SelfCheckFailed("%s: wrong streamed ciphertext" % label)
        if stream.tag() != tag:
            raise SelfCheckFailed("%s: wrong streamed tag" % label)
        stream = provider.stream(key, nonce)
        stream.authenticate(aad)
        if stream.decrypt(ciphertext) != plaintext or stream.tag() != tag:
            raise SelfCheckFailed("%s: wrong streamed decryption" % label)


KNOWN_ANSWERS.update(
    {
        "chacha20": (check_chacha20, CHACHA20_VECTORS),
        "chacha20-poly1305": (check_chacha20_poly1305, CHACHA20_POLY1305_VECTORS),
        "xchacha20-poly1305": (check_chacha20_poly1305, XCHACHA20_POLY1305_VECTORS),
    }
)
