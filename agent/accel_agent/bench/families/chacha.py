"""ChaCha20 rows: ``ChaCha20.new`` / ``ChaCha20_Poly1305.new``, one call, against pyca/cryptography.

Every call builds a new cipher, as most code does (one cipher per message);
``stream`` rows encrypt 1 MiB through one cipher in 64 KiB chunks. The
direct column is what a pyca/cryptography user writes:
``ChaCha20Poly1305(key).encrypt(nonce, data, aad)`` for the AEAD (for
XChaCha20-Poly1305, which pyca/cryptography lacks, the same call after the
HChaCha20 subkey derivation, done with pycryptodome's own function as a user
would), and ``Cipher(algorithms.ChaCha20(key, counter || nonce), None)``
for the stream cipher.
"""

from __future__ import annotations

from Crypto.Cipher import ChaCha20, ChaCha20_Poly1305
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from accel_agent.bench.families import MIB, AeadCipher, Row, chunked, random_bytes

NAME = "chacha"
TITLE = "ChaCha20 and (X)ChaCha20-Poly1305, 256-bit keys; one new cipher per message"

KEY = random_bytes(32)
NONCE_12 = random_bytes(12)
NONCE_8 = random_bytes(8)
NONCE_24 = random_bytes(24)
AAD = random_bytes(16)
COUNTER_0 = bytes(4)


def _chacha20(nonce: bytes):
    # RFC 8439 layout for 12-byte nonces; the original one (64-bit counter) for 8-byte ones.
    iv = (bytes(4) if len(nonce) == 12 else bytes(8)) + nonce

    def build(size: int):
        data = random_bytes(size)
        key = KEY

        def pycryptodome():
            return ChaCha20.new(key=key, nonce=nonce).encrypt(data)

        def direct():
            return Cipher(algorithms.ChaCha20(key, iv), None).encryptor().update(data)

        return pycryptodome, direct

    return build


def _xchacha_key_nonce():
    subkey = bytes(ChaCha20._HChaCha20(KEY, NONCE_24[:16]))
    return subkey, bytes(4) + NONCE_24[16:]


def _aead(nonce: bytes) -> AeadCipher:
    return AeadCipher(lambda: ChaCha20_Poly1305.new(key=KEY, nonce=nonce), header=AAD)


def _aead_enc(nonce: bytes):
    def build(size: int):
        data = random_bytes(size)
        key, aad = KEY, AAD
        if len(nonce) == 24:

            def direct():
                subkey, nonce12 = _xchacha_key_nonce()
                return ChaCha20Poly1305(subkey).encrypt(nonce12, data, aad)

        else:

            def direct():
                return ChaCha20Poly1305(key).encrypt(nonce, data, aad)

        return _aead(nonce).sealing(data), direct

    return build


def _aead_dec(size: int):
    key, nonce, aad = KEY, NONCE_12, AAD
    sealed = ChaCha20Poly1305(key).encrypt(nonce, random_bytes(size), aad)

    def direct():
        return ChaCha20Poly1305(key).decrypt(nonce, sealed, aad)

    return _aead(nonce).opening(sealed[:-16], sealed[-16:]), direct


def _chacha20_stream(size: int):
    chunks = chunked(random_bytes(size))
    key, nonce = KEY, NONCE_12

    def pycryptodome():
        cipher = ChaCha20.new(key=key, nonce=nonce)
        return [cipher.encrypt(chunk) for chunk in chunks]

    def direct():
        encryptor = Cipher(algorithms.ChaCha20(key, COUNTER_0 + nonce), None).encryptor()
        return [encryptor.update(chunk) for chunk in chunks]

    return pycryptodome, direct


def _aead_stream(size: int):
    """pycryptodome streams the AEAD; cryptography's users seal the whole message at once."""
    data = random_bytes(size)
    key, nonce, aad = KEY, NONCE_12, AAD

    def direct():
        return ChaCha20Poly1305(key).encrypt(nonce, data, aad)

    return _aead(nonce).streaming(chunked(data)), direct


ROWS = (
    Row("chacha20", "chacha20", _chacha20(NONCE_12)),
    Row("chacha20 8-byte nonce", "chacha20", _chacha20(NONCE_8)),
    Row("chacha20-poly1305 enc", "chacha20-poly1305", _aead_enc(NONCE_12)),
    Row("chacha20-poly1305 dec", "chacha20-poly1305", _aead_dec),
    Row("xchacha20-poly1305 enc", "xchacha20-poly1305", _aead_enc(NONCE_24)),
    Row("chacha20 stream", "chacha20", _chacha20_stream, sizes=(MIB,)),
    Row("chacha20-poly1305 stream", "chacha20-poly1305", _aead_stream, sizes=(MIB,)),
)
