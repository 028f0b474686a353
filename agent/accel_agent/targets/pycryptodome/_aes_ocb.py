"""An OpenSSL-backed object that behaves like pycryptodome's ``OcbMode`` (AES-OCB3, RFC 7253).

Whole messages on a fresh object go to pyca/cryptography's ``AESOCB3``;
streamed calls (``encrypt`` in pieces, which returns ciphertext as it goes)
and everything else go to a native twin (:mod:`._aes_one_shot`). Only what
``AESOCB3`` serves exactly reaches this class: 12..15-byte nonces and 16-byte
tags (OCB3 encodes the tag length in its nonce block, so a shorter tag is
not a truncated long one); the builder leaves the rest to native.
"""

from __future__ import annotations

from accel_agent.targets.pycryptodome._aes_one_shot import TAG_SIZE, OneShotAead
from accel_agent.targets.pycryptodome._native_face import named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODE_OCB = 12


@named_as("OcbMode")
class OcbCipher(OneShotAead):
    """pycryptodome's ``OcbMode`` with a 16-byte tag, served by OpenSSL."""

    def __init__(self, backing: Any, provider: Any, key: bytes, nonce: bytes) -> None:
        super().__init__(backing, provider, key)
        self.nonce = nonce

    def _new_native(self) -> Any:
        return self._backing.native_new(self._key, MODE_OCB, nonce=self.nonce)

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
