"""The self-check's checkers of hashes, MACs and key derivation functions.

Registered with :func:`accel_agent.selfcheck.checks`; loaded by the
self-check at the first set of one of their kinds
(``selfcheck.CHECKER_MODULES``).
"""

from __future__ import annotations

from accel_agent.known_answers import integer
from accel_agent.providers.base import SelfCheckFailed
from accel_agent.selfcheck import checks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# =========================================================================== hashes, MACs, KDFs


@checks("hash", "label message digest")
def check_hash(provider: Any, vectors: tuple) -> None:
    """One-shot, streamed and copied, the copy left independent of the original.

    An XOF's expected output is its first bytes: as many are asked for.
    """
    xof = provider.digest_size is None
    for label, message, expected in vectors:

        def finish(h: Any, size: int = len(expected)) -> bytes:
            return h.digest(size) if xof else h.digest()

        if finish(provider.new(message)) != expected:
            raise SelfCheckFailed("%s: wrong one-shot digest" % label)
        h = provider.new()
        h.update(message[:1])
        clone = h.copy()
        h.update(message[1:])
        clone.update(message[1:2])
        clone.update(message[2:])
        if finish(h) != expected or finish(clone) != expected:
            raise SelfCheckFailed("%s: wrong streamed or copied digest" % label)


def _check_copied(
    label: str, what: str, context: Any, rest: bytes, finish: str, expected: bytes
) -> None:
    """A streaming ``context`` copied mid-message: it and its copy, each fed ``rest``, both
    give ``expected`` from their method ``finish`` (the copy left independent of the original)."""
    clone = context.copy()
    context.update(rest)
    clone.update(rest)
    if getattr(context, finish)() != expected or getattr(clone, finish)() != expected:
        raise SelfCheckFailed("%s: wrong %s" % (label, what))


@checks("hmac", "label hash key message tag")
def check_hmac(provider: Any, vectors: tuple) -> None:
    """Each vector whose hash the provider has (``names``: RIPEMD-160 only in some OpenSSLs)."""
    for label, name, key, message, tag in vectors:
        if name not in provider.names:
            continue  # the target never asks this provider for that hash
        if provider.digest(key, message, name) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key, message[:5], name)
        _check_copied(label, "streamed or copied tag", mac, message[5:], "digest", tag)


@checks("pbkdf2", "label hash password salt iterations key")
@checks("scrypt", "label password salt n r p key", n=integer, r=integer, p=integer)
@checks("hkdf", "label hash digest_size ikm salt info okm")
def check_key_derivation(provider: Any, vectors: tuple) -> None:
    """The fields between label and key are ``derive``'s arguments, the key's length last."""
    for label, *inputs, expected in vectors:
        if provider.derive(*inputs, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


@checks("cmac", "label key message tag")
def check_cmac(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        mac = provider.new(key)
        mac.update(message[:7])
        _check_copied(label, "tag", mac, message[7:], "finalize", tag)


@checks("poly1305", "label key message tag")
def check_poly1305(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        if provider.tag(key, message) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key)
        mac.update(message[:9])
        mac.update(message[9:])
        if mac.finalize() != tag:
            raise SelfCheckFailed("%s: wrong streamed tag" % label)
