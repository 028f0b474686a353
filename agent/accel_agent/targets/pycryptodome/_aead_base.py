"""What the AEAD targets (GCM, ChaCha20-Poly1305, CCM, EAX) share: native twins.

Each accelerated AEAD object leaves to pycryptodome's own code what it cannot
serve exactly, in one of two ways:

* a *twin*: before any payload was processed, a native object made with the
  same arguments and fed the same associated data serves the rest of the
  message (``_become_native``);
* a *judge*: a native object brought to the same order-rule state (see
  :mod:`._order_rules`) decides a call, so it raises what pycryptodome
  raises (``_native_verdict``), or, knowing the real tag, what its
  ``verify`` makes of a tag that is not a plain buffer
  (``_native_tag_verdict``); mid-message, it also vets the buffers the
  fast path does not take (``_mid_message_bytes``).

:class:`AeadBase` holds that scaffolding, the methods all four spell the
same way, CCM's and EAX's ``__init__`` and the fresh-object defaults all
four share (class attributes: CPython's type attribute cache finds them in
the base as fast as in the subclass). A subclass keeps its own defaults as
its class attributes and defines its per-message methods (``digest``
aside) itself. A call made with a twin or out of turn goes to ``_not_ours``.
No method here runs on GCM's, ChaCha20-Poly1305's or CCM's one-shot paths;
EAX's ``decrypt_and_verify`` compares its tag with ``_check_tag``, and
``digest`` serves streamed messages.
"""

from __future__ import annotations

import os
import sys

