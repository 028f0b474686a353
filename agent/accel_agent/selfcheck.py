"""Known-answer tests that gate every provider: the checkers, and the lookup.

A provider is used only after its known answers came out right in this
process (design.md, gate 2). The vectors are published ones (NIST, RFC),
kept as data in :mod:`accel_agent.known_answers`; a checker for each kind of
primitive (kinds checked alike share one) runs them through the provider's
own interface, the same one the targets call. A catalog row names its sets
(by default the one named after the primitive); each set's file names its
checker. A failure names the vector, never its bytes.
"""

from __future__ import annotations

from accel_agent import catalog, known_answers
from accel_agent.known_answers import (
    big_integer,
    dsa_key,
    integer,
    octets,
    octets_list,
    optional_octets,
    rsa_key,
    text,
)
from accel_agent.providers.base import SelfCheckFailed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Checker = Callable[[Any, tuple], None]

# kind -> (checker, {field: decoder}): the field order is the tuple each vector becomes
CHECKERS: dict[str, tuple[Checker, dict[str, Callable[[Any], Any]]]] = {}

# set name -> (checker, vectors), filled on first use; tests replace entries
KNOWN_ANSWERS: dict[str, tuple[Checker, tuple]] = {}


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


def _checks(
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


def load(name: str) -> tuple[Checker, tuple]:
    """The checker and decoded vectors of set ``name``, read from its file once.

    Raises SelfCheckFailed when there is no such set or its file is unreadable.
    """
    entry = KNOWN_ANSWERS.get(name)
    if entry is not None:
        return entry
    try:
        document = known_answers.read(name)
        checker, fields = CHECKERS[document["checker"]]
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


def _flip(data: bytes) -> bytes:
    """``data`` with its last bit flipped: what a verification must reject."""
    return data[:-1] + bytes([data[-1] ^ 1])


def _refused(
    label: str, what: str, rejection: type, call: Callable[..., Any], *args: Any
) -> None:
    """``call(*args)`` must raise ``rejection``; else ``what``, a tampered input, was accepted."""
    try:
        call(*args)
    except rejection:
        return
    raise SelfCheckFailed("%s: %s was accepted" % (label, what))

# =========================================================================== block cipher modes


@_checks("block-mode", "label key iv plaintext ciphertext", iv=optional_octets)
def check_block_mode(provider: Any, vectors: tuple) -> None:
    """Encrypt and decrypt each vector through the provider's contexts, whole and in pieces."""
    for label, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        decryptor = provider.decryptor(key, iv)
        pieces = decryptor.update(ciphertext[:16]) + decryptor.update(ciphertext[16:])
        if pieces != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


@_checks("cfb", "label segment_size key iv plaintext ciphertext")
def check_cfb(provider: Any, vectors: tuple) -> None:
    for label, segment_size, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv, segment_size).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if provider.decryptor(key, iv, segment_size).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


# =========================================================================== AEAD modes
# The AEAD modes' vectors share their fields (ChaCha20-Poly1305's too).
_AEAD_FIELDS = "label key nonce aad plaintext ciphertext tag"
_TAMPERED = "a tampered message"  # what OCB and SIV must refuse


@_checks("gcm", _AEAD_FIELDS)
def check_gcm(provider: Any, vectors: tuple) -> None:
    """Streaming and one-shot encryption, tag acceptance, and tag rejection."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        encryptor = provider.encryptor(key, nonce)
        encryptor.authenticate_additional_data(aad)
        if encryptor.update(plaintext) + encryptor.finalize() != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if encryptor.tag != tag:
            raise SelfCheckFailed("%s: wrong tag" % label)
        if provider.one_shot(key).encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong one-shot result" % label)
        decryptor = provider.decryptor(key, nonce)
        decryptor.authenticate_additional_data(aad)
        if decryptor.update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        decryptor.finalize_with_tag(tag[:12])  # a truncated tag is accepted
        forged = provider.decryptor(key, nonce)
        forged.authenticate_additional_data(aad)
        forged.update(ciphertext)
        _refused(label, "a forged tag", provider.InvalidTag, forged.finalize_with_tag, bytes(16))


@_checks("ccm", _AEAD_FIELDS)
def check_ccm(provider: Any, vectors: tuple) -> None:
    """One-shot sealing and opening, rejection of a forged tag, and the payload keystream."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        aead = provider.one_shot(key, len(tag))
        if aead.encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, ciphertext + tag, aad) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        forged = ciphertext + _flip(tag)
        _refused(label, "a forged tag", provider.InvalidTag, aead.decrypt, nonce, forged, aad)
        if provider.keystream(key, nonce).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong keystream" % label)


