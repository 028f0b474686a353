"""An OpenSSL-backed object that behaves like pycryptodome's ``CcmMode``.

OpenSSL's CCM is one-shot (the whole message in one call, the tag given
before decryption starts), and so is the common use of pycryptodome's CCM.
So this object serves, through OpenSSL, exactly the calls that carry a
whole message on a fresh object:

* ``encrypt_and_digest`` / ``decrypt_and_verify`` (``AESCCM`` in one call);
* an ``encrypt`` or ``decrypt`` that carries the whole message: the only
  call allowed when ``msg_len`` was not declared, or the first call when it
  was and equals it (a later one, which can only be empty or too long, is
  answered by a native object holding the same counts), followed by
  ``digest`` / ``verify``: ``decrypt`` runs CTR over the CCM counter blocks, and the tag
  is rebuilt by encrypting the plaintext again when ``verify`` needs it.

Associated data given by ``update`` is kept until then. Everything else
(streaming part of a declared ``msg_len``, ``output=`` buffers on the one-shot
calls, lengths that do not match the declared ones, exotic buffers, a
message too long for the nonce) is handed to a native ``CcmMode`` built with
the same arguments and fed the same associated data, before any payload
was processed: it raises pycryptodome's own errors and does the streaming
(over the agent's OpenSSL CBC and CTR, since it calls ``AES.new``).
Calls out of order after a served message are judged by a native object
brought to the same order-rule state, so the ``TypeError`` is native's.

``copy.copy`` after a whole message whose tag has not been asked for yet
shares the CBC-MAC as native's copy shares its CBC object: the first of the
two to ask gets the message's tag, the next one native's tag of a MAC run
once more over its padded last partial block (``MacChain``).
"""

from __future__ import annotations

import threading

from accel_agent import registry, speedups
from accel_agent.providers.aes_aead import ccm_mac_input
from accel_agent.providers.block_ciphers import AES
from accel_agent.targets.pycryptodome import _buffers, _first_use, _order_rules
from accel_agent.targets.pycryptodome._aead_base import (
    AeadBase,
    nonce_argument,
    open_whole,
    settle_layout,
)
from accel_agent.targets.pycryptodome._native_face import named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

MODE_CCM = 8
BLOCK_SIZE = AES.block_size  # the record's
NONCE_SIZES = range(7, 14)
TAG_SIZES = (4, 6, 8, 10, 12, 14, 16)

# pycryptodome's order rules, shared by the AEAD targets (_order_rules).
UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY = _order_rules.METHODS
INITIAL, AFTER_ENCRYPT, AFTER_DECRYPT, AFTER_DIGEST, AFTER_VERIFY = _order_rules.STATES
# The order-rule states mean a little more here: AFTER_ENCRYPT (AFTER_DECRYPT)
# is the whole declared msg_len encrypted (decrypted); AFTER_DIGEST is also
# what a single encrypt() leaves, AFTER_VERIFY what a single decrypt() leaves.


def max_message(nonce: bytes) -> int:
    """One past the longest payload the nonce's length field can encode (SP 800-38C A.2.1)."""
    return 1 << (8 * (15 - len(nonce)))


FULL_TAG = 16
# nonce length -> one past the longest payload a one-shot call with a 16-byte tag
# serves: what the nonce encodes and what pyca/cryptography takes with the tag joined.
_ONE_SHOT_END = {
    size: min(1 << (8 * (15 - size)), _buffers.ONE_CALL_MAX - FULL_TAG + 1) for size in NONCE_SIZES
}
_UNRESOLVED = registry.UNRESOLVED
_seal_split = speedups.seal_split


class MacChain:
    """Native's CBC-MAC as an object and its copies share it, after the whole payload.

    pycryptodome pads its last partial block into the CBC-MAC when a tag is
    first asked for, from the object's own copy of that block, on the CBC
    object the copies share. So the first object to ask gets the message's
    tag, and each next one gets the MAC moved on by that padded block once
    more: X_1 is the message's unmasked MAC, X_{k+1} = E(K, X_k ^ pad(P)),
    tag_k = (X_k ^ S_0)[:mac_len]. Made only when ``P`` is not empty (with
    no partial block native's MAC does not move, and every object gets the
    message's tag).
    """

    def __init__(self, provider: Any, key: bytes, mask: bytes, x_final: bytes, padded: bytes,
                 mac_len: int) -> None:  # fmt: skip
        self._provider = provider
        self._key = key
        self._mask = int.from_bytes(mask, "big")  # S_0
        self._x = x_final
        self._padded = int.from_bytes(padded, "big")
        self._mac_len = mac_len
        self._lock = threading.Lock()

    def take(self) -> bytes:
        """The tag of the next object to ask for one."""
        with self._lock:
            x = self._x
            following = (int.from_bytes(x, "big") ^ self._padded).to_bytes(BLOCK_SIZE, "big")
            self._x = self._provider.cbc_mac(self._key, following)
        tag = int.from_bytes(x, "big") ^ self._mask
        return tag.to_bytes(BLOCK_SIZE, "big")[: self._mac_len]


