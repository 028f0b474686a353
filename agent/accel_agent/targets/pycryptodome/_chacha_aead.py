"""An OpenSSL-backed object that behaves like pycryptodome's ``ChaCha20Poly1305Cipher``.

pyca/cryptography's ``ChaCha20Poly1305`` is one-shot; pycryptodome streams.
So:

* associated data is kept until the first ``encrypt``, ``decrypt``,
  ``digest`` or ``verify``;
* a whole message on a fresh object (``encrypt_and_digest``,
  ``decrypt_and_verify`` with bytes) is one AEAD call (XChaCha20-Poly1305:
  the same call with the HChaCha20 subkey and the 12-byte nonce 0000 ||
  nonce[16:24]);
* a message given in pieces goes through the provider's
  :class:`~accel_agent.providers.chacha.AeadStream` (OpenSSL's ChaCha20 and
  Poly1305, composed as RFC 8439 does);
* a tag is compared in constant time (``hmac.compare_digest``);
* anything pycryptodome would reject, or that is not a plain buffer, goes to
  native code: on a fresh object a native twin (the associated data replayed)
  serves the rest of the message; mid-message a native object in the same
  order-rule state judges the call, and its side effects on the MAC (which
  pycryptodome updates before it notices a bad ``output``) are mirrored;
* ``copy.copy`` in the middle of a message hands the object and its copy to
  a native twin and its shallow copy, as native's objects share their
  ChaCha20 and Poly1305 state and keep their own lengths. The twin's
  Poly1305 is the stream's own (``TwinAuthenticator``): Poly1305's state
  cannot be read back from OpenSSL, but native never needs it, since the
  first tag computed finishes the shared MAC and native's second object
  then raises.
"""

from __future__ import annotations

import sys

from accel_agent import patching, speedups
from accel_agent.constant_time import compare_digest
from accel_agent.providers.chacha import StreamFinished
from accel_agent.speedups import seal_split
from accel_agent.targets.pycryptodome import (
    _aliased_output,
    _buffers,
    _first_use,
    _order_rules,
)
from accel_agent.targets.pycryptodome._aead_base import ALIASED, AeadBase, open_whole
from accel_agent.targets.pycryptodome._buffers import ONE_CALL_MAX
from accel_agent.targets.pycryptodome._hash_common import Coercer, plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

TAG_SIZE = 16
# Up to these sizes a whole message goes to the one-shot AEAD call, above
# them to the streaming pair (ChaCha20 and Poly1305 apart). Decryption joins
# ct || tag, a copy; encryption's result is cut apart in place by the
# compiled speedups.seal_split, and copied without it (as _aes_gcm.py).
OPEN_ONE_SHOT_LIMIT = 64 * 1024
SEAL_ONE_SHOT_LIMIT = speedups.seal_one_shot_limit(OPEN_ONE_SHOT_LIMIT)
# The message starts at keystream block 1 of a 32-bit counter: past the last
# but one block, a native object with the same count decides whether to raise.
MESSAGE_LIMIT = 64 * ((1 << 32) - 2)

# pycryptodome's order rules, shared by the AEAD targets (_order_rules).
UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY = _order_rules.METHODS
INITIAL, AFTER_ENCRYPT, AFTER_DECRYPT, AFTER_DIGEST, AFTER_VERIFY = _order_rules.STATES


class TwinAuthenticator:
    """A native twin's ``_authenticator``: the stream's Poly1305, with native's MAC rules.

    pycryptodome's AEAD feeds its ``Poly1305_MAC`` (padding and lengths
    included) and asks its ``digest`` once; an object and its copy share
    one, so after the first tag the MAC refuses more data and the other
    object's next MAC step raises native's ``TypeError``. The refusal is
    the twin's own authenticator's (``native``, finished at the first tag),
    so its message is native's in every version. A buffer that is not plain
    bytes is read as native's Poly1305 reads it (``coerce``).
    """

    __slots__ = ("_stream", "_native", "_coerce", "_tag")

    def __init__(self, stream: Any, native: Any, coerce: Callable[[Any], bytes]) -> None:
        self._stream = stream
        self._native = native
        self._coerce = coerce
        self._tag: bytes | None = None

    def update(self, data: Any) -> TwinAuthenticator:
        if self._tag is not None:
            self._native.update(data)  # finished: raises native's TypeError
            raise TypeError("You can only call 'digest' or 'hexdigest' on this object")
        if type(data) is not bytes and not plain(data):
            data = self._coerce(data)
        try:
            self._stream.mac_update(data)
        except StreamFinished:
            pass
        else:
            return self
        # The object's own digest() finished the MAC while a copy was made
        # (threads): as natively after a first tag, finished (outside the
        # handler: native's error carries no exception of the agent's).
        self.digest()
        return self.update(data)

    def digest(self) -> bytes:
        if self._tag is None:
            self._tag = self._stream.mac_finalize()
            self._native.digest()
        return self._tag

    def hexdigest(self) -> str:
        return self.digest().hex()


