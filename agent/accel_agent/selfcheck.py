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


# --------------------------------------------------------------------------- AES-CCM, AES-EAX
# (label, key, nonce, aad, plaintext, ciphertext, tag): NIST SP 800-38C C.1
# and RFC 3610 packet vector #1 (CCM); the EAX paper's (Bellare, Rogaway,
# Wagner 2004) first three vectors.
AES_CCM_VECTORS = (
    (
        "SP 800-38C example 1",
        _h("404142434445464748494a4b4c4d4e4f"),
        _h("10111213141516"),
        _h("0001020304050607"),
        _h("20212223"),
        _h("7162015b"),
        _h("4dac255d"),
    ),
    (
        "RFC 3610 packet vector 1",
        _h("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"),
        _h("00000003020100a0a1a2a3a4a5"),
        _h("0001020304050607"),
        _h("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e"),
        _h("588c979a61c663d2f066d0c2c0f989806d5f6b61dac384"),
        _h("17e8d12cfdf926e0"),
    ),
)
AES_EAX_VECTORS = (
    (
        "EAX paper vector 1",
        _h("233952dee4d5ed5f9b9c6d6ff80ff478"),
        _h("62ec67f9c3a4a407fcb2a8c49031a8b3"),
        _h("6bfb914fd07eae6b"),
        b"",
        b"",
        _h("e037830e8389f27b025a2d6527e79d01"),
    ),
    (
        "EAX paper vector 2",
        _h("91945d3f4dcbee0bf45ef52255f095a4"),
        _h("becaf043b0a23d843194ba972c66debd"),
        _h("fa3bfd4806eb53fa"),
        _h("f7fb"),
        _h("19dd"),
        _h("5c4c9331049d0bdab0277408f67967e5"),
    ),
    (
        "EAX paper vector 3",
        _h("01f74ad64077f2e704c0f60ada3dd523"),
        _h("70c3db4f0d26368400a10ed05d2bff5e"),
        _h("234a3463c1264ac6"),
        _h("1a47cb4933"),
        _h("d851d5bae0"),
        _h("3a59f238a23e39199dc9266626c40f80"),
    ),
)


def check_ccm(provider: Any, vectors: tuple) -> None:
    """One-shot sealing and opening, rejection of a forged tag, and the payload keystream."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        aead = provider.one_shot(key, len(tag))
        if aead.encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, ciphertext + tag, aad) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        try:
            aead.decrypt(nonce, ciphertext + _flip(tag), aad)
        except provider.InvalidTag:
            pass
        else:
            raise SelfCheckFailed("%s: a forged tag was accepted" % label)
        if provider.keystream(key, nonce).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong keystream" % label)


def check_eax(provider: Any, vectors: tuple) -> None:
    """Whole messages both ways, and the same message streamed in pieces."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        sealed, full_tag = provider.encrypt(key, nonce, aad, plaintext)
        if sealed != ciphertext or full_tag[: len(tag)] != tag:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        opened, full_tag = provider.decrypt(key, nonce, aad, ciphertext)
        if opened != plaintext or full_tag[: len(tag)] != tag:
            raise SelfCheckFailed("%s: wrong plaintext or tag" % label)
        stream = provider.stream(key, nonce)
        stream.authenticate(aad[:3])
        stream.authenticate(aad[3:])
        pieces = stream.encrypt(plaintext[:1]) + stream.encrypt(plaintext[1:])
        if pieces != ciphertext or stream.tag()[: len(tag)] != tag:
            raise SelfCheckFailed("%s: wrong streamed result" % label)


KNOWN_ANSWERS.update(
    {"aes-ccm": (check_ccm, AES_CCM_VECTORS), "aes-eax": (check_eax, AES_EAX_VECTORS)}
)


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


# =========================================================================== hashes, MACs, KDFs
# Hashes, MACs and KDFs. Published vectors: FIPS 180-4 / FIPS 202 examples ("abc"), RFC 1321
# (MD5), RFC 2202 and 4231 (HMAC), RFC 6070 and 7914 (PBKDF2), RFC 7914
# (scrypt), RFC 5869 (HKDF), RFC 4493 (AES-CMAC), RFC 8439 (Poly1305).

