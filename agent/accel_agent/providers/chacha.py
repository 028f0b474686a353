"""ChaCha20, ChaCha20-Poly1305 and XChaCha20-Poly1305 through OpenSSL (pyca/cryptography).

OpenSSL's ChaCha20 takes a 16-byte IV: the 32-bit little-endian block
counter then the 12-byte nonce of RFC 8439. The same state words serve the
original construction (64-bit counter, 8-byte nonce) when the IV is the
8-byte little-endian counter then the nonce; pyca/cryptography refuses to
carry the low counter word into the next, so streaming code re-opens a
context at each 2**32-block boundary (:data:`COUNTER_SPAN`).

HChaCha20 (XChaCha20's subkey derivation) is one ChaCha20 block without the
final addition of the input state: OpenSSL's keystream block minus the input
words gives it (draft-irtf-cfrg-xchacha-03, 2.2).

The AEAD providers hand out both the one-shot ``ChaCha20Poly1305`` class for
whole messages and the two pieces RFC 8439 composes (a ChaCha20 context,
Poly1305) for streamed ones. A provider knows nothing of pycryptodome.
"""

from __future__ import annotations

import _thread
import struct

from accel_agent.providers._pyca import context_makers, cryptography_module
from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KEY_SIZE = 32
BLOCK_SIZE = 64
TAG_SIZE = 16
COUNTER_SPAN = 1 << 32  # blocks one OpenSSL context may produce from a counter word of 0

_SIGMA = struct.unpack("<4I", b"expand 32-byte k")
_WORDS = struct.Struct("<16I")
_SUBKEY = struct.Struct("<8I")
_ZERO_BLOCK = bytes(BLOCK_SIZE)


class ChaCha20Provider:
    """Raw ChaCha20 keystream contexts and HChaCha20."""

    name = "openssl"
    primitive = "chacha20"

    def __init__(self) -> None:
        self._chacha20 = cryptography_module("hazmat.primitives.ciphers.algorithms").ChaCha20
        self._encryption_context, _ = context_makers()
        try:
            self._chacha20(bytes(KEY_SIZE), bytes(16))
        except Exception as exc:  # noqa: BLE001 - UnsupportedAlgorithm on OpenSSL builds without it
            raise ProviderUnavailable("OpenSSL has no ChaCha20 (%s)" % type(exc).__name__) from None

    def context(self, key: bytes, iv: bytes):
        """An encryptor (encrypting and decrypting are the same XOR) at the 16-byte ``iv``."""
        return self._encryption_context(self._chacha20(key, iv), None)

    def keystream_context(self, key: bytes, nonce: bytes, block: int):
        """A context at keystream block ``block`` of ``nonce`` (12 bytes: RFC 8439; 8: original)."""
        if len(nonce) == 12:
            iv = block.to_bytes(4, "little") + nonce
        else:
            iv = block.to_bytes(8, "little") + nonce
        return self.context(key, iv)

    def extended(self, key: bytes, nonce24: bytes) -> tuple[bytes, bytes]:
        """XChaCha20's (subkey, 12-byte nonce) for a 24-byte nonce: counter space of 32 bits."""
        return self.hchacha20(key, nonce24[:16]), b"\x00\x00\x00\x00" + nonce24[16:]

    def hchacha20(self, key: bytes, nonce16: bytes) -> bytes:
        """HChaCha20(key, nonce16): the 32-byte subkey of XChaCha20."""
        block = _WORDS.unpack(self.context(key, nonce16).update(_ZERO_BLOCK))
        nonce_words = struct.unpack("<4I", nonce16)
        return _SUBKEY.pack(
            (block[0] - _SIGMA[0]) & 0xFFFFFFFF,
            (block[1] - _SIGMA[1]) & 0xFFFFFFFF,
            (block[2] - _SIGMA[2]) & 0xFFFFFFFF,
            (block[3] - _SIGMA[3]) & 0xFFFFFFFF,
            (block[12] - nonce_words[0]) & 0xFFFFFFFF,
            (block[13] - nonce_words[1]) & 0xFFFFFFFF,
            (block[14] - nonce_words[2]) & 0xFFFFFFFF,
            (block[15] - nonce_words[3]) & 0xFFFFFFFF,
        )


class ChaCha20Poly1305Provider(ChaCha20Provider):
    """AEAD_CHACHA20_POLY1305 (RFC 8439), and with ``extended`` XChaCha20-Poly1305.

    ``one_shot(key).encrypt(nonce12, data, aad)`` returns ct || 16-byte tag;
    ``poly1305(key32)`` is a Poly1305 MAC object (``update``, ``finalize``).
    """

    def __init__(self, extended: bool = False) -> None:
        ChaCha20Provider.__init__(self)
        try:
            from cryptography.exceptions import InvalidTag
            from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
            from cryptography.hazmat.primitives.poly1305 import Poly1305

            ChaCha20Poly1305(bytes(KEY_SIZE))
            Poly1305(bytes(KEY_SIZE))
        except Exception as exc:  # noqa: BLE001 - missing in this OpenSSL build
            raise ProviderUnavailable(
                "OpenSSL has no ChaCha20-Poly1305 (%s)" % type(exc).__name__
            ) from None
        self.primitive = "xchacha20-poly1305" if extended else "chacha20-poly1305"
        # The ChaCha20Poly1305 object of the last key object is reused
        # (base.LastKeyReuse, docs/security.md). Not for XChaCha20: its
        # AEAD key is derived from key and nonce, new with every message.
        self.one_shot = ChaCha20Poly1305 if extended else LastKeyReuse(ChaCha20Poly1305).for_key
        self.poly1305 = Poly1305
        self.InvalidTag = InvalidTag

    def aead(self, key: bytes):
        """The one-shot AEAD object for ``key``."""
        return self.one_shot(key)

    def stream(self, key: bytes, nonce12: bytes) -> AeadStream:
        """RFC 8439's construction in pieces, for messages given in several calls."""
        return AeadStream(self, key, nonce12)


