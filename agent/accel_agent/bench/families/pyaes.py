"""pyaes rows: pyaes 1.6.1's mode objects (pure Python AES), against pyca/cryptography.

The "native" column is pyaes itself, the "agent" column the same pyaes code
under the agent, the "direct" column what a
pyca/cryptography user writes. Every call builds a new mode object, as most
pyaes code does (one object per message); ``cbc feeder`` is pyaes's
``Encrypter`` with its default PKCS#7 padding (``feed(data)`` then
``feed()``), against CBC plus cryptography's PKCS7 padder. Keys are 128-bit.
Native pyaes runs at about 0.7 MB/s, so the rows stop at 1 KiB (16 KiB for
CTR, the mode with the target).
"""

from __future__ import annotations

import pyaes
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from accel_agent.bench.families import KIB, Row, aes_encrypting, random_bytes

try:  # cryptography 43+: CFB8 and OFB live in "decrepit" (the old names warn)
    from cryptography.hazmat.decrepit.ciphers.modes import CFB8, OFB
except ImportError:
    CFB8, OFB = modes.CFB8, modes.OFB

NAME = "pyaes"
TITLE = "pyaes 1.6.1, AES-128; one new mode object per message"

BLOCK = 16
SIZES = (BLOCK, 64, KIB)
KEY = random_bytes(16)
IV = random_bytes(16)
COUNTER_START = 1  # pyaes's Counter() default: the first counter block is 0...01


def _encryptor(mode):
    return Cipher(algorithms.AES(KEY), mode).encryptor()


def _ecb_block(size: int):
    block = random_bytes(BLOCK)

    def library():
        return pyaes.AESModeOfOperationECB(KEY).encrypt(block)

    def direct():
        return _encryptor(modes.ECB()).update(block)

    return library, direct


def _cbc_block(size: int):
    block = random_bytes(BLOCK)

    def library():
        return pyaes.AESModeOfOperationCBC(KEY, iv=IV).encrypt(block)

    def direct():
        return _encryptor(modes.CBC(IV)).update(block)

    return library, direct


def _cbc_feeder(size: int):
    data = random_bytes(size)

    def library():
        encrypter = pyaes.Encrypter(pyaes.AESModeOfOperationCBC(KEY, iv=IV))
        return encrypter.feed(data) + encrypter.feed()

    def direct():
        padder = padding.PKCS7(128).padder()
        padded = padder.update(data) + padder.finalize()
        encryptor = _encryptor(modes.CBC(IV))
        return encryptor.update(padded) + encryptor.finalize()

    return library, direct


def _stream(new, direct_mode, direct_iv: bytes, **options):
    """A stream mode: pyaes's mode class ``new`` and its keyword arguments,
    cryptography's mode and the IV or first counter block it takes."""

    def build(size: int):
        data = random_bytes(size)

        def library():
            return new(KEY, **options).encrypt(data)

        return library, aes_encrypting(KEY, direct_mode, direct_iv, data)

    return build


ROWS = (
    Row(
        "ctr",
        "aes-ctr",
        _stream(pyaes.AESModeOfOperationCTR, modes.CTR, COUNTER_START.to_bytes(16, "big")),
        sizes=SIZES + (16 * KIB,),
    ),
    Row("ecb 1 block", "aes-ecb", _ecb_block, sizes=(BLOCK,)),
    Row("cbc 1 block", "aes-cbc", _cbc_block, sizes=(BLOCK,)),
    Row("cbc feeder", "aes-cbc", _cbc_feeder, sizes=SIZES),
    Row(
        "cfb8",
        "aes-cfb",
        _stream(pyaes.AESModeOfOperationCFB, CFB8, IV, iv=IV, segment_size=1),
        sizes=SIZES,
    ),
    Row("ofb", "aes-ofb", _stream(pyaes.AESModeOfOperationOFB, OFB, IV, iv=IV), sizes=SIZES),
)
