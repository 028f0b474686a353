"""An OpenSSL-backed object that behaves like pycryptodome's ``GcmMode``.

pycryptodome streams GCM (``update`` for associated data, any number of
``encrypt``/``decrypt`` calls, then ``digest``/``verify`` as often as
wanted); OpenSSL needs to know the direction before the first byte of
associated data, and checks a tag once. So:

* associated data is kept until the direction is known (the first
  ``encrypt``, ``decrypt``, ``digest`` or ``verify``);
* a whole message on a fresh object (``encrypt_and_digest``,
  ``decrypt_and_verify``) goes to the one-shot ``AESGCM`` call when it is
  small, where streaming contexts cost more than the work;
* ``verify`` hands the tag to OpenSSL, which compares in constant time; a
  second ``verify`` after a failed one needs the real tag, which is rebuilt
  from the plaintext kept for that purpose (up to a bound, past which a
  shadow encryptor keeps the tag computable without keeping the data);
* anything pycryptodome would reject, or that is not a plain buffer, goes to
  a native twin: a real ``GcmMode`` with the same key and nonce, replayed to
  the same point when no data has been processed yet, or, for an error,
  brought to the same order-rule state so it raises what native raises;
* ``copy.copy`` in the middle of a message hands the object and its copy to
  a native twin and its shallow copy, which share GHASH and CTR state as
  native's objects do. The twin is given native's state at that point:
  the GHASH value, recovered from the tag of what was processed so far
  (``_ghash``), the last partial block of ciphertext (kept for this, up to
  16 bytes, while the message is not block-aligned), the counts and a CTR
  object at the same key-stream position.
"""

from __future__ import annotations

from accel_agent import speedups
from accel_agent.constant_time import compare_digest
from accel_agent.providers.block_ciphers import AES
from accel_agent.providers.contexts import is_busy, when_free
from accel_agent.speedups import STREAM_UPDATE_FROM, seal_split, stream_update
from accel_agent.targets.pycryptodome import (
    _aliased_output,
    _buffers,
    _first_use,
    _ghash,
    _order_rules,
)
from accel_agent.targets.pycryptodome._aead_base import (
    ALIASED,
    AeadBase,
    open_whole,
    settle_layout,
)
from accel_agent.targets.pycryptodome._native_face import named_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODE_GCM = 11
MODE_ECB, MODE_CTR = 1, 6  # pycryptodome's, for the native CTR of aliased buffers
BLOCK_SIZE = AES.block_size  # the record's
# Up to these sizes a whole message goes to the one-shot AESGCM call, above
# them to a streaming context (which returns and takes ciphertext and tag
# apart, but costs ~2.6 us to set up). Decryption joins ct || tag: a copy,
# which at 1 MiB costs more than the decryption (page faults on the fresh
# copy). Encryption's ct || tag is cut apart in place by the compiled
# speedups.seal_split; without it, it is copied too.
OPEN_ONE_SHOT_LIMIT = 32 * 1024
SEAL_ONE_SHOT_LIMIT = speedups.seal_one_shot_limit(OPEN_ONE_SHOT_LIMIT)
PLAINTEXT_KEPT_LIMIT = 4 * 1024 * 1024  # decrypted bytes kept for a second verify
# The smallest limits of any supported pycryptodome (4.x; 3.x allows more): at
# or past them a native object with the same counts decides whether to raise.
SMALLEST_MESSAGE_LIMIT = 2**36 - 32
SMALLEST_AAD_LIMIT = 2**61 - 1
ONE_CALL_MAX = _buffers.ONE_CALL_MAX

# pycryptodome's order rules, shared by the AEAD targets (_order_rules).
UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY = _order_rules.METHODS
INITIAL, AFTER_ENCRYPT, AFTER_DECRYPT, AFTER_DIGEST, AFTER_VERIFY = _order_rules.STATES


# The layout of a fresh GcmCipher: the instance attributes its ``__init__``
# sets, in that order (every other one starts as a class attribute). The
# compiled ``AES.new`` (speedups.gcm_new) is given this tuple and sets the
# same attributes in the same order, so objects made either way share
# CPython's instance layout; tests/test_speedups.py holds ``__init__`` to it.
# (Not a class attribute: native's objects have no such name.)
FRESH_FIELDS = ("_backing", "_provider", "_key", "nonce", "_one_shot")


