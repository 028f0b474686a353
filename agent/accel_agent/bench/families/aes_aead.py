"""AES's AEAD modes: CCM, EAX, OCB3 and SIV, one new pycryptodome cipher per message.

AES-128 keys (SIV: a 256-bit key, two AES-128 keys) and 16 bytes of
associated data (SIV: one component plus a 16-byte nonce). The direct
column is what a pyca/cryptography user writes:
``AESCCM(key).encrypt(nonce, data, aad)``, ``AESOCB3(key).encrypt(nonce,
data, aad)``, ``AESSIV(key).encrypt(data, [aad, nonce])``. pyca/cryptography
has no EAX: its column is EAX written by a cryptography user from ``CMAC``
and ``CTR`` (three OMACs, one keystream), the same composition the agent's
provider makes. ``stream`` rows send 1 MiB through one cipher in 64 KiB
chunks (CCM with ``msg_len``/``assoc_len`` declared, which the agent hands
to native pycryptodome's CCM over its own OpenSSL CBC and CTR); their
direct column is the one-shot call.
"""

from __future__ import annotations

from hmac import compare_digest

from Crypto.Cipher import AES
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESOCB3, AESSIV
from cryptography.hazmat.primitives.cmac import CMAC

from accel_agent.bench.families import MIB, AeadCipher, Row, chunked, random_bytes

NAME = "aes_aead"
TITLE = "AES CCM, EAX, OCB3 (AES-128) and SIV (2x AES-128); 16-byte tag and header"

KEY = random_bytes(16)
NONCE_CCM = random_bytes(11)  # pycryptodome's default length: messages up to 4 GiB
NONCE_EAX = random_bytes(16)
HEADER = random_bytes(16)
KEY_SIV = random_bytes(32)
NONCE_OCB = random_bytes(12)
NONCE_SIV = random_bytes(16)


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
    if lengths:  # a declared message: the streaming row
        return AeadCipher(
            lambda: AES.new(KEY, AES.MODE_CCM, nonce=NONCE_CCM, **lengths), header=HEADER
        )
    return AeadCipher(lambda: AES.new(KEY, AES.MODE_CCM, nonce=NONCE_CCM), header=HEADER)


_EAX = AeadCipher(lambda: AES.new(KEY, AES.MODE_EAX, nonce=NONCE_EAX), header=HEADER)


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


_OCB = AeadCipher(lambda: AES.new(KEY, AES.MODE_OCB, nonce=NONCE_OCB), header=HEADER)
_SIV = AeadCipher(lambda: AES.new(KEY_SIV, AES.MODE_SIV, nonce=NONCE_SIV), header=HEADER)


def _ocb_enc(size: int):
    data = random_bytes(size)
    return _OCB.sealing(data), lambda: AESOCB3(KEY).encrypt(NONCE_OCB, data, HEADER)


def _ocb_dec(size: int):
    sealed = AESOCB3(KEY).encrypt(NONCE_OCB, random_bytes(size), HEADER)
    return _OCB.opening(sealed[:-16], sealed[-16:]), (
        lambda: AESOCB3(KEY).decrypt(NONCE_OCB, sealed, HEADER)
    )


def _siv_enc(size: int):
    data = random_bytes(size)

    def pycryptodome():
        cipher = AES.new(KEY_SIV, AES.MODE_SIV, nonce=NONCE_SIV)
        cipher.update(HEADER)
        ciphertext, tag = cipher.encrypt_and_digest(data)
        return tag, ciphertext  # AESSIV's layout: tag || ciphertext

    return pycryptodome, lambda: AESSIV(KEY_SIV).encrypt(data, [HEADER, NONCE_SIV])


def _siv_dec(size: int):
    sealed = AESSIV(KEY_SIV).encrypt(random_bytes(size), [HEADER, NONCE_SIV])
    return _SIV.opening(sealed[16:], sealed[:16]), (
        lambda: AESSIV(KEY_SIV).decrypt(sealed, [HEADER, NONCE_SIV])
    )


ROWS = (
    Row("ccm enc", "aes-ccm", _ccm_enc),
    Row("ccm dec", "aes-ccm", _ccm_dec),
    Row("ccm stream", "aes-ccm", _ccm_stream, sizes=(MIB,)),
    Row("eax enc", "aes-eax", _eax_enc),
    Row("eax dec", "aes-eax", _eax_dec),
    Row("eax stream", "aes-eax", _eax_stream, sizes=(MIB,)),
    Row("ocb enc", "aes-ocb", _ocb_enc),
    Row("ocb dec", "aes-ocb", _ocb_dec),
    Row("siv enc", "aes-siv", _siv_enc),
    Row("siv dec", "aes-siv", _siv_dec),
)
