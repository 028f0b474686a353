"""python-ecdsa rows: its signing, verification and key generation against
pyca/cryptography.

Each row is one operation with a key made once (as servers hold theirs), on
a 32-byte message hashed with SHA-256 inside the call, in both columns. The
python-ecdsa column is what its users write (``SigningKey.sign``,
``sign_deterministic``, ``VerifyingKey.verify``, ``SigningKey.generate``);
its "native" run is python-ecdsa's pure-Python arithmetic. As in the
``pubkey`` family, randomized results (random-nonce signatures, new keys)
are compared by a fixed-size summary, RFC 6979 signatures by their DER
bytes, verifications by ``b"ok"``.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from ecdsa import NIST192p, NIST256p, NIST384p, SECP256k1, SigningKey
from ecdsa.util import sigencode_der, sigencode_string

from accel_agent.bench.families import Row, by_length, random_bytes, verifying

NAME = "python_ecdsa"
TITLE = (
    "python-ecdsa: one operation with a key made once, 32-byte message, SHA-256; "
    "native = python-ecdsa's own pure-Python code"
)

MESSAGE_SIZE = 32
MESSAGE = random_bytes(MESSAGE_SIZE)
SIZES = (MESSAGE_SIZE,)

# python-ecdsa curve -> pyca/cryptography curve
_CURVES = {
    "P-192": (NIST192p, ec.SECP192R1()),
    "P-256": (NIST256p, ec.SECP256R1()),
    "P-384": (NIST384p, ec.SECP384R1()),
    "secp256k1": (SECP256k1, ec.SECP256K1()),
}
_keys: dict = {}


def key_pair(curve: str):
    """(python-ecdsa SigningKey, the same key in pyca/cryptography), made once per curve."""
    if curve not in _keys:
        ecdsa_curve, direct_curve = _CURVES[curve]
        direct = ec.generate_private_key(direct_curve)
        secret = direct.private_numbers().private_value
        _keys[curve] = (SigningKey.from_secret_exponent(secret, ecdsa_curve), direct)
    return _keys[curve]


def _sign(curve: str):
    def build(size: int):
        key, direct = key_pair(curve)
        algorithm = ec.ECDSA(hashes.SHA256())
        return by_length(  # python-ecdsa's raw encoding: r || s
            lambda: key.sign(MESSAGE, hashfunc=hashlib.sha256),
            lambda: direct.sign(MESSAGE, algorithm),
            2 * key.baselen,
        )

    return build


def _sign_deterministic(curve: str):
    def build(size: int):
        key, direct = key_pair(curve)
        algorithm = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
        return (  # both DER, the same bytes
            lambda: key.sign_deterministic(MESSAGE, hashlib.sha256, sigencode_der),
            lambda: direct.sign(MESSAGE, algorithm),
        )

    return build


def _verify(curve: str):
    def build(size: int):
        key, direct = key_pair(curve)
        public, direct_public = key.verifying_key, direct.public_key()
        algorithm = ec.ECDSA(hashes.SHA256())
        der = direct.sign(MESSAGE, algorithm)
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        raw = sigencode_string(*decode_dss_signature(der), key.curve.order)
        return verifying(
            lambda: public.verify(raw, MESSAGE, hashlib.sha256),
            lambda: direct_public.verify(der, MESSAGE, algorithm),
        )

    return build


def _generate(curve: str):
    def build(size: int):
        ecdsa_curve, direct_curve = _CURVES[curve]

        def python_ecdsa():
            return b"%d" % SigningKey.generate(ecdsa_curve).baselen

        def direct_call():
            ec.generate_private_key(direct_curve)
            return b"%d" % ecdsa_curve.baselen

        return python_ecdsa, direct_call

    return build


ROWS = (
    Row("p256 sign", "ecdsa-p256", _sign("P-256"), SIZES),
    Row("p256 det sign", "ecdsa-p256", _sign_deterministic("P-256"), SIZES),
    Row("p256 verify", "ecdsa-p256", _verify("P-256"), SIZES),
    Row("p384 sign", "ecdsa-p384", _sign("P-384"), SIZES),
    Row("p384 verify", "ecdsa-p384", _verify("P-384"), SIZES),
    Row("p192 sign", "ecdsa-p192", _sign("P-192"), SIZES),
    Row("p192 verify", "ecdsa-p192", _verify("P-192"), SIZES),
    Row("secp256k1 sign", "ecdsa-secp256k1", _sign("secp256k1"), SIZES),
    Row("secp256k1 verify", "ecdsa-secp256k1", _verify("secp256k1"), SIZES),
    Row("p256 keygen", "ecc-keygen", _generate("P-256"), SIZES),
)
