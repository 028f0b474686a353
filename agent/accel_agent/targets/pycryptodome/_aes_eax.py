"""An OpenSSL-backed object that behaves like pycryptodome's ``EaxMode``.

EAX streams naturally (CTR for the payload, three CMACs for nonce, header
and ciphertext), so every call is served by OpenSSL's CMAC and CTR through
the provider's :class:`~accel_agent.providers.aes_aead.EaxStream`:
associated data is kept until the first payload call (so that an exotic
first buffer can still be handed, with it, to a native twin), then the
stream serves ``encrypt``/``decrypt`` chunk by chunk, and the tag is
computed once, as native caches it. A whole message on a fresh object
(``encrypt_and_digest``, ``decrypt_and_verify``) takes one provider call.

The order rules are GCM's (``_order_rules``); a call out of order is judged
by a native object in the same state, so its ``TypeError`` is native's.

In the middle of a message, ``copy.copy``, buffers not of the plain shapes
and an ``output=`` overlapping the input elsewhere hand the object (and the
copy) to a native twin in the object's state (``_twin_mid_message``), as
native's copy shares its OMACs and CTR: the payload OMAC's CMAC state is
computed back from its tag (AES decryption with the key, and the last
partial block of ciphertext, kept for this while the payload is not
block-aligned).
"""

from __future__ import annotations

import sys

from accel_agent import patching
from accel_agent.providers.aes_aead import HandedOver
from accel_agent.providers.block_ciphers import AES
from accel_agent.targets.pycryptodome import _aliased_output, _buffers, _first_use, _order_rules
from accel_agent.targets.pycryptodome._aead_base import (
    ALIASED,
    AeadBase,
    nonce_argument,
    settle_layout,
)
from accel_agent.targets.pycryptodome._native_face import named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

MODE_EAX = 9
MODE_ECB, MODE_CTR = 1, 6  # pycryptodome's, for the native CMAC and CTR of a twin
BLOCK_SIZE = AES.block_size  # the record's
_OMAC_PREFIXES = tuple(bytes(BLOCK_SIZE - 1) + bytes((t,)) for t in range(3))

# pycryptodome's order rules, shared by the AEAD targets (_order_rules).
UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY = _order_rules.METHODS
INITIAL, AFTER_ENCRYPT, AFTER_DECRYPT, AFTER_DIGEST, AFTER_VERIFY = _order_rules.STATES


