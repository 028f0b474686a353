"""What the OCB and SIV objects share: one-shot AEAD calls served by OpenSSL, the rest native.

OpenSSL's OCB3 and SIV are served as whole messages (pyca/cryptography's
``AESOCB3`` and ``AESSIV``). pycryptodome's objects also stream (OCB returns
ciphertext as it goes) and let ``digest``/``verify`` be called on their own.
So an accelerated object:

* keeps associated data (bytes copies) until the message comes;
* serves ``encrypt_and_digest`` and ``decrypt_and_verify`` on a fresh object
  (or one that only saw ``update``) with plain buffers through OpenSSL;
* afterwards answers ``digest`` (the tag it knows) and ``verify`` of a plain
  tag (constant-time comparison with the tag it knows) itself;
* hands every other call to a *twin*: a native pycryptodome object built
  with the same key and nonce, given the same associated data, and, after a
  one-shot call, brought to the same state (the same order rules, the same
  cached tag). The twin then serves every later call, so streaming, exotic
  buffers and every error are pycryptodome's own, whatever its version.

After a failed one-shot decryption the real tag is unknown (OpenSSL does not
reveal it); the ciphertext and received tag are kept, and only if the caller
goes on (a second ``verify``) does the twin redo the decryption natively.
"""

from __future__ import annotations

from accel_agent.constant_time import compare_digest
from accel_agent.providers.block_ciphers import AES
from accel_agent.targets.pycryptodome import _buffers, _first_use
from accel_agent.targets.pycryptodome._native_face import NativeFace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BLOCK_SIZE = AES.block_size  # the record's
TAG_SIZE = 16
INITIAL = "initial"  # fresh, or associated data only
AFTER_DIGEST = "after one-shot encryption"  # native allows digest() only
AFTER_VERIFY = "after one-shot decryption"  # native allows verify() only
WITH_TWIN = "with twin"  # a native twin serves every call


