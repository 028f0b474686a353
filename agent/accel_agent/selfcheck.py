"""Known-answer tests that gate every provider: the checkers, and the lookup.

A provider is used only after its known answers came out right in this
process (design.md, gate 2). The vectors are published ones (NIST, RFC),
kept as data in :mod:`accel_agent.known_answers`; one checker per kind of
primitive runs them through the provider's own interface, the same one the
targets call. A catalog row names its sets (by default the one named after
the primitive); each set's file names its checker. A failure names the
vector, never its bytes.
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


def _checks(kind: str, **fields: Callable[[Any], Any]) -> Callable[[Checker], Checker]:
    """Register the decorated function as the checker of ``kind``, taking ``fields``."""

    def register(checker: Checker) -> Checker:
        CHECKERS[kind] = (checker, fields)
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


def _refused(provider: Any, label: str, call: Callable[..., Any], *args: Any) -> None:
    try:
        call(*args)
    except provider.InvalidTag:
        return
    raise SelfCheckFailed("%s: a tampered message was accepted" % label)


# =========================================================================== block cipher modes


@_checks(
    "block-mode",
    label=text,
    key=octets,
    iv=optional_octets,
    plaintext=octets,
    ciphertext=octets,
)
def check_block_mode(provider: Any, vectors: tuple) -> None:
    """Encrypt and decrypt each vector through the provider's contexts, whole and in pieces."""
    for label, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        decryptor = provider.decryptor(key, iv)
        pieces = decryptor.update(ciphertext[:16]) + decryptor.update(ciphertext[16:])
        if pieces != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


@_checks(
    "cfb",
    label=text,
    segment_size=integer,
    key=octets,
    iv=octets,
    plaintext=octets,
    ciphertext=octets,
)
def check_cfb(provider: Any, vectors: tuple) -> None:
    for label, segment_size, key, iv, plaintext, ciphertext in vectors:
        if provider.encryptor(key, iv, segment_size).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        if provider.decryptor(key, iv, segment_size).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


# =========================================================================== AEAD modes
# The AEAD modes' vectors share their fields (ChaCha20-Poly1305's too).
_AEAD_FIELDS = dict(
    label=text,
    key=octets,
    nonce=octets,
    aad=octets,
    plaintext=octets,
    ciphertext=octets,
    tag=octets,
)


@_checks("gcm", **_AEAD_FIELDS)
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
        try:
            forged.finalize_with_tag(bytes(16))
        except provider.InvalidTag:
            pass
        else:
            raise SelfCheckFailed("%s: a forged tag was accepted" % label)


@_checks("ccm", **_AEAD_FIELDS)
def check_ccm(provider: Any, vectors: tuple) -> None:
    """One-shot sealing and opening, rejection of a forged tag, and the payload keystream."""
    for label, key, nonce, aad, plaintext, ciphertext, tag in vectors:
        aead = provider.one_shot(key, len(tag))
        if aead.encrypt(nonce, plaintext, aad) != ciphertext + tag:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, ciphertext + tag, aad) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        try:
            aead.decrypt(nonce, ciphertext + _flip(tag), aad)
        except provider.InvalidTag:
            pass
        else:
            raise SelfCheckFailed("%s: a forged tag was accepted" % label)
        if provider.keystream(key, nonce).update(ciphertext) != plaintext:
            raise SelfCheckFailed("%s: wrong keystream" % label)


@_checks("eax", **_AEAD_FIELDS)
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


@_checks(
    "ocb",
    label=text,
    key=octets,
    nonce=octets,
    aad=octets,
    plaintext=octets,
    sealed=octets,
)
def check_ocb(provider: Any, vectors: tuple) -> None:
    """Sealed (ciphertext || tag) both ways; a tampered one refused."""
    for label, key, nonce, aad, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(nonce, plaintext, aad or None) != sealed:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, sealed, aad or None) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        _refused(provider, label, aead.decrypt, nonce, _flip(sealed), aad or None)


@_checks(
    "siv",
    label=text,
    key=octets,
    components=octets_list,
    plaintext=octets,
    sealed=octets,
)
def check_siv(provider: Any, vectors: tuple) -> None:
    """Sealed (tag || ciphertext) with its associated-data components, the nonce last."""
    for label, key, components, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(plaintext, components) != sealed:
            raise SelfCheckFailed("%s: wrong tag or ciphertext" % label)
        if aead.decrypt(sealed, components) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        _refused(provider, label, aead.decrypt, _flip(sealed), components)


# =========================================================================== key wrap


@_checks("key-wrap", label=text, kek=octets, key_data=octets, wrapped=octets)
def check_key_wrap(provider: Any, vectors: tuple) -> None:
    for label, kek, key_data, wrapped in vectors:
        if provider.wrap(kek, key_data) != wrapped:
            raise SelfCheckFailed("%s: wrong wrapped key" % label)
        if provider.unwrap(kek, wrapped) != key_data:
            raise SelfCheckFailed("%s: wrong unwrapped key" % label)
        try:
            provider.unwrap(kek, _flip(wrapped))
        except provider.InvalidUnwrap:
            continue
        raise SelfCheckFailed("%s: a tampered wrapped key was accepted" % label)