class ChaCha20Poly1305Cipher(AeadBase):
    """pycryptodome's ``ChaCha20Poly1305Cipher`` (8-, 12- and 24-byte nonces), served by OpenSSL."""

    # Nothing but associated data so far: a list holding one item, the key
    # stream token, until one call takes it to use the key stream from its
    # start: a one-shot AEAD call (encrypt_and_digest, decrypt_and_verify)
    # or the opening of the streaming context (_open). Taking it is
    # ``list.pop()``, atomic even without a GIL: of two threads starting
    # with one fresh object only one gets it, so the nonce cannot start the
    # key stream twice (a lock did the same for ~250 ns per message).
    _fresh: list | tuple = ()
    _stream = None  # the provider's AeadStream, once data flows
    _failed_ciphertext: bytes | None = None  # one-shot decryption that failed: its MAC input

    def __init__(self, backing: Any, provider: Any, key: bytes, nonce: bytes) -> None:
        self._backing = backing
        self._provider = provider
        self._key = key
        self.nonce = nonce
        self._fresh = [True]
        if len(nonce) == 24:
            extended = backing.extended or provider.extended
            self._aead_key, self._aead_nonce = extended(key, nonce)
        elif len(nonce) == 8:
            self._aead_key, self._aead_nonce = key, b"\x00\x00\x00\x00" + nonce
        else:
            self._aead_key, self._aead_nonce = key, nonce

    # -- native help -------------------------------------------------------

    def _new_native(self) -> Any:
        return self._backing.native_new(key=self._key, nonce=self.nonce)

    def _refuse_copying(self) -> None:
        """Native's deep copy fails on its Poly1305 object's C state, which, under the
        agent, is the agent's Poly1305: a native ChaCha20 object's C state fails the same way."""
        import copy
        import sys

        chacha = sys.modules[self._backing.native_new.__module__].ChaCha20
        copy.deepcopy(chacha.new(key=bytes(32), nonce=bytes(12)))
        super()._refuse_copying()

    def _become_native(self) -> Any:
        """Hand the rest of the message to a native twin (only while nothing but AAD was seen).

        ChaCha's own: the key stream token is given up (the twin starts the
        key stream), and every method asks ``_twin`` first, so ``_next`` keeps
        no twin state.
        """
        if self._twin is None:
            self._leave_fresh()
            self._twin = self._native_with_aad()
        return self._twin

    def _twin_mid_message(self) -> Any:
        """A native object in the state native's would have here, on the stream's Poly1305."""
        with _first_use.FIRST_USE_LOCK:
            if self._twin is not None or self._tag is not None:
                return self._twin
            if self._stream is None or not (
                self._next is AFTER_ENCRYPT or self._next is AFTER_DECRYPT
            ):
                return None  # not in the middle of a streamed message (any more: threads)
            stream = self._stream
            method = ENCRYPT if self._next is AFTER_ENCRYPT else DECRYPT
            # No call is half done once the stream is handed over; later ones
            # raise StreamFinished and come to the twin (_stream_call).
            handed = stream.hand_over()
            if handed is None:
                return None  # another thread's digest() or verify() finished it
            aad_len, ct_len = handed
            twin = self._new_native()
            getattr(twin, method)(b"")  # native's order rules: past the associated data
            flavour = self._backing.native_new.__module__.partition(".")[0]
            mac_class = sys.modules[flavour + ".Hash.Poly1305"].Poly1305_MAC
            # a key with r != 0: with r = 0 every message has the same tag (Coercer probes)
            coerce = Coercer(lambda: mac_class(bytes(range(1, 17)), bytes(16), None))
            twin._authenticator = TwinAuthenticator(stream, twin._authenticator, coerce)
            twin._len_aad = aad_len
            twin._len_ct = ct_len
            twin._cipher = self._native_chacha(method)
            self._twin = twin
            return twin

    def _odd_mid_message(self, data: Any, output: Any) -> bool:
        """Buffers not of the plain shapes, in the middle of a streamed message: a twin in this
        state (``_twin_mid_message``) takes the call and the rest of the message.

        What native makes of a multi-byte-item or 2-D argument differs by
        version, and can leave its cipher and its MAC at different
        positions; its own object, given the same call, is left the same.
        """
        return (
            self._stream is not None
            and (self._next is AFTER_ENCRYPT or self._next is AFTER_DECRYPT)
            and self._tag is None
            and not _buffers.shapes_servable(data, output)
        )

    def _align_judge(self, judge: Any, method: str) -> None:
        """The same order-rule state and, for a payload call, the same key stream position."""
        super()._align_judge(judge, method)
        if self._stream is not None and method in (ENCRYPT, DECRYPT) and method in self._next:
            # The inner cipher at the same key stream position: seek() to a block
            # before it, then encrypt up to it (3.x refuses to seek into the last block).
            target = 64 + self._stream.key_stream_used
            start = max(0, (target // 64 - 1) * 64)
            inner = judge._cipher
            inner.seek(start)
            getattr(inner, method)(bytes(target - start))  # the direction the AEAD will use
            judge._len_ct = self._stream.ct_len

    @property
    def _cipher(self) -> Any:
        """pycryptodome's inner ChaCha20 object, for code that reaches for it.

        Before any data, a native twin takes the message over and its own
        inner cipher is returned; afterwards there is no such object.
        """
        if self._twin is None and not self._fresh:
            raise AttributeError("'ChaCha20Poly1305Cipher' object has no attribute '_cipher'")
        return self._become_native()._cipher

    # -- associated data ---------------------------------------------------

    def update(self, data: Any) -> Any:
        if self._fresh and type(data) is bytes and self._next is INITIAL:
            # nothing but associated data so far: no twin, update allowed
            aad = self._aad
            if aad:
                aad.append(data)
            else:
                self._aad = [data]
            return None
        if self._twin is not None or UPDATE not in self._next:
            return self._not_ours(UPDATE, data)
        if type(data) is not bytes:
            if not _buffers.is_plain(data):
                return self._become_native().update(data)
            data = bytes(data)
        if self._aad:
            self._aad.append(data)
        else:
            self._aad = [data]
        return None

    def _claim(self, state: frozenset) -> bool:
        """Take the key stream token (see ``_fresh``) for a one-shot call, moving to ``state``.

        False when another thread's call took it: the general path judges then.
        """
        try:
            self._fresh.pop()
        except IndexError:
            return False
        self._next = state
        return True

    def _leave_fresh(self) -> None:
        if self._fresh:
            self._fresh.clear()

    def _open(self, claim: bool = True) -> Any:
        """The streaming context, opened once even when threads share a new object.

        It takes the key stream token (see ``_fresh``), except to compute the
        tag of a one-shot decryption that failed (``claim=False``): that call
        took the token, and the stream then only feeds Poly1305.
        """
        with _first_use.FIRST_USE_LOCK:
            if self._stream is not None:
                return self._stream
            if claim:
                try:
                    self._fresh.pop()
                except (IndexError, AttributeError):
                    # Another thread's one-shot call has used the key stream of
                    # this nonce: starting it again would reuse it. Only racing
                    # calls on one fresh object get here.
                    raise TypeError(
                        "this ChaCha20-Poly1305 object's nonce was used by a concurrent call"
                    ) from None
            stream = self._provider.stream(self._aead_key, self._aead_nonce)
            for chunk in self._aad:
                stream.authenticate(chunk)
            self._stream = stream
            return stream

    # -- encryption --------------------------------------------------------

    def encrypt(self, plaintext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None or ENCRYPT not in self._next:
            return self._not_ours(ENCRYPT, plaintext, output=output)
        if not _buffers.servable(plaintext, output):
            if self._fresh:
                self._next = AFTER_ENCRYPT
                return self._become_native().encrypt(plaintext, output=output)
            if self._odd_mid_message(plaintext, output):
                return self._odd_buffers(ENCRYPT, plaintext, output)
            plaintext = self._mid_message_bytes(ENCRYPT, plaintext, output)
            if plaintext is ALIASED:
                return None
        stream = self._stream or self._open()
        if stream.ct_len + len(plaintext) > MESSAGE_LIMIT:
            self._native_verdict(ENCRYPT, plaintext, output=output)
        self._next = AFTER_ENCRYPT
        self._backing.slot.calls += 1
        return _buffers.deliver(self._stream_call(ENCRYPT, plaintext), output)

    def _check_limit(self, method: str, data: Any, output: Any) -> None:
        stream = self._stream or self._open()
        if stream.ct_len + len(data) > MESSAGE_LIMIT:
            self._native_verdict(method, data, output=_buffers.stand_in(output))

    def _serve_aliased(self, method: str, data: Any, output: Any) -> None:
        """Mid-message, ``output`` overlaps ``data`` elsewhere: native's ChaCha20 loop writes it.

        Native MACs what its loop left in ``output`` when encrypting, the
        ciphertext before its loop overwrites any of it when decrypting
        (_aliased_output).
        """
        self._next = AFTER_ENCRYPT if method == ENCRYPT else AFTER_DECRYPT
        self._backing.slot.calls += 1
        serve = _aliased_output.encrypt if method == ENCRYPT else _aliased_output.decrypt
        self._stream_call(method, serve(self._native_chacha, data, output))

    def _stream_call(self, method: str, data: Any) -> Any:
        """The stream's ``encrypt``/``decrypt`` of ``data``; native's error once it is finished,
        and the twin's answer once a copy handed the stream over (threads)."""
        try:
            return getattr(self._stream, method)(data)
        except StreamFinished:
            pass
        # Finished meanwhile; outside the handler, native's errors carry no agent exception.
        with _first_use.FIRST_USE_LOCK:  # a copy making the twin holds it until it is set
            twin = self._twin
        if twin is not None:
            return getattr(twin, method)(data)
        self._finished_meanwhile(method, data)

    def _native_chacha(self, method: str) -> Any:
        """pycryptodome's ChaCha20 object as the native AEAD object holds it at this point."""
        chacha = sys.modules[self._backing.native_new.__module__].ChaCha20
        try:
            new = patching.get_original(chacha.__name__, "new")
        except KeyError:
            new = chacha.new  # not patched: the module's own
        used = self._stream.key_stream_used
        start = 64 + _aliased_output.aligned_start(used)  # the message starts at block 1
        cipher = new(key=self._key, nonce=self.nonce)
        cipher.seek(start)
        return _aliased_output.skip_to(cipher, start, 64 + used, method)

    def encrypt_and_digest(self, plaintext: Any) -> tuple[bytes, bytes]:
        if (
            self._fresh
            and type(plaintext) is bytes
            and len(plaintext) <= SEAL_ONE_SHOT_LIMIT
            and self._next is INITIAL  # not after a verify() that raised, say
        ):
            aad = self._aad
            # One update() of bytes, the common case, checked here; _claim inlined (per
            # message, Python frames are the agent's cost).
            if aad and not (len(aad) == 1 and len(aad[0]) <= ONE_CALL_MAX) and not (
                _buffers.aad_fits(aad)
            ):
                return self.encrypt(plaintext), self.digest()
            try:
                self._fresh.pop()  # the key stream token (see _fresh)
            except IndexError:
                return self.encrypt(plaintext), self.digest()
            self._next = AFTER_DIGEST
            sealed = seal_split(
                self._provider.one_shot(self._aead_key).encrypt,
                self._aead_nonce,
                plaintext,
                b"".join(aad) if aad else None,
                TAG_SIZE,
            )
            self._tag = sealed[1]
            self._backing.slot.calls += 1
            return sealed
        return self.encrypt(plaintext), self.digest()

    # -- decryption --------------------------------------------------------

    def decrypt(self, ciphertext: Any, output: Any = None) -> bytes | None:
        if self._twin is not None or DECRYPT not in self._next:
            return self._not_ours(DECRYPT, ciphertext, output=output)
        if not _buffers.servable(ciphertext, output):
            if self._fresh:
                self._next = AFTER_DECRYPT
                return self._become_native().decrypt(ciphertext, output=output)
            if self._odd_mid_message(ciphertext, output):
                return self._odd_buffers(DECRYPT, ciphertext, output)
            ciphertext = self._mid_message_bytes(DECRYPT, ciphertext, output)
            if ciphertext is ALIASED:
                return None
        stream = self._stream or self._open()
        if stream.ct_len + len(ciphertext) > MESSAGE_LIMIT:
            self._native_verdict(DECRYPT, ciphertext, output=output)
        self._next = AFTER_DECRYPT
        self._backing.slot.calls += 1
        return _buffers.deliver(self._stream_call(DECRYPT, ciphertext), output)

    def _finished_meanwhile(self, method: str, data: Any) -> None:
        """Another thread's digest() or verify() ended the message after our order check.

        Native, checking after that call, raises its TypeError.
        """
        self._native_verdict(method, data)
        raise TypeError("%s() cannot be called after the message is finished" % method)

    def _mirror_refused(self, method: str, ciphertext: Any) -> None:
        """pycryptodome counts the length and feeds the MAC before the cipher
        rejects a bad ``output`` (or the MAC a bad input)."""
        if method != DECRYPT:
            return
        try:
            length = len(ciphertext)
        except TypeError:
            return
        stream = self._stream or self._open()
        if _buffers.is_plain(ciphertext):
            try:
                stream.absorb(bytes(ciphertext))
            except StreamFinished:
                pass  # a copy handed the stream to a twin meanwhile (threads)
        else:
            stream.ct_len += length
            stream.unciphered += length

    def verify(self, received_mac_tag: Any) -> None:
        if self._twin is not None or VERIFY not in self._next:
            return self._not_ours(VERIFY, received_mac_tag)
        self._next = AFTER_VERIFY
        if not _buffers.is_plain(received_mac_tag):
            # Native raises TypeError for what it cannot compare; for anything it
            # can, the comparison below decides, on the bytes native compares.
            twin = self._new_native()
            _order_rules.replay(twin, AFTER_DECRYPT)
            try:
                twin.verify(received_mac_tag)
            except ValueError:
                pass
            # Native accepted it for comparison; 3.x hashes None as no data.
            received_mac_tag = b"" if received_mac_tag is None else bytes(received_mac_tag)
        if compare_digest(self._finish(), bytes(received_mac_tag)):
            return None
        raise ValueError("MAC check failed")

    def decrypt_and_verify(self, ciphertext: Any, received_mac_tag: Any) -> bytes:
        if (
            self._fresh
            and type(ciphertext) is bytes
            and len(ciphertext) <= OPEN_ONE_SHOT_LIMIT
            and type(received_mac_tag) is bytes
            and len(received_mac_tag) == TAG_SIZE
            and self._next is INITIAL
        ):
            aad = self._aad
            # As encrypt_and_digest: one update() of bytes checked here, _claim inlined.
            if (
                not aad
                or (len(aad) == 1 and len(aad[0]) <= ONE_CALL_MAX)
                or _buffers.aad_fits(aad)
            ):
                try:
                    self._fresh.pop()  # the key stream token (see _fresh)
                except IndexError:
                    pass  # another thread's call took it: the general path judges
                else:
                    self._next = AFTER_VERIFY
                    self._backing.slot.calls += 1
                    return open_whole(
                        self,
                        self._provider.one_shot(self._aead_key).decrypt,
                        self._aead_nonce,
                        ciphertext,
                        received_mac_tag,
                        b"".join(aad) if aad else None,
                    )
        plaintext = self.decrypt(ciphertext)
        self.verify(received_mac_tag)
        return plaintext

    # -- helpers -----------------------------------------------------------

    def _open_failed(self, ciphertext: bytes, received_mac_tag: bytes) -> None:
        self._failed_ciphertext = ciphertext  # a later verify() needs the real tag

    def _finish(self) -> bytes:
        """The tag, computed once (digest() and verify())."""
        tag = self._tag
        if tag is None:
            stream = self._stream or self._open(claim=self._failed_ciphertext is None)
            if self._failed_ciphertext is not None:
                stream.absorb(self._failed_ciphertext)
                self._failed_ciphertext = None
            tag = self._tag = stream.tag()
            self._backing.slot.calls += 1
        return tag