@named_as("CcmMode")
class CcmCipher(AeadBase):
    """pycryptodome's ``CcmMode``, served by OpenSSL for whole messages."""

    block_size = BLOCK_SIZE
    _mode = MODE_CCM
    _aad_len = 0
    _plaintext: bytes | None = None  # what was decrypted, until the tag is known
    # After a whole payload encrypted by encrypt() whose length is not a multiple
    # of 16, until its tag is asked for: (the ciphertext, when the tag is
    # shorter than the MAC; the last partial block of ciphertext; the payload's
    # length). For a copy's MacChain.
    _unasked: tuple | None = None
    _mac_chain: MacChain | None = None  # shared with copies (_prepare_copy)
    _ciphertext: Any = None  # a rejected message, to rebuild the tag for a second verify
    # What AES.new(key, AES.MODE_CCM, nonce=nonce) leaves (the builder's flat path sets
    # only the others): a 16-byte tag, no declared lengths.
    _mac_len = FULL_TAG
    _msg_len: int | None = None
    _assoc_len: int | None = None

    # -- twins (the handover itself is AeadBase's) ----------------------------

    def _follow_up(self, method: str, data: Any, output: Any) -> Any:
        """A payload call after the whole declared message: native answers it (``b""`` for
        empty data, else its MessageTooLongError) from the same counts."""
        judge = self._native_with_aad(**self._native_kwargs)
        getattr(judge, method)(bytes(self._msg_len))
        try:
            return getattr(judge, method)(data, output=output)
        except Exception:
            # Native counted the bytes before refusing them: its tag is lost for
            # good ("Message is too short"), which the judge now answers, as twin.
            if getattr(judge, "_cumul_msg_len", None) != self._msg_len:
                self._twin = judge
                self._next = _order_rules.WITH_TWIN
            raise

    def _whole(self, data: Any) -> bool:
        """``data`` is the whole payload, as declared, with all the declared associated data."""
        size = len(data)
        return (
            (self._msg_len is None or self._msg_len == size)
            and (self._assoc_len is None or self._assoc_len == self._aad_len)
            and size < max_message(self.nonce)
        )

    def _header(self) -> bytes | None:
        return b"".join(self._aad) if self._aad else None

    # -- associated data ---------------------------------------------------

    def update(self, assoc_data: Any) -> CcmCipher:
        if (
            type(assoc_data) is bytes
            and self._next is INITIAL
            and self._twin is None
            and self._assoc_len is None
        ):  # the common call, flat: bytes on a fresh object without a declared length
            if self._aad:
                self._aad.append(assoc_data)
            else:
                self._aad = [assoc_data]
            self._aad_len += len(assoc_data)
            return self
        if self._twin is not None:
            self._twin.update(assoc_data)
            return self
        if self._next is not INITIAL:
            self._native_verdict(UPDATE, assoc_data)
        if (
            not _buffers.is_plain(assoc_data)
            or (self._assoc_len is not None and self._aad_len + len(assoc_data) > self._assoc_len)
            # More than OpenSSL's one-shot CCM takes: native serves the message.
            or self._aad_len + len(assoc_data) > _buffers.ONE_CALL_MAX
        ):
            self._become_native().update(assoc_data)
            return self
        if not self._aad:
            self._aad = []
        self._aad.append(bytes(assoc_data))
        self._aad_len += len(assoc_data)
        return self

    # -- encryption --------------------------------------------------------

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None:
            return self._twin.encrypt(plaintext, output=output)
        if self._next is not INITIAL:
            if self._next is AFTER_ENCRYPT:
                return self._follow_up(ENCRYPT, plaintext, output)
            return self._native_verdict(ENCRYPT, plaintext, output=output)
        if (
            not _buffers.servable(plaintext, output)
            or not self._whole(plaintext)  # part of a declared msg_len: native streams it
            or not _buffers.fits_one_call(plaintext, self._aad, self._mac_len)
            or not self._claim(AFTER_DIGEST if self._msg_len is None else AFTER_ENCRYPT)
        ):
            return self._become_native().encrypt(plaintext, output=output)
        ciphertext, self._tag = self._seal(plaintext)
        pending = len(plaintext) % BLOCK_SIZE
        if pending:
            # Native keeps the last partial block until digest(): a copy needs it
            # (MacChain), and, when the tag does not hold the whole MAC, the
            # ciphertext to run the MAC again from.
            self._unasked = (
                ciphertext if self._mac_len != FULL_TAG else None,
                ciphertext[len(ciphertext) - pending :],
                len(plaintext),
            )
        return _buffers.deliver(ciphertext, output)

    def _seal(self, plaintext: Any) -> tuple[bytes, bytes]:
        sealed = self._provider.one_shot(self._key, self._mac_len).encrypt(
            self.nonce, plaintext, self._header()
        )
        self._backing.slot.calls += 1
        mac_len = self._mac_len
        return sealed[:-mac_len], sealed[-mac_len:]

    def digest(self) -> bytes:
        if self._twin is not None or DIGEST not in self._next:
            return self._not_ours(DIGEST)
        if self._tag is None:  # a fresh object: the tag of an empty payload, or native's error
            return self._become_native().digest()
        self._next = AFTER_DIGEST
        if self._unasked is not None or self._mac_chain is not None:
            self._first_asked()
        return self._tag

    def _first_asked(self) -> None:
        """The tag is asked for the first time: a copy's shared MAC decides it."""
        chain = self._mac_chain
        if chain is not None:
            self._tag = chain.take()
        self._mac_chain = self._unasked = None

    def _prepare_copy(self) -> None:
        """Before a copy: the MAC the two share (``MacChain``), while no tag was asked for."""
        if self._twin is not None or self._mac_chain is not None:
            return
        if self._unasked is not None:  # encrypted, not digested
            ciphertext, tail, length = self._unasked
            # The partial block's plaintext: its ciphertext XOR its counter block's key stream.
            last = self._provider.keystream(
                self._key, self.nonce, first=length // BLOCK_SIZE + 1
            ).update(bytes(len(tail)))
            partial = bytes(c ^ k for c, k in zip(tail, last))
            plaintext = None  # a whole 16-byte tag holds the MAC (masked with S_0)
            if ciphertext is not None:  # a short tag: the MAC run again over the plaintext
                plaintext = self._provider.keystream(self._key, self.nonce).update(ciphertext)
        elif self._tag is None and self._plaintext is not None:  # decrypted, not verified
            plaintext = self._plaintext
            partial = _buffers.partial_block(plaintext, len(plaintext), BLOCK_SIZE)
            if not partial:
                return
        else:
            return
        mask = self._provider.keystream(self._key, self.nonce, first=0).update(bytes(BLOCK_SIZE))
        if plaintext is None:
            x_final = bytes(t ^ m for t, m in zip(self._tag, mask))
        else:
            x_final = self._provider.cbc_mac(
                self._key,
                ccm_mac_input(self.nonce, self._mac_len, self._header() or b"", plaintext),
            )
        self._mac_chain = MacChain(
            self._provider, self._key, mask, x_final, partial.ljust(BLOCK_SIZE, b"\x00"),
            self._mac_len,
        )  # fmt: skip
        self._unasked = None

    def encrypt_and_digest(self, plaintext: Any, output: Any = None) -> tuple[Any, bytes]:
        if (
            type(plaintext) is bytes
            and output is None
            and self._mac_len == FULL_TAG
            and self._msg_len is None
            and self._assoc_len is None
            and len(plaintext) < _ONE_SHOT_END[len(self.nonce)]
            and self._aad_len <= _buffers.ONE_CALL_MAX
        ):  # the common call, flat: one AESCCM call on the key object's AESCCM
            with _first_use.FIRST_USE_LOCK:
                if self._next is not INITIAL:
                    return self.encrypt(plaintext), self.digest()
                self._next = AFTER_DIGEST
            aad = self._aad
            sealed = _seal_split(
                self._provider.one_shot_16(self._key).encrypt,
                self.nonce,
                plaintext,
                (aad[0] if len(aad) == 1 else b"".join(aad)) if aad else None,
                FULL_TAG,
            )
            self._tag = sealed[1]
            self._backing.slot.calls += 1
            return sealed
        if (
            self._next is INITIAL
            and output is None
            and _buffers.is_plain(plaintext)
            and self._whole(plaintext)
            and _buffers.fits_one_call(plaintext, self._aad, self._mac_len)
            and self._claim(AFTER_DIGEST)
        ):
            ciphertext, self._tag = self._seal(plaintext)
            return ciphertext, self._tag
        return self.encrypt(plaintext, output=output), self.digest()

    # -- decryption --------------------------------------------------------

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None:
            return self._twin.decrypt(ciphertext, output=output)
        if self._next is not INITIAL:
            if self._next is AFTER_DECRYPT:
                return self._follow_up(DECRYPT, ciphertext, output)
            return self._native_verdict(DECRYPT, ciphertext, output=output)
        if (
            not _buffers.servable(ciphertext, output)
            or not self._whole(ciphertext)
            or not _buffers.fits_one_call(ciphertext, self._aad, self._mac_len)
            or not self._claim(AFTER_VERIFY if self._msg_len is None else AFTER_DECRYPT)
        ):
            return self._become_native().decrypt(ciphertext, output=output)
        plaintext = self._provider.keystream(self._key, self.nonce).update(ciphertext)
        self._plaintext = plaintext
        self._backing.slot.calls += 1
        return _buffers.deliver(plaintext, output)

    def verify(self, received_mac_tag: Any) -> None:
        if self._twin is not None or VERIFY not in self._next:
            return self._not_ours(VERIFY, received_mac_tag)
        if self._next is INITIAL:  # nothing decrypted: native checks the empty payload
            return self._become_native().verify(received_mac_tag)
        self._next = AFTER_VERIFY
        self._check_tag(self._real_tag(), received_mac_tag)
        return None

    def decrypt_and_verify(self, ciphertext: Any, received_mac_tag: Any, output: Any = None) -> Any:
        mac_len = self._mac_len
        if (
            type(ciphertext) is bytes
            and type(received_mac_tag) is bytes
            and output is None
            and mac_len == FULL_TAG
            and len(received_mac_tag) == FULL_TAG
            and self._msg_len is None
            and self._assoc_len is None
            and len(ciphertext) < _ONE_SHOT_END[len(self.nonce)]
            and self._aad_len <= _buffers.ONE_CALL_MAX
        ):  # the common call, flat: one AESCCM call on the key object's AESCCM
            with _first_use.FIRST_USE_LOCK:
                claimed = self._next is INITIAL
                if claimed:
                    self._next = AFTER_VERIFY
            if claimed:
                self._backing.slot.calls += 1
                aad = self._aad
                return open_whole(
                    self,
                    self._provider.one_shot_16(self._key).decrypt,
                    self.nonce,
                    ciphertext,
                    received_mac_tag,
                    (aad[0] if len(aad) == 1 else b"".join(aad)) if aad else None,
                )
        if (
            self._next is INITIAL
            and output is None
            and _buffers.is_plain(ciphertext)
            and type(received_mac_tag) is bytes
            and len(received_mac_tag) == mac_len
            and self._whole(ciphertext)
            and _buffers.fits_one_call(ciphertext, self._aad, mac_len)
            and self._claim(AFTER_VERIFY)
        ):
            self._backing.slot.calls += 1
            try:
                plaintext = self._provider.one_shot(self._key, mac_len).decrypt(
                    self.nonce, bytes(ciphertext) + received_mac_tag, self._header()
                )
            except self._provider.InvalidTag:
                plaintext = None
            if plaintext is None:  # raised outside the handler: no OpenSSL error chained
                self._ciphertext = bytes(ciphertext)  # a second verify needs the real tag
                raise ValueError("MAC check failed")
            self._tag = received_mac_tag
            return plaintext
        plaintext = self.decrypt(ciphertext, output=output)
        self.verify(received_mac_tag)
        return plaintext

    def _open_failed(self, ciphertext: bytes, received_mac_tag: bytes) -> None:
        self._ciphertext = ciphertext  # a second verify needs the real tag

    def _real_tag(self) -> bytes:
        """The tag of what was decrypted: encrypting the plaintext again yields it
        (or, shared with a copy, the ``MacChain``'s)."""
        if self._mac_chain is not None:
            self._tag = self._mac_chain.take()
            self._mac_chain = None
            self._plaintext = self._ciphertext = None
        if self._tag is None:
            plaintext = self._plaintext
            if plaintext is None:
                plaintext = self._provider.keystream(self._key, self.nonce).update(self._ciphertext)
            self._tag = self._seal(plaintext)[1]
            self._plaintext = self._ciphertext = None
        return self._tag


