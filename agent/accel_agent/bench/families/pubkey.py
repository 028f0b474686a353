"""Public-key rows: signatures, OAEP and key generation, pycryptodome against pyca/cryptography.

Each row is one operation with a key made once (as servers hold theirs),
on a 32-byte message; the pycryptodome column includes hashing the message
(``SHA256.new(msg)``), since its schemes take a hash object, as the direct
column's ``key.sign(msg, ..., SHA256())`` hashes it too. The direct column
is what a pyca/cryptography user writes.

Outputs must be equal to be compared: deterministic operations (PKCS#1
v1.5, RFC 6979 ECDSA in DER, Ed25519, OAEP decryption) return their bytes;
randomized ones (PSS, ECDSA with a random nonce, OAEP encryption, key
generation) return a fixed-size summary of what they made (its length, or
the key size), and verifications return ``b"ok"``. The keys of the direct
column are built from the same numbers as pycryptodome's.
"""

from __future__ import annotations

import warnings

from Crypto.Cipher import PKCS1_OAEP
from Crypto.Hash import SHA256
from Crypto.PublicKey import DSA, ECC, RSA
from Crypto.Signature import DSS, eddsa, pkcs1_15, pss
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, padding, rsa
from cryptography.utils import CryptographyDeprecationWarning

from accel_agent.bench.families import Row, by_length, random_bytes, verifying

NAME = "pubkey"
TITLE = (
    "Public keys: one operation with a key made once, 32-byte message, SHA-256; "
    "ops per second = 1 / time"
)

MESSAGE_SIZE = 32  # not a standard size: the rows run whatever --sizes says
MESSAGE = random_bytes(MESSAGE_SIZE)

_rsa_keys: dict = {}
_ecc_keys: dict = {}

# pyca/cryptography 51 deprecates DSA: the direct column's DSA keys (made
# here) would print its warning in the middle of the tables.
warnings.filterwarnings(
    "ignore",
    category=CryptographyDeprecationWarning,
    module=r"accel_agent\.bench\.families\.pubkey",
)


def rsa_pair(bits: int):
    """(pycryptodome key, the same key in pyca/cryptography), made once per size."""
    if bits not in _rsa_keys:
        direct = rsa.generate_private_key(public_exponent=65537, key_size=bits)
        numbers = direct.private_numbers()
        key = RSA.construct(
            (numbers.public_numbers.n, numbers.public_numbers.e, numbers.d, numbers.p, numbers.q)
        )
        _rsa_keys[bits] = (key, direct)
    return _rsa_keys[bits]


_CURVES = {"P-256": ec.SECP256R1(), "P-384": ec.SECP384R1()}


def ecc_pair(curve: str):
    if curve not in _ecc_keys:
        direct = ec.generate_private_key(_CURVES[curve])
        key = ECC.construct(curve=curve, d=direct.private_numbers().private_value)
        key.pointQ  # computed once, as an imported key has it  # noqa: B018
        _ecc_keys[curve] = (key, direct)
    return _ecc_keys[curve]


def ed25519_pair():
    if "Ed25519" not in _ecc_keys:
        seed = random_bytes(32)
        _ecc_keys["Ed25519"] = (
            ECC.construct(curve="Ed25519", seed=seed),
            ed25519.Ed25519PrivateKey.from_private_bytes(seed),
        )
    return _ecc_keys["Ed25519"]


def _length(data: bytes) -> bytes:
    return b"%d" % len(data)


# --------------------------------------------------------------------------- RSA signatures


def _pss_padding():
    return padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)


def _same(signature: bytes) -> bytes:
    return signature


# Per scheme: pycryptodome's module, cryptography's padding, and what a
# signature row compares (PKCS#1 v1.5 is deterministic: its bytes; PSS is
# randomized: its length).
_RSA_SCHEMES = {
    "pkcs1": (pkcs1_15, padding.PKCS1v15, _same),
    "pss": (pss, _pss_padding, _length),
}


def _rsa_sign(scheme: str, bits: int):
    module, new_padding, summary = _RSA_SCHEMES[scheme]

    def build(size: int):
        key, direct = rsa_pair(bits)

        def pycryptodome():
            return summary(module.new(key).sign(SHA256.new(MESSAGE)))

        def direct_call():
            return summary(direct.sign(MESSAGE, new_padding(), hashes.SHA256()))

        return pycryptodome, direct_call

    return build


def _rsa_verify(scheme: str, bits: int):
    module, new_padding, _summary = _RSA_SCHEMES[scheme]

    def build(size: int):
        key, direct = rsa_pair(bits)
        public, direct_public = key.public_key(), direct.public_key()
        signature = direct.sign(MESSAGE, new_padding(), hashes.SHA256())
        return verifying(
            lambda: module.new(public).verify(SHA256.new(MESSAGE), signature),
            lambda: direct_public.verify(signature, MESSAGE, new_padding(), hashes.SHA256()),
        )

    return build


