"""Tampering with sealed AEAD messages, and the ways pycryptodome lets a caller open them.

Shared by the AEAD differential tests (GCM in test_aes_modes, CCM and EAX
in test_aes_ccm_eax, OCB and SIV in test_aes_ocb_siv_kw). Each test module
draws from the common tamperings and verification paths below plus its
own, and keeps its own scenario: the modes differ in what a tampered nonce
or missing associated data means.
"""

from __future__ import annotations

from transparency_helpers import Recorder

# What may be done to a sealed message before it is opened (each module adds its own).
AEAD_TAMPERINGS = (
    "none",
    "ciphertext",
    "tag",
    "aad",
    "nonce",
    "truncated tag",
    "extended tag",
    "empty tag",
    "missing aad",
)

# How it may be opened: handled by :func:`open_sealed` (each module adds its own).
AEAD_VERIFICATIONS = (
    "decrypt_and_verify",
    "decrypt+verify",
    "decrypt+hexverify",
)


def flip_byte(blob: bytes, where: int = 0) -> bytes:
    """``blob`` with the top bit of its byte at ``where`` (modulo its length) flipped.

    An empty ``blob`` becomes ``b"\\x01"``, so the tampered value always differs.
    """
    if not blob:
        return b"\x01"
    index = where % len(blob)
    return blob[:index] + bytes([blob[index] ^ 0x80]) + blob[index + 1 :]


# The tamperings that change only the tag's length: see :func:`change_tag_length`.
TAG_LENGTH_CHANGES = ("truncated tag", "extended tag", "empty tag")


def change_tag_length(tampering: str, tag: bytes) -> bytes:
    """``tag`` one byte short, one byte long or empty, as ``tampering`` says."""
    if tampering == "truncated tag":
        return tag[:-1]
    if tampering == "extended tag":
        return tag + b"\x00"
    if tampering == "empty tag":
        return b""
    raise ValueError(tampering)


def open_sealed(rec: Recorder, dec, verification: str, ciphertext: bytes, tag) -> None:
    """Open with ``dec`` in one of the :data:`AEAD_VERIFICATIONS` ways, recording each call."""
    if verification == "decrypt_and_verify":
        rec.call("decrypt_and_verify", dec.decrypt_and_verify, ciphertext, tag)
    elif verification == "decrypt+verify":
        rec.call("decrypt", dec.decrypt, ciphertext)
        rec.call("verify", dec.verify, tag)
    elif verification == "decrypt+hexverify":
        rec.call("decrypt", dec.decrypt, ciphertext)
        rec.call("hexverify", dec.hexverify, bytes(tag).hex())
    else:
        raise ValueError(verification)