@_checks("eax", _AEAD_FIELDS)
def check_eax(provider: Any, vectors: tuple) -> None:
    """Whole messages both ways, and the same message streamed in pieces."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        sealed, full_tag = provider.encrypt(key, nonce, aad, plaintext)
        if sealed != ciphertext or full_tag[: len(tag)] != tag:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        opened, full_tag = provider.decrypt(key, nonce, aad, ciphertext)
        if opened != plaintext or full_tag[: len(tag)] != tag:
            raise SelfCheckFailed("%s: wrong plaintext or tag" % label)
        stream = provider.stream(key, nonce)
        stream.authenticate(aad[:3])
        stream.authenticate(aad[3:])
        pieces = stream.encrypt(plaintext[:1]) + stream.encrypt(plaintext[1:])
        if pieces != ciphertext or stream.tag()[: len(tag)] != tag:
            raise SelfCheckFailed("%s: wrong streamed result" % label)


@_checks("ocb", "label key nonce aad plaintext sealed")
def check_ocb(provider: Any, vectors: tuple) -> None:
    """Sealed (ciphertext || tag) both ways; a tampered one refused."""
    for label, key, nonce, aad, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(nonce, plaintext, aad or None) != sealed:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, sealed, aad or None) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        tampered = _flip(sealed)
        _refused(label, _TAMPERED, provider.InvalidTag, aead.decrypt, nonce, tampered, aad or None)


@_checks("siv", "label key components plaintext sealed")
def check_siv(provider: Any, vectors: tuple) -> None:
    """Sealed (tag || ciphertext) with its associated-data components, the nonce last."""
    for label, key, components, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(plaintext, components) != sealed:
            raise SelfCheckFailed("%s: wrong tag or ciphertext" % label)
        if aead.decrypt(sealed, components) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        tampered = _flip(sealed)
        _refused(label, _TAMPERED, provider.InvalidTag, aead.decrypt, tampered, components)


# =========================================================================== key wrap


@_checks("key-wrap", "label kek key_data wrapped")
def check_key_wrap(provider: Any, vectors: tuple) -> None:
    for label, kek, key_data, wrapped in vectors:
        if provider.wrap(kek, key_data) != wrapped:
            raise SelfCheckFailed("%s: wrong wrapped key" % label)
        if provider.unwrap(kek, wrapped) != key_data:
            raise SelfCheckFailed("%s: wrong unwrapped key" % label)
        tampered = _flip(wrapped)
        what = "a tampered wrapped key"
        _refused(label, what, provider.InvalidUnwrap, provider.unwrap, kek, tampered)


# =========================================================================== ChaCha20 family


@_checks("chacha20", "label key nonce counter plaintext ciphertext")
def check_chacha20(provider: Any, vectors: tuple) -> None:
    """Keystream at a block counter, whole and in pieces."""
    for label, key, nonce, counter, plaintext, ciphertext in vectors:
        if provider.keystream_context(key, nonce, counter).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        context = provider.keystream_context(key, nonce, counter)
        if context.update(ciphertext[:7]) + context.update(ciphertext[7:]) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


@_checks("hchacha20", "label key nonce subkey")
def check_hchacha20(provider: Any, vectors: tuple) -> None:
    """HChaCha20's subkey (XChaCha20's first step), a set the chacha20 row also names."""
    for label, key, nonce, subkey in vectors:
        if provider.hchacha20(key, nonce) != subkey:
            raise SelfCheckFailed("%s: wrong subkey" % label)


@_checks("chacha20-poly1305", _AEAD_FIELDS)
def check_chacha20_poly1305(provider: Any, vectors: tuple) -> None:
    """One-shot and streamed (RFC 8439 composed from ChaCha20 and Poly1305), and a forged tag."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        if len(nonce) == 24:
            key, nonce = provider.extended(key, nonce)
        one_shot = provider.one_shot(key)
        if one_shot.encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong one-shot result" % label)
        if one_shot.decrypt(nonce, ciphertext + tag, aad) != plaintext:
            raise SelfCheckFailed("%s: wrong one-shot plaintext" % label)
        forged = ciphertext + bytes(16)
        _refused(label, "a forged tag", provider.InvalidTag, one_shot.decrypt, nonce, forged, aad)
        stream = provider.stream(key, nonce)
        stream.authenticate(aad[:5])
        stream.authenticate(aad[5:])
        if stream.encrypt(plaintext[:17]) + stream.encrypt(plaintext[17:]) != ciphertext:
            raise SelfCheckFailed("%s: wrong streamed ciphertext" % label)
        if stream.tag() != tag:
            raise SelfCheckFailed("%s: wrong streamed tag" % label)
        stream = provider.stream(key, nonce)
        stream.authenticate(aad)
        if stream.decrypt(ciphertext) != plaintext or stream.tag() != tag:
            raise SelfCheckFailed("%s: wrong streamed decryption" % label)


