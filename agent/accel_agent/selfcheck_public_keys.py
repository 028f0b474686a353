"""The self-check's checkers of public-key primitives: RSA, ECDSA, ECDH, EdDSA, DSA.

Registered with :func:`accel_agent.selfcheck.checks`; loaded by the
self-check at the first set of one of their kinds
(``selfcheck.CHECKER_MODULES``).
"""

from __future__ import annotations

from accel_agent.known_answers import big_integer, dsa_key, rsa_key
from accel_agent.providers.base import SelfCheckFailed
from accel_agent.selfcheck import checks, flip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


@checks("rsa-pkcs1v15-signature", "label key hash_oid digest signature", key=rsa_key)
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
        if provider.verify_pkcs1v15(public, flip(signature), digest, oid):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        # python-rsa's verify: the DigestInfo recovered from the signature.
        if oid == _SHA256_OID and provider.recover_pkcs1v15(public, signature) != (
            _SHA256_DIGEST_INFO + digest
        ):
            raise SelfCheckFailed("%s: wrong DigestInfo recovered" % label)
        if provider.recover_pkcs1v15(public, flip(signature)) is not None:
            raise SelfCheckFailed("%s: a tampered signature's padding was accepted" % label)


@checks(
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
        if provider.verify_pss(public, flip(signature), digest, oid, salt):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)
        if provider.verify_pss(public, signature, digest, oid, salt - 1):
            raise SelfCheckFailed("%s: accepted with another salt length" % label)
        made = provider.sign_pss(private, digest, oid, salt)
        if made == signature or not provider.verify_pss(public, made, digest, oid, salt):
            raise SelfCheckFailed("%s: a new signature is wrong" % label)
        if provider.sign_pss(private, digest, oid, 0) != unsalted:
            raise SelfCheckFailed("%s: wrong unsalted signature" % label)


@checks("rsa-oaep", "label key hash_oid oaep_label message ciphertext", key=rsa_key)
def check_rsa_oaep(provider: Any, vectors: tuple) -> None:
    """The published ciphertext decrypts; a new one round-trips; a tampered one fails."""
    for label, key, oid, oaep_label, message, ciphertext in vectors:
        private, public = _rsa_keys(provider, key)
        if provider.decrypt_oaep(private, ciphertext, oid, oaep_label) != message:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        if provider.decrypt_oaep(private, flip(ciphertext), oid, oaep_label) is not None:
            raise SelfCheckFailed("%s: a tampered ciphertext decrypted" % label)
        made = provider.encrypt_oaep(public, message, oid, oaep_label)
        if made == ciphertext or provider.decrypt_oaep(private, made, oid, oaep_label) != message:
            raise SelfCheckFailed("%s: a new ciphertext is wrong" % label)
        if provider.decrypt_oaep(private, made, oid, b"") is not None:
            raise SelfCheckFailed("%s: decrypted with the wrong label" % label)


@checks("rsa-pkcs1v15-encryption", "label key message plaintext", key=rsa_key)
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


@checks("rsa-keygen", "label key hash_oid digest signature", key=rsa_key)
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


@checks("ecdsa", "label d x y hash_oid digest signature")
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


@checks("ecdh", "label d x y shared")
@checks("xdh", "label scalar u shared")
def check_key_agreement(provider: Any, vectors: tuple) -> None:
    """A private key's field, then the public key's fields (a point's x and y, or X25519's u)."""
    for label, private, *public, shared in vectors:
        private_key, public_key = provider.load_private(private), provider.load_public(*public)
        if provider.exchange(private_key, public_key) != shared:
            raise SelfCheckFailed("%s: wrong shared secret" % label)


@checks("eddsa", "label seed public_key message signature")
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
        if provider.verify(public, flip(signature), message):
            raise SelfCheckFailed("%s: a tampered signature was accepted" % label)


@checks("ecc-keygen", "label curve p n b", p=big_integer, n=big_integer)
def check_ecc_keygen(provider: Any, vectors: tuple) -> None:
    """A new key on each curve: d in [1, n), and (x, y) on the curve."""
    for label, curve, p, n, b in vectors:
        d, x, y, _key = provider.generate(curve)
        b = int.from_bytes(b, "big")
        if not 0 < d < n or (y * y - (x * x * x - 3 * x + b)) % p:
            raise SelfCheckFailed("%s: the new key is not on the curve" % label)


@checks("dsa", "label key hash_oid digest signature", key=dsa_key)
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


@checks("dsa-keygen", "label bits p q g", p=big_integer, q=big_integer)
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