class OneShotAead(NativeFace):
    """The shared state machine; subclasses say how to build a native twin and call OpenSSL.

    No ``__slots__``: class attributes are a fresh object's state.
    """

    block_size = BLOCK_SIZE
    _twin = None
    _next = INITIAL
    _aad: list[bytes] | tuple = ()
    _tag: bytes | None = None  # the real tag, once known
    _failed: tuple[bytes, bytes] | None = None  # (ciphertext, received tag) of a failed decryption
    _takes_output = False  # encrypt_and_digest has an output= parameter (SIV's does, OCB's not)
    _update_returns_self = True  # pycryptodome 3.x's SIV update() returns None

    def __init__(self, backing: Any, provider: Any, key: bytes) -> None:
        self._backing = backing  # the registry slot and the original new
        self._provider = provider
        self._key = key

    # -- what a subclass provides ------------------------------------------

    def _new_native(self) -> Any:
        """A fresh native object with this object's key and parameters."""
        raise NotImplementedError

    def _can_take_update(self) -> bool:
        """Whether one more associated-data chunk can be kept (else the twin judges it)."""
        return True

    def _can_seal(self) -> bool:
        """Whether the kept associated data can go to OpenSSL with the message."""
        return True

    def _seal(self, plaintext: Any) -> tuple[bytes, bytes]:
        """(ciphertext, tag) through OpenSSL."""
        raise NotImplementedError

    def _unseal(self, ciphertext: Any, tag: bytes) -> bytes:
        """The plaintext through OpenSSL; raises the provider's InvalidTag."""
        raise NotImplementedError

    # -- twins -------------------------------------------------------------

    def _native(self) -> Any:
        """The twin that serves this call and every later one, built on first need."""
        twin = self._twin
        if twin is not None:
            return twin
        with _first_use.FIRST_USE_LOCK:
            if self._twin is not None:
                return self._twin
            in_flight = self._next is not INITIAL and self._tag is None and self._failed is None
            twin = self._new_native()
            if in_flight:
                # Another thread's one-shot call claimed the object and is still in
                # OpenSSL: this call is out of order whatever the data, so a twin in
                # the same order-rule state judges it, and is not kept (its tag would
                # not be the real one).
                if self._next is AFTER_DIGEST:
                    twin.encrypt_and_digest(b"")
                else:
                    try:
                        twin.decrypt_and_verify(b"", bytes(TAG_SIZE))
                    except ValueError:
                        pass
                return twin
            for chunk in self._aad:
                twin.update(chunk)
            if self._next is AFTER_DIGEST:
                twin.encrypt_and_digest(b"")  # the order-rule state does not depend on the data
                twin._mac_tag = self._tag  # the name 3.x and 4.x cache the tag under
            elif self._next is AFTER_VERIFY:
                if self._tag is None and self._failed is not None:
                    ciphertext, received = self._failed
                    self._failed = None
                else:
                    ciphertext, received = b"", bytes(TAG_SIZE)
                try:
                    twin.decrypt_and_verify(ciphertext, received)
                except ValueError:
                    pass  # the state moved on; the failure was the one already reported
                if self._tag is not None:
                    twin._mac_tag = self._tag
            self._aad = ()
            self._twin = twin
            self._next = WITH_TWIN
            return twin

    def _twin_for_copy(self) -> Any:
        """The twin that serves this object and its copy from now on (NativeFace.__copy__).

        Native's copy shares its C state (OCB's offsets and checksum) with the
        original, whatever was called before: only a twin and a shallow copy
        of it share state that way. The twin is brought to this object's
        state first, as for any other handover.
        """
        return self._native()

    def _open_failed(self, ciphertext: bytes, received_mac_tag: bytes) -> None:
        """Keep a failed decryption's message in case the caller verifies again: the
        twin then needs it (open_whole calls this too)."""
        self._failed = (ciphertext, received_mac_tag)

    def _claim(self, state: str) -> bool:
        """Move a fresh object to ``state``, unless another thread's call got there first."""
        with _first_use.FIRST_USE_LOCK:
            if self._next is not INITIAL or self._twin is not None:
                return False
            self._next = state
            return True

    # -- the public methods ------------------------------------------------

    def update(self, assoc_data: Any) -> Any:
        """Keep a plain chunk (or SIV component) for OpenSSL; anything else goes to the twin."""
        if (
            self._next is INITIAL
            and self._twin is None
            and _buffers.is_plain(assoc_data)
            and self._can_take_update()
        ):
            if not self._aad:
                self._aad = []
            self._aad.append(bytes(assoc_data))
        else:
            self._native().update(assoc_data)
        return self if self._update_returns_self else None

    def encrypt(self, *args: Any, **kwargs: Any) -> Any:
        return self._native().encrypt(*args, **kwargs)

    def decrypt(self, *args: Any, **kwargs: Any) -> Any:
        return self._native().decrypt(*args, **kwargs)

    def digest(self) -> bytes:
        if self._next is AFTER_DIGEST and self._twin is None:
            return self._tag
        return self._native().digest()

    def hexdigest(self) -> str:
        return self.digest().hex()

    def verify(self, received_mac_tag: Any) -> None:
        tag = self._tag
        if (
            self._next is AFTER_VERIFY
            and tag is not None
            and self._twin is None
            and _buffers.is_plain(received_mac_tag)
        ):
            if compare_digest(tag, bytes(received_mac_tag)):
                return None
            raise ValueError("MAC check failed")
        return self._native().verify(received_mac_tag)

    def hexverify(self, hex_mac_tag: str) -> None:
        from binascii import unhexlify

        self.verify(unhexlify(hex_mac_tag))

    def encrypt_and_digest(self, plaintext: Any, *args: Any, **kwargs: Any) -> tuple[Any, bytes]:
        output = None
        if self._takes_output and kwargs.keys() == {"output"}:
            output = kwargs["output"]
        if (
            not args
            and (not kwargs or output is not None)
            and self._next is INITIAL
            and _buffers.servable(plaintext, output)
            and self._can_seal()
            and _buffers.fits_one_call(plaintext, self._aad, TAG_SIZE)
            and self._claim(AFTER_DIGEST)
        ):
            ciphertext, tag = self._seal(plaintext)
            self._tag = tag
            self._aad = ()
            self._backing.slot.calls += 1
            return _buffers.deliver(ciphertext, output), tag
        return self._native().encrypt_and_digest(plaintext, *args, **kwargs)

    def decrypt_and_verify(
        self, ciphertext: Any, received_mac_tag: Any, *args: Any, **kwargs: Any
    ) -> Any:
        if (
            not args
            and not kwargs
            and self._next is INITIAL
            and _buffers.is_plain(ciphertext)
            and _buffers.is_plain(received_mac_tag)
            and len(received_mac_tag) == TAG_SIZE
            and self._can_seal()
            and _buffers.fits_one_call(ciphertext, self._aad, TAG_SIZE)
            and self._claim(AFTER_VERIFY)
        ):
            received = bytes(received_mac_tag)
            self._backing.slot.calls += 1
            try:
                plaintext = self._unseal(ciphertext, received)
            except self._provider.InvalidTag:
                plaintext = None
            if plaintext is None:  # raised outside the handler: no OpenSSL error chained
                self._open_failed(bytes(ciphertext), received)
                raise ValueError("MAC check failed")
            self._tag = received
            self._aad = ()
            return plaintext
        return self._native().decrypt_and_verify(ciphertext, received_mac_tag, *args, **kwargs)