@named_as("EaxMode")
class EaxCipher(AeadBase):
    """pycryptodome's ``EaxMode``, served by OpenSSL's CMAC and CTR."""

    block_size = BLOCK_SIZE
    _mode = MODE_EAX
    _stream = None
    _msg_len = 0  # payload bytes processed: a judge is brought to the same MAC position
    _unciphered = 0  # of those, bytes MACed but not through the CTR (a refused output=)
    # The payload OMAC's last ciphertext bytes (up to 16) while _msg_len is not a
    # multiple of 16: native CMAC's cache, which a twin needs (_twin_mid_message).
    _ct_tail = b""

    # -- twins -------------------------------------------------------------

    def _new_native(self, **kwargs: Any) -> Any:
        """A native EaxMode whose three OMACs are pycryptodome's own CMAC, as without the agent.

        Native EAX calls ``CMAC.new``, which the agent patches: the exotic
        buffers a twin exists for must meet native CMAC's handling, not the
        CMAC target's (whose state after such a buffer differs).
        """
        twin = super()._new_native(**kwargs)
        native_new = self._backing.native_new
        factory = sys.modules.get(native_new.__module__)
        cmac_module = native_new.__module__.split(".")[0] + ".Hash.CMAC"
        try:
            cmac_new = patching.get_original(cmac_module, "new")
        except KeyError:
            return twin  # CMAC is not patched: native EAX already uses native CMAC
        if factory is None or not hasattr(twin, "_omac"):
            return twin
        params = {k: v for k, v in kwargs.items() if k not in ("nonce", "mac_len")}
        omacs = [
            cmac_new(self._key, prefix, ciphermod=factory, cipher_params=params)
            for prefix in _OMAC_PREFIXES
        ]
        omacs[0].update(twin.nonce)
        twin._omac = omacs
        twin._signer = omacs[1]
        return twin

    def _align_judge(self, judge: Any, method: str) -> None:
        """The same order-rule state and, mid-message, the same ciphertext OMAC position."""
        # Native's error for a bad buffer mid-message depends on how full its
        # ciphertext OMAC's last block is: bring the judge to the same length
        # modulo the block (and past one whole block if this object is).
        size = self._msg_len if self._msg_len < 48 else 32 + self._msg_len % BLOCK_SIZE
        if self._next is AFTER_ENCRYPT:
            judge.encrypt(bytes(size))
        elif self._next is AFTER_DECRYPT:
            judge.decrypt(bytes(size))
        else:
            super()._align_judge(judge, method)

    def _open(self) -> Any:
        """The provider's stream, opened once, fed the associated data kept so far."""
        with _first_use.FIRST_USE_LOCK:
            if self._stream is None:
                stream = self._provider.stream(self._key, self.nonce)
                for chunk in self._aad:
                    stream.authenticate(chunk)
                self._aad = ()
                self._stream = stream
            return self._stream

    def _header(self) -> bytes:
        return b"".join(self._aad) if self._aad else b""

    # -- associated data ---------------------------------------------------

    def update(self, assoc_data: Any) -> EaxCipher:
        if self._twin is not None:
            self._twin.update(assoc_data)
            return self
        if self._next is not INITIAL:
            self._native_verdict(UPDATE, assoc_data)
        if not _buffers.is_plain(assoc_data):
            self._become_native().update(assoc_data)
            return self
        if not self._aad:
            self._aad = []
        self._aad.append(bytes(assoc_data))
        return self

    # -- encryption --------------------------------------------------------

    def _payload(self, method: str, data: Any, output: Any) -> Any:
        """Check a payload call as native would: the bytes to process, or None for a twin.

        ``ALIASED`` when native's own CTR loop has served the call (an
        ``output=`` overlapping the input elsewhere, mid-message).
        """
        if method not in self._next:
            self._native_verdict(method, data, output=output)
        if not _buffers.servable(data, output):
            if self._next is INITIAL:
                return None
            if not _buffers.shapes_servable(data, output) and self._twin_mid_message():
                return None  # the twin serves it
            return self._mid_message_bytes(method, data, output)
        return data

    def _handed_over(self, method: str, data: Any, output: Any) -> Any:
        """A payload call the stream refused: a copy handed the message to a twin meanwhile
        (threads); the call is the twin's, after the hand-over."""
        with _first_use.FIRST_USE_LOCK:  # held by the copy until the twin is set
            twin = self._twin
        return getattr(twin, method)(data, output=output)

    def _keep_tail(self, ciphertext: Any) -> None:
        """Keep the payload OMAC's last bytes (see ``_ct_tail``); after ``_msg_len`` moved on."""
        if self._msg_len % BLOCK_SIZE:
            self._ct_tail = _buffers.last_block(self._ct_tail, ciphertext, BLOCK_SIZE)

    def _twin_mid_message(self) -> Any:
        """A native EaxMode in the state native's would have here, or None (no stream yet,
        or the tag known).

        Its nonce OMAC is native's own; its header OMAC takes no more data
        from here, so it is given its tag; its payload OMAC is given the CMAC
        state (``omac_state``) behind the stream's tag of the payload so far.
        """
        with _first_use.FIRST_USE_LOCK:
            if self._twin is not None:
                return self._twin
            if (
                self._stream is None
                or self._tag is not None
                or not (self._next is AFTER_ENCRYPT or self._next is AFTER_DECRYPT)
            ):
                return None
            method = ENCRYPT if self._next is AFTER_ENCRYPT else DECRYPT
            self._stream.hand_over()  # before the counts are read (see hand_over)
            _nonce_tag, header_tag, payload_tag = self._stream.omac_tags()
            twin = self._new_native()
            getattr(twin, method)(b"")  # native's order rules: past the header
            twin._omac[1]._mac_tag = header_tag
            partial = _buffers.partial_block(self._ct_tail, self._msg_len, BLOCK_SIZE)
            ecb = self._backing.native_new(self._key, MODE_ECB)
            omac_state(twin._omac[2], ecb, payload_tag, BLOCK_SIZE + self._msg_len, partial)
            twin._cipher = self._native_ctr(method)
            self._twin = twin
            self._next = _order_rules.WITH_TWIN
            return twin

    def _mirror_refused(self, method: str, data: Any) -> None:
        if method == DECRYPT and _buffers.is_plain(data):
            # Native MACs a ciphertext before it finds fault with output=.
            try:
                (self._stream or self._open()).absorb(bytes(data))
            except HandedOver:
                return  # a copy handed the message to a twin meanwhile (threads)
            self._msg_len += len(data)
            self._unciphered += len(data)
            self._keep_tail(data)

    def _serve_aliased(self, method: str, data: Any, output: Any) -> None:
        """Native's CTR loop writes ``output``: a native twin in this state takes the call and
        the rest of the message (``_twin_mid_message``), so a copy made meanwhile by another
        thread cannot start from the key stream this call uses.

        (Without a stream to hand over, native's CTR object at the counted
        position writes it, and the OMAC of the ciphertext sees what native's
        does: the output after its loop when encrypting, the input before it
        when decrypting, _aliased_output.)
        """
        twin = self._twin_mid_message()
        if twin is not None:
            getattr(twin, method)(data, output=output)
            return
        self._next = AFTER_ENCRYPT if method == ENCRYPT else AFTER_DECRYPT
        stream = self._stream or self._open()
        serve = _aliased_output.encrypt if method == ENCRYPT else _aliased_output.decrypt
        read = serve(self._native_ctr, data, output)
        try:
            ciphertext = getattr(stream, method)(read)
        except HandedOver:  # a copy handed the message to a twin meanwhile (threads)
            return
        self._msg_len += len(read)
        self._keep_tail(ciphertext if method == ENCRYPT else read)
        self._backing.slot.calls += 1

    def _native_ctr(self, method: str) -> Any:
        """pycryptodome's CTR object as native's EaxMode holds it at this point of the message."""
        position = self._msg_len - self._unciphered
        start = _aliased_output.aligned_start(position)
        counter = int.from_bytes(self._stream.initial_counter, "big") + start // BLOCK_SIZE
        ctr = self._backing.native_new(
            self._key, MODE_CTR, nonce=b"", initial_value=counter % (1 << 128)
        )
        return _aliased_output.skip_to(ctr, start, position, method)

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None:
            return self._twin.encrypt(plaintext, output=output)
        data = self._payload(ENCRYPT, plaintext, output)
        if data is None:
            return self._become_native().encrypt(plaintext, output=output)
        if data is ALIASED:
            return None
        self._next = AFTER_ENCRYPT
        stream = self._stream or self._open()
        self._msg_len += len(data)
        self._backing.slot.calls += 1
        try:
            ciphertext = stream.encrypt(data)
        except HandedOver:
            ciphertext = None
        if ciphertext is None:  # outside the handler: no agent exception chained to native's
            return self._handed_over(ENCRYPT, plaintext, output)
        if self._msg_len % BLOCK_SIZE:  # the partial block (see _ct_tail)
            # _buffers.last_block, inline for bytes: a call per message costs a short one
            # a fifth more
            if len(ciphertext) >= BLOCK_SIZE:
                self._ct_tail = ciphertext[-BLOCK_SIZE:]
            else:
                self._ct_tail = (self._ct_tail + ciphertext)[-BLOCK_SIZE:]
        return _buffers.deliver(ciphertext, output)

    def encrypt_and_digest(self, plaintext: Any, output: Any = None) -> tuple[Any, bytes]:
        if (
            self._next is INITIAL
            and output is None
            and _buffers.is_plain(plaintext)
            and self._claim(AFTER_DIGEST)
        ):
            ciphertext, tag = self._provider.encrypt(
                self._key, self.nonce, self._header(), plaintext
            )
            self._aad = ()
            self._tag = tag = tag[: self._mac_len]
            self._backing.slot.calls += 1
            return ciphertext, tag
        return self.encrypt(plaintext, output=output), self.digest()

    # -- decryption --------------------------------------------------------

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None:
            return self._twin.decrypt(ciphertext, output=output)
        data = self._payload(DECRYPT, ciphertext, output)
        if data is None:
            return self._become_native().decrypt(ciphertext, output=output)
        if data is ALIASED:
            return None
        self._next = AFTER_DECRYPT
        stream = self._stream or self._open()
        self._msg_len += len(data)
        # before the call: in place, it overwrites the input
        if self._msg_len % BLOCK_SIZE:
            if type(data) is not bytes:
                self._ct_tail = _buffers.last_block(self._ct_tail, data, BLOCK_SIZE)
            elif len(data) >= BLOCK_SIZE:  # _buffers.last_block, inline for bytes
                self._ct_tail = data[-BLOCK_SIZE:]
            else:
                self._ct_tail = (self._ct_tail + data)[-BLOCK_SIZE:]
        self._backing.slot.calls += 1
        try:
            plaintext = stream.decrypt(data)
        except HandedOver:
            plaintext = None
        if plaintext is None:  # outside the handler: no agent exception chained to native's
            return self._handed_over(DECRYPT, ciphertext, output)
        return _buffers.deliver(plaintext, output)

    def verify(self, received_mac_tag: Any) -> None:
        if self._twin is not None or VERIFY not in self._next:
            return self._not_ours(VERIFY, received_mac_tag)
        self._next = AFTER_VERIFY  # native moves on before it looks at the tag
        self._check_tag(self._tag or self._finish(), received_mac_tag)
        return None

    def decrypt_and_verify(self, ciphertext: Any, received_mac_tag: Any, output: Any = None) -> Any:
        if (
            self._next is INITIAL
            and output is None
            and _buffers.is_plain(ciphertext)
            and self._claim(AFTER_VERIFY)
        ):
            plaintext, tag = self._provider.decrypt(
                self._key, self.nonce, self._header(), ciphertext
            )
            self._aad = ()
            self._tag = tag = tag[: self._mac_len]
            self._backing.slot.calls += 1
            self._check_tag(tag, received_mac_tag)
            return plaintext
        plaintext = self.decrypt(ciphertext, output=output)
        self.verify(received_mac_tag)
        return plaintext

    # -- helpers -----------------------------------------------------------

    def _finish(self) -> bytes:
        """The tag, computed once (digest() and verify())."""
        stream = self._stream or self._open()
        self._tag = tag = stream.tag()[: self._mac_len]
        self._backing.slot.calls += 1
        return tag


