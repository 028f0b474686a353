"""The cipher objects of the family: how each is made, and what a program can do with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

KEY16, KEY32 = bytes(range(16)), bytes(range(32))
KEY_TDES = bytes(range(24))  # three different DES keys


@dataclass(frozen=True)
class CipherCase:
    name: str
    primitive: str
    module: str  # "Cipher.AES", "Cipher.ChaCha20", ...
    make: Callable  # make(module) -> a fresh object, same arguments every time
    native_class: str  # "Cipher._mode_gcm.GcmMode"
    unit: int = 1  # input lengths are multiples of this
    stateless: bool = False  # results independent of earlier calls (ECB)
    takes_output: bool = True
    # The largest call the thread tests make, in units of 16 bytes (1 MiB).
    # Native Triple DES runs at about 20 MB/s (CFB-8: one block per byte,
    # about 1 s per MiB), and the tests run every call natively as well.
    largest: int = 1 << 16

    def __repr__(self) -> str:
        return self.name


TDES_LARGEST = 1 << 14  # 256 KiB: keeps Triple DES's native reference to a second or so


CASES = [
    CipherCase("ecb", "aes-ecb", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_ECB),
               "Cipher._mode_ecb.EcbMode", unit=16, stateless=True),
    CipherCase("cbc", "aes-cbc", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_CBC, iv=bytes(16)),
               "Cipher._mode_cbc.CbcMode", unit=16),
    CipherCase("ctr", "aes-ctr", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_CTR, nonce=bytes(8)),
               "Cipher._mode_ctr.CtrMode"),
    CipherCase("cfb128", "aes-cfb", "Cipher.AES",
               lambda m: m.new(KEY16, m.MODE_CFB, iv=bytes(16), segment_size=128),
               "Cipher._mode_cfb.CfbMode"),
    CipherCase("ofb", "aes-ofb", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_OFB, iv=bytes(16)),
               "Cipher._mode_ofb.OfbMode"),
    CipherCase("gcm", "aes-gcm", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_GCM, nonce=bytes(12)),
               "Cipher._mode_gcm.GcmMode"),
    # J0 from GHASH of the nonce (not 12 bytes), a short tag
    CipherCase("gcm-nonce20-tag12", "aes-gcm", "Cipher.AES",
               lambda m: m.new(KEY16, m.MODE_GCM, nonce=bytes(range(20)), mac_len=12),
               "Cipher._mode_gcm.GcmMode"),
    CipherCase("eax", "aes-eax", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_EAX, nonce=bytes(16)),
               "Cipher._mode_eax.EaxMode"),
    CipherCase("ccm", "aes-ccm", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_CCM, nonce=bytes(11)),
               "Cipher._mode_ccm.CcmMode"),
    # OCB's encrypt() and SIV's have no output= (SIV's encrypt() raises: one-shot only).
    CipherCase("ocb", "aes-ocb", "Cipher.AES", lambda m: m.new(KEY16, m.MODE_OCB, nonce=bytes(15)),
               "Cipher._mode_ocb.OcbMode", takes_output=False),
    CipherCase("siv", "aes-siv", "Cipher.AES", lambda m: m.new(KEY32, m.MODE_SIV, nonce=bytes(16)),
               "Cipher._mode_siv.SivMode", takes_output=False),
    CipherCase("tdes-ecb", "tdes-ecb", "Cipher.DES3", lambda m: m.new(KEY_TDES, m.MODE_ECB),
               "Cipher._mode_ecb.EcbMode", unit=8, stateless=True, largest=TDES_LARGEST),
    CipherCase("tdes-cbc", "tdes-cbc", "Cipher.DES3",
               lambda m: m.new(KEY_TDES, m.MODE_CBC, iv=bytes(8)), "Cipher._mode_cbc.CbcMode",
               unit=8, largest=TDES_LARGEST),
    CipherCase("tdes-cfb64", "tdes-cfb", "Cipher.DES3",
               lambda m: m.new(KEY_TDES, m.MODE_CFB, iv=bytes(8), segment_size=64),
               "Cipher._mode_cfb.CfbMode", largest=TDES_LARGEST),
    CipherCase("tdes-cfb8", "tdes-cfb", "Cipher.DES3",
               lambda m: m.new(KEY_TDES[:16], m.MODE_CFB, iv=bytes(8)),
               "Cipher._mode_cfb.CfbMode", largest=1 << 12),
    CipherCase("tdes-ofb", "tdes-ofb", "Cipher.DES3",
               lambda m: m.new(KEY_TDES, m.MODE_OFB, iv=bytes(8)), "Cipher._mode_ofb.OfbMode",
               largest=TDES_LARGEST),
    CipherCase("chacha20", "chacha20", "Cipher.ChaCha20",
               lambda m: m.new(key=KEY32, nonce=bytes(8)), "Cipher.ChaCha20.ChaCha20Cipher"),
    CipherCase("chacha20-poly1305", "chacha20-poly1305", "Cipher.ChaCha20_Poly1305",
               lambda m: m.new(key=KEY32, nonce=bytes(12)),
               "Cipher.ChaCha20_Poly1305.ChaCha20Poly1305Cipher"),
    CipherCase("xchacha20-poly1305", "xchacha20-poly1305", "Cipher.ChaCha20_Poly1305",
               lambda m: m.new(key=KEY32, nonce=bytes(24)),
               "Cipher.ChaCha20_Poly1305.ChaCha20Poly1305Cipher"),
]
BY_NAME = {case.name: case for case in CASES}