from accel_agent.constant_time import compare_digest
from accel_agent.speedups import open_joined
from accel_agent.targets.pycryptodome import _aliased_output, _buffers, _first_use
from accel_agent.targets.pycryptodome._native_face import NativeFace
from accel_agent.targets.pycryptodome._order_rules import (
    AFTER_DIGEST,
    AFTER_VERIFY,
    DIGEST,
    ENCRYPT,
    INITIAL,
    WITH_TWIN,
    replay,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# What ``_mid_message_bytes`` returns when native's own loop has served the call.
ALIASED = object()

def nonce_argument(args: tuple, kwargs: dict, default_size: int) -> bytes | None:
    """The nonce of ``AES.new(key, mode, [nonce], nonce=...)`` as bytes (CCM's and EAX's builders).

    None, to leave the call to native, when it is given both ways or is not
    a plain buffer; when it is not given, ``default_size`` random bytes, as
    native makes. The builder checks its mode's lengths.
    """
    if args:
        if "nonce" in kwargs:
            return None
        nonce = args[0]
    else:
        nonce = kwargs.get("nonce")
    if nonce is None:
        return os.urandom(default_size)
    if not _buffers.is_plain(nonce):
        return None
    return bytes(nonce)


def settle_layout(cls: type, names: tuple[str, ...]) -> None:
    """Give ``cls``'s objects one attribute layout: ``names``, in the order its fast paths set them.

    CPython shares one table of attribute names among a class's objects,
    filled as objects set new names. Objects that set names in different
    orders (a GCM message with a header sets ``_aad`` and ``_auth_len``
    before ``_next`` and ``_tag``, one without sets only the last two) cost
    more per attribute once the table holds them in another order: measured,
    a GCM message with a header cost 0.23 us more (1.50 against 1.27 us)
    in a process that had made messages without one first. An object made
    here, which sets every name once in that order, fixes the table at
    import, whatever the process does first.

    CPython 3.11 and later only, where each object keeps its own order of
    names over the shared table: before 3.11 an object that sets the names
    in another order than the table's gets a dictionary of its own, so the
    seed would slow down the objects without a header instead.
    """
    if sys.version_info < (3, 11):
        return
    seed = cls.__new__(cls)
    for name in names:
        object.__setattr__(seed, name, None)


def open_whole(
    obj: Any, decrypt: Callable, nonce: bytes, ciphertext: bytes, tag: bytes, aad: bytes | None
) -> bytes:
    """A whole message's one-shot decryption (GCM, ChaCha20-Poly1305, CCM and OCB's flat paths).

    ``decrypt`` is the provider's one-shot ``decrypt``, given ``ciphertext``
    and ``tag`` joined (``speedups.open_joined``). On success ``tag`` is
    ``obj``'s real tag; a tag that does not match raises native's
    ValueError, once ``obj._open_failed(ciphertext, tag)`` has kept what a
    later ``verify`` needs to know the real one.
    """
    try:
        plaintext = open_joined(decrypt, nonce, ciphertext, tag, aad)
    except obj._provider.InvalidTag:
        plaintext = None
    if plaintext is None:
        # Raised here, not in the handler: as native's, the error carries no
        # exception as its context (``from None`` would only hide OpenSSL's).
        obj._open_failed(ciphertext, tag)
        raise ValueError("MAC check failed")
    obj._tag = tag
    return plaintext


class AeadBase(NativeFace):
    """The native-twin handover and the methods pycryptodome's AEAD modes share.

    A subclass sets ``_backing``, ``_key``, ``nonce``, ``_aad``, ``_twin`` and
    ``_next`` (``__init__`` sets the first ones for CCM and EAX); the defaults
    below serve the AES modes (``AES.new(key, mode, nonce=..., mac_len=...)``)
    and are overridden where a target differs.
    """

    _mode: int  # pycryptodome's MODE_* constant, for the AES modes
    _mac_len: int
    _native_kwargs: dict  # what the original new is given for a twin
    # Where native caches the real tag, so that a judge told it compares
    # against it (a subclass lists the names of every supported version).
    _native_tag_names: tuple[str, ...] = ("_mac_tag",)
    # A fresh object's state, which every mode starts from (a mode adds its own).
    _twin = None  # the native object serving every call, once there is one
    # What pycryptodome would allow next. While it is INITIAL the object is
    # fresh (associated data at most: no payload processed, no tag, no twin).
    _next = INITIAL
    _aad: list[bytes] | tuple = ()  # associated data not yet given to OpenSSL
    _tag: bytes | None = None  # the real tag, once known

    def __init__(
        self, backing: Any, provider: Any, key: bytes, nonce: bytes, mac_len: int, kwargs: dict
    ) -> None:
        """The state a builder gives an AES mode's object (CCM's and EAX's; GCM and
        ChaCha20-Poly1305 have their own). ``kwargs`` are those given to ``new``:
        a twin is made with them and ``nonce``, also when ``new`` made it up."""
        self._backing = backing
        self._provider = provider
        self._key = key
        self.nonce = nonce
        self._mac_len = mac_len
        self._native_kwargs = {**kwargs, "nonce": nonce}

    # -- twins -------------------------------------------------------------

    def _new_native(self, **kwargs: Any) -> Any:
        """A native object with this key: ``kwargs`` as given, or this nonce and tag length."""
        if not kwargs:
            kwargs = {"nonce": self.nonce, "mac_len": self._mac_len}
        return self._backing.native_new(self._key, self._mode, **kwargs)

    def _native_with_aad(self, **kwargs: Any) -> Any:
        """A native object (see ``_new_native``) fed the associated data kept so far."""
        twin = self._new_native(**kwargs)
        for chunk in self._aad:
            twin.update(chunk)
        return twin

    def _become_native(self) -> Any:
        """Hand this message to a native twin (only before any payload was processed)."""
        with _first_use.FIRST_USE_LOCK:
            if self._twin is None:
                self._twin = self._native_with_aad(**self._native_kwargs)
                self._next = WITH_TWIN
            return self._twin

    def _twin_for_copy(self) -> Any:
        """The twin serving this object and its copy from now on (``NativeFace.__copy__``).

        Fresh: the associated data replayed (``_become_native``). In the
        middle of a message: ``_twin_mid_message``, for the modes that can
        give a twin native's state there. Once the tag is known, the copy
        shares it as native's does, and no twin is needed.
        """
        if self._twin is None and self._next is INITIAL:
            return self._become_native()  # a copy before the first call (NativeFace.__copy__)
        return self._twin_mid_message()

    def _twin_mid_message(self) -> Any:
        """A native twin in native's state in the middle of a message, or None.

        None also when the object is not in the middle of a message (any
        more: threads). By default no mode can make one.
        """
        return None

    def _odd_buffers(self, method: str, data: Any, output: Any) -> Any:
        """Mid-message, buffers not of the plain shapes: native's own object, in this state,
        takes the call and the rest of the message (``_twin_mid_message``).

        What native makes of a multi-byte-item, 2-D or non-buffer argument
        differs by version, and can break its object for good (GCM's GHASH
        half takes the data and its CTR half refuses it, or reads another
        length; every later call raises ``AssertionError``); a twin in the
        same state given the same call is left the same.
        """
        twin = self._twin_mid_message()
        if twin is None:  # another thread ended the message meanwhile
            self._refuse_as_finished(method, data, output)
        return getattr(twin, method)(data, output=output)

    def _refuse_as_finished(self, method: str, data: Any, output: Any) -> None:
        """Raise native's ``TypeError`` for a payload call on a finished message.

        For a call that found the message in the middle and then, another
        thread having moved the object on meanwhile, no middle to hand over:
        a judge in a finished state raises, and never processes the data
        (its key stream would start from the message's first byte).
        """
        judge = self._new_native()
        replay(judge, AFTER_DIGEST if method == ENCRYPT else AFTER_VERIFY)
        getattr(judge, method)(data, output=_buffers.stand_in(output))
        raise TypeError("%s() cannot be called after the message is finished" % method)

    def _not_ours(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """A call made with a twin, or out of turn: the twin serves it, else a native judge.

        A method's preamble, ``if self._twin is not None or METHOD not in
        self._next``, costs the fast path nothing more than the two tests.
        """
        if self._twin is not None:
            return getattr(self._twin, method)(*args, **kwargs)
        return self._native_verdict(method, *args, **kwargs)

    def _native_verdict(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Let a native object in the same order-rule state judge a call we cannot serve.

        It raises what pycryptodome raises; when it does not, its answer is
        returned (only reached for inputs native accepts that we do not know).
        """
        judge = self._new_native()
        self._align_judge(judge, method)
        return getattr(judge, method)(*args, **kwargs)

    def _judged_input(self, method: str, data: Any, output: Any) -> Any:
        """Mid-message buffers the fast path does not take as given: what native reads of ``data``.

        Buffers that are not plain are judged by native first, so a refusal
        is native's own error; the judge writes into a stand-in for
        ``output``, never into memory the input may share. None: ``data``
        has no single-byte view (the caller serves its raw bytes).
        """
        if _buffers.shapes_servable(data, output):
            return data
        self._native_verdict(method, data, output=_buffers.stand_in(output))
        return _aliased_output.byte_view(data)

    def _mid_message_bytes(self, method: str, data: Any, output: Any) -> Any:
        """Mid-message, buffers the fast path does not take: the bytes to process.

        Only an error can be left to native then (it changes nothing); if
        native accepts the buffers, the bytes its C code would read, or
        ``ALIASED`` when ``output`` overlaps ``data`` elsewhere and native's
        own loop has served the call (the subclass's ``_serve_aliased``).
        """
        try:
            view = self._judged_input(method, data, output)
        except Exception:
            self._mirror_refused(method, data)
            raise
        self._check_limit(method, data, output)
        if view is not None and _aliased_output.aliased(view, output):
            self._serve_aliased(method, view, output)
            return ALIASED
        return _buffers.raw_bytes(data)

    def _mirror_refused(self, method: str, data: Any) -> None:
        """Native's side effects (on the MAC) of a mid-message call it refused; by default none."""

    def _check_limit(self, method: str, data: Any, output: Any) -> None:
        """Native's error if ``data`` takes the message past its limit; by default none."""

    def _serve_aliased(self, method: str, data: Any, output: Any) -> None:
        """Native's loop writes ``output``; our MAC sees what native's does (_aliased_output)."""
        raise NotImplementedError

    def _align_judge(self, judge: Any, method: str) -> None:
        """Bring a fresh native ``judge`` to this object's state before it judges ``method``."""
        replay(judge, self._next)

    def _native_tag_verdict(self, tag: bytes, received_mac_tag: Any) -> None:
        """``verify`` of a tag that is not a plain buffer, by a native object that knows ``tag``.

        What native makes of such an argument differs between versions (4.x:
        ``compare_digest``, 3.x: BLAKE2s of its bytes), so native decides.
        """
        judge = self._new_native()
        replay(judge, AFTER_VERIFY)
        for name in self._native_tag_names:
            setattr(judge, name, tag)
        judge.verify(received_mac_tag)

    def _check_tag(self, tag: bytes, received_mac_tag: Any) -> None:
        """Raise native's ValueError unless ``received_mac_tag`` is ``tag`` (constant time).

        A tag that is not a plain buffer goes to ``_native_tag_verdict``.
        """
        if _buffers.is_plain(received_mac_tag):
            if compare_digest(tag, bytes(received_mac_tag)):
                return
            raise ValueError("MAC check failed")
        self._native_tag_verdict(tag, received_mac_tag)

    def _claim(self, state: frozenset) -> bool:
        """Move a fresh object to ``state`` unless another thread's call got there first."""
        with _first_use.FIRST_USE_LOCK:
            if self._next is not INITIAL:
                return False
            self._next = state
            return True

    # -- what every AEAD mode derives the same way -------------------------

    def digest(self) -> bytes:
        """The tag, computed once by ``_finish`` (CCM, which knows it later, has its own)."""
        if self._twin is not None or DIGEST not in self._next:
            return self._not_ours(DIGEST)
        self._next = AFTER_DIGEST
        return self._tag or self._finish()

    def _finish(self) -> bytes:
        """The tag of the message processed so far, kept as ``_tag``."""
        raise NotImplementedError

    def hexdigest(self) -> str:
        return self.digest().hex()

    def hexverify(self, hex_mac_tag: str) -> None:
        from binascii import unhexlify

        self.verify(unhexlify(hex_mac_tag))