def _doubled(block: bytes) -> bytes:
    """CMAC's subkey doubling in GF(2^128) (SP 800-38B, 6.1)."""
    value = int.from_bytes(block, "big") << 1
    if value >> 128:
        value = (value & ((1 << 128) - 1)) ^ 0x87
    return value.to_bytes(BLOCK_SIZE, "big")


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


def omac_state(omac: Any, ecb: Any, tag: bytes, size: int, partial: bytes) -> None:
    """Give pycryptodome's CMAC object ``omac`` the state behind ``tag``, its 16-byte tag
    of ``size`` bytes whose last, incomplete block is ``partial`` (empty when whole).

    pycryptodome's CMAC processes every whole block at once and keeps the
    last one's CBC input (``_last_pt``) for the final step; the tag is
    E(K, that input ^ K1) for a whole last block, and E(K, X ^ pad(partial)
    ^ K2) for a partial one, X being the CBC value before it. ``ecb`` is a
    native AES-ECB object of the key; ``size`` is at least one block (an
    OMAC's prefix).
    """
    k1 = _doubled(ecb.encrypt(bytes(BLOCK_SIZE)))
    final_input = ecb.decrypt(tag)
    if partial:
        padded = partial + b"\x80" + bytes(BLOCK_SIZE - len(partial) - 1)
        last_ct = _xor(_xor(final_input, _doubled(k1)), padded)
        last_pt = None  # unused until a later whole block sets it again
    else:
        last_pt = _xor(final_input, k1)
        last_ct = ecb.encrypt(last_pt)
    omac._last_ct = last_ct
    omac._last_pt = last_pt
    cache = bytearray(BLOCK_SIZE)
    cache[: len(partial)] = partial
    omac._cache = cache
    omac._cache_n = len(partial)
    omac._data_size = size
    omac._cbc = omac._factory.new(
        omac._key, omac._factory.MODE_CBC, last_ct, **omac._cipher_params
    )


_KEYWORDS = frozenset(("nonce", "mac_len", "use_aesni"))


def builder(backing: Any, on_native: Callable[[Any], None]) -> Callable:
    """``AES.new``'s builder for MODE_EAX: an EaxCipher, or None for "let native do it"."""

    def build(key: bytes, args: tuple, kwargs: dict) -> Any:
        if len(args) > 1 or not kwargs.keys() <= _KEYWORDS:
            return None
        nonce = nonce_argument(args, kwargs, 16)  # native's default: 16 random bytes
        if not nonce:  # None (native decides), or empty (native refuses it)
            return None
        mac_len = kwargs.get("mac_len", BLOCK_SIZE)
        if type(mac_len) is not int or not 2 <= mac_len <= BLOCK_SIZE:
            return None
        provider = backing.slot.get() or on_native(backing)
        if not provider:
            return None
        return EaxCipher(backing, provider, key, nonce, mac_len, kwargs)

    build.backing = backing
    return build


# Every object's attributes in one order: __init__'s, update()'s, then those
# a whole message sets (see settle_layout).
settle_layout(
    EaxCipher,
    ("_backing", "_provider", "_key", "nonce", "_mac_len", "_native_kwargs")
    + ("_aad", "_next", "_tag"),
)
