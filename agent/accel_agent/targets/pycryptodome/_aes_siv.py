"""An OpenSSL-backed object that behaves like pycryptodome's ``SivMode`` (AES-SIV, RFC 5297).

pycryptodome's SIV takes each associated-data component through ``update``
and, when a nonce was given, adds the nonce as the last component; OpenSSL's
SIV (pyca/cryptography's ``AESSIV``) takes the same vector as a list. Whole
messages go to ``AESSIV``; the rest to a native twin (:mod:`._aes_one_shot`).
"""

from __future__ import annotations

from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome._aead_base import settle_layout
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

MODE_SIV = 10
# S2V takes at most 127 strings (pycryptodome counts them: block bits - 1): the
# associated-data components, the nonce and the message. Past that native raises.
MAX_STRINGS = 127
_ONE_CALL_MAX = _buffers.ONE_CALL_MAX
# The layout of a fresh SivCipher from AES.new(key, AES.MODE_SIV, nonce=nonce):
# the attributes the builder's flat path stores, in __init__'s order.
FRESH_FIELDS = ("_backing", "_provider", "_key", "nonce")


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

    # -- the common calls, flat: bytes on a fresh object with a nonce ---------
    # (what OneShotAead's general methods do for them, without their checks
    # of other shapes; every other call goes to those)

    def update(self, assoc_data: Any) -> Any:
        aad = self._aad
        if (
            type(assoc_data) is bytes
            and self._next is INITIAL
            and self._twin is None
            and len(aad) < MAX_STRINGS
        ):
            if aad:
                aad.append(assoc_data)
            else:
                self._aad = [assoc_data]
            return self if self._update_returns_self else None
        return OneShotAead.update(self, assoc_data)

    def _flat(self, data: Any) -> list[bytes] | None:
        """The components of a whole message that takes the flat path, else None.

        ``data`` is bytes of a size one call takes, the object has a nonce,
        and its associated data is one small chunk or none.
        """
        aad = self._aad
        if (
            type(data) is bytes
            and len(data) <= _ONE_CALL_MAX - TAG_SIZE
            and "nonce" in self.__dict__
            and (not aad or (len(aad) == 1 and len(aad[0]) <= _ONE_CALL_MAX))
        ):
            return [aad[0], self.nonce] if aad else [self.nonce]
        return None

    def encrypt_and_digest(self, plaintext: Any, *args: Any, **kwargs: Any) -> tuple[Any, bytes]:
        if not args and not kwargs:
            components = self._flat(plaintext)
            # the components were read before the claim: update() is refused after it
            if components is not None and self._claim(AFTER_DIGEST):
                sealed = self._provider.one_shot(self._key).encrypt(plaintext, components)
                tag = self._tag = sealed[:TAG_SIZE]
                self._aad = ()
                self._backing.slot.calls += 1
                return sealed[TAG_SIZE:], tag
        return OneShotAead.encrypt_and_digest(self, plaintext, *args, **kwargs)

    def decrypt_and_verify(
        self, ciphertext: Any, received_mac_tag: Any, *args: Any, **kwargs: Any
    ) -> Any:
        if (
            not args
            and not kwargs
            and type(received_mac_tag) is bytes
            and len(received_mac_tag) == TAG_SIZE
        ):
            components = self._flat(ciphertext)
            if components is not None and self._claim(AFTER_VERIFY):
                self._backing.slot.calls += 1
                try:
                    plaintext = self._provider.one_shot(self._key).decrypt(
                        received_mac_tag + ciphertext, components
                    )
                except self._provider.InvalidTag:
                    plaintext = None
                if plaintext is None:  # raised outside the handler: no OpenSSL error chained
                    self._open_failed(ciphertext, received_mac_tag)
                    raise ValueError("MAC check failed")
                self._tag = received_mac_tag
                self._aad = ()
                return plaintext
        return OneShotAead.decrypt_and_verify(self, ciphertext, received_mac_tag, *args, **kwargs)


@named_as("SivMode")
class SivCipher3(SivCipher):
    """pycryptodome 3.x's ``SivMode``: its ``update`` returns None (4.x returns the object)."""

    _update_returns_self = False


# Every object's attributes in one order: the fresh ones, update()'s, then
# those a whole message sets (see settle_layout).
settle_layout(SivCipher, FRESH_FIELDS + ("_aad", "_next", "_tag"))
settle_layout(SivCipher3, FRESH_FIELDS + ("_aad", "_next", "_tag"))