# --------------------------------------------------------------------------- ECDSA, Ed25519


def _ecdsa_sign(curve: str):
    def build(size: int):
        key, direct = ecc_pair(curve)
        algorithm = ec.ECDSA(hashes.SHA256())
        return by_length(  # P1363: r || s
            lambda: DSS.new(key, "fips-186-3").sign(SHA256.new(MESSAGE)),
            lambda: direct.sign(MESSAGE, algorithm),
            2 * key.pointQ.size_in_bytes(),
        )

    return build


def _decode(signature: bytes):
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    return decode_dss_signature(signature)


def _ecdsa_deterministic(curve: str):
    def build(size: int):
        key, direct = ecc_pair(curve)
        algorithm = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
        return (  # both DER, the same bytes
            lambda: DSS.new(key, "deterministic-rfc6979", "der").sign(SHA256.new(MESSAGE)),
            lambda: direct.sign(MESSAGE, algorithm),
        )

    return build


def _ecdsa_verify(curve: str):
    def build(size: int):
        key, direct = ecc_pair(curve)
        public, direct_public = key.public_key(), direct.public_key()
        algorithm = ec.ECDSA(hashes.SHA256())
        der = direct.sign(MESSAGE, algorithm)
        r, s = _decode(der)
        width = key.pointQ.size_in_bytes()
        binary = r.to_bytes(width, "big") + s.to_bytes(width, "big")
        return verifying(
            lambda: DSS.new(public, "fips-186-3").verify(SHA256.new(MESSAGE), binary),
            lambda: direct_public.verify(der, MESSAGE, algorithm),
        )

    return build


def _ed25519_sign(size: int):
    key, direct = ed25519_pair()

    def pycryptodome():
        return eddsa.new(key, "rfc8032").sign(MESSAGE)

    def direct_call():
        return direct.sign(MESSAGE)

    return pycryptodome, direct_call


def _ed25519_verify(size: int):
    key, direct = ed25519_pair()
    public, direct_public = key.public_key(), direct.public_key()
    signature = direct.sign(MESSAGE)
    public.pointQ  # noqa: B018 - computed once, as an imported key has it
    return verifying(
        lambda: eddsa.new(public, "rfc8032").verify(MESSAGE, signature),
        lambda: direct_public.verify(signature, MESSAGE),
    )


# --------------------------------------------------------------------------- OAEP


def _oaep():
    return padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def _oaep_encrypt(size: int):
    key, direct = rsa_pair(2048)
    public, direct_public = key.public_key(), direct.public_key()

    def pycryptodome():
        return _length(PKCS1_OAEP.new(public, hashAlgo=SHA256).encrypt(MESSAGE))

    def direct_call():
        return _length(direct_public.encrypt(MESSAGE, _oaep()))

    return pycryptodome, direct_call


def _oaep_decrypt(size: int):
    key, direct = rsa_pair(2048)
    ciphertext = direct.public_key().encrypt(MESSAGE, _oaep())

    def pycryptodome():
        return PKCS1_OAEP.new(key, hashAlgo=SHA256).decrypt(ciphertext)

    def direct_call():
        return direct.decrypt(ciphertext, _oaep())

    return pycryptodome, direct_call


# --------------------------------------------------------------------------- key generation


def _rsa_generate(bits: int):
    def build(size: int):
        def pycryptodome():
            return b"%d" % RSA.generate(bits).size_in_bits()

        def direct_call():
            return b"%d" % rsa.generate_private_key(65537, bits).key_size

        return pycryptodome, direct_call

    return build


def _ecc_generate(size: int):
    def pycryptodome():
        return ECC.generate(curve="P-256").curve.encode()

    def direct_call():
        ec.generate_private_key(ec.SECP256R1())
        return b"NIST P-256"

    return pycryptodome, direct_call


def _ephemeral_ecdh(size: int):
    """An ephemeral P-256 key and one key agreement with a peer's static key (ECDH-E)."""
    from Crypto.Protocol.DH import key_agreement

    peer, direct_peer = ecc_pair("P-256")
    peer_public, direct_peer_public = peer.public_key(), direct_peer.public_key()
    ecdh = ec.ECDH()

    def pycryptodome():
        ephemeral = ECC.generate(curve="P-256")
        return _length(key_agreement(eph_priv=ephemeral, static_pub=peer_public, kdf=bytes))

    def direct_call():
        ephemeral = ec.generate_private_key(ec.SECP256R1())
        return _length(ephemeral.exchange(ecdh, direct_peer_public))

    return pycryptodome, direct_call


