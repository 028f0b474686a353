"""An OpenSSL-backed object that behaves like pycryptodome's ``SivMode`` (AES-SIV, RFC 5297).

pycryptodome's SIV takes each associated-data component through ``update``
and, when a nonce was given, adds the nonce as the last component; OpenSSL's
SIV (pyca/cryptography's ``AESSIV``) takes the same vector as a list. Whole
messages go to ``AESSIV``; the rest to a native twin (:mod:`._aes_one_shot`).
"""

from __future__ import annotations

from accel_agent.targets.pycryptodome._aes_one_shot import TAG_SIZE, OneShotAead
from accel_agent.targets.pycryptodome._native_face import named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODE_SIV = 10
# S2V takes at most 127 strings (pycryptodome counts them: block bits - 1): the
# associated-data components, the nonce and the message. Past that native raises.
MAX_STRINGS = 127


@named_as("SivMode")
class SivCipher(OneShotAead):
    """pycryptodome's ``SivMode``, served by OpenSSL.

    ``nonce`` exists as an attribute only when one was given, as natively.
    """

    _takes_output = True

    def __init__(self, backing: Any, provider: Any, key: bytes, nonce: bytes | None) -> None:
        super().__init__(backing, provider, key)
        if nonce is not None:
            self.nonce = nonce

    def _new_native(self) -> Any:
        if "nonce" in self.__dict__:
            return self._backing.native_new(self._key, MODE_SIV, nonce=self.nonce)
        return self._backing.native_new(self._key, MODE_SIV)

    def _components(self) -> list[bytes] | None:
        components = list(self._aad)
        if "nonce" in self.__dict__:
            components.append(self.nonce)
        return components or None

    def _can_take_update(self) -> bool:
        return len(self._aad) < MAX_STRINGS

    def _can_seal(self) -> bool:
        return len(self._aad) + ("nonce" in self.__dict__) < MAX_STRINGS

    def _seal(self, plaintext: Any) -> tuple[bytes, bytes]:
        sealed = self._provider.one_shot(self._key).encrypt(plaintext, self._components())
        return sealed[TAG_SIZE:], sealed[:TAG_SIZE]

    def _unseal(self, ciphertext: Any, tag: bytes) -> bytes:
        return self._provider.one_shot(self._key).decrypt(tag + ciphertext, self._components())


@named_as("SivMode")
class SivCipher3(SivCipher):
    """pycryptodome 3.x's ``SivMode``: its ``update`` returns None (4.x returns the object)."""

    _update_returns_self = False