# =========================================================================== ChaCha20 family


@_checks(
    "chacha20",
    label=text,
    key=octets,
    nonce=octets,
    counter=integer,
    plaintext=octets,
    ciphertext=octets,
)
def check_chacha20(provider: Any, vectors: tuple) -> None:
    """Keystream at a block counter, whole and in pieces."""
    for label, key, nonce, counter, plaintext, ciphertext in vectors:
        if provider.keystream_context(key, nonce, counter).update(plaintext) != ciphertext:
            raise SelfCheckFailed("%s: wrong ciphertext" % label)
        context = provider.keystream_context(key, nonce, counter)
        if context.update(ciphertext[:7]) + context.update(ciphertext[7:]) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)


@_checks("hchacha20", label=text, key=octets, nonce=octets, subkey=octets)
def check_hchacha20(provider: Any, vectors: tuple) -> None:
    """HChaCha20's subkey (XChaCha20's first step), a set the chacha20 row also names."""
    for label, key, nonce, subkey in vectors:
        if provider.hchacha20(key, nonce) != subkey:
            raise SelfCheckFailed("%s: wrong subkey" % label)


@_checks("chacha20-poly1305", **_AEAD_FIELDS)
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
        try:
            one_shot.decrypt(nonce, ciphertext + bytes(16), aad)
        except provider.InvalidTag:
            pass
        else:
            raise SelfCheckFailed("%s: a forged tag was accepted" % label)
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


@_checks("hash", label=text, message=octets, digest=octets)
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


@_checks("hmac", label=text, hash=text, key=octets, message=octets, tag=octets)
def check_hmac(provider: Any, vectors: tuple) -> None:
    """Each vector whose hash the provider has (``names``: RIPEMD-160 only in some OpenSSLs)."""
    for label, name, key, message, tag in vectors:
        if name not in provider.names:
            continue  # the target never asks this provider for that hash
        if provider.digest(key, message, name) != tag:
            raise SelfCheckFailed("%s: wrong one-shot tag" % label)
        mac = provider.new(key, message[:5], name)
        clone = mac.copy()
        mac.update(message[5:])
        clone.update(message[5:])
        if mac.digest() != tag or clone.digest() != tag:
            raise SelfCheckFailed("%s: wrong streamed or copied tag" % label)