# =========================================================================== hashes, MACs, KDFs


@_checks("hash", "label message digest")
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


@_checks("hmac", "label hash key message tag")
def check_hmac(provider: Any, vectors: tuple) -> None:
    """Each vector whose hash the provider has (``names``: RIPEMD-160 only in some OpenSSLs)."""
    for label, name, key, message, tag in vectors:
        if name not in provider.names:
            continue  # the target never asks this provider for that hash
        if provider.digest(key, message, name) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key, message[:5], name)
        _check_copied(label, "streamed or copied tag", mac, message[5:], "digest", tag)


@_checks("pbkdf2", "label hash password salt iterations key")
@_checks("scrypt", "label password salt n r p key", n=integer, r=integer, p=integer)
@_checks("hkdf", "label hash digest_size ikm salt info okm")
def check_key_derivation(provider: Any, vectors: tuple) -> None:
    """The fields between label and key are ``derive``'s arguments, the key's length last."""
    for label, *inputs, expected in vectors:
        if provider.derive(*inputs, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


@_checks("cmac", "label key message tag")
def check_cmac(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        mac = provider.new(key)
        mac.update(message[:7])
        _check_copied(label, "tag", mac, message[7:], "finalize", tag)


@_checks("poly1305", "label key message tag")
def check_poly1305(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        if provider.tag(key, message) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key)
        mac.update(message[:9])
        mac.update(message[9:])
        if mac.finalize() != tag:
            raise SelfCheckFailed("%s: wrong streamed tag" % label)


# =========================================================================== public keys
# A randomized operation is checked by what it must satisfy: a published
# signature verifies (and a tampered one does not), and what the provider
# makes verifies or decrypts with the published key.

_SHA256_OID = "2.16.840.1.101.3.4.2.1"
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")  # RFC 8017


def _rsa_keys(provider: Any, key: tuple, probe: bool = False) -> tuple[Any, Any]:
    """The published key, loaded as the provider loads an application's.

    Without the load probe (one private-key operation, checked with the
    public exponent) unless ``probe``: each check compares a private
    operation with its known answer anyway. The PKCS#1 v1.5 signature's
    check loads it with the probe, a PKCS#1 v1.5 signature itself, so a
    probe that refused good keys (and sent every key to native code) fails
    a self-check.
    """
    n, e, d, p, q = key
    private = provider.load_private(n, e, d, p, q, pow(p, -1, q), probe=probe)
    return private, provider.load_public(n, e)


@_checks("rsa-pkcs1v15-signature", "label key hash_oid digest signature", key=rsa_key)
def check_rsa_pkcs1v15_signature(provider: Any, vectors: tuple) -> None:
    """The published signature, made and verified; a tampered one rejected."""
    for label, key, oid, digest, signature in vectors:
        try:
            private, public = _rsa_keys(provider, key, probe=True)
        except ValueError as exc:
            raise SelfCheckFailed("%s: the published key was refused (%s)" % (label, exc)) from None
        if provider.sign_pkcs1v15(private, digest, oid) != signature:
            raise SelfCheckFailed("%s: wrong signature" % label)
        if not provider.verify_pkcs1v15(public, signature, digest, oid):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify_pkcs1v15(public, _flip(signature), digest, oid):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        # python-rsa's verify: the DigestInfo recovered from the signature.
        if oid == _SHA256_OID and provider.recover_pkcs1v15(public, signature) != (
            _SHA256_DIGEST_INFO + digest
        ):
            raise SelfCheckFailed("%s: wrong DigestInfo recovered" % label)
        if provider.recover_pkcs1v15(public, _flip(signature)) is not None:
            raise SelfCheckFailed("%s: a tampered signature's padding was accepted" % label)


@_checks(
    "rsa-pss", "label key hash_oid digest salt_length signature unsalted_signature", key=rsa_key
)
def check_rsa_pss(provider: Any, vectors: tuple) -> None:
    """The published signature verifies (its salt is random, so it cannot be made again);
    a new salted one verifies; an unsalted one, deterministic, is the known answer.

    Two private-key operations (the key is loaded without its probe, _rsa_keys): a
    salted signature that round-trips, and the unsalted known answer, which a second
    unsalted signature compared with the first would only show to be repeatable.
    """
    for label, key, oid, digest, salt, signature, unsalted in vectors:
        private, public = _rsa_keys(provider, key)
        if not provider.verify_pss(public, signature, digest, oid, salt):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify_pss(public, _flip(signature), digest, oid, salt):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        if provider.verify_pss(public, signature, digest, oid, salt - 1):
            raise SelfCheckFailed("%s: accepted with another salt length" % label)
        made = provider.sign_pss(private, digest, oid, salt)
        if made == signature or not provider.verify_pss(public, made, digest, oid, salt):
            raise SelfCheckFailed("%s: a new signature is wrong" % label)
        if provider.sign_pss(private, digest, oid, 0) != unsalted:
            raise SelfCheckFailed("%s: wrong unsalted signature" % label)


@_checks("rsa-oaep", "label key hash_oid oaep_label message ciphertext", key=rsa_key)
def check_rsa_oaep(provider: Any, vectors: tuple) -> None:
    """The published ciphertext decrypts; a new one round-trips; a tampered one fails."""
    for label, key, oid, oaep_label, message, ciphertext in vectors:
        private, public = _rsa_keys(provider, key)
        if provider.decrypt_oaep(private, ciphertext, oid, oaep_label) != message:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        if provider.decrypt_oaep(private, _flip(ciphertext), oid, oaep_label) is not None:
            raise SelfCheckFailed("%s: a tampered ciphertext decrypted" % label)
        made = provider.encrypt_oaep(public, message, oid, oaep_label)
        if made == ciphertext or provider.decrypt_oaep(private, made, oid, oaep_label) != message:
            raise SelfCheckFailed("%s: a new ciphertext is wrong" % label)
        if provider.decrypt_oaep(private, made, oid, b"") is not None:
            raise SelfCheckFailed("%s: decrypted with the wrong label" % label)


@_checks("rsa-pkcs1v15-encryption", "label key message plaintext", key=rsa_key)
def check_rsa_pkcs1v15_encryption(provider: Any, vectors: tuple) -> None:
    """Decrypted with the key's primes in Python: 00 02, non-zero padding, 00, the message."""
    for label, key, message, expected in vectors:
        n, e, d, p, q = key
        public = provider.load_public(n, e)
        size = (n.bit_length() + 7) // 8
        made = provider.encrypt_pkcs1v15(public, message)
        c = int.from_bytes(made, "big")
        mp, mq = pow(c, d % (p - 1), p), pow(c, d % (q - 1), q)
        encoded = (mq + q * ((mp - mq) * pow(q, -1, p) % p)).to_bytes(size, "big")
        padding = encoded[2 : size - len(message) - 1]
        if (
            encoded[:2] != b"\x00\x02"
            or 0 in padding
            or encoded[-len(expected) - 1 :] != b"\x00" + expected
        ):
            raise SelfCheckFailed("%s: wrong PKCS#1 v1.5 encoding" % label)
        if made == provider.encrypt_pkcs1v15(public, message):
            raise SelfCheckFailed("%s: the padding is not random" % label)


@_checks("rsa-keygen", "label key hash_oid digest signature", key=rsa_key)
def check_rsa_keygen(provider: Any, vectors: tuple) -> None:
    """The published key's primes assembled as pycryptodome does, then its published signature."""
    for label, key, oid, digest, signature in vectors:
        n, e, _d, p, q = key
        assembled = provider.assemble(q, p, e, n.bit_length())
        if assembled is None or assembled[0] != n or assembled[3:5] != (min(p, q), max(p, q)):
            raise SelfCheckFailed("%s: wrong key assembly" % label)
        n, e, d, p, q, u = assembled
        if (e * d - 1) % (p - 1) or (e * d - 1) % (q - 1) or (p * u) % q != 1:
            raise SelfCheckFailed("%s: inconsistent d or u" % label)
        private = provider.load_private(n, e, d, p, q, u, probe=False)
        if provider.sign_pkcs1v15(private, digest, oid) != signature:
            raise SelfCheckFailed("%s: the assembled key signs wrongly" % label)


def _check_dss_verdicts(
    provider: Any, label: str, public: Any, signature: bytes, digest: bytes, oid: str
) -> tuple[int, int]:
    """(r, s) of a DSS (DSA, ECDSA) signature written r || s, which the provider must
    accept, and refuse with s tampered."""
    size = len(signature) // 2
    r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
    if not provider.verify(public, r, s, digest, oid):
        raise SelfCheckFailed("%s: the signature was rejected" % label)
    if provider.verify(public, r, s ^ 1, digest, oid):
        raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
    return r, s


def _check_new_dss(
    provider: Any, label: str, public: Any, made: tuple, published: tuple, digest: bytes, oid: str
) -> None:
    """A new DSS signature ``made`` (r, s) with a random nonce: not the published one, and valid."""
    if made == published or not provider.verify(public, made[0], made[1], digest, oid):
        raise SelfCheckFailed("%s: a new signature is wrong" % label)


@_checks("ecdsa", "label d x y hash_oid digest signature")
def check_ecdsa(provider: Any, vectors: tuple) -> None:
    """RFC 6979's signature verifies, and is made where deterministic signing exists."""
    for label, d, x, y, oid, digest, signature in vectors:
        private, public = provider.load_private(d), provider.load_public(x, y)
        r, s = _check_dss_verdicts(provider, label, public, signature, digest, oid)
        if provider.deterministic:
            made = provider.decode_der(provider.sign(private, digest, oid, True))
            if made != (r, s):
                raise SelfCheckFailed("%s: wrong deterministic signature" % label)
        made = provider.decode_der(provider.sign(private, digest, oid, False))
        _check_new_dss(provider, label, public, made, (r, s), digest, oid)
        _check_ecdsa_numbers(provider, label, private, public, r, s, digest)


def _check_ecdsa_numbers(provider, label, private, public, r, s, digest) -> None:
    """The same signature over the message representative as a number (python-ecdsa's way):
    the digest's leftmost bits of n, and that number plus n, which ECDSA cannot tell apart."""
    order = provider.order
    number = int.from_bytes(digest, "big") >> max(0, 8 * len(digest) - order.bit_length())
    for representative in (number, number + order):
        if not provider.verify_number(public, r, s, representative):
            raise SelfCheckFailed("%s: the signature was rejected as a number" % label)
    if provider.verify_number(public, r, s ^ 1, number):
        raise SelfCheckFailed("%s: a tampered signature was accepted as a number" % label)
    made = provider.sign_number(private, number + order)
    if made is None or made == (r, s) or not provider.verify_number(public, *made, number):
        raise SelfCheckFailed("%s: a new signature over a number is wrong" % label)


@_checks("ecdh", "label d x y shared")
@_checks("xdh", "label scalar u shared")
def check_key_agreement(provider: Any, vectors: tuple) -> None:
    """A private key's field, then the public key's fields (a point's x and y, or X25519's u)."""
    for label, private, *public, shared in vectors:
        private_key, public_key = provider.load_private(private), provider.load_public(*public)
        if provider.exchange(private_key, public_key) != shared:
            raise SelfCheckFailed("%s: wrong shared secret" % label)


@_checks("eddsa", "label seed public_key message signature")
def check_eddsa(provider: Any, vectors: tuple) -> None:
    for label, seed, encoded_public, message, signature in vectors:
        private = provider.load_private(seed)
        if provider.public_bytes(private) != encoded_public:
            raise SelfCheckFailed("%s: wrong public key" % label)
        if provider.sign(private, message) != signature:
            raise SelfCheckFailed("%s: wrong signature" % label)
        public = provider.load_public(encoded_public)
        if not provider.verify(public, signature, message):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify(public, _flip(signature), message):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)


@_checks("ecc-keygen", "label curve p n b", p=big_integer, n=big_integer)
def check_ecc_keygen(provider: Any, vectors: tuple) -> None:
    """A new key on each curve: d in [1, n), and (x, y) on the curve."""
    for label, curve, p, n, b in vectors:
        d, x, y, _key = provider.generate(curve)
        b = int.from_bytes(b, "big")
        if not 0 < d < n or (y * y - (x * x * x - 3 * x + b)) % p:
            raise SelfCheckFailed("%s: the new key is not on the curve" % label)


@_checks("dsa", "label key hash_oid digest signature", key=dsa_key)
def check_dsa(provider: Any, vectors: tuple) -> None:
    """RFC 6979's signature verifies, a tampered one does not; a new signature verifies."""
    for label, (p, q, g, y, x), oid, digest, signature in vectors:
        private, public = provider.load_private(p, q, g, y, x), provider.load_public(p, q, g, y)
        r, s = _check_dss_verdicts(provider, label, public, signature, digest, oid)
        made = provider.decode_der(provider.sign(private, digest, oid))
        _check_new_dss(provider, label, public, made, (r, s), digest, oid)


def _is_dsa_key(p: int, q: int, g: int, y: int, x: int, bits: int) -> bool:
    """FIPS 186's structure: p of ``bits`` bits, q dividing p - 1, g of order q, y = g^x."""
    return (
        p.bit_length() == bits
        and (p - 1) % q == 0
        and 1 < g < p
        and pow(g, q, p) == 1
        and 0 < x < q
        and pow(g, x, p) == y
    )


@_checks("dsa-keygen", "label bits p q g", p=big_integer, q=big_integer)
def check_dsa_keygen(provider: Any, vectors: tuple) -> None:
    """A new key of ``bits`` bits, and a new key in the published domain, are DSA keys."""
    for label, bits, p, q, g in vectors:
        new_p, new_q, new_g, y, x, _key = provider.generate(bits)
        if not _is_dsa_key(new_p, new_q, new_g, y, x, bits):
            raise SelfCheckFailed("%s: the new key is not a DSA key" % label)
        g = int.from_bytes(g, "big")
        try:
            y, x, _key = provider.key_from_domain(p, q, g)
        except Exception:  # noqa: BLE001 - OpenSSL refused the domain: named, not shown
            raise SelfCheckFailed("%s: no key made in the published domain" % label) from None
        if not _is_dsa_key(p, q, g, y, x, p.bit_length()):
            raise SelfCheckFailed("%s: the key in the published domain is wrong" % label)
