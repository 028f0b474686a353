"""pyDes rows: pyDes 2.0.1's ``triple_des`` and ``des`` (pure Python), against pyca/cryptography.

The "native" column is pyDes itself, the "agent" column the same pyDes code
under the agent, the "direct" column what a pyca/cryptography user writes
(TripleDES; single DES as TripleDES with the key three times, as the agent
runs it). "new object" rows build the pyDes object for every message (its
key schedule included), as most pyDes code does; "same object" rows reuse
one. Messages are whole blocks (PAD_NORMAL, nothing to pad) except the PKCS5
rows. Native pyDes takes about 0.2 s per KiB of Triple DES, so the rows stop
at 1 KiB.
"""

from __future__ import annotations

import pyDes
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, modes

from accel_agent.bench.families import KIB, Row, random_bytes

try:  # cryptography 43+: TripleDES lives in "decrepit" (the old name warns)
    from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
except ImportError:
    from cryptography.hazmat.primitives.ciphers.algorithms import TripleDES

NAME = "pydes"
TITLE = "pyDes 2.0.1, 3-key Triple DES and DES; whole blocks unless PKCS5"

BLOCK = 8
SIZES = (BLOCK, 64, KIB)
KEY = random_bytes(24)
DES_KEY = KEY[:8]
IV = random_bytes(8)


def _encryptor(key: bytes, mode):
    return Cipher(TripleDES(key), mode).encryptor()


def _cbc_new(size: int):
    data = random_bytes(size)

    def library():
        return pyDes.triple_des(KEY, pyDes.CBC, IV).encrypt(data)

    def direct():
        return _encryptor(KEY, modes.CBC(IV)).update(data)

    return library, direct


def _cbc_same(size: int):
    data = random_bytes(size)
    cipher = pyDes.triple_des(KEY, pyDes.CBC, IV)

    def library():
        return cipher.encrypt(data)

    def direct():
        return _encryptor(KEY, modes.CBC(IV)).update(data)

    return library, direct


def _cbc_pkcs5_decrypt(size: int):
    padder = padding.PKCS7(64).padder()
    ciphertext = _encryptor(KEY, modes.CBC(IV)).update(
        padder.update(random_bytes(size)) + padder.finalize()
    )

    def library():
        return pyDes.triple_des(KEY, pyDes.CBC, IV, padmode=pyDes.PAD_PKCS5).decrypt(ciphertext)

    def direct():
        decryptor = Cipher(TripleDES(KEY), modes.CBC(IV)).decryptor()
        unpadder = padding.PKCS7(64).unpadder()
        return unpadder.update(decryptor.update(ciphertext)) + unpadder.finalize()

    return library, direct


def _ecb_new(size: int):
    data = random_bytes(size)

    def library():
        return pyDes.triple_des(KEY).encrypt(data)

    def direct():
        return _encryptor(KEY, modes.ECB()).update(data)

    return library, direct


def _des_cbc_new(size: int):
    data = random_bytes(size)

    def library():
        return pyDes.des(DES_KEY, pyDes.CBC, IV).encrypt(data)

    def direct():
        return _encryptor(DES_KEY * 3, modes.CBC(IV)).update(data)

    return library, direct


ROWS = (
    Row("3des cbc new object", "tdes-cbc", _cbc_new, sizes=SIZES),
    Row("3des cbc same object", "tdes-cbc", _cbc_same, sizes=(KIB,)),
    Row("3des cbc pkcs5 decrypt", "tdes-cbc", _cbc_pkcs5_decrypt, sizes=(64, KIB)),
    Row("3des ecb new object", "tdes-ecb", _ecb_new, sizes=(BLOCK, KIB)),
    Row("des cbc new object", "tdes-cbc", _des_cbc_new, sizes=(BLOCK, KIB)),
)
