"""The self-check's checkers of ciphers: block modes, AEAD modes, key wrap, ChaCha20.

Registered with :func:`accel_agent.selfcheck.checks`; loaded by the
self-check at the first set of one of their kinds
(``selfcheck.CHECKER_MODULES``), so a cipher's first use does not load the
checkers of hashes or public keys.
"""

from __future__ import annotations

from accel_agent.known_answers import optional_octets
from accel_agent.providers.base import SelfCheckFailed
from accel_agent.selfcheck import checks, flip, refused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# =========================================================================== block cipher modes


@checks("block-mode", "label key iv plaintext ciphertext", iv=optional_octets)
def check_block_mode(provider: Any, vectors: tuple) -> None:
    """Encrypt and decrypt each vector through the provider's contexts, whole and in pieces."""
    for label, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        decryptor = provider.decryptor(key, iv)
        pieces = decryptor.update(ciphertext[:16]) + decryptor.update(ciphertext[16:])
        if pieces != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


@checks("cfb", "label segment_size key iv plaintext ciphertext")
def check_cfb(provider: Any, vectors: tuple) -> None:
    for label, segment_size, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv, segment_size).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if provider.decryptor(key, iv, segment_size).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


# =========================================================================== AEAD modes
# The AEAD modes' vectors share their fields (ChaCha20-Poly1305's too).
_AEAD_FIELDS = "label key nonce aad plaintext ciphertext tag"
_TAMPERED = "a tampered message"  # what OCB and SIV must refuse


@checks("gcm", _AEAD_FIELDS)
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
        refused(label, "a forged tag", provider.InvalidTag, forged.finalize_with_tag, bytes(16))


@checks("ccm", _AEAD_FIELDS)
def check_ccm(provider: Any, vectors: tuple) -> None:
    """One-shot sealing and opening, rejection of a forged tag, and the payload keystream."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        aead = provider.one_shot(key, len(tag))
        if aead.encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, ciphertext + tag, aad) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        forged = ciphertext + flip(tag)
        refused(label, "a forged tag", provider.InvalidTag, aead.decrypt, nonce, forged, aad)
        if provider.keystream(key, nonce).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong keystream" % label)


@checks("eax", _AEAD_FIELDS)
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


@checks("ocb", "label key nonce aad plaintext sealed")
def check_ocb(provider: Any, vectors: tuple) -> None:
    """Sealed (ciphertext || tag) both ways; a tampered one refused."""
    for label, key, nonce, aad, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(nonce, plaintext, aad or None) != sealed:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, sealed, aad or None) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        tampered = flip(sealed)
        refused(label, _TAMPERED, provider.InvalidTag, aead.decrypt, nonce, tampered, aad or None)


@checks("siv", "label key components plaintext sealed")
def check_siv(provider: Any, vectors: tuple) -> None:
    """Sealed (tag || ciphertext) with its associated-data components, the nonce last."""
    for label, key, components, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(plaintext, components) != sealed:
            raise SelfCheckFailed("%s: wrong tag or ciphertext" % label)
        if aead.decrypt(sealed, components) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        tampered = flip(sealed)
        refused(label, _TAMPERED, provider.InvalidTag, aead.decrypt, tampered, components)


# =========================================================================== key wrap


@checks("key-wrap", "label kek key_data wrapped")
def check_key_wrap(provider: Any, vectors: tuple) -> None:
    for label, kek, key_data, wrapped in vectors:
        if provider.wrap(kek, key_data) != wrapped:
            raise SelfCheckFailed("%s: wrong wrapped key" % label)
        if provider.unwrap(kek, wrapped) != key_data:
            raise SelfCheckFailed("%s: wrong unwrapped key" % label)
        tampered = flip(wrapped)
        what = "a tampered wrapped key"
        refused(label, what, provider.InvalidUnwrap, provider.unwrap, kek, tampered)


# =========================================================================== ChaCha20 family


@checks("chacha20", "label key nonce counter plaintext ciphertext")
def check_chacha20(provider: Any, vectors: tuple) -> None:
    """Keystream at a block counter, whole and in pieces."""
    for label, key, nonce, counter, plaintext, ciphertext in vectors:
        if provider.keystream_context(key, nonce, counter).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        context = provider.keystream_context(key, nonce, counter)
        if context.update(ciphertext[:7]) + context.update(ciphertext[7:]) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


@checks("hchacha20", "label key nonce subkey")
def check_hchacha20(provider: Any, vectors: tuple) -> None:
    """HChaCha20's subkey (XChaCha20's first step), a set the chacha20 row also names."""
    for label, key, nonce, subkey in vectors:
        if provider.hchacha20(key, nonce) != subkey:
            raise SelfCheckFailed("%s: wrong subkey" % label)


@checks("chacha20-poly1305", _AEAD_FIELDS)
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
        forged = ciphertext + bytes(16)
        refused(label, "a forged tag", provider.InvalidTag, one_shot.decrypt, nonce, forged, aad)
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