# --------------------------------------------------------------------------- DSA

_dsa_keys: dict = {}


def dsa_pair(bits: int):
    """(pycryptodome DSA key, the same key in pyca/cryptography), made once per size."""
    if bits not in _dsa_keys:
        direct = dsa.generate_private_key(bits)
        numbers = direct.private_numbers()
        public = numbers.public_numbers
        domain = public.parameter_numbers
        key = DSA.construct((public.y, domain.g, domain.p, domain.q, numbers.x))
        _dsa_keys[bits] = (key, direct)
    return _dsa_keys[bits]


def _dsa_sign(mode: str, bits: int):
    """``mode`` "deterministic-rfc6979" is native by choice under the agent; the
    direct column signs with a random nonce (pyca/cryptography has no
    deterministic DSA), the nearest thing it has."""

    def build(size: int):
        key, direct = dsa_pair(bits)
        return by_length(  # binary: r || s
            lambda: DSS.new(key, mode).sign(SHA256.new(MESSAGE)),
            lambda: direct.sign(MESSAGE, hashes.SHA256()),
            2 * ((key.q.bit_length() + 7) // 8),
        )

    return build


def _dsa_verify(bits: int):
    def build(size: int):
        key, direct = dsa_pair(bits)
        public, direct_public = key.public_key(), direct.public_key()
        signature = direct.sign(MESSAGE, hashes.SHA256())
        return verifying(
            lambda: DSS.new(public, "fips-186-3", "der").verify(SHA256.new(MESSAGE), signature),
            lambda: direct_public.verify(signature, MESSAGE, hashes.SHA256()),
        )

    return build


def _dsa_generate(size: int):
    def pycryptodome():
        return b"%d" % int(DSA.generate(1024).p).bit_length()

    def direct_call():
        dsa.generate_private_key(1024)
        return b"1024"

    return pycryptodome, direct_call


SIZES = (MESSAGE_SIZE,)

ROWS = (
    Row("rsa2048 pkcs1 sign", "rsa-pkcs1v15-sign", _rsa_sign("pkcs1", 2048), SIZES),
    Row("rsa2048 pkcs1 verify", "rsa-pkcs1v15-sign", _rsa_verify("pkcs1", 2048), SIZES),
    Row("rsa3072 pkcs1 sign", "rsa-pkcs1v15-sign", _rsa_sign("pkcs1", 3072), SIZES),
    Row("rsa3072 pkcs1 verify", "rsa-pkcs1v15-sign", _rsa_verify("pkcs1", 3072), SIZES),
    Row("rsa2048 pss sign", "rsa-pss", _rsa_sign("pss", 2048), SIZES),
    Row("rsa2048 pss verify", "rsa-pss", _rsa_verify("pss", 2048), SIZES),
    Row("rsa3072 pss sign", "rsa-pss", _rsa_sign("pss", 3072), SIZES),
    Row("rsa3072 pss verify", "rsa-pss", _rsa_verify("pss", 3072), SIZES),
    Row("p256 ecdsa sign", "ecdsa-p256", _ecdsa_sign("P-256"), SIZES),
    Row("p256 ecdsa det sign", "ecdsa-p256", _ecdsa_deterministic("P-256"), SIZES),
    Row("p256 ecdsa verify", "ecdsa-p256", _ecdsa_verify("P-256"), SIZES),
    Row("p384 ecdsa sign", "ecdsa-p384", _ecdsa_sign("P-384"), SIZES),
    Row("p384 ecdsa verify", "ecdsa-p384", _ecdsa_verify("P-384"), SIZES),
    Row("ed25519 sign", "ed25519", _ed25519_sign, SIZES),
    Row("ed25519 verify", "ed25519", _ed25519_verify, SIZES),
    Row("rsa2048 oaep enc", "rsa-oaep", _oaep_encrypt, SIZES),
    Row("rsa2048 oaep dec", "rsa-oaep", _oaep_decrypt, SIZES),
    Row("rsa2048 keygen", "rsa-keygen", _rsa_generate(2048), SIZES),
    Row("p256 keygen", "ecc-keygen", _ecc_generate, SIZES),
    Row("p256 ephemeral ecdh", "ecdh-p256", _ephemeral_ecdh, SIZES),
    Row("dsa2048 sign", "dsa", _dsa_sign("fips-186-3", 2048), SIZES),
    Row("dsa2048 det sign", "dsa", _dsa_sign("deterministic-rfc6979", 2048), SIZES),
    Row("dsa2048 verify", "dsa", _dsa_verify(2048), SIZES),
    Row("dsa1024 keygen", "dsa-keygen", _dsa_generate, SIZES),
)
