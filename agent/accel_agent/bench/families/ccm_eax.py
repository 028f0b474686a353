"""AES-CCM and AES-EAX rows: one new pycryptodome cipher per message, 16 bytes of header.

The direct column for CCM is ``AESCCM(key).encrypt(nonce, data, aad)``.
pyca/cryptography has no EAX: its column is EAX written by a cryptography
user from ``CMAC`` and ``CTR`` (three OMACs, one keystream), the same
composition the agent's provider makes. ``stream`` rows send 1 MiB through
one cipher in 64 KiB chunks (CCM with ``msg_len``/``assoc_len`` declared,
which the agent hands to native pycryptodome's CCM over its own OpenSSL
CBC and CTR); their direct column is the one-shot call.
"""

from __future__ import annotations

from hmac import compare_digest

from Crypto.Cipher import AES
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives.cmac import CMAC

from accel_agent.bench.families import MIB, AeadCipher, Row, chunked, random_bytes

NAME = "ccm_eax"
TITLE = "AES-128 CCM and EAX (11/16-byte nonce, 16-byte tag, 16-byte header)"

KEY = random_bytes(16)
NONCE_CCM = random_bytes(11)  # pycryptodome's default length: messages up to 4 GiB
NONCE_EAX = random_bytes(16)
HEADER = random_bytes(16)


def _omac(key: bytes, t: int, data: bytes) -> bytes:
    mac = CMAC(algorithms.AES(key))
    mac.update(bytes(15) + bytes((t,)) + data)
    return mac.finalize()


def _xor(*blocks: bytes) -> bytes:
    value = 0
    for block in blocks:
        value ^= int.from_bytes(block, "big")
    return value.to_bytes(16, "big")


def eax_direct(key: bytes, nonce: bytes, header: bytes, data: bytes, decrypt: bool = False):
    """EAX from cryptography's building blocks: (output, tag)."""
    n = _omac(key, 0, nonce)
    h = _omac(key, 1, header)
    encryptor = Cipher(algorithms.AES(key), modes.CTR(n)).encryptor()
    out = encryptor.update(data) + encryptor.finalize()
    c = _omac(key, 2, data if decrypt else out)
    return out, _xor(n, h, c)


def _ccm(**lengths: int) -> AeadCipher:
    return AeadCipher(AES, KEY, AES.MODE_CCM, nonce=NONCE_CCM, header=HEADER, **lengths)


_EAX = AeadCipher(AES, KEY, AES.MODE_EAX, nonce=NONCE_EAX, header=HEADER)


def _ccm_direct(data: bytes):
    return lambda: AESCCM(KEY).encrypt(NONCE_CCM, data, HEADER)


def _ccm_enc(size: int):
    data = random_bytes(size)
    return _ccm().sealing(data), _ccm_direct(data)


def _ccm_dec(size: int):
    sealed = AESCCM(KEY).encrypt(NONCE_CCM, random_bytes(size), HEADER)
    return _ccm().opening(sealed[:-16], sealed[-16:]), (
        lambda: AESCCM(KEY).decrypt(NONCE_CCM, sealed, HEADER)
    )


def _ccm_stream(size: int):
    data = random_bytes(size)
    declared = _ccm(msg_len=size, assoc_len=len(HEADER))
    return declared.streaming(chunked(data)), _ccm_direct(data)


def _eax_enc(size: int):
    data = random_bytes(size)
    return _EAX.sealing(data), lambda: eax_direct(KEY, NONCE_EAX, HEADER, data)


def _eax_dec(size: int):
    data = random_bytes(size)
    ciphertext, tag = eax_direct(KEY, NONCE_EAX, HEADER, data)

    def direct():
        plaintext, computed = eax_direct(KEY, NONCE_EAX, HEADER, ciphertext, decrypt=True)
        if not compare_digest(computed, tag):  # as a careful direct user would
            raise ValueError("MAC check failed")
        return plaintext

    return _EAX.opening(ciphertext, tag), direct


def _eax_stream(size: int):
    data = random_bytes(size)
    return _EAX.streaming(chunked(data)), lambda: eax_direct(KEY, NONCE_EAX, HEADER, data)


ROWS = (
    Row("ccm enc", "aes-ccm", _ccm_enc),
    Row("ccm dec", "aes-ccm", _ccm_dec),
    Row("ccm stream", "aes-ccm", _ccm_stream, sizes=(MIB,)),
    Row("eax enc", "aes-eax", _eax_enc),
    Row("eax dec", "aes-eax", _eax_dec),
    Row("eax stream", "aes-eax", _eax_stream, sizes=(MIB,)),
)