@_checks(
    "pbkdf2",
    label=text,
    hash=text,
    password=octets,
    salt=octets,
    iterations=integer,
    key=octets,
)
def check_pbkdf2(provider: Any, vectors: tuple) -> None:
    for label, name, password, salt, iterations, expected in vectors:
        if provider.derive(name, password, salt, iterations, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


@_checks(
    "scrypt",
    label=text,
    password=octets,
    salt=octets,
    n=integer,
    r=integer,
    p=integer,
    key=octets,
)
def check_scrypt(provider: Any, vectors: tuple) -> None:
    for label, password, salt, n, r, p, expected in vectors:
        if provider.derive(password, salt, n, r, p, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


@_checks(
    "hkdf",
    label=text,
    hash=text,
    digest_size=integer,
    ikm=octets,
    salt=octets,
    info=octets,
    okm=octets,
)
def check_hkdf(provider: Any, vectors: tuple) -> None:
    for label, name, size, ikm, salt, info, expected in vectors:
        if provider.derive(name, size, ikm, salt, info, len(expected)) != expected:
            raise SelfCheckFailed("%s: wrong key" % label)


@_checks("cmac", label=text, key=octets, message=octets, tag=octets)
def check_cmac(provider: Any, vectors: tuple) -> None:
    for label, key, message, tag in vectors:
        mac = provider.new(key)
        mac.update(message[:7])
        clone = mac.copy()
        mac.update(message[7:])
        clone.update(message[7:])
        if mac.finalize() != tag or clone.finalize() != tag:
            raise SelfCheckFailed("%s: wrong tag" % label)


@_checks("poly1305", label=text, key=octets, message=octets, tag=octets)
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


def _rsa_keys(provider: Any, key: tuple) -> tuple[Any, Any]:
    n, e, d, p, q = key
    return provider.load_private(n, e, d, p, q, pow(p, -1, q)), provider.load_public(n, e)


@_checks(
    "rsa-pkcs1v15-signature",
    label=text,
    key=rsa_key,
    hash_oid=text,
    digest=octets,
    signature=octets,
)
def check_rsa_pkcs1v15_signature(provider: Any, vectors: tuple) -> None:
    """The published signature, made and verified; a tampered one rejected."""
    for label, key, oid, digest, signature in vectors:
        private, public = _rsa_keys(provider, key)
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
    "rsa-pss",
    label=text,
    key=rsa_key,
    hash_oid=text,
    digest=octets,
    salt_length=integer,
    signature=octets,
)
def check_rsa_pss(provider: Any, vectors: tuple) -> None:
    """Verify-only vector (the salt is random); the provider's own signatures verify."""
    for label, key, oid, digest, salt, signature in vectors:
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
        unsalted = provider.sign_pss(private, digest, oid, 0)
        if unsalted != provider.sign_pss(private, digest, oid, 0):
            raise SelfCheckFailed("%s: an unsalted signature is not deterministic" % label)


@_checks(
    "rsa-oaep",
    label=text,
    key=rsa_key,
    hash_oid=text,
    oaep_label=octets,
    message=octets,
    ciphertext=octets,
)
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


@_checks("rsa-pkcs1v15-encryption", label=text, key=rsa_key, message=octets, plaintext=octets)
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


@_checks(
    "rsa-keygen",
    label=text,
    key=rsa_key,
    hash_oid=text,
    digest=octets,
    signature=octets,
)
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
        private = provider.load_private(n, e, d, p, q, u)
        if provider.sign_pkcs1v15(private, digest, oid) != signature:
            raise SelfCheckFailed("%s: the assembled key signs wrongly" % label)


@_checks(
    "ecdsa",
    label=text,
    d=big_integer,
    x=big_integer,
    y=big_integer,
    hash_oid=text,
    digest=octets,
    signature=octets,
)
def check_ecdsa(provider: Any, vectors: tuple) -> None:
    """RFC 6979's signature verifies, and is made where deterministic signing exists."""
    for label, d, x, y, oid, digest, signature in vectors:
        size = len(signature) // 2
        r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
        private, public = provider.load_private(d), provider.load_public(x, y)
        if not provider.verify(public, r, s, digest, oid):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify(public, r, s ^ 1, digest, oid):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        if provider.deterministic:
            made = provider.decode_der(provider.sign(private, digest, oid, True))
            if made != (r, s):
                raise SelfCheckFailed("%s: wrong deterministic signature" % label)
        made = provider.decode_der(provider.sign(private, digest, oid, False))
        if made == (r, s) or not provider.verify(public, made[0], made[1], digest, oid):
            raise SelfCheckFailed("%s: a new signature is wrong" % label)
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


@_checks("ecdh", label=text, d=big_integer, x=big_integer, y=big_integer, shared=octets)
def check_ecdh(provider: Any, vectors: tuple) -> None:
    for label, d, x, y, shared in vectors:
        if provider.exchange(provider.load_private(d), provider.load_public(x, y)) != shared:
            raise SelfCheckFailed("%s: wrong shared secret" % label)


@_checks("xdh", label=text, scalar=octets, u=octets, shared=octets)
def check_xdh(provider: Any, vectors: tuple) -> None:
    for label, scalar, u, shared in vectors:
        if provider.exchange(provider.load_private(scalar), provider.load_public(u)) != shared:
            raise SelfCheckFailed("%s: wrong shared secret" % label)


@_checks(
    "eddsa",
    label=text,
    seed=octets,
    public_key=octets,
    message=octets,
    signature=octets,
)
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


@_checks("ecc-keygen", label=text, curve=text, p=big_integer, n=big_integer, b=octets)
def check_ecc_keygen(provider: Any, vectors: tuple) -> None:
    """A new key on each curve: d in [1, n), and (x, y) on the curve."""
    for label, curve, p, n, b in vectors:
        d, x, y, _key = provider.generate(curve)
        b = int.from_bytes(b, "big")
        if not 0 < d < n or (y * y - (x * x * x - 3 * x + b)) % p:
            raise SelfCheckFailed("%s: the new key is not on the curve" % label)


@_checks(
    "dsa",
    label=text,
    key=dsa_key,
    hash_oid=text,
    digest=octets,
    signature=octets,
)
def check_dsa(provider: Any, vectors: tuple) -> None:
    """RFC 6979's signature verifies, a tampered one does not; a new signature verifies."""
    for label, (p, q, g, y, x), oid, digest, signature in vectors:
        size = len(signature) // 2
        r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
        private, public = provider.load_private(p, q, g, y, x), provider.load_public(p, q, g, y)
        if not provider.verify(public, r, s, digest, oid):
            raise SelfCheckFailed("%s: the signature was rejected" % label)
        if provider.verify(public, r, s ^ 1, digest, oid):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        made = provider.decode_der(provider.sign(private, digest, oid))
        if made == (r, s) or not provider.verify(public, made[0], made[1], digest, oid):
            raise SelfCheckFailed("%s: a new signature is wrong" % label)


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


@_checks("dsa-keygen", label=text, bits=integer, p=big_integer, q=big_integer, g=octets)
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
