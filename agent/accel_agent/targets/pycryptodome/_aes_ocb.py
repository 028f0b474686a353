"""An OpenSSL-backed object that behaves like pycryptodome's ``OcbMode`` (AES-OCB3, RFC 7253).

Whole messages on a fresh object go to pyca/cryptography's ``AESOCB3``;
streamed calls (``encrypt`` in pieces, which returns ciphertext as it goes)
and everything else go to a native twin (:mod:`._aes_one_shot`). Only what
``AESOCB3`` serves exactly reaches this class: 12..15-byte nonces and 16-byte
tags (OCB3 encodes the tag length in its nonce block, so a shorter tag is
not a truncated long one); the builder leaves the rest to native.
"""

from __future__ import annotations

from accel_agent import speedups
from accel_agent.targets.pycryptodome import _buffers, _first_use
from accel_agent.targets.pycryptodome._aead_base import open_whole, settle_layout
from accel_agent.targets.pycryptodome._aes_one_shot import (
    AFTER_DIGEST,
    AFTER_VERIFY,
    INITIAL,
    TAG_SIZE,
    OneShotAead,
)
from accel_agent.targets.pycryptodome._native_face import named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODE_OCB = 12
# The longest message (with its tag joined) that one AESOCB3 call takes.
_ONE_SHOT_MAX = _buffers.ONE_CALL_MAX - TAG_SIZE
_seal_split = speedups.seal_split
_ONE_CALL_MAX = _buffers.ONE_CALL_MAX

# The layout of a fresh OcbCipher from AES.new(key, AES.MODE_OCB, nonce=nonce):
# the attributes the builder's flat path stores, in its order (and
# __init__'s). The compiled AES.new is given them with fresh_values()
# (speedups.add_shape) and makes the same stores; tests/test_speedups.py
# holds the paths to it.
FRESH_FIELDS = ("_backing", "_provider", "_key", "nonce")


def fresh_values(backing: Any) -> tuple:
    """FRESH_FIELDS' values as the flat path stores them (the per-call ones as placeholders)."""
    return (backing, speedups.PROVIDER, speedups.KEY, speedups.NONCE)


@named_as("OcbMode")
class OcbCipher(OneShotAead):
    """pycryptodome's ``OcbMode`` with a 16-byte tag, served by OpenSSL."""

    def __init__(self, backing: Any, provider: Any, key: bytes, nonce: bytes) -> None:
        super().__init__(backing, provider, key)
        self.nonce = nonce

    def _new_native(self) -> Any:
        return self._backing.native_new(self._key, MODE_OCB, nonce=self.nonce)

    # -- the common calls, flat: bytes on a fresh object ---------------------
    # (what OneShotAead's general methods do for them, without their checks
    # of other shapes; every other call goes to those)

    def update(self, assoc_data: Any) -> Any:
        if type(assoc_data) is bytes and self._next is INITIAL and self._twin is None:
            if self._aad:
                self._aad.append(assoc_data)
            else:
                self._aad = [assoc_data]
            return self
        return OneShotAead.update(self, assoc_data)

    def encrypt_and_digest(self, plaintext: Any, *args: Any, **kwargs: Any) -> tuple[Any, bytes]:
        aad = self._aad
        if (
            type(plaintext) is bytes
            and not args
            and not kwargs
            and len(plaintext) <= _ONE_SHOT_MAX
            # one chunk (the common case) checked inline, without aad_fits' frame
            and (
                not aad
                or (len(aad) == 1 and len(aad[0]) <= _ONE_CALL_MAX)
                or _buffers.aad_fits(aad)
            )
        ):
            # The claim of the fresh object (OneShotAead._claim), inline: one
            # frame less per message.
            with _first_use.FIRST_USE_LOCK:
                claimed = self._next is INITIAL and self._twin is None
                if claimed:
                    self._next = AFTER_DIGEST
            if claimed:
                aad = self._aad  # as the claim left it
                sealed = _seal_split(
                    self._provider.one_shot(self._key).encrypt,
                    self.nonce,
                    plaintext,
                    (aad[0] if len(aad) == 1 else b"".join(aad)) if aad else None,
                    TAG_SIZE,
                )
                self._tag = sealed[1]
                self._aad = ()
                self._backing.slot.calls += 1
                return sealed
        return OneShotAead.encrypt_and_digest(self, plaintext, *args, **kwargs)

    def decrypt_and_verify(
        self, ciphertext: Any, received_mac_tag: Any, *args: Any, **kwargs: Any
    ) -> Any:
        aad = self._aad
        if (
            type(ciphertext) is bytes
            and type(received_mac_tag) is bytes
            and not args
            and not kwargs
            and len(received_mac_tag) == TAG_SIZE
            and len(ciphertext) <= _ONE_SHOT_MAX
            # one chunk (the common case) checked inline, without aad_fits' frame
            and (
                not aad
                or (len(aad) == 1 and len(aad[0]) <= _ONE_CALL_MAX)
                or _buffers.aad_fits(aad)
            )
        ):
            with _first_use.FIRST_USE_LOCK:  # the claim, inline (as in encrypt_and_digest)
                claimed = self._next is INITIAL and self._twin is None
                if claimed:
                    self._next = AFTER_VERIFY
            if claimed:
                aad = self._aad  # as the claim left it
                self._backing.slot.calls += 1
                plaintext = open_whole(
                    self,
                    self._provider.one_shot(self._key).decrypt,
                    self.nonce,
                    ciphertext,
                    received_mac_tag,
                    (aad[0] if len(aad) == 1 else b"".join(aad)) if aad else None,
                )
                self._aad = ()
                return plaintext
        return OneShotAead.decrypt_and_verify(self, ciphertext, received_mac_tag, *args, **kwargs)

    def _aad_bytes(self) -> bytes | None:
        aad = self._aad
        if not aad:
            return None
        return aad[0] if len(aad) == 1 else b"".join(aad)

    def _seal(self, plaintext: Any) -> tuple[bytes, bytes]:
        aead = self._provider.one_shot(self._key)
        sealed = aead.encrypt(self.nonce, plaintext, self._aad_bytes())
        return sealed[:-TAG_SIZE], sealed[-TAG_SIZE:]

    def _unseal(self, ciphertext: Any, tag: bytes) -> bytes:
        return self._provider.one_shot(self._key).decrypt(
            self.nonce, bytes(ciphertext) + tag, self._aad_bytes()
        )


# Every object's attributes in one order: the fresh ones, update()'s, then
# those a whole message sets (see settle_layout).
settle_layout(OcbCipher, FRESH_FIELDS + ("_aad", "_next", "_tag"))
