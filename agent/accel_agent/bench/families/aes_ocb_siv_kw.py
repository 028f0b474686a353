"""AES-OCB, AES-SIV and AES key wrap rows: pycryptodome's ``AES.new`` then one call.

One new cipher per message, 128-bit AES keys (SIV: a 256-bit key, two
AES-128 keys), 16 bytes of associated data for OCB and SIV (SIV: one
component plus a 16-byte nonce). The direct column is what a
pyca/cryptography user writes: ``AESOCB3(key).encrypt(nonce, data, aad)``,
``AESSIV(key).encrypt(data, [aad, nonce])``, ``aes_key_wrap(key, data)``.
Key wrap rows stop at 16 KiB: natively a 1 MiB wrap is 786,432 AES calls
in a Python loop, seconds per call (docs/performance.md gives one timing).
"""

from __future__ import annotations

from Crypto.Cipher import AES
from cryptography.hazmat.primitives import keywrap
from cryptography.hazmat.primitives.ciphers.aead import AESOCB3, AESSIV

from accel_agent.bench.families import KIB, AeadCipher, Row, random_bytes

NAME = "aes_ocb_siv_kw"
TITLE = "AES-OCB3, AES-SIV, AES-KW/KWP (AES-128); one new cipher per message"
KEY_WRAP_SIZES = (64, KIB, 16 * KIB)  # natively, larger ones take seconds per call

KEY_128 = random_bytes(16)
KEY_SIV = random_bytes(32)
NONCE_OCB = random_bytes(12)
NONCE_SIV = random_bytes(16)
AAD = random_bytes(16)


_OCB = AeadCipher(AES, KEY_128, AES.MODE_OCB, nonce=NONCE_OCB, header=AAD)
_SIV = AeadCipher(AES, KEY_SIV, AES.MODE_SIV, nonce=NONCE_SIV, header=AAD)


def _ocb_enc(size: int):
    data = random_bytes(size)
    return _OCB.sealing(data), lambda: AESOCB3(KEY_128).encrypt(NONCE_OCB, data, AAD)


def _ocb_dec(size: int):
    sealed = AESOCB3(KEY_128).encrypt(NONCE_OCB, random_bytes(size), AAD)
    return _OCB.opening(sealed[:-16], sealed[-16:]), (
        lambda: AESOCB3(KEY_128).decrypt(NONCE_OCB, sealed, AAD)
    )


def _siv_enc(size: int):
    data = random_bytes(size)

    def pycryptodome():
        cipher = AES.new(KEY_SIV, AES.MODE_SIV, nonce=NONCE_SIV)
        cipher.update(AAD)
        ciphertext, tag = cipher.encrypt_and_digest(data)
        return tag, ciphertext  # AESSIV's layout: tag || ciphertext

    return pycryptodome, lambda: AESSIV(KEY_SIV).encrypt(data, [AAD, NONCE_SIV])


def _siv_dec(size: int):
    sealed = AESSIV(KEY_SIV).encrypt(random_bytes(size), [AAD, NONCE_SIV])
    return _SIV.opening(sealed[16:], sealed[:16]), (
        lambda: AESSIV(KEY_SIV).decrypt(sealed, [AAD, NONCE_SIV])
    )


def _wrap(padded: bool, seal: bool):
    mode_name = "MODE_KWP" if padded else "MODE_KW"
    wrap = keywrap.aes_key_wrap_with_padding if padded else keywrap.aes_key_wrap
    unwrap = keywrap.aes_key_unwrap_with_padding if padded else keywrap.aes_key_unwrap

    def build(size: int):
        data = random_bytes(size)
        wrapped = wrap(KEY_128, data)
        mode = getattr(AES, mode_name)

        if seal:

            def pycryptodome():
                return AES.new(KEY_128, mode).seal(data)

            def direct():
                return wrap(KEY_128, data)

        else:

            def pycryptodome():
                return AES.new(KEY_128, mode).unseal(wrapped)

            def direct():
                return unwrap(KEY_128, wrapped)

        return pycryptodome, direct

    return build


ROWS = (
    Row("ocb enc", "aes-ocb", _ocb_enc),
    Row("ocb dec", "aes-ocb", _ocb_dec),
    Row("siv enc", "aes-siv", _siv_enc),
    Row("siv dec", "aes-siv", _siv_dec),
) + (
    (
        Row("kw seal", "aes-kw", _wrap(False, True), sizes=KEY_WRAP_SIZES),
        Row("kw unseal", "aes-kw", _wrap(False, False), sizes=KEY_WRAP_SIZES),
        Row("kwp seal", "aes-kwp", _wrap(True, True), sizes=KEY_WRAP_SIZES),
        Row("kwp unseal", "aes-kwp", _wrap(True, False), sizes=KEY_WRAP_SIZES),
    )
    if hasattr(AES, "MODE_KW")  # pycryptodome 4.x
    else ()
)