# primitive -> ("abc" digest); SHAKE: the first 32 (128) or 64 (256) bytes of output
HASH_VECTORS = {
    "md5": _h("900150983cd24fb0d6963f7d28e17f72"),
    "sha1": _h("a9993e364706816aba3e25717850c26c9cd0d89d"),
    "sha224": _h("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
    "sha256": _h("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    "sha384": _h(
        "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
        "8086072ba1e7cc2358baeca134c825a7"
    ),
    "sha512": _h(
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    ),
    "sha512-224": _h("4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"),
    "sha512-256": _h("53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
    "sha3-224": _h("e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf"),
    "sha3-256": _h("3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"),
    "sha3-384": _h(
        "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b2"
        "98d88cea927ac7f539f1edf228376d25"
    ),
    "sha3-512": _h(
        "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
        "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"
    ),
    "shake128": _h("5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8"),
    "shake256": _h(
        "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739"
        "d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4"
    ),
    # RFC 7693 appendices A and B
    "blake2b": _h(
        "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
        "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
    ),
    "blake2s": _h("508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"),
}


def check_hash(provider: Any, vectors: tuple) -> None:
    """One-shot, streamed and copied, the copy left independent of the original."""
    ((label, expected),) = vectors
    size = len(expected)
    xof = provider.digest_size is None

    def finish(h: Any) -> bytes:
        return h.digest(size) if xof else h.digest()

    if finish(provider.new(b"abc")) != expected:
        raise SelfCheckFailed("%s: wrong one-shot digest" % label)
    h = provider.new()
    h.update(b"a")
    clone = h.copy()
    h.update(b"bc")
    clone.update(b"b")
    clone.update(b"c")
    if finish(h) != expected or finish(clone) != expected:
        raise SelfCheckFailed("%s: wrong streamed or copied digest" % label)


_JEFE = (b"Jefe", b"what do ya want for nothing?")
# (label, hash name, key, message, tag): RFC 2202 and RFC 4231, test case 2
HMAC_VECTORS = (
    ("RFC 2202 HMAC-MD5 2", "md5", *_JEFE, _h("750c783e6ab0b503eaa86e310a5db738")),
    ("RFC 2202 HMAC-SHA1 2", "sha1", *_JEFE, _h("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")),
    (
        "RFC 4231 HMAC-SHA256 2",
        "sha256",
        *_JEFE,
        _h("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    ),
    (
        "RFC 4231 HMAC-SHA512 2",
        "sha512",
        *_JEFE,
        _h(
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
            "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
    ),
)


def check_hmac(provider: Any, vectors: tuple) -> None:
    for label, name, key, message, tag in vectors:
        if provider.digest(key, message, name) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key, message[:5], name)
        clone = mac.copy()
        mac.update(message[5:])
        clone.update(message[5:])
        if mac.digest() != tag or clone.digest() != tag:
            raise SelfCheckFailed("%s: wrong streamed or copied tag" % label)


# (label, hash name, password, salt, iterations, derived key)
PBKDF2_VECTORS = (
    ("RFC 6070 1", "sha1", b"password", b"salt", 1, _h("0c60c80f961f0e71f3a9b524af6012062fe037a6")),
    (
        "RFC 6070 3",
        "sha1",
        b"password",
        b"salt",
        4096,
        _h("4b007901b765489abead49d926f721d065a429c1"),
    ),
    (
        "RFC 7914 11 PBKDF2-HMAC-SHA256",
        "sha256",
        b"passwd",
        b"salt",
        1,
        _h(
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
            "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        ),
    ),
)


def check_pbkdf2(provider: Any, vectors: tuple) -> None:
    for label, name, password, salt, iterations, expected in vectors:
        if provider.derive(name, password, salt, iterations, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


# (label, password, salt, N, r, p, derived key): RFC 7914 section 12
SCRYPT_VECTORS = (
    (
        "RFC 7914 12 (N=1024)",
        b"password",
        b"NaCl",
        1024,
        8,
        16,
        _h(
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
            "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        ),
    ),
)


def check_scrypt(provider: Any, vectors: tuple) -> None:
    for label, password, salt, n, r, p, expected in vectors:
        if provider.derive(password, salt, n, r, p, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


# (label, hash name, digest size, IKM, salt, info, OKM): RFC 5869 A.1
HKDF_VECTORS = (
    (
        "RFC 5869 A.1",
        "sha256",
        32,
        bytes([0x0B]) * 22,
        _h("000102030405060708090a0b0c"),
        _h("f0f1f2f3f4f5f6f7f8f9"),
        _h("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
    ),
)


def check_hkdf(provider: Any, vectors: tuple) -> None:
    for label, name, size, ikm, salt, info, expected in vectors:
        if provider.derive(name, size, ikm, salt, info, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


# (label, key, message, tag): RFC 4493 section 4, examples 1 and 2
AES_CMAC_VECTORS = (
    ("RFC 4493 example 1", _SP800_38A_KEY, b"", _h("bb1d6929e95937287fa37d129b756746")),
    (
        "RFC 4493 example 2",
        _SP800_38A_KEY,
        _SP800_38A_PT[:16],
        _h("070a16b46b4d4144f79bdd9dd04a287c"),
    ),
)


def check_cmac(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        mac = provider.new(key)
        mac.update(message[:7])
        clone = mac.copy()
        mac.update(message[7:])
        clone.update(message[7:])
        if mac.finalize() != tag or clone.finalize() != tag:
            raise SelfCheckFailed("%s: wrong tag" % label)


# (label, one-time key r || s, message, tag): RFC 8439 section 2.5.2
POLY1305_VECTORS = (
    (
        "RFC 8439 2.5.2",
        _h("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b"),
        b"Cryptographic Forum Research Group",
        _h("a8061dc1305136c6c22b8baf0c0127a9"),
    ),
)


def check_poly1305(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        if provider.tag(key, message) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key)
        mac.update(message[:9])
        mac.update(message[9:])
        if mac.finalize() != tag:
            raise SelfCheckFailed("%s: wrong streamed tag" % label)


KNOWN_ANSWERS.update(
    {name: (check_hash, (("%s('abc')" % name, value),)) for name, value in HASH_VECTORS.items()}
)
KNOWN_ANSWERS.update(
    {
        "hmac": (check_hmac, HMAC_VECTORS),
        "pbkdf2": (check_pbkdf2, PBKDF2_VECTORS),
        "scrypt": (check_scrypt, SCRYPT_VECTORS),
        "hkdf": (check_hkdf, HKDF_VECTORS),
        "aes-cmac": (check_cmac, AES_CMAC_VECTORS),
        "poly1305": (check_poly1305, POLY1305_VECTORS),
    }
)


# =========================================================================== public keys
# Public keys: RSA, ECDSA, EdDSA, ECDH/X25519/X448, key generation. Published
# vectors only. Signatures: Wycheproof's RSA-2048 key (rsa_pkcs1_2048_sig_gen,
# rsa_pss_2048_sha256_mgf1_32 and rsa_oaep_2048_sha256_mgf1sha256 share it),
# RFC 6979 A.2.5-A.2.7 (deterministic ECDSA), RFC 8032 7.1 and 7.4 (Ed25519,
# Ed448). Key agreement: NIST CAVS KAS_ECC_CDH_PrimitiveTest (COUNT 0), RFC
# 7748 5.2. A randomized operation is checked by what it must satisfy: a
# published signature verifies (and a tampered one does not), and what the
# provider makes verifies or decrypts with the published key.


def _i(text: str) -> int:
    return int(text, 16)


_SHA256_OID = "2.16.840.1.101.3.4.2.1"
_SHA384_OID = "2.16.840.1.101.3.4.2.2"
_SHA512_OID = "2.16.840.1.101.3.4.2.3"
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")  # RFC 8017

# Wycheproof's RSA-2048 key (e = 65537), and SHA-256(b"Test")
_RSA_N = _i(
    "a2b451a07d0aa5f96e455671513550514a8a5b462ebef717094fa1fee82224e6"
    "37f9746d3f7cafd31878d80325b6ef5a1700f65903b469429e89d6eac8845097"
    "b5ab393189db92512ed8a7711a1253facd20f79c15e8247f3d3e42e46e48c98e"
    "254a2fe9765313a03eff8f17e1a029397a1fa26a8dce26f490ed81299615d981"
    "4c22da610428e09c7d9658594266f5c021d0fceca08d945a12be82de4d1ece6b"
    "4c03145b5d3495d4ed5411eb878daf05fd7afc3e09ada0f1126422f590975a19"
    "69816f48698bcbba1b4d9cae79d460d8f9f85e7975005d9bc22c4e5ac0f7c1a4"
    "5d12569a62807d3b9a02e5a530e773066f453d1f5b4c2e9cf7820283f742b9d5"
)
_RSA_D = _i(
    "7627eef3567b2a27268e52053ecd31c3a7172ccb9ddcee819b306a5b3c66b757"
    "3ca4fa88efc6f3c4a00bfa0ae7139f64543a4dac3d05823f6ff477cfcec84fe2"
    "ac7a68b17204b390232e110310c4e899c4e7c10967db4acde042dbbf19dbe00b"
    "4b4741de1020aaaaffb5054c797c9f136f7d93ac3fc8caff6654242d7821ebee"
    "517bf537f44366a0fdd45ae05b9909c2e6cc1ed9281eff4399f76c96b96233ec"
    "29ae0bbf0d752b234fc197389f51050aa1acd01c074c3ac8fbdb9ea8b651a959"
    "95e8db4ad5c43b6c8673e5a126e7ee94b8dff4c5afc01259bc8da76950bae6f8"
    "bae715f50985b0d6f66d04c6fef3b700720eecdcdf171bb7b1ecbe7289c467c1"
)
_RSA_P = _i(
    "dc431050f782e894fb5248247d98cb7d58b8d1e24f3b55d041c56e4de086b0d5"
    "bb028bda42eeb5d234d5681e5809d415e6a289ad4cfbf78f978f6c35814f50ee"
    "bff1c5b80a69f788e81e6bab5ddaa78369d659d143ec6f17e79813a575cfad9c"
    "569156b90113e2e9110ad9e7b48a1c9348a6e653321191290ea36cfb3a5b18f1"
)
_RSA_Q = _i(
    "bd1a81e7977f9898122273ae3222b598ea5fb19eb4eabc38308a5e32196603b2"
    "e500ffb79f5b886816611debc472fac45544070beb057c941378a6868af3b7a0"
    "3d3f9880ec47d5e089b94fbde542aba9ae8d72c57088d7abf5b131f39098f7bc"
    "160f90536abc9492fd4e06f3ed7299d4b97bb03677207d95669f140cfbc20f25"
)
_RSA_E = 65537
_RSA_KEY = (_RSA_N, _RSA_E, _RSA_D, _RSA_P, _RSA_Q)
_SHA256_TEST = _h("532eaabd9574880dbf76b9b8cc00832c20a6ec113d682299550d7a6e0f345e25")

# (label, key, hash OID, digest, signature)
RSA_PKCS1V15_SIGNATURE_VECTORS = (
    (
        "Wycheproof rsa_pkcs1_2048_sig_gen tcId 83 (SHA-256)",
        _RSA_KEY,
        _SHA256_OID,
        _SHA256_TEST,
        _h(
            "264491e844c119f14e425c03282139a558dcdaeb82a4628173cd407fd319f907"
            "6eaebc0dd87a1c22e4d17839096886d58a9d5b7f7aeb63efec56c45ac7bead42"
            "03b6886e1faa90e028ec0ae094d46bf3f97efdd19045cfbc25a1abda2432639f"
            "9876405c0d68f8edbf047c12a454f7681d5d5a2b54bd3723d193dbad4338baad"
            "753264006e2d08931c4b8bb79aa1c9cad10eb6605f87c5831f6e2b08e002f9c6"
            "f21141f5841d92727dd3e1d99c36bc560da3c9067df99fcaf818941f72588be3"
            "3032bad22caf6704223bb114d575b6d02d9d222b580005d930e8f40cce9f672e"
            "ebb634a20177d84351627964b83f2053d736a84ab1a005f63bd5ba943de6205c"
        ),
    ),
)
# (label, key, hash OID, digest, salt length, signature)
RSA_PSS_VECTORS = (
    (
        "Wycheproof rsa_pss_2048_sha256_mgf1_32 tcId 3",
        _RSA_KEY,
        _SHA256_OID,
        _SHA256_TEST,
        32,
        _h(
            "401eb03cdb47ca88033e3030f6bdecbac8f5c8fc1dd6a13d23d379ed9a2b3098"
            "91d13d74fea9d21d159b9e6d8f37efa2489962e24555f56dd434ff1d31ce4f9f"
            "5abd3f22cbea8b691d6a11e44efb83e2bca155e6a164325e0fde2a8865afd5c9"
            "f51161a9d615f62af7ec2e31b3e5ab649c164490d31d88cfae35b84aea792569"
            "0f929a144b6d2f48e8fb894a52deecd1b9a6496990c4ecf1588699a42cacd10c"
            "53af350514e4291ea9a058e77f101e32c1c0cefa61d945f7bc931f8bd19e7ba3"
            "169358a60e5a8b0123bc3199b9fdcafe8e519c41ba675491a27b85e44ef2d772"
            "77c10fe107293c8290186913bc9a99b640d8da041b64f31eab1d35920985f4a5"
        ),
    ),
)
# (label, key, hash OID, label, message, ciphertext)
RSA_OAEP_VECTORS = (
    (
        "Wycheproof rsa_oaep_2048_sha256_mgf1sha256 tcId 9 (with a label)",
        _RSA_KEY,
        _SHA256_OID,
        _h("000102030405060708090a0b0c0d0e0f10111213"),
        b"123400",
        _h(
            "a0443ba434156d0b503ec662f5eb5b10e20ad0cb8233720ee187ba986e4811dd"
            "312844d3edb26bfaf51b4b9268dc3c76072dd47c199d713c91824da23ff00481"
            "ee69e9d4cc543120fc33b7244bf0c1ad5fdd1ae9cbada7fe9a70ad0afaaaad83"
            "61e8dc4b3198ae661a84e275b60bf2ebb85e512da785d2fc3482294fa1196768"
            "1d7bceffc08ce0e36f0a8af7fcfb1337186863c2c1c1b94c9ec9785cd3d94d15"
            "437c23b775677f3d29a4c9e52f13398fd14661160e5868bca97625aa6c7ecb07"
            "bbb479644def353f1f01a4c4100f9adb82c4f6a265a5ee962da58c3c042aa549"
            "c9d2de3008e7448e0c4b9b4ac8f5e4d8629873909bb995ccc0825fe87d81d596"
        ),
    ),
)

# curve -> (label, d, x, y, hash OID, digest of b"sample", r || s): RFC 6979's deterministic k
ECDSA_VECTORS = {}
ECDSA_VECTORS["p256"] = (
    (
        "RFC 6979 A.2.5 P-256 SHA-256 sample",
        _i("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"),
        _i("60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"),
        _i("7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"),
        _SHA256_OID,
        _h("af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf"),
        _h(
            "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
            "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"
        ),
    ),
)
ECDSA_VECTORS["p384"] = (
    (
        "RFC 6979 A.2.6 P-384 SHA-384 sample",
        _i(
            "6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d8"
            "96d5724e4c70a825f872c9ea60d2edf5"
        ),
        _i(
            "ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64"
            "def8f0ea9055866064a254515480bc13"
        ),
        _i(
            "8015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1"
            "288b231c3ae0d4fe7344fd2533264720"
        ),
        _SHA384_OID,
        _h(
            "9a9083505bc92276aec4be312696ef7bf3bf603f4bbd381196a029f340585312"
            "313bca4a9b5b890efee42c77b1ee25fe"
        ),
        _h(
            "94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c"
            "81a648152e44acf96e36dd1e80fabe4699ef4aeb15f178cea1fe40db2603138f"
            "130e740a19624526203b6351d0a3a94fa329c145786e679e7b82c71a38628ac8"
        ),
    ),
)
ECDSA_VECTORS["p521"] = (
    (
        "RFC 6979 A.2.7 P-521 SHA-512 sample",
        _i(
            "fad06daa62ba3b25d2fb40133da757205de67f5bb0018fee8c86e1b68c7e75ca"
            "a896eb32f1f47c70855836a6d16fcc1466f6d8fbec67db89ec0c08b0e996b835"
            "38"
        ),
        _i(
            "01894550d0785932e00eaa23b694f213f8c3121f86dc97a04e5a7167db4e5bcd"
            "371123d46e45db6b5d5370a7f20fb633155d38ffa16d2bd761dcac474b9a2f50"
            "23a4"
        ),
        _i(
            "493101c962cd4d2fddf782285e64584139c2f91b47f87ff82354d6630f746a28"
            "a0db25741b5b34a828008b22acc23f924faafbd4d33f81ea66956dfeaa2bfdfc"
            "f5"
        ),
        _SHA512_OID,
        _h(
            "39a5e04aaff7455d9850c605364f514c11324ce64016960d23d5dc57d3ffd8f4"
            "9a739468ab8049bf18eef820cdb1ad6c9015f838556bc7fad4138b23fdf986c7"
        ),
        _h(
            "00c328fafcbd79dd77850370c46325d987cb525569fb63c5d3bc53950e6d4c5f"
            "174e25a1ee9017b5d450606add152b534931d7d4e8455cc91f9b15bf05ec36e3"
            "77fa00617cce7cf5064806c467f678d3b4080d6f1cc50af26ca209417308281b"
            "68af282623eaa63e5b5c0723d8b8c37ff0777b1a20f8ccb1dccc43997f1ee0e4"
            "4da4a67a"
        ),
    ),
)

# (label, seed, public key, message, signature): RFC 8032 7.1 TEST 1 and 2, 7.4 "blank"
ED25519_VECTORS = (
    (
        "RFC 8032 7.1 TEST 1",
        _h("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
        _h("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
        b"",
        _h(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
    ),
    (
        "RFC 8032 7.1 TEST 2",
        _h("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
        _h("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
        _h("72"),
        _h(
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
    ),
)
ED448_VECTORS = (
    (
        "RFC 8032 7.4 blank",
        _h(
            "6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3"
            "528c8a3fcc2f044e39a3fc5b94492f8f032e7549a20098f95b"
        ),
        _h(
            "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778"
            "edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180"
        ),
        b"",
        _h(
            "533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f"
            "2b233f034f628281f2fd7a22ddd47d7828c59bd0a21bfd3980ff0d2028d4b18a"
            "9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4db"
            "b61149f05a7363268c71d95808ff2e652600"
        ),
    ),
)

# (label, private d, peer x, peer y, shared x): CAVS KAS_ECC_CDH_PrimitiveTest, COUNT = 0
ECDH_VECTORS = {
    "p256": (
        (
            "CAVS ECC CDH P-256 COUNT 0",
            _i("7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534"),
            _i("700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"),
            _i("db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac"),
            _h("46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"),
        ),
    ),
    "p384": (
        (
            "CAVS ECC CDH P-384 COUNT 0",
            _i(
                "3cc3122a68f0d95027ad38c067916ba0eb8c38894d22e1b15618b6818a661774"
                "ad463b205da88cf699ab4d43c9cf98a1"
            ),
            _i(
                "a7c76b970c3b5fe8b05d2838ae04ab47697b9eaf52e764592efda27fe7513272"
                "734466b400091adbf2d68c58e0c50066"
            ),
            _i(
                "ac68f19f2e1cb879aed43a9969b91a0839c4c38a49749b661efedf243451915e"
                "d0905a32b060992b468c64766fc8437a"
            ),
            _h(
                "5f9d29dc5e31a163060356213669c8ce132e22f57c9a04f40ba7fcead493b457"
                "e5621e766c40a2e3d4d6a04b25e533f1"
            ),
        ),
    ),
    "p521": (
        (
            "CAVS ECC CDH P-521 COUNT 0",
            _i(
                "0000017eecc07ab4b329068fba65e56a1f8890aa935e57134ae0ffcce8027351"
                "51f4eac6564f6ee9974c5e6887a1fefee5743ae2241bfeb95d5ce31ddcb6f9ed"
                "b4d6fc47"
            ),
            _i(
                "000000685a48e86c79f0f0875f7bc18d25eb5fc8c0b07e5da4f4370f3a949034"
                "0854334b1e1b87fa395464c60626124a4e70d0f785601d37c09870ebf1766668"
                "77a2046d"
            ),
            _i(
                "000001ba52c56fc8776d9e8f5db4f0cc27636d0b741bbe05400697942e80b739"
                "884a83bde99e0f6716939e632bc8986fa18dccd443a348b6c3e522497955a4f3"
                "c302f676"
            ),
            _h(
                "005fc70477c3e63bc3954bd0df3ea0d1f41ee21746ed95fc5e1fdf90930d5e13"
                "6672d72cc770742d1711c3c3a4c334a0ad9759436a4d3c5bf6e74b9578fac148"
                "c831"
            ),
        ),
    ),
}
# (label, private scalar, peer u, shared secret): RFC 7748 5.2, first vector of each
X25519_VECTORS = (
    (
        "RFC 7748 5.2 X25519 #1",
        _h("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
        _h("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
        _h("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
    ),
)
X448_VECTORS = (
    (
        "RFC 7748 5.2 X448 #1",
        _h(
            "3d262fddf9ec8e88495266fea19a34d28882acef045104d0d1aae121700a779c"
            "984c24f8cdd78fbff44943eba368f54b29259a4f1c600ad3"
        ),
        _h(
            "06fce640fa3487bfda5f6cf2d5263f8aad88334cbd07437f020f08f9814dc031"
            "ddbdc38c19c6da2583fa5429db94ada18aa7a7fb4ef8a086"
        ),
        _h(
            "ce3e4ff95a60dc6697da1db1d85e6afbdf79b50a2412d7546d5f239fe14fbaad"
            "eb445fc66a01b0779d98223961111e21766282f73dd96b6f"
        ),
    ),
)
# (label, curve, field prime p, group order n, coefficient b): y^2 = x^3 - 3x + b, FIPS 186-4 D.1.2
NIST_CURVE_PARAMETERS = (
    (
        "FIPS 186-4 D.1.2.3 P-256",
        "p256",
        _i("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"),
        _i("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
        _h("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"),
    ),
    (
        "FIPS 186-4 D.1.2.4 P-384",
        "p384",
        _i(
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
            "ffffffff0000000000000000ffffffff"
        ),
        _i(
            "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf"
            "581a0db248b0a77aecec196accc52973"
        ),
        _h(
            "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875a"
            "c656398d8a2ed19d2a85c8edd3ec2aef"
        ),
    ),
    (
        "FIPS 186-4 D.1.2.5 P-521",
        "p521",
        (1 << 521) - 1,
        _i(
            "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            "fffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e9138"
            "6409"
        ),
        _h(
            "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109"
            "e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f"
            "00"
        ),
    ),
)


# Curves served for python-ecdsa (its default is P-192). P-192 and P-224 are
# RFC 6979's own vectors; secp256k1 has none there: its k is the widely
# published "Satoshi Nakamoto" vector with key 1 (python-ecdsa's and Go's
# RFC 6979 tests), and (r, s) the signature published with it, before
# low-s normalisation (s here is n minus the published 2442ce9d...d9e5).
ECDSA_VECTORS["p192"] = (
    (
        "RFC 6979 A.2.3 P-192 SHA-256 sample",
        _i("6fab034934e4c0fc9ae67f5b5659a9d7d1fefd187ee09fd4"),
        _i("ac2c77f529f91689fea0ea5efec7f210d8eea0b9e047ed56"),
        _i("3bc723e57670bd4887ebc732c523063d0a7c957bc97c1c43"),
        _SHA256_OID,
        _h("af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf"),
        _h(
            "4b0b8ce98a92866a2820e20aa6b75b56382e0f9bfd5ecb55"
            "ccdb006926ea9565cbadc840829d8c384e06de1f1e381b85"
        ),
    ),
)
ECDSA_VECTORS["p224"] = (
    (
        "RFC 6979 A.2.4 P-224 SHA-256 sample",
        _i("f220266e1105bfe3083e03ec7a3a654651f45e37167e88600bf257c1"),
        _i("00cf08da5ad719e42707fa431292dea11244d64fc51610d94b130d6c"),
        _i("eeab6f3debe455e3dbf85416f7030cbd94f34f2d6f232c69f3c1385a"),
        _SHA256_OID,
        _h("af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf"),
        _h(
            "61aa3da010e8e8406c656bc477a7a7189895e7e840cdfe8ff42307ba"
            "bc814050dab5d23770879494f9e0a680dc1af7161991bde692b10101"
        ),
    ),
)
ECDSA_VECTORS["secp256k1"] = (
    (
        "secp256k1 RFC 6979 SHA-256, key 1, 'Satoshi Nakamoto'",
        1,
        _i("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
        _i("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),
        _SHA256_OID,
        _h("a0dc65ffca799873cbea0ac274015b9526505daaaed385155425f7337704883e"),
        _h(
            "934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8"
            "dbbd3162d46e9f9bef7feb87c16dc13b4f6568a87f4e83f728e2443ba586675c"
        ),
    ),
)


def _flip(data: bytes) -> bytes:
    """``data`` with its last bit flipped: what a verification must reject."""
    return data[:-1] + bytes([data[-1] ^ 1])


def _rsa_keys(provider: Any, key: tuple) -> tuple[Any, Any]:
    n, e, d, p, q = key
    return provider.load_private(n, e, d, p, q, pow(p, -1, q)), provider.load_public(n, e)


def check_rsa_pkcs1v15_signature(provider: Any, vectors: tuple) -> None:
    """The published signature, made and verified; a tampered one rejected."""
    for label, key, oid, digest, signature in vectors:
        private, public = _rsa_keys(provider, key)
        if provider.sign_pkcs1v15(private, digest, oid) != signature:
            raise SelfCheckFailed("%s: wrong signature" % label)
        if not provider.verify_pkcs1v15(public, signature, digest, oid):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify_pkcs1v15(public, _flip(signature), digest, oid):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        # python-rsa's verify: the DigestInfo recovered from the signature.
        if oid == _SHA256_OID and provider.recover_pkcs1v15(public, signature) != (
            _SHA256_DIGEST_INFO + digest
        ):
            raise SelfCheckFailed("%s: wrong DigestInfo recovered" % label)
        if provider.recover_pkcs1v15(public, _flip(signature)) is not None:
            raise SelfCheckFailed("%s: a tampered signature's padding was accepted" % label)


def check_rsa_pss(provider: Any, vectors: tuple) -> None:
    """Verify-only vector (the salt is random); the provider's own signatures verify."""
    for label, key, oid, digest, salt, signature in vectors:
        private, public = _rsa_keys(provider, key)
        if not provider.verify_pss(public, signature, digest, oid, salt):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify_pss(public, _flip(signature), digest, oid, salt):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        if provider.verify_pss(public, signature, digest, oid, salt - 1):
            raise SelfCheckFailed("%s: accepted with another salt length" % label)
        made = provider.sign_pss(private, digest, oid, salt)
        if made == signature or not provider.verify_pss(public, made, digest, oid, salt):
            raise SelfCheckFailed("%s: a new signature is wrong" % label)
        unsalted = provider.sign_pss(private, digest, oid, 0)
        if unsalted != provider.sign_pss(private, digest, oid, 0):
            raise SelfCheckFailed("%s: an unsalted signature is not deterministic" % label)


def check_rsa_oaep(provider: Any, vectors: tuple) -> None:
    """The published ciphertext decrypts; a new one round-trips; a tampered one fails."""
    for label, key, oid, oaep_label, message, ciphertext in vectors:
        private, public = _rsa_keys(provider, key)
        if provider.decrypt_oaep(private, ciphertext, oid, oaep_label) != message:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        if provider.decrypt_oaep(private, _flip(ciphertext), oid, oaep_label) is not None:
            raise SelfCheckFailed("%s: a tampered ciphertext decrypted" % label)
        made = provider.encrypt_oaep(public, message, oid, oaep_label)
        if made == ciphertext or provider.decrypt_oaep(private, made, oid, oaep_label) != message:
            raise SelfCheckFailed("%s: a new ciphertext is wrong" % label)
        if provider.decrypt_oaep(private, made, oid, b"") is not None:
            raise SelfCheckFailed("%s: decrypted with the wrong label" % label)


# (label, key, message, what decrypting the ciphertext must give)
RSA_PKCS1V15_ENCRYPTION_VECTORS = (
    ("RSA-2048 (Wycheproof's key), 6-byte message", _RSA_KEY, b"123400", b"123400"),
)


def check_rsa_pkcs1v15_encryption(provider: Any, vectors: tuple) -> None:
    """Decrypted with the key's primes in Python: 00 02, non-zero padding, 00, the message."""
    for label, key, message, expected in vectors:
        n, e, d, p, q = key
        public = provider.load_public(n, e)
        size = (n.bit_length() + 7) // 8
        made = provider.encrypt_pkcs1v15(public, message)
        c = int.from_bytes(made, "big")
        mp, mq = pow(c, d % (p - 1), p), pow(c, d % (q - 1), q)
        encoded = (mq + q * ((mp - mq) * pow(q, -1, p) % p)).to_bytes(size, "big")
        padding = encoded[2 : size - len(message) - 1]
        if (
            encoded[:2] != b"\x00\x02"
            or 0 in padding
            or encoded[-len(expected) - 1 :] != b"\x00" + expected
        ):
            raise SelfCheckFailed("%s: wrong PKCS#1 v1.5 encoding" % label)
        if made == provider.encrypt_pkcs1v15(public, message):
            raise SelfCheckFailed("%s: the padding is not random" % label)


def check_rsa_keygen(provider: Any, vectors: tuple) -> None:
    """The published key's primes assembled as pycryptodome does, then its published signature."""
    for label, key, oid, digest, signature in vectors:
        n, e, _d, p, q = key
        assembled = provider.assemble(q, p, e, n.bit_length())
        if assembled is None or assembled[0] != n or assembled[3:5] != (min(p, q), max(p, q)):
            raise SelfCheckFailed("%s: wrong key assembly" % label)
        n, e, d, p, q, u = assembled
        if (e * d - 1) % (p - 1) or (e * d - 1) % (q - 1) or (p * u) % q != 1:
            raise SelfCheckFailed("%s: inconsistent d or u" % label)
        private = provider.load_private(n, e, d, p, q, u)
        if provider.sign_pkcs1v15(private, digest, oid) != signature:
            raise SelfCheckFailed("%s: the assembled key signs wrongly" % label)


def check_ecdsa(provider: Any, vectors: tuple) -> None:
    """RFC 6979's signature verifies, and is made where deterministic signing exists."""
    for label, d, x, y, oid, digest, signature in vectors:
        size = len(signature) // 2
        r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
        private, public = provider.load_private(d), provider.load_public(x, y)
        if not provider.verify(public, r, s, digest, oid):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify(public, r, s ^ 1, digest, oid):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        if provider.deterministic:
            made = provider.decode_der(provider.sign(private, digest, oid, True))
            if made != (r, s):
                raise SelfCheckFailed("%s: wrong deterministic signature" % label)
        made = provider.decode_der(provider.sign(private, digest, oid, False))
        if made == (r, s) or not provider.verify(public, made[0], made[1], digest, oid):
            raise SelfCheckFailed("%s: a new signature is wrong" % label)
        _check_ecdsa_numbers(provider, label, private, public, r, s, digest)


def _check_ecdsa_numbers(provider, label, private, public, r, s, digest) -> None:
    """The same signature over the message representative as a number (python-ecdsa's way):
    the digest's leftmost bits of n, and that number plus n, which ECDSA cannot tell apart."""
    order = provider.order
    number = int.from_bytes(digest, "big") >> max(0, 8 * len(digest) - order.bit_length())
    for representative in (number, number + order):
        if not provider.verify_number(public, r, s, representative):
            raise SelfCheckFailed("%s: the signature was rejected as a number" % label)
    if provider.verify_number(public, r, s ^ 1, number):
        raise SelfCheckFailed("%s: a tampered signature was accepted as a number" % label)
    made = provider.sign_number(private, number + order)
    if made is None or made == (r, s) or not provider.verify_number(public, *made, number):
        raise SelfCheckFailed("%s: a new signature over a number is wrong" % label)


def check_ecdh(provider: Any, vectors: tuple) -> None:
    for label, d, x, y, shared in vectors:
        if provider.exchange(provider.load_private(d), provider.load_public(x, y)) != shared:
            raise SelfCheckFailed("%s: wrong shared secret" % label)


def check_xdh(provider: Any, vectors: tuple) -> None:
    for label, scalar, u, shared in vectors:
        if provider.exchange(provider.load_private(scalar), provider.load_public(u)) != shared:
            raise SelfCheckFailed("%s: wrong shared secret" % label)


def check_eddsa(provider: Any, vectors: tuple) -> None:
    for label, seed, encoded_public, message, signature in vectors:
        private = provider.load_private(seed)
        if provider.public_bytes(private) != encoded_public:
            raise SelfCheckFailed("%s: wrong public key" % label)
        if provider.sign(private, message) != signature:
            raise SelfCheckFailed("%s: wrong signature" % label)
        public = provider.load_public(encoded_public)
        if not provider.verify(public, signature, message):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify(public, _flip(signature), message):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)


def check_ecc_keygen(provider: Any, vectors: tuple) -> None:
    """A new key on each curve: d in [1, n), and (x, y) on the curve."""
    for label, curve, p, n, b in vectors:
        d, x, y, _key = provider.generate(curve)
        b = int.from_bytes(b, "big")
        if not 0 < d < n or (y * y - (x * x * x - 3 * x + b)) % p:
            raise SelfCheckFailed("%s: the new key is not on the curve" % label)


KNOWN_ANSWERS.update(
    {
        "rsa-pkcs1v15-sign": (check_rsa_pkcs1v15_signature, RSA_PKCS1V15_SIGNATURE_VECTORS),
        "rsa-pss": (check_rsa_pss, RSA_PSS_VECTORS),
        "rsa-oaep": (check_rsa_oaep, RSA_OAEP_VECTORS),
        "rsa-pkcs1v15-encrypt": (
            check_rsa_pkcs1v15_encryption,
            RSA_PKCS1V15_ENCRYPTION_VECTORS,
        ),
        "rsa-keygen": (check_rsa_keygen, RSA_PKCS1V15_SIGNATURE_VECTORS),
        "ecdsa-p256": (check_ecdsa, ECDSA_VECTORS["p256"]),
        "ecdsa-p384": (check_ecdsa, ECDSA_VECTORS["p384"]),
        "ecdsa-p521": (check_ecdsa, ECDSA_VECTORS["p521"]),
        "ecdsa-p192": (check_ecdsa, ECDSA_VECTORS["p192"]),
        "ecdsa-p224": (check_ecdsa, ECDSA_VECTORS["p224"]),
        "ecdsa-secp256k1": (check_ecdsa, ECDSA_VECTORS["secp256k1"]),
        "ecdh-p256": (check_ecdh, ECDH_VECTORS["p256"]),
        "ecdh-p384": (check_ecdh, ECDH_VECTORS["p384"]),
        "ecdh-p521": (check_ecdh, ECDH_VECTORS["p521"]),
        "x25519": (check_xdh, X25519_VECTORS),
        "x448": (check_xdh, X448_VECTORS),
        "ed25519": (check_eddsa, ED25519_VECTORS),
        "ed448": (check_eddsa, ED448_VECTORS),
        "ecc-keygen": (check_ecc_keygen, NIST_CURVE_PARAMETERS),
    }
)


# =========================================================================== AES-OCB, SIV, KW, KWP
# Their vectors and checkers live in their own module (RFC 7253, 5297, 3394, 5649).
from accel_agent._selfcheck_aes_ocb_siv_kw import KNOWN_ANSWERS as _OCB_SIV_KW  # noqa: E402

KNOWN_ANSWERS.update(_OCB_SIV_KW)
