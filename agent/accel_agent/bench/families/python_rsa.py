"""python-rsa rows: python-rsa natively, under the agent, and pyca/cryptography.

Each row is one operation with a key made once, on a 32-byte message with
SHA-256. The library column calls python-rsa through the package namespace
at call time (``rsa.sign(...)``), as its users do, so the agent's patches
are seen. Signatures are deterministic and compared byte for byte;
verification returns ``b"ok"``; encryption and key generation are
randomized and return a summary (the ciphertext's length, the key's size).
``decrypt`` stays native under the agent (OpenSSL's implicit rejection,
docs/compatibility-python-rsa.md): its row shows it. Key generation is
timed at 1024 bits, where python-rsa's own search takes about a second
(2048 bits: many seconds, too long for a benchmark's repetitions).
"""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric import rsa as crsa

from accel_agent.bench.families import Row, random_bytes, verifying

try:
    import rsa
except ImportError:  # the rows need python-rsa (make test's extras install it)
    rsa = None

NAME = "python_rsa"
TITLE = (
    "python-rsa: one operation with a key made once, 32-byte message, SHA-256; "
    "ops per second = 1 / time"
)

MESSAGE_SIZE = 32
MESSAGE = random_bytes(MESSAGE_SIZE)
SIZES = (MESSAGE_SIZE,)

_pairs: dict = {}


def key_pair(bits: int):
    """((python-rsa public, private), the same key in pyca/cryptography), made once."""
    if bits not in _pairs:
        direct = crsa.generate_private_key(public_exponent=65537, key_size=bits)
        numbers = direct.private_numbers()
        n, e = numbers.public_numbers.n, numbers.public_numbers.e
        p, q = max(numbers.p, numbers.q), min(numbers.p, numbers.q)
        d = pow(e, -1, (p - 1) * (q - 1))  # python-rsa's d
        _pairs[bits] = ((rsa.PublicKey(n, e), rsa.PrivateKey(n, e, d, p, q)), direct)
    return _pairs[bits]


def _sign(bits: int):
    def build(size: int):
        (_public, private), direct = key_pair(bits)

        def library():
            return rsa.sign(MESSAGE, private, "SHA-256")

        def direct_call():
            return direct.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())

        return library, direct_call

    return build


def _verify(bits: int):
    def build(size: int):
        (public, _private), direct = key_pair(bits)
        direct_public = direct.public_key()
        signature = direct.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())

        return verifying(
            lambda: rsa.verify(MESSAGE, signature, public),
            lambda: direct_public.verify(signature, MESSAGE, padding.PKCS1v15(), hashes.SHA256()),
            valid="SHA-256",
        )

    return build


def _encrypt(bits: int):
    def build(size: int):
        (public, _private), direct = key_pair(bits)
        direct_public = direct.public_key()

        def library():
            return b"%d" % len(rsa.encrypt(MESSAGE, public))

        def direct_call():
            return b"%d" % len(direct_public.encrypt(MESSAGE, padding.PKCS1v15()))

        return library, direct_call

    return build


def _decrypt(bits: int):
    def build(size: int):
        (public, private), direct = key_pair(bits)
        ciphertext = direct.public_key().encrypt(MESSAGE, padding.PKCS1v15())

        def library():
            return rsa.decrypt(ciphertext, private)

        def direct_call():
            return direct.decrypt(ciphertext, padding.PKCS1v15())

        return library, direct_call

    return build


def _newkeys(bits: int):
    def build(size: int):
        def library():
            return b"%d" % rsa.newkeys(bits)[1].n.bit_length()

        def direct_call():
            return b"%d" % crsa.generate_private_key(65537, bits).key_size

        return library, direct_call

    return build


ROWS = (
    ()
    if rsa is None
    else (
        Row("rsa2048 sign", "rsa-pkcs1v15-sign", _sign(2048), SIZES),
        Row("rsa2048 verify", "rsa-pkcs1v15-sign", _verify(2048), SIZES),
        Row("rsa2048 encrypt", "rsa-pkcs1v15-encrypt", _encrypt(2048), SIZES),
        Row("rsa2048 decrypt", "rsa-pkcs1v15-encrypt", _decrypt(2048), SIZES),
        Row("rsa4096 sign", "rsa-pkcs1v15-sign", _sign(4096), SIZES),
        Row("rsa1024 newkeys", "rsa-keygen", _newkeys(1024), SIZES),
    )
)
