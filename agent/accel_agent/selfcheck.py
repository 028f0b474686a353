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


# =========================================================================== hashes, MACs, KDFs
# Issue 4. Published vectors: FIPS 180-4 / FIPS 202 examples ("abc"), RFC 1321
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