class AeadStream:
    """AEAD_CHACHA20_POLY1305 as RFC 8439 2.8 composes it, fed piece by piece.

    The Poly1305 key is the first 32 bytes of keystream block 0; the message
    is encrypted from block 1. Poly1305 sees the associated data padded to
    16 bytes, the ciphertext padded to 16 bytes, then le64(aad length) and
    le64(ciphertext length). ``absorb`` feeds ciphertext to the MAC without
    moving the keystream (what pycryptodome does when a decryption fails on
    its ``output`` buffer after the MAC has seen the data).
    """

    __slots__ = (
        "_context", "_mac", "aad_len", "ct_len", "unciphered", "_in_aad", "_tag", "_handed", "_lock"
    )  # fmt: skip

    def __init__(self, provider: ChaCha20Poly1305Provider, key: bytes, nonce12: bytes) -> None:
        context = provider.context(key, b"\x00\x00\x00\x00" + nonce12)
        self._mac = provider.poly1305(context.update(_ZERO_BLOCK)[:32])
        self._context = context  # now at block 1
        self.aad_len = 0
        self.ct_len = 0
        # Bytes counted in ct_len that never went through the cipher (absorbed,
        # or counted by the target for a call native refused after counting).
        self.unciphered = 0
        self._in_aad = True
        self._tag: bytes | None = None
        self._handed = False  # hand_over(): the cipher is a twin's now, the MAC goes on
        # Each step feeds two OpenSSL objects (cipher, then MAC): threads
        # sharing a stream take turns, so the MAC sees the ciphertext in the
        # order it was produced.
        self._lock = _thread.allocate_lock()

    def authenticate(self, data: bytes) -> None:
        with self._lock:
            self._mac.update(data)
            self.aad_len += len(data)

    def _end_aad(self) -> None:
        self._in_aad = False
        if self.aad_len % 16:
            self._mac.update(bytes(16 - self.aad_len % 16))

    def encrypt(self, data: bytes) -> bytes:
        with self._lock:
            self._refuse_when_finished()
            if self._in_aad:
                self._end_aad()
            ciphertext = self._context.update(data)
            self._mac.update(ciphertext)
            self.ct_len += len(data)
            return ciphertext

    def decrypt(self, data: bytes) -> bytes:
        with self._lock:
            self._refuse_when_finished()
            self._absorb(data)
            return self._context.update(data)

    def absorb(self, ciphertext: bytes) -> None:
        with self._lock:
            self._refuse_when_finished()
            self._absorb(ciphertext)
            self.unciphered += len(ciphertext)

    @property
    def key_stream_used(self) -> int:
        """Bytes of the message's key stream used so far (from block 1)."""
        return self.ct_len - self.unciphered

    def mac_update(self, data: Any) -> None:
        """Feed Poly1305 alone, with no padding or counting (a native twin does those now)."""
        with self._lock:
            if self._tag is not None:
                raise StreamFinished("the tag of this stream was computed already")
            self._mac.update(data)

    def mac_finalize(self) -> bytes:
        """Poly1305's tag of what it was fed, once (a native twin fed it the lengths)."""
        with self._lock:
            if self._tag is None:
                self._tag = self._mac.finalize()
            return self._tag

    def _absorb(self, ciphertext: bytes) -> None:
        if self._in_aad:
            self._end_aad()
        self._mac.update(ciphertext)
        self.ct_len += len(ciphertext)

    def _refuse_when_finished(self) -> None:
        if self._tag is not None or self._handed:
            raise StreamFinished("the tag of this stream was computed already")

    def hand_over(self) -> tuple[int, int] | None:
        """Stop ciphering here, for a twin that goes on from this point with the MAC alone
        (``mac_update``, ``mac_finalize``): (aad_len, ct_len), or None when the tag was
        computed already (the counts, ``key_stream_used`` too, move no more).

        Taken under the lock, so no call is half done: a call that comes
        later raises :class:`StreamFinished`, and its caller hands it to the
        twin, whose key stream starts where this one stopped.
        """
        with self._lock:
            if self._tag is not None or self._handed:
                return None
            if self._in_aad:
                self._end_aad()
            self._handed = True
            return self.aad_len, self.ct_len

    def tag(self) -> bytes:
        """The 16-byte tag (computed once; later calls return it again)."""
        with self._lock:
            if self._tag is None:
                if self._in_aad:
                    self._end_aad()
                mac = self._mac
                if self.ct_len % 16:
                    mac.update(bytes(16 - self.ct_len % 16))
                mac.update(struct.pack("<QQ", self.aad_len, self.ct_len))
                self._tag = mac.finalize()
            return self._tag


class StreamFinished(Exception):
    """Data given to an :class:`AeadStream` after its tag (only threads sharing one get here)."""


def chacha20_provider() -> ChaCha20Provider:
    return ChaCha20Provider()


def chacha20_poly1305_provider() -> ChaCha20Poly1305Provider:
    return ChaCha20Poly1305Provider()


def xchacha20_poly1305_provider() -> ChaCha20Poly1305Provider:
    return ChaCha20Poly1305Provider(extended=True)
