"""AES rows: pycryptodome's ``AES.new(key, mode, ...)`` then one call, against pyca/cryptography.

Every call builds a new cipher, as most code does (one cipher per message);
``stream`` rows encrypt 1 MiB through one cipher in 64 KiB chunks, the way
file and socket code does. Keys are 128-bit except ``gcm-256 enc``.
The GCM rows pass the same key object with every message, as code that
loads its key once does; the agent then reuses OpenSSL's expanded key
(setting ``key_reuse``, docs/security.md). ``gcm key-copy enc`` makes a
new key object (same value) for every message on both sides, so every
message expands its key, as with ``ACCEL_AGENT_KEY_REUSE=off``: the cost
without reuse.
``gcm enc header`` and ``gcm dec header`` give a 16-byte header first
(``update(header)``), as the other AEAD rows (aes_aead) do and as most
protocols do; the direct side passes it as ``associated_data``.
``gcm enc into`` and ``ctr into`` encrypt into a buffer allocated
once (pycryptodome's ``output=``; ``AESGCM.encrypt_into`` and
``update_into`` directly), as code does that avoids an allocation per
message: the allocation of fresh memory costs wall time the CPU clock
hides.
The direct column is what a pyca/cryptography user writes:
``AESGCM(key).encrypt(nonce, data, None)`` for GCM, and
``Cipher(algorithms.AES(key), modes.X(iv)).encryptor()`` then
``update(data) + finalize()`` for the other modes. The ``ctr little-endian``,
``ctr suffix`` and ``ctr near wrap`` rows have counters OpenSSL's CTR cannot
follow, and so no direct column; nor do ``cfb64 dec`` and ``cfb16 dec``
(CFB segment sizes OpenSSL lacks).
"""

from __future__ import annotations

from Crypto.Cipher import AES
from Crypto.Util import Counter
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from accel_agent.bench.families import (
    MIB,
    AeadCipher,
    Row,
    aes_encrypting,
    chunked,
    random_bytes,
)

try:  # cryptography 43+: CFB, CFB8 and OFB live in "decrepit" (the old names warn)
    from cryptography.hazmat.decrepit.ciphers.modes import CFB, CFB8, OFB
except ImportError:
    CFB, CFB8, OFB = modes.CFB, modes.CFB8, modes.OFB

NAME = "aes"
TITLE = "AES-128 (gcm-256: 256-bit key); one new cipher per message"

BLOCK = 16

KEY_128 = random_bytes(16)
KEY_256 = random_bytes(32)
IV = random_bytes(16)
NONCE_GCM = random_bytes(12)
HEADER = random_bytes(16)
NONCE_CTR = random_bytes(8)  # pycryptodome's default CTR layout: 8-byte nonce, 8-byte counter
COUNTER_BLOCK = NONCE_CTR + bytes(8)  # the same first counter block, for cryptography


def _ecb_block_reused(size: int):
    """One block through one ECB object kept across calls (AES-KDF's million rounds).

    The object is made once per ``AES.new`` in force (native or the agent's:
    the bench switches between samples), found by the same dictionary lookup
    in both columns, so both pay it alike.
    """
    block = random_bytes(BLOCK)
    key = KEY_128
    made: dict = {}

    def pycryptodome():
        new = AES.new
        cipher = made.get(new)
        if cipher is None:
            cipher = made[new] = new(key, AES.MODE_ECB)
        return cipher.encrypt(block)

    def direct():
        cipher = made.get(Cipher)
        if cipher is None:
            cipher = made[Cipher] = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        return cipher.update(block)

    return pycryptodome, direct


def _ecb(size: int):
    data = random_bytes(size)
    key = KEY_128

    def pycryptodome():
        return AES.new(key, AES.MODE_ECB).encrypt(data)

    def direct():
        return Cipher(algorithms.AES(key), modes.ECB()).encryptor().update(data)

    return pycryptodome, direct


def _cbc_dec(size: int):
    key, iv = KEY_128, IV
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(random_bytes(size)) + encryptor.finalize()

    def pycryptodome():
        return AES.new(key, AES.MODE_CBC, iv=iv).decrypt(ciphertext)

    def direct():
        decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
        return decryptor.update(ciphertext) + decryptor.finalize()

    return pycryptodome, direct


def _ctr_counter(nbits: int, prefix: bytes, suffix: bytes, initial_value: int, little_endian: bool):
    """CTR with a ``Counter.new`` OpenSSL's CTR cannot follow: no direct variant exists."""

    def build(size: int):
        data = random_bytes(size)
        key = KEY_128
        counter = Counter.new(
            nbits,
            prefix=prefix,
            suffix=suffix,
            initial_value=initial_value,
            little_endian=little_endian,
        )

        def pycryptodome():
            return AES.new(key, AES.MODE_CTR, counter=counter).encrypt(data)

        return pycryptodome, None

    return build


