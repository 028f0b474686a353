"""starkbank-ecdsa rows: its signing and verification against pyca/cryptography.

Each row is one operation with a key made once (as servers hold theirs), on
a 32-character message hashed with SHA-256 inside the call, in both
columns. The starkbank-ecdsa column is what its users write
(``Ecdsa.sign(message, privateKey)``, ``Ecdsa.verify(message, signature,
publicKey)``); its "native" run is the library's pure-Python arithmetic.
Its signatures are hedged (random), so a signature is compared by a
fixed-size summary (its recovery id's digit), a verification by ``b"ok"``.
A sign row times ``Ecdsa.sign`` alone: an encoding (``toDer``, about 7 us
of the library's own code on both sides) is not part of it. On secp256k1 signing stays
native by choice (OpenSSL's point multiplication on that curve is not
faster here): its row shows it.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from ellipticcurve import Ecdsa, PrivateKey, Signature
from ellipticcurve import curve as curves

from accel_agent.bench.families import Row, by_length, random_bytes, verifying

NAME = "starkbank_ecdsa"
TITLE = (
    "starkbank-ecdsa: one operation with a key made once, 32-character message, SHA-256; "
    "native = starkbank-ecdsa's own pure-Python code"
)

MESSAGE_SIZE = 32
MESSAGE = random_bytes(MESSAGE_SIZE).hex()[:MESSAGE_SIZE]
SIZES = (MESSAGE_SIZE,)

# starkbank-ecdsa curve -> pyca/cryptography curve
_CURVES = {
    "secp256k1": (curves.secp256k1, ec.SECP256K1()),
    "prime256v1": (curves.prime256v1, ec.SECP256R1()),
}
_keys: dict = {}


def key_pair(curve: str):
    """(starkbank-ecdsa PrivateKey, its PublicKey, the same key in pyca/cryptography)."""
    if curve not in _keys:
        stark_curve, direct_curve = _CURVES[curve]
        direct = ec.generate_private_key(direct_curve)
        private = PrivateKey(curve=stark_curve, secret=direct.private_numbers().private_value)
        _keys[curve] = (private, private.publicKey(), direct)
    return _keys[curve]


def _sign(curve: str):
    def build(size: int):
        private, _public, direct = key_pair(curve)
        algorithm = ec.ECDSA(hashes.SHA256())
        data = MESSAGE.encode()
        return by_length(  # one digit: the recovery id (0-3), whatever the signature
            lambda: b"%d" % Ecdsa.sign(MESSAGE, private).recoveryId,
            lambda: direct.sign(data, algorithm),
            1,
        )

    return build


def _verify(curve: str):
    def build(size: int):
        _private, public, direct = key_pair(curve)
        algorithm = ec.ECDSA(hashes.SHA256())
        data = MESSAGE.encode()
        der = direct.sign(data, algorithm)
        signature = Signature.fromDer(der)
        direct_public = direct.public_key()
        return verifying(
            lambda: Ecdsa.verify(MESSAGE, signature, public),
            lambda: direct_public.verify(der, data, algorithm),
            valid=True,
        )

    return build


# (starkbank-ecdsa curve, the rows' label, the agent's primitive): a sign and a verify row each
_ROW_CURVES = (
    ("prime256v1", "p256", "ecdsa-p256"),
    ("secp256k1", "secp256k1", "ecdsa-secp256k1"),
)

ROWS = tuple(
    Row("%s %s" % (label, operation), primitive, make(curve), SIZES)
    for curve, label, primitive in _ROW_CURVES
    for operation, make in (("sign", _sign), ("verify", _verify))
)