@named_as("GcmMode")
class GcmCipher(AeadBase):
    """pycryptodome's ``GcmMode``, served by OpenSSL.

    No ``__slots__``: the class attributes below are the state of a fresh
    object, so creating one sets few attributes (a whole message on a fresh
    object is the common case, and its cost is what users pay per message).
    """

    block_size = BLOCK_SIZE
    _mode = MODE_GCM
    _native_tag_names = ("_tag", "_mac_tag")  # where 4.x and 3.x cache the real tag
    _auth_len = 0
    _msg_count = 0  # pycryptodome's _msg_len (see the property below)
    _context = None  # OpenSSL's encryption or decryption context
    _tag_checked = False  # OpenSSL's context has checked a tag already
    _kept: list[bytes] | tuple = ()  # decrypted data kept to rebuild the tag
    _kept_size = 0
    _shadow = None  # an encryptor fed with the plaintext, past PLAINTEXT_KEPT_LIMIT
    # The last ciphertext bytes (up to 16) while the message is not block-aligned:
    # native's partial GHASH block, which a copy's twin needs (_twin_mid_message).
    _ct_tail = b""
    # _msg_len was set from outside (pycryptodome's tests, near the limits): the
    # count no longer says what OpenSSL's context processed.
    _count_set = False
    # The key stream token: a list holding the tag length until one call
    # takes it to use the key stream from its start, either a whole message
    # sent to the one-shot AEAD call (encrypt_and_digest, decrypt_and_verify)
    # or the opening of a streaming context (_open). Taking it is
    # ``list.pop()``, one atomic operation even without a GIL: of two threads
    # starting with one fresh object only one gets it, so the nonce cannot
    # start the key stream twice (a lock did the same for ~250 ns per
    # message). 0 instead of the tag length: no one-shot (a message length
    # was set from outside); a context may still take it.
    _one_shot: list | tuple = ()

    _mac_len = 16

    def __init__(
        self, backing: Any, provider: Any, key: bytes, nonce: bytes, mac_len: int = 16
    ) -> None:
        self._backing = backing
        self._provider = provider
        self._key = key
        self.nonce = nonce
        if mac_len != 16:
            self._mac_len = mac_len  # not a field: the class default serves 16
        self._one_shot = [mac_len]

    @property
    def _msg_len(self) -> int:
        """pycryptodome's count of message bytes; its tests set it near the limit."""
        return self._msg_count

    @_msg_len.setter
    def _msg_len(self, value: int) -> None:
        # A count set from outside: encrypt()/decrypt() must judge the limit.
        if self._one_shot:
            self._one_shot[0] = 0
        if value != self._msg_count:
            self._count_set = True
        self._msg_count = value

    # -- twins -------------------------------------------------------------

    def _become_native(self) -> Any:
        """Hand the rest of this message to a native twin (only before any data was processed).

        GCM's own: the twin also takes the counts its limits are checked
        against, which pycryptodome's tests set from outside.
        """
        if self._twin is None:
            twin = self._native_with_aad()
            twin._auth_len = self._auth_len  # the counts native checks its limits against
            twin._msg_len = self._msg_count
            self._twin = twin
            self._next = _order_rules.WITH_TWIN
        return self._twin

    def _twin_mid_message(self) -> Any:
        """A native ``GcmMode`` in the state native's object would have here.

        The GHASH value comes from the tag of what was processed: the
        encryption context finalized, or, decrypting, the tag rebuilt from
        the kept plaintext (``_rebuilt_tag``). The context is not used
        again: the twin serves the rest of the message.
        """
        with _first_use.FIRST_USE_LOCK:
            if self._twin is not None:
                return self._twin
            if (
                not (self._next is AFTER_ENCRYPT or self._next is AFTER_DECRYPT)
                or self._tag is not None
                or self._context is None  # its opening failed (a racing one-shot call)
                or self._count_set
            ):
                return None  # another thread moved the object on: no mid-message state
            encrypting = self._next is AFTER_ENCRYPT
            method = ENCRYPT if encrypting else DECRYPT
            tag = self._encryption_tag(self._context) if encrypting else self._rebuilt_tag()
            ecb = self._backing.native_new(self._key, MODE_ECB)
            h = int.from_bytes(ecb.encrypt(bytes(BLOCK_SIZE)), "big")
            h_inverse = _ghash.inverse(h)
            j0 = _ghash.pre_counter_block(h, self.nonce)
            masked = int.from_bytes(tag, "big") ^ int.from_bytes(ecb.encrypt(j0), "big")
            partial = _buffers.partial_block(self._ct_tail, self._msg_count, BLOCK_SIZE)
            y = _ghash.state_before_tag(h_inverse, masked, self._auth_len, self._msg_count, partial)
            twin = self._new_native()
            getattr(twin, method)(b"")  # native's order rules: past the associated data
            # From GHASH's zero, one block brings native's value to y: (0 ^ x) * H.
            twin._signer.update(_ghash.multiply(y, h_inverse).to_bytes(BLOCK_SIZE, "big"))
            twin._cache = partial
            twin._auth_len = self._auth_len
            twin._msg_len = self._msg_count
            twin._cipher = self._native_ctr(method)
            self._twin = twin
            self._next = _order_rules.WITH_TWIN
            return twin

    def _encryption_tag(self, context: Any) -> bytes:
        """The whole 16-byte tag of what the encryption ``context`` processed (finalizing it)."""
        try:
            context.finalize()
        except Exception as exc:  # noqa: BLE001 - only threads sharing the object get here
            contended = exc
        else:
            return context.tag
        self._finalized_meanwhile(context, contended)  # outside the handler (see _contended)
        return context.tag

    def _align_judge(self, judge: Any, method: str) -> None:
        """The same order-rule state, the same counts (native's limits are checked on them)
        and, mid-message, the same partial block in its cache (its code for a refused
        buffer takes another path when the cache holds bytes)."""
        super()._align_judge(judge, method)
        judge._msg_len = self._msg_count
        judge._auth_len = self._auth_len
        if self._next is AFTER_ENCRYPT or self._next is AFTER_DECRYPT:
            judge._cache = _buffers.partial_block(self._ct_tail, self._msg_count, BLOCK_SIZE)

    # -- associated data ---------------------------------------------------

    def update(self, assoc_data: Any) -> GcmCipher:
        if type(assoc_data) is bytes and self._next is INITIAL and self._twin is None:
            # The common call, bytes before any payload, checked first: the
            # general path below costs ~0.4 us more per message.
            auth_len = self._auth_len + len(assoc_data)
            if auth_len <= ONE_CALL_MAX:
                aad = self._aad
                if aad:
                    aad.append(assoc_data)
                else:
                    self._aad = [assoc_data]
                self._auth_len = auth_len
                return self
        if self._twin is not None:
            self._twin.update(assoc_data)
            return self
        if UPDATE not in self._next:
            self._native_verdict(UPDATE, assoc_data)
        if not _buffers.is_plain(assoc_data) or (
            self._auth_len + len(assoc_data) > SMALLEST_AAD_LIMIT
        ):
            self._become_native().update(assoc_data)
            return self
        # update() is only allowed while _next is INITIAL (= AFTER_UPDATE),
        # so it leaves _next as it is.
        if not self._aad:
            self._aad = []
        self._auth_len += len(assoc_data)
        if len(assoc_data) <= ONE_CALL_MAX:
            self._aad.append(bytes(assoc_data))
        else:
            # OpenSSL's contexts take at most ONE_CALL_MAX bytes of AAD a call.
            self._aad.extend(_buffers.call_sized(bytes(assoc_data)))
        if self._auth_len > ONE_CALL_MAX and self._one_shot:
            # More AAD than AESGCM takes in one call: no whole-message call for
            # this object (0: see _one_shot); a streaming context serves it.
            self._one_shot[0] = 0
        return self

    def _open(self, direction: str) -> Any:
        """OpenSSL's context, opened once even when threads share a new object."""
        with _first_use.FIRST_USE_LOCK:
            if self._context is not None:
                return self._context
            try:
                self._one_shot.pop()
            except (IndexError, AttributeError):
                # Another thread's encrypt_and_digest()/decrypt_and_verify() has
                # used the key stream of this nonce: starting it again would
                # reuse it. Only racing calls on one fresh object get here.
                raise TypeError("this GCM object's nonce was used by a concurrent call") from None
            if direction == ENCRYPT:
                context = self._provider.encryptor(self._key, self.nonce)
            else:
                context = self._provider.decryptor(self._key, self.nonce)
            for chunk in self._aad:
                context.authenticate_additional_data(chunk)
            self._context = context
            return context

    # -- encryption --------------------------------------------------------

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None or ENCRYPT not in self._next:
            return self._not_ours(ENCRYPT, plaintext, output=output)
        if not _buffers.servable(plaintext, output):
            if self._next is INITIAL:
                self._next = AFTER_ENCRYPT
                return self._become_native().encrypt(plaintext, output=output)
            if not _buffers.shapes_servable(plaintext, output) and not self._count_set:
                return self._odd_buffers(ENCRYPT, plaintext, output)
            plaintext = self._mid_message_bytes(ENCRYPT, plaintext, output)
            if plaintext is ALIASED:
                return None
        elif self._too_long(len(plaintext)):
            self._native_verdict(ENCRYPT, plaintext, output=output)  # pycryptodome 4.x raises here
        self._next = AFTER_ENCRYPT
        context = self._context or self._open(ENCRYPT)
        self._msg_count += len(plaintext)
        self._backing.slot.calls += 1
        try:
            if len(plaintext) >= STREAM_UPDATE_FROM:
                ciphertext = stream_update(context, plaintext)
            else:
                ciphertext = context.update(plaintext)
        except Exception as exc:  # noqa: BLE001 - only threads sharing the object get here
            ciphertext, contended = None, exc
        if ciphertext is None:  # outside the handler: no OpenSSL error chained to native's
            ciphertext = self._contended(ENCRYPT, context, plaintext, contended)
        if self._msg_count % BLOCK_SIZE:  # the partial block (see _ct_tail)
            # _buffers.last_block, inline for bytes: a call per message costs a short one
            # a fifth more
            if len(ciphertext) >= BLOCK_SIZE:
                self._ct_tail = ciphertext[-BLOCK_SIZE:]
            else:
                self._ct_tail = (self._ct_tail + ciphertext)[-BLOCK_SIZE:]
        return _buffers.deliver(ciphertext, output)

    def _check_limit(self, method: str, data: Any, output: Any) -> None:
        if self._too_long(len(data)):
            self._native_verdict(method, data, output=_buffers.stand_in(output))

    def _serve_aliased(self, method: str, data: Any, output: Any) -> None:
        """Mid-message, ``output`` overlaps ``data`` elsewhere: native's CTR loop writes it.

        A native twin in this state takes the call and the rest of the
        message (``_twin_mid_message``): one hand-over, under the first-use
        lock, so a copy made meanwhile by another thread cannot start from
        the key stream this call uses. (With ``_msg_len`` set from outside,
        no twin can be made: a native CTR object at the counted position
        writes ``output``; encrypting, native GHASHes what its loop left in
        ``output``, and the context is fed the plaintext that encrypts to
        exactly that; decrypting, native GHASHes the ciphertext before its
        loop overwrites any of it: see _aliased_output.)
        """
        if not self._count_set:
            twin = self._twin_mid_message()
            if twin is None:
                self._refuse_as_finished(method, data, output)
            getattr(twin, method)(data, output=output)
            return
        encrypting = method == ENCRYPT
        self._next = AFTER_ENCRYPT if encrypting else AFTER_DECRYPT
        context = self._context or self._open(method)
        serve = _aliased_output.encrypt if encrypting else _aliased_output.decrypt
        read = serve(self._native_ctr, data, output)
        self._msg_count += len(read)
        if encrypting:
            self._backing.slot.calls += 1
            ciphertext = when_free(context.update, read)
        else:
            ciphertext = read
            self._keep(when_free(context.update, read))  # a later verify() rebuilds the tag from it
            self._backing.slot.calls += 1
        if self._msg_count % BLOCK_SIZE:
            self._ct_tail = _buffers.last_block(self._ct_tail, ciphertext, BLOCK_SIZE)

    def _native_ctr(self, method: str) -> Any:
        """pycryptodome's CTR object as native's GcmMode holds it at this point of the message."""
        position = self._msg_count
        start = _aliased_output.aligned_start(position)
        if len(self.nonce) == 12:
            first = self.nonce + b"\x00\x00\x00\x02"  # inc32(J0), J0 = nonce || 1
        else:
            # J0 comes from GHASH of the nonce: the first counter block is the
            # AES decryption of the first key-stream block.
            key_stream = self._provider.encryptor(self._key, self.nonce).update(bytes(BLOCK_SIZE))
            first = self._backing.native_new(self._key, MODE_ECB).decrypt(key_stream)
        counter = (int.from_bytes(first[12:], "big") + start // BLOCK_SIZE) & 0xFFFFFFFF
        ctr = self._backing.native_new(
            self._key, MODE_CTR, nonce=first[:12], initial_value=counter
        )
        return _aliased_output.skip_to(ctr, start, position, method)

    def _finish(self) -> bytes:
        """The tag (digest() computes it once): the encryption context finalized."""
        context = self._context or self._open(ENCRYPT)
        self._tag = tag = self._encryption_tag(context)[: self._mac_len]
        self._backing.slot.calls += 1
        return tag

    def _finalized_meanwhile(self, context: Any, exc: Exception) -> None:
        """``context.finalize()`` raised ``exc`` because another thread uses this object.

        Busy (its encrypt() or digest() is inside): wait and finalize. Already
        finalized (its digest() got there first): the tag is there to read.
        """
        if is_busy(exc):
            try:
                when_free(context.finalize)
            except self._provider.AlreadyFinalized:
                pass
        elif not isinstance(exc, self._provider.AlreadyFinalized):
            raise exc
        when_free(getattr, context, "tag")  # readable once the other thread is out

    def encrypt_and_digest(self, plaintext: Any, output: Any = None) -> tuple[Any, bytes]:
        if (
            self._one_shot
            and output is None
            and type(plaintext) is bytes
            and self._next is INITIAL
        ):
            # A fresh object: the whole message in one go, once the key
            # stream token is ours (see _one_shot).
            try:
                mac_len = self._one_shot.pop()
            except IndexError:
                mac_len = None  # another thread's call took it: the general path judges
            size = len(plaintext)
            if mac_len and size <= SEAL_ONE_SHOT_LIMIT:
                # After digest() only digest() may follow, so the message length
                # (kept for the limit checks of later calls) is not needed any more.
                self._next = AFTER_DIGEST
                sealed = seal_split(
                    self._provider.one_shot(self._key).encrypt,
                    self.nonce,
                    plaintext,
                    b"".join(self._aad) if self._aad else None,
                    mac_len,
                )
                self._tag = sealed[1]
                self._backing.slot.calls += 1
                return sealed
            if mac_len and size <= SMALLEST_MESSAGE_LIMIT:
                # Slicing a large ct || tag costs more than encrypting it: OpenSSL's
                # streaming context returns the ciphertext and the tag apart.
                self._next = AFTER_DIGEST
                context = self._provider.encryptor(self._key, self.nonce)
                for chunk in self._aad:
                    context.authenticate_additional_data(chunk)
                ciphertext = stream_update(context, plaintext)
                context.finalize()
                self._tag = tag = context.tag[:mac_len]
                self._backing.slot.calls += 1
                return ciphertext, tag
            if mac_len is not None:
                self._one_shot.append(mac_len)  # not served here: _open() takes it
        elif (
            output is not None
            and self._one_shot
            and type(plaintext) is bytes
            and self._next is INITIAL
            and len(plaintext) <= SEAL_ONE_SHOT_LIMIT
            and _buffers.shapes_servable(plaintext, output)
        ):
            # The whole message as without output= (the one-shot call above),
            # its ciphertext then copied in: a streaming context for it cost
            # ~3 us more per message. bytes cannot share memory with a writable
            # buffer, so nothing the copy writes is read by the encryption.
            ciphertext, tag = self.encrypt_and_digest(plaintext)
            _buffers.deliver(ciphertext, output)
            return None, tag
        return self.encrypt(plaintext, output=output), self.digest()

    # -- decryption --------------------------------------------------------

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None or DECRYPT not in self._next:
            return self._not_ours(DECRYPT, ciphertext, output=output)
        if not _buffers.servable(ciphertext, output):
            if self._next is INITIAL:
                self._next = AFTER_DECRYPT
                return self._become_native().decrypt(ciphertext, output=output)
            if not _buffers.shapes_servable(ciphertext, output) and not self._count_set:
                return self._odd_buffers(DECRYPT, ciphertext, output)
            ciphertext = self._mid_message_bytes(DECRYPT, ciphertext, output)
            if ciphertext is ALIASED:
                return None
        elif self._too_long(len(ciphertext)):
            self._native_verdict(DECRYPT, ciphertext, output=output)  # pycryptodome 4.x raises here
        self._next = AFTER_DECRYPT
        context = self._context or self._open(DECRYPT)
        self._msg_count += len(ciphertext)
        if self._msg_count % BLOCK_SIZE:  # before the call: in place, it overwrites the input
            if type(ciphertext) is not bytes:
                self._ct_tail = _buffers.last_block(self._ct_tail, ciphertext, BLOCK_SIZE)
            elif len(ciphertext) >= BLOCK_SIZE:  # _buffers.last_block, inline for bytes
                self._ct_tail = ciphertext[-BLOCK_SIZE:]
            else:
                self._ct_tail = (self._ct_tail + ciphertext)[-BLOCK_SIZE:]
        try:
            if len(ciphertext) >= STREAM_UPDATE_FROM:
                plaintext = stream_update(context, ciphertext)
            else:
                plaintext = context.update(ciphertext)
        except Exception as exc:  # noqa: BLE001 - only threads sharing the object get here
            plaintext, contended = None, exc
        if plaintext is None:  # outside the handler: no OpenSSL error chained to native's
            plaintext = self._contended(DECRYPT, context, ciphertext, contended)
        self._keep(plaintext)
        self._backing.slot.calls += 1
        return _buffers.deliver(plaintext, output)

    def verify(self, received_mac_tag: Any) -> None:
        if self._twin is not None or VERIFY not in self._next:
            return self._not_ours(VERIFY, received_mac_tag)
        self._next = AFTER_VERIFY  # native moves on before it looks at the tag
        if not _buffers.is_plain(received_mac_tag):
            # A native object that knows the real tag judges it.
            if self._tag is None:
                self._tag = self._rebuild_tag()
            self._native_tag_verdict(self._tag, received_mac_tag)
            return None
        if self._check(bytes(received_mac_tag)):
            return None
        raise ValueError("MAC check failed")

    def decrypt_and_verify(self, ciphertext: Any, received_mac_tag: Any, output: Any = None) -> Any:
        if (
            self._one_shot
            and output is None
            and type(ciphertext) is bytes
            and type(received_mac_tag) is bytes
            and len(received_mac_tag) == 16
            and self._next is INITIAL
        ):
            # A fresh object: the whole message in one go, once the key
            # stream token is ours (see _one_shot).
            try:
                mac_len = self._one_shot.pop()
            except IndexError:
                mac_len = None  # another thread's call took it: the general path judges
            size = len(ciphertext)
            # Attributes are set in encrypt_and_digest's order (_next, _tag):
            # objects that differ in it lose CPython's shared-key instance layout.
            if mac_len == 16 and size <= OPEN_ONE_SHOT_LIMIT:
                self._next = AFTER_VERIFY
                self._backing.slot.calls += 1
                return open_whole(  # verify() compares with the tag from now on
                    self,
                    self._provider.one_shot(self._key).decrypt,
                    self.nonce,
                    ciphertext,
                    received_mac_tag,
                    b"".join(self._aad) if self._aad else None,
                )
            if mac_len == 16 and size <= PLAINTEXT_KEPT_LIMIT:
                # Streaming: no ct || tag copy to build.
                self._next = AFTER_VERIFY
                self._backing.slot.calls += 1
                context = self._provider.decryptor(self._key, self.nonce)
                for chunk in self._aad:
                    context.authenticate_additional_data(chunk)
                plaintext = stream_update(context, ciphertext)
                try:
                    context.finalize_with_tag(received_mac_tag)
                except self._provider.InvalidTag:
                    refused = True
                else:
                    refused = False
                if refused:  # raised outside the handler: no OpenSSL error chained
                    self._tag_checked = True
                    self._kept = [plaintext]  # a later verify() rebuilds the real tag from it
                    raise ValueError("MAC check failed")
                self._tag = received_mac_tag
                return plaintext
            if mac_len is not None:
                self._one_shot.append(mac_len)  # not served here: _open() takes it
        plaintext = self.decrypt(ciphertext, output=output)
        self.verify(received_mac_tag)
        return plaintext

    # -- helpers -----------------------------------------------------------

    def _contended(self, method: str, context: Any, data: Any, exc: Exception) -> bytes:
        """The result of ``context.update(data)`` that raised ``exc`` because threads share us.

        Another thread inside the context: wait for it. Another thread's
        digest() or verify() finished it between our order check and the
        update: native, checking after that call, raises its TypeError.
        """
        if is_busy(exc):
            try:
                return when_free(stream_update, context, data)
            except self._provider.AlreadyFinalized as finished:  # while it waited
                exc = finished
        # (from here on outside any handler: native's errors carry no OpenSSL one)
        if isinstance(exc, self._provider.AlreadyFinalized):
            with _first_use.FIRST_USE_LOCK:  # a copy making the twin holds it until it is set
                twin = self._twin
            if twin is not None:
                # A copy handed the message to a twin meanwhile (finalizing the
                # context for its state): the call is the twin's, after it.
                return getattr(twin, method)(data)
            self._native_verdict(method, data)
            raise TypeError("%s() cannot be called after the message is finished" % method)
        raise exc

    def _too_long(self, length: int) -> bool:
        return self._msg_count + length > SMALLEST_MESSAGE_LIMIT

    def _check(self, received: bytes) -> bool:
        """Compare ``received`` with the real tag, in constant time."""
        if self._tag is not None:
            return compare_digest(self._tag, received)
        if len(received) != self._mac_len:
            return False  # native compares mac_len bytes with it: never equal
        with _first_use.FIRST_USE_LOCK:  # threads sharing the object check one at a time
            if self._tag is not None:
                return compare_digest(self._tag, received)
            if not self._tag_checked:
                context = self._context or self._open(DECRYPT)
                self._tag_checked = True
                self._backing.slot.calls += 1
                try:
                    when_free(context.finalize_with_tag, received)
                except self._provider.InvalidTag:
                    return False
                self._tag = received
                self._release_kept()
                return True
            self._tag = self._rebuild_tag()
            return compare_digest(self._tag, received)

    def _keep(self, plaintext: bytes) -> None:
        """Keep decrypted data (by reference) until the tag is known; bounded."""
        if self._tag is not None:
            return
        shadow = self._shadow
        if shadow is not None:
            try:
                when_free(shadow.update, plaintext)  # threads sharing the object take turns
            except self._provider.AlreadyFinalized:
                pass  # a copy made meanwhile rebuilt the tag from it; a twin goes on
            return
        if not self._kept:
            self._kept = []
        self._kept.append(plaintext)
        self._kept_size += len(plaintext)
        if self._kept_size > PLAINTEXT_KEPT_LIMIT:
            self._shadow = self._provider.encryptor(self._key, self.nonce)
            for chunk in self._aad:
                self._shadow.authenticate_additional_data(chunk)
            for chunk in self._kept:
                self._shadow.update(chunk)
            self._release_kept()

    def _release_kept(self) -> None:
        self._kept = ()
        self._kept_size = 0

    def _rebuild_tag(self) -> bytes:
        """The real tag of what was decrypted: encrypting the plaintext again yields it."""
        return self._rebuilt_tag()[: self._mac_len]

    def _rebuilt_tag(self) -> bytes:
        """The whole 16-byte tag of what was decrypted (see ``_rebuild_tag``)."""
        shadow = self._shadow
        if shadow is None:
            shadow = self._provider.encryptor(self._key, self.nonce)
            for chunk in self._aad:
                shadow.authenticate_additional_data(chunk)
            for chunk in self._kept:
                shadow.update(chunk)
        try:
            when_free(shadow.finalize)  # another thread may be feeding it (threads)
        except self._provider.AlreadyFinalized:
            pass  # a copy sharing the shadow rebuilt the tag first: it is there to read
        self._shadow = None
        self._release_kept()
        return shadow.tag

    def _open_failed(self, ciphertext: bytes, received_mac_tag: bytes) -> None:
        """Keep what a later verify() needs to know the real tag (open_whole)."""
        self._tag_checked = True
        self._kept = [self._plaintext_of(ciphertext)]

    def _plaintext_of(self, ciphertext: Any) -> bytes:
        context = self._provider.decryptor(self._key, self.nonce)
        return context.update(ciphertext)


# Every object's attributes in one order: the fresh ones, update()'s, then
# those a whole message sets (see settle_layout).
settle_layout(GcmCipher, FRESH_FIELDS + ("_aad", "_auth_len", "_next", "_tag"))
