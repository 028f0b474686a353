"""``Crypto.Cipher.AES`` (and ``Cryptodome.Cipher.AES``) served by OpenSSL.

The patch replaces the module's ``new`` with a fast path (design.md, "Cost
of being there"): the common argument shapes of ECB, CBC, CTR, CFB, OFB and
GCM are recognised here, validated exactly as pycryptodome validates them,
and served by the objects of :mod:`._aes_modes` and :mod:`._aes_gcm`.
Anything else (another mode, an argument this module does not know, a
value pycryptodome would reject, a counter that OpenSSL cannot express)
goes to the original ``new``, so pycryptodome raises its own errors.
"""

from __future__ import annotations

import functools
import os

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome._aes_gcm import GcmCipher
from accel_agent.targets.pycryptodome._aes_modes import (
    CbcCipher,
    CfbCipher,
    CtrCipher,
    EcbCipher,
    OfbCipher,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

KEY_SIZES = (16, 24, 32)
BLOCK_SIZE = 16
MODE_ECB, MODE_CBC, MODE_CFB, MODE_OFB, MODE_CTR, MODE_GCM = 1, 2, 3, 5, 6, 11
GCM_NONCE_SIZES = range(8, 129)  # what pyca/cryptography accepts; pycryptodome accepts more
CFB_SEGMENTS = (8, 128)  # the segment sizes OpenSSL has

# Keyword arguments that change nothing in the result: they pick pycryptodome's
# own implementation (AES-NI or portable C; for GCM also CLMUL or portable GHASH).
_USE_AESNI = ("use_aesni",)
_GCM_CHOICES = ("use_aesni", "use_clmul")


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one AES module (``Crypto`` or ``Cryptodome``)."""
    original_new = module.new
    builders = _Builders(original_new)

    def new(key: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if type(mode) is int and _buffers.is_key(key, KEY_SIZES):
            build = builders.by_mode.get(mode)
            if build is not None:
                cipher = build(bytes(key), args, kwargs)
                if cipher is not None:
                    return cipher
        return original_new(key, mode, *args, **kwargs)

    functools.update_wrapper(new, original_new)
    patching.patch_attribute(module, "new", new)


class _Builders:
    """One builder per mode: the accelerated object, or None for "let native do it"."""

    def __init__(self, original_new: Callable) -> None:
        self.native_new = original_new
        self.ecb = registry.slot("aes-ecb")
        self.cbc = registry.slot("aes-cbc")
        self.ctr = registry.slot("aes-ctr")
        self.cfb = registry.slot("aes-cfb")
        self.ofb = registry.slot("aes-ofb")
        self.gcm = registry.slot("aes-gcm")
        self.by_mode = {
            MODE_ECB: self.build_ecb,
            MODE_CBC: self.build_cbc,
            MODE_CFB: self.build_cfb,
            MODE_OFB: self.build_ofb,
            MODE_CTR: self.build_ctr,
            MODE_GCM: self.build_gcm,
        }

    def build_ecb(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or not _only(kwargs, ()):
            return None
        provider = self.ecb.get()
        return provider and EcbCipher(self.ecb, provider, key, self.native_new)

    def build_cbc(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        iv = _iv_argument(args, kwargs, ())
        provider = iv and self.cbc.get()
        return provider and CbcCipher(self.cbc, provider, key, self.native_new, iv)

    def build_ofb(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        iv = _iv_argument(args, kwargs, ())
        provider = iv and self.ofb.get()
        return provider and OfbCipher(self.ofb, provider, key, self.native_new, iv)

    def build_cfb(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        segment_size = kwargs.get("segment_size", 8)
        if type(segment_size) is not int or segment_size not in CFB_SEGMENTS:
            return None
        iv = _iv_argument(args, kwargs, ("segment_size",))
        provider = iv and self.cfb.get()
        return provider and CfbCipher(self.cfb, provider, key, self.native_new, iv, segment_size)

    def build_ctr(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or not _only(kwargs, ("nonce", "initial_value", "counter")):
            return None
        counter = kwargs.get("counter")
        if counter is not None:
            if "nonce" in kwargs or "initial_value" in kwargs:
                return None
            start = _counter_object(counter)
        else:
            start = _nonce_and_initial_value(kwargs.get("nonce"), kwargs.get("initial_value", 0))
        provider = start and self.ctr.get()
        if not provider:
            return None
        nonce, counter_start = start
        return CtrCipher(self.ctr, provider, key, self.native_new, nonce, counter_start)

    def build_gcm(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        if len(args) > 1 or not _only(kwargs, ("nonce", "mac_len") + _GCM_CHOICES):
            return None
        nonce = args[0] if args else kwargs.get("nonce")
        if nonce is None:
            nonce = os.urandom(16)
        elif not _buffers.is_plain(nonce) or len(nonce) not in GCM_NONCE_SIZES:
            return None
        mac_len = kwargs.get("mac_len", 16)
        if type(mac_len) is not int or not 4 <= mac_len <= 16:
            return None
        provider = self.gcm.get()
        return provider and GcmCipher(
            self.gcm, provider, key, self.native_new, bytes(nonce), mac_len
        )


def _only(kwargs: dict, allowed: tuple[str, ...]) -> bool:
    """True when every keyword is one this fast path understands (``use_aesni`` always is)."""
    return all(name in allowed or name in _USE_AESNI for name in kwargs)


def _iv_argument(args: tuple, kwargs: dict, extra: tuple[str, ...]) -> bytes | None:
    """The IV of CBC, CFB or OFB given once (positionally, ``iv=`` or ``IV=``), or a random one."""
    if len(args) > 1 or not _only(kwargs, ("iv", "IV") + extra):
        return None
    candidates = (args[0] if args else None, kwargs.get("iv"), kwargs.get("IV"))
    given = [value for value in candidates if value is not None]
    if len(given) > 1:
        return None
    if not given:
        return os.urandom(BLOCK_SIZE)
    iv = given[0]
    if not _buffers.is_plain(iv) or len(iv) != BLOCK_SIZE:
        return None
    return bytes(iv)


def _nonce_and_initial_value(nonce: Any, initial_value: Any) -> tuple[bytes, int] | None:
    """CTR's ``nonce`` + ``initial_value`` as (prefix, counter start), when plain and valid."""
    if nonce is None:
        nonce = os.urandom(BLOCK_SIZE // 2)
    elif type(nonce) not in (bytes, bytearray) or len(nonce) >= BLOCK_SIZE:
        return None  # pycryptodome concatenates nonce + counter: a memoryview nonce fails there
    counter_len = BLOCK_SIZE - len(nonce)
    if type(initial_value) is int:
        if not 0 <= initial_value < 1 << (8 * counter_len):
            return None
        return bytes(nonce), initial_value
    if _buffers.is_plain(initial_value) and len(initial_value) == counter_len:
        return bytes(nonce), int.from_bytes(initial_value, "big")
    return None


def _counter_object(counter: Any) -> tuple[bytes, int] | None:
    """A ``Crypto.Util.Counter`` (a dict) OpenSSL can follow: big-endian, no suffix, full block."""
    if type(counter) is not dict:
        return None
    try:
        prefix, suffix = counter["prefix"], counter["suffix"]
        counter_len, initial_value = counter["counter_len"], counter["initial_value"]
        little_endian = counter["little_endian"]
    except KeyError:
        return None
    if (
        little_endian
        or type(prefix) is not bytes
        or suffix != b""
        or type(counter_len) is not int
        or counter_len < 1
        or type(initial_value) is not int
        or len(prefix) + counter_len != BLOCK_SIZE
        or not 0 <= initial_value < 1 << (8 * counter_len)
    ):
        return None
    return prefix, initial_value