# The layout of a fresh CcmCipher from AES.new(key, AES.MODE_CCM, nonce=nonce):
# the attributes the builder's flat path sets, in its order (the general
# path's too). The compiled AES.new is given them with fresh_values()
# (speedups.add_shape) and makes the same stores; tests/test_speedups.py
# holds the three paths to it.
FRESH_FIELDS = (
    "_backing", "_provider", "_key", "nonce", "_mac_len", "_native_kwargs", "_msg_len",
    "_assoc_len",
)  # fmt: skip


def fresh_values(backing: Any) -> tuple:
    """FRESH_FIELDS' values as the flat path stores them (the per-call ones as placeholders)."""
    return (
        backing, speedups.PROVIDER, speedups.KEY, speedups.NONCE, BLOCK_SIZE, speedups.KEYWORDS,
        None, None,
    )  # fmt: skip


# The keywords the builder understands; ``use_aesni`` picks pycryptodome's
# own AES implementation and changes no result.
_KEYWORDS = frozenset(("nonce", "mac_len", "msg_len", "assoc_len", "use_aesni"))
_blank = object.__new__


def builder(backing: Any, on_native: Callable[[Any], None]) -> Callable:
    """``AES.new``'s builder for MODE_CCM: a CcmCipher, or None for "let native do it".

    Arguments are checked exactly where pycryptodome would accept them; any
    other value (which native rejects, or treats in its own way) is left to
    the original ``new``.
    """

    slot = backing.slot

    def build(key: bytes, args: tuple, kwargs: dict) -> Any:
        if not args and len(kwargs) == 1:
            # AES.new(key, AES.MODE_CCM, nonce=nonce) with bytes, flat: the class's
            # defaults are its tag length and lengths; native's arguments are kwargs
            # itself (new()'s own dictionary, made for this call).
            nonce = kwargs.get("nonce")
            if type(nonce) is bytes and 7 <= len(nonce) <= 13:
                provider = slot.provider
                if provider is not None and provider is not _UNRESOLVED:
                    cipher = _blank(CcmCipher)
                    cipher._backing = backing
                    cipher._provider = provider
                    cipher._key = key
                    cipher.nonce = nonce
                    # the general path's order, so that objects keep one shared-key layout
                    cipher._mac_len = BLOCK_SIZE
                    cipher._native_kwargs = kwargs
                    cipher._msg_len = cipher._assoc_len = None
                    return cipher
        if len(args) > 1 or not kwargs.keys() <= _KEYWORDS:
            return None
        nonce = nonce_argument(args, kwargs, 11)  # native's default: 11 random bytes
        if nonce is None or len(nonce) not in NONCE_SIZES:
            return None
        mac_len = kwargs.get("mac_len", BLOCK_SIZE)
        if type(mac_len) is not int or mac_len not in TAG_SIZES:
            return None
        msg_len = kwargs.get("msg_len")
        if msg_len is not None and (
            type(msg_len) is not int or not 0 <= msg_len < max_message(nonce)
        ):
            return None
        assoc_len = kwargs.get("assoc_len")
        if assoc_len is not None and (type(assoc_len) is not int or assoc_len < 0):
            return None
        provider = backing.slot.get() or on_native(backing)
        if not provider:
            return None
        cipher = CcmCipher(backing, provider, key, nonce, mac_len, kwargs)
        # The declared lengths (native's names for them), not counts of bytes
        # processed as GCM's and EAX's _msg_len: they only share the name.
        cipher._msg_len = msg_len
        cipher._assoc_len = assoc_len
        return cipher

    build.backing = backing
    return build


# Every object's attributes in one order: the fresh ones, update()'s, then
# those a whole message sets (see settle_layout; measured: with a header,
# 2.4 us per 64-byte message in a process that made header-less ones first,
# 2.0 us otherwise).
settle_layout(CcmCipher, FRESH_FIELDS + ("_aad", "_aad_len", "_next", "_tag"))