def _ctr_near_wrap(size: int):
    """A 4-byte big-endian field two blocks before its wrap (OpenSSL would carry into the nonce)."""
    data = random_bytes(size)
    key, nonce = KEY_128, random_bytes(12)

    def pycryptodome():
        return AES.new(key, AES.MODE_CTR, nonce=nonce, initial_value=2**32 - 2).encrypt(data)

    return pycryptodome, None


def _cfb_segments_dec(segment_size: int):
    """CFB decryption with a segment size OpenSSL lacks: no direct variant exists."""

    def build(size: int):
        key, iv = KEY_128, IV
        data = random_bytes(size - size % (segment_size // 8))
        ciphertext = AES.new(key, AES.MODE_CFB, iv=iv, segment_size=segment_size).encrypt(data)

        def pycryptodome():
            return AES.new(key, AES.MODE_CFB, iv=iv, segment_size=segment_size).decrypt(ciphertext)

        return pycryptodome, None

    return build


def _gcm_enc(key: bytes):
    def build(size: int):
        data = random_bytes(size)
        nonce = NONCE_GCM

        def pycryptodome():
            return AES.new(key, AES.MODE_GCM, nonce=nonce).encrypt_and_digest(data)

        def direct():
            return AESGCM(key).encrypt(nonce, data, None)

        return pycryptodome, direct

    return build


def _gcm_enc_into(size: int):
    """Into a preallocated buffer (``output=``), as code avoiding an allocation per message does.

    pycryptodome returns ``(None, tag)``, the direct side ``encrypt_into``'s
    ``ct || tag`` in its own buffer; both callables hand back a view of
    their buffer so the outputs compare.
    """
    key, nonce, data = KEY_128, NONCE_GCM, random_bytes(size)
    out, sealed = bytearray(size), bytearray(size + 16)
    view = memoryview(out)
    aesgcm = AESGCM(key)

    def pycryptodome():
        _, tag = AES.new(key, AES.MODE_GCM, nonce=nonce).encrypt_and_digest(data, output=out)
        return view, tag

    def direct():
        aesgcm.encrypt_into(nonce, data, None, sealed)
        return sealed

    return pycryptodome, direct


def _ctr_into(size: int):
    """CTR into a preallocated buffer: ``encrypt(data, output=buf)`` against ``update_into``."""
    key, nonce, counter_block, data = KEY_128, NONCE_CTR, COUNTER_BLOCK, random_bytes(size)
    out, room = bytearray(size), bytearray(size + BLOCK - 1)  # update_into wants the slack
    view, direct_view = memoryview(out), memoryview(room)[:size]

    def pycryptodome():
        AES.new(key, AES.MODE_CTR, nonce=nonce).encrypt(data, output=out)
        return view

    def direct():
        Cipher(algorithms.AES(key), modes.CTR(counter_block)).encryptor().update_into(data, room)
        return direct_view

    return pycryptodome, direct


def _gcm_enc_key_copies(size: int):
    """A new key object per message (the same value): no key reuse, both sides copy it."""
    key, nonce, data = KEY_128, NONCE_GCM, random_bytes(size)

    def pycryptodome():
        return AES.new(memoryview(key).tobytes(), AES.MODE_GCM, nonce=nonce).encrypt_and_digest(
            data
        )

    def direct():
        return AESGCM(memoryview(key).tobytes()).encrypt(nonce, data, None)

    return pycryptodome, direct


def _gcm_dec(size: int):
    key, nonce = KEY_128, NONCE_GCM
    sealed = AESGCM(key).encrypt(nonce, random_bytes(size), None)
    ciphertext, tag = sealed[:-16], sealed[-16:]

    def pycryptodome():
        return AES.new(key, AES.MODE_GCM, nonce=nonce).decrypt_and_verify(ciphertext, tag)

    def direct():
        return AESGCM(key).decrypt(nonce, sealed, None)

    return pycryptodome, direct


_GCM_HEADER = AeadCipher(lambda: AES.new(KEY_128, AES.MODE_GCM, nonce=NONCE_GCM), header=HEADER)


def _gcm_enc_header(size: int):
    data = random_bytes(size)
    key, nonce, header = KEY_128, NONCE_GCM, HEADER
    return _GCM_HEADER.sealing(data), lambda: AESGCM(key).encrypt(nonce, data, header)


def _gcm_dec_header(size: int):
    key, nonce, header = KEY_128, NONCE_GCM, HEADER
    sealed = AESGCM(key).encrypt(nonce, random_bytes(size), header)
    return _GCM_HEADER.opening(sealed[:-16], sealed[-16:]), (
        lambda: AESGCM(key).decrypt(nonce, sealed, header)
    )


# Per mode: pycryptodome's mode and its keyword arguments, cryptography's mode
# and the IV or counter block it takes. A one-shot row encrypts one message
# with a new cipher; a stream row sends the message through one cipher in
# STREAM_CHUNK pieces, GCM's tag closing it.
_MODES = {
    "cbc": (AES.MODE_CBC, {"iv": IV}, modes.CBC, IV),
    "ctr": (AES.MODE_CTR, {"nonce": NONCE_CTR}, modes.CTR, COUNTER_BLOCK),
    "gcm": (AES.MODE_GCM, {"nonce": NONCE_GCM}, modes.GCM, NONCE_GCM),
    "cfb128": (AES.MODE_CFB, {"iv": IV, "segment_size": 128}, CFB, IV),
    "cfb8": (AES.MODE_CFB, {"iv": IV, "segment_size": 8}, CFB8, IV),
    "ofb": (AES.MODE_OFB, {"iv": IV}, OFB, IV),
}


def _one_shot(mode: str):
    aes_mode, options, direct_mode, direct_iv = _MODES[mode]

    def build(size: int):
        data = random_bytes(size)
        key = KEY_128

        def pycryptodome():
            return AES.new(key, aes_mode, **options).encrypt(data)

        return pycryptodome, aes_encrypting(key, direct_mode, direct_iv, data)

    return build


def _stream(mode: str):
    aes_mode, options, direct_mode, direct_iv = _MODES[mode]
    tagged = mode == "gcm"

    def build(size: int):
        chunks = chunked(random_bytes(size))
        key = KEY_128

        def pycryptodome():
            cipher = AES.new(key, aes_mode, **options)
            out = [cipher.encrypt(chunk) for chunk in chunks]
            if tagged:
                out.append(cipher.digest())
            return out

        def direct():
            encryptor = Cipher(algorithms.AES(key), direct_mode(direct_iv)).encryptor()
            out = [encryptor.update(chunk) for chunk in chunks]
            out.append(encryptor.finalize())
            if tagged:
                out.append(encryptor.tag)
            return out

        return pycryptodome, direct

    return build


ROWS = (
    Row("ecb 1 block", "aes-ecb", _ecb, sizes=(BLOCK,)),
    Row("ecb reused 16 B", "aes-ecb", _ecb_block_reused, sizes=(BLOCK,)),
    Row("ecb", "aes-ecb", _ecb),
    Row("cbc enc", "aes-cbc", _one_shot("cbc")),
    Row("cbc dec", "aes-cbc", _cbc_dec),
    Row("ctr", "aes-ctr", _one_shot("ctr")),
    # WinZip AES's counter (every zip tool that writes AES zips)
    Row("ctr little-endian", "aes-ctr", _ctr_counter(128, b"", b"", 1, True)),
    Row("ctr suffix", "aes-ctr", _ctr_counter(32, random_bytes(8), random_bytes(4), 0, False)),
    Row("ctr near wrap", "aes-ctr", _ctr_near_wrap),
    Row("gcm enc", "aes-gcm", _gcm_enc(KEY_128)),
    Row("gcm dec", "aes-gcm", _gcm_dec),
    Row("gcm enc header", "aes-gcm", _gcm_enc_header),
    Row("gcm dec header", "aes-gcm", _gcm_dec_header),
    Row("gcm-256 enc", "aes-gcm", _gcm_enc(KEY_256)),
    Row("gcm key-copy enc", "aes-gcm", _gcm_enc_key_copies),
    Row("gcm enc into", "aes-gcm", _gcm_enc_into),
    Row("ctr into", "aes-ctr", _ctr_into),
    Row("cfb128", "aes-cfb", _one_shot("cfb128")),
    Row("cfb8", "aes-cfb", _one_shot("cfb8")),
    Row("cfb64 dec", "aes-cfb", _cfb_segments_dec(64)),
    Row("cfb16 dec", "aes-cfb", _cfb_segments_dec(16)),
    Row("ofb", "aes-ofb", _one_shot("ofb")),
    Row("cbc stream", "aes-cbc", _stream("cbc"), sizes=(MIB,)),
    Row("ctr stream", "aes-ctr", _stream("ctr"), sizes=(MIB,)),
    Row("gcm stream", "aes-gcm", _stream("gcm"), sizes=(MIB,)),
    Row("cfb128 stream", "aes-cfb", _stream("cfb128"), sizes=(MIB,)),
    Row("cfb8 stream", "aes-cfb", _stream("cfb8"), sizes=(MIB,)),
    Row("ofb stream", "aes-ofb", _stream("ofb"), sizes=(MIB,)),
)
