"""Known-answer tests that gate every provider: the lookup, and what the checkers share.

A provider is used only after its known answers came out right in this
process (design.md, gate 2). The vectors are published ones (NIST, RFC),
kept as data in :mod:`accel_agent.known_answers`; a checker for each kind of
primitive (kinds checked alike share one) runs them through the provider's
own interface, the same one the targets call. A catalog row names its sets
(by default the one named after the primitive); each set's file names its
checker's kind. A failure names the vector, never its bytes.

The checkers live by family in :mod:`.selfcheck_ciphers`,
:mod:`.selfcheck_digests` and :mod:`.selfcheck_public_keys`
(:data:`CHECKER_MODULES`), each loaded at the first set of one of its
kinds: a primitive's first use loads only its own family's.
"""

from __future__ import annotations

import sys

from accel_agent import catalog, known_answers
from accel_agent.known_answers import big_integer, integer, octets, octets_list, text
from accel_agent.providers.base import SelfCheckFailed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Checker = Callable[[Any, tuple], None]

# kind -> (checker, {field: decoder}): the field order is the tuple each vector becomes
CHECKERS: dict[str, tuple[Checker, dict[str, Callable[[Any], Any]]]] = {}

# set name -> (checker, vectors), filled on first use; tests replace entries
KNOWN_ANSWERS: dict[str, tuple[Checker, tuple]] = {}


_CIPHERS = "accel_agent.selfcheck_ciphers"
_DIGESTS = "accel_agent.selfcheck_digests"
_PUBLIC_KEYS = "accel_agent.selfcheck_public_keys"
# kind -> the module whose checker serves it (tests/test_selfcheck.py checks
# that each module registers exactly the kinds named for it here)
CHECKER_MODULES: dict[str, str] = {
    **dict.fromkeys(("block-mode", "cfb", "gcm", "ccm", "eax", "ocb", "siv"), _CIPHERS),
    **dict.fromkeys(("key-wrap", "chacha20", "hchacha20", "chacha20-poly1305"), _CIPHERS),
    **dict.fromkeys(("hash", "hmac", "pbkdf2", "scrypt", "hkdf", "cmac", "poly1305"), _DIGESTS),
    **dict.fromkeys(
        ("rsa-pkcs1v15-signature", "rsa-pss", "rsa-oaep", "rsa-pkcs1v15-encryption"), _PUBLIC_KEYS
    ),
    **dict.fromkeys(
        ("rsa-keygen", "ecdsa", "ecdh", "xdh", "eddsa", "ecc-keygen", "dsa", "dsa-keygen"),
        _PUBLIC_KEYS,
    ),
}


# How a field is written in the files, by its name; any field not named here
# is bytes (octets). A checker may decode a field of its own otherwise.
_DECODERS_BY_NAME: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("label", "hash", "hash_oid", "curve"), text),
    **dict.fromkeys(
        ("segment_size", "counter", "iterations", "digest_size", "salt_length", "bits"), integer
    ),
    **dict.fromkeys(("d", "x", "y"), big_integer),  # EC scalars and coordinates
    "components": octets_list,
}


def checks(
    kind: str, fields: str, **decoders: Callable[[Any], Any]
) -> Callable[[Checker], Checker]:
    """Register the decorated function as the checker of ``kind``.

    ``fields`` names a vector's fields in the order the checker unpacks them,
    the expected output last; each is decoded as ``decoders`` says, else as
    :data:`_DECODERS_BY_NAME` says for its name, else as bytes.
    """
    names = fields.split()
    if not set(decoders) <= set(names):
        raise ValueError("%s: decoders for fields it does not have" % kind)
    table = {name: decoders.get(name, _DECODERS_BY_NAME.get(name, octets)) for name in names}

    def register(checker: Checker) -> Checker:
        CHECKERS[kind] = (checker, table)
        return checker

    return register


def checker_of(kind: str) -> tuple[Checker, dict[str, Callable[[Any], Any]]]:
    """The checker of ``kind`` and its fields' decoders, its module loaded if need be.

    Raises KeyError for a kind no module checks.
    """
    entry = CHECKERS.get(kind)
    if entry is None:
        module = CHECKER_MODULES[kind]
        if module not in sys.modules:
            __import__(module)
        entry = CHECKERS[kind]
    return entry


def load(name: str) -> tuple[Checker, tuple]:
    """The checker and decoded vectors of set ``name``, read from its file once.

    Raises SelfCheckFailed when there is no such set or its file is unreadable.
    """
    entry = KNOWN_ANSWERS.get(name)
    if entry is not None:
        return entry
    try:
        document = known_answers.read(name)
        checker, fields = checker_of(document["checker"])
        entry = (checker, known_answers.vectors(document, fields))
    except FileNotFoundError:
        raise SelfCheckFailed("no known-answer test for %s" % name) from None
    except Exception as exc:  # noqa: BLE001 - a broken file fails the check, it never crashes
        raise SelfCheckFailed(
            "known answers %s unreadable (%s)" % (name, type(exc).__name__)
        ) from None
    KNOWN_ANSWERS[name] = entry
    return entry


def sets_of(primitive: str) -> tuple[str, ...]:
    """The known-answer sets the catalog row of ``primitive`` names."""
    spec = catalog.BY_NAME.get(primitive)
    return spec.known_answers if spec is not None else (primitive,)


def run(primitive: str, provider: Any) -> None:
    """Run the known answers of ``primitive`` on ``provider``; raise SelfCheckFailed.

    A primitive without known answers fails: nothing is trusted unchecked.
    """
    for name in sets_of(primitive):
        checker, vectors = load(name)
        try:
            checker(provider, vectors)
        except SelfCheckFailed:
            raise
        except Exception as exc:  # noqa: BLE001 - an exception is a failed check too
            raise SelfCheckFailed("raised %s" % type(exc).__name__) from None


def flip(data: bytes) -> bytes:
    """``data`` with its last bit flipped: what a verification must reject."""
    return data[:-1] + bytes([data[-1] ^ 1])


def refused(label: str, what: str, rejection: type, call: Callable[..., Any], *args: Any) -> None:
    """``call(*args)`` must raise ``rejection``; else ``what``, a tampered input, was accepted."""
    try:
        call(*args)
    except rejection:
        return
    raise SelfCheckFailed("%s: %s was accepted" % (label, what))
