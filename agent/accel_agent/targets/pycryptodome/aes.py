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

import os
import sys

from accel_agent import patching, registry, speedups
from accel_agent.targets.pycryptodome import _aes_ccm, _aes_eax, _aes_ocb_siv_kw, _buffers
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
MODE_CCM, MODE_EAX = 8, 9
MODE_SIV = 10  # its key is two AES keys
GCM_NONCE_SIZES = range(8, 129)  # what pyca/cryptography accepts; pycryptodome accepts more
CFB_SEGMENTS = (8, 128)  # the segment sizes OpenSSL has

# The keywords each fast path understands. ``use_aesni`` and ``use_clmul``
# change nothing in the result: they pick pycryptodome's own implementation
# (AES-NI or portable C, CLMUL or portable GHASH).
_ECB_KEYWORDS = frozenset(("use_aesni",))
_IV_KEYWORDS = frozenset(("iv", "IV", "use_aesni"))
_CFB_KEYWORDS = _IV_KEYWORDS | {"segment_size"}
_CTR_KEYWORDS = frozenset(("nonce", "initial_value", "counter", "use_aesni"))
_GCM_KEYWORDS = frozenset(("nonce", "mac_len", "use_aesni", "use_clmul"))
_new_object = object.__new__
_UNRESOLVED = registry._UNRESOLVED


class Backing:
    """What an accelerated object needs from its patch: its registry slot and the original new."""

    __slots__ = ("slot", "native_new")

    def __init__(self, primitive: str, native_new: Callable) -> None:
        self.slot = registry.slot(primitive)
        self.native_new = native_new


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one AES module (``Crypto`` or ``Cryptodome``)."""
    _apply_calibration()
    original_new = module.new
    builders = _builders(original_new, lambda: _unpatch_if_all_native(module, builders))
    # Issue 5: OCB, SIV, KW and KWP (only the modes this pycryptodome has).
    builders.update(
        _aes_ocb_siv_kw.builders(
            module, Backing, original_new, lambda: _unpatch_if_all_native(module, builders)
        )
    )
    gcm_backing = builders[MODE_GCM].backing
    gcm_slot = gcm_backing.slot

    def new(key: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        # The most frequent call, AES.new(key, AES.MODE_GCM, nonce=nonce) with
        # bytes, is checked inline: at 64 bytes a message costs about as much
        # as one extra Python call. (A keyword-only ``nonce`` parameter would
        # bind faster, but loses the order of the keywords, which
        # pycryptodome's "Unknown parameters" messages show.)
        if mode == MODE_GCM and len(kwargs) == 1 and type(key) is bytes and not args:
            nonce = kwargs.get("nonce")
            if type(nonce) is bytes and 8 <= len(nonce) <= 128 and len(key) in KEY_SIZES:
                provider = gcm_slot._provider
                if provider is not None and provider is not _UNRESOLVED:
                    # GcmCipher(gcm_backing, provider, key, nonce) without its
                    # __init__ frame (~100 ns of a 64-byte message's budget).
                    cipher = _new_object(GcmCipher)
                    cipher._backing = gcm_backing
                    cipher._provider = provider
                    cipher._key = key
                    cipher.nonce = nonce
                    cipher._one_shot = [16]
                    return cipher
        if type(mode) is int:
            build = builders.get(mode)
            if build is not None:
                key_sizes = KEY_SIZES if mode != MODE_SIV else _aes_ocb_siv_kw.SIV_KEY_SIZES
                if type(key) is bytes:
                    key_bytes = key if len(key) in key_sizes else None
                elif _buffers.is_plain(key) and len(key) in key_sizes:
                    key_bytes = bytes(key)  # a copy: the caller may change a bytearray later
                else:
                    key_bytes = None
                if key_bytes is not None:
                    cipher = build(key_bytes, args, kwargs)
                    if cipher is not None:
                        return cipher
        return original_new(key, mode, *args, **kwargs)

    # With the compiled fast path, the GCM shape above is served in C and
    # ``new`` takes every other call (speedups.gcm_new).
    installed = speedups.gcm_new(GcmCipher, gcm_backing, gcm_slot, _UNRESOLVED, new, original_new)
    patching.patch_attribute(module, "new", installed)


def _apply_calibration() -> None:
    """Sizes from which native pycryptodome is faster (calibration.NATIVE_FROM_SIZE)."""
    from accel_agent import calibration

    EcbCipher._native_from = calibration.native_from_size("aes-ecb") or sys.maxsize
    CfbCipher._cfb8_native_from = calibration.native_from_size("aes-cfb8") or sys.maxsize


def _unpatch_if_all_native(module: ModuleType, builders: dict) -> None:
    """Once every AES primitive turned out native, take the fast path away: a refused
    primitive must cost nothing (pycryptodome's own GCM calls ``new`` three times)."""
    if all(build.backing.slot.get() is None for build in builders.values()):
        patching.restore_module(module.__name__)


def _builders(native_new: Callable, on_native: Callable) -> dict[int, Callable]:
    """One builder per mode: it returns the accelerated object, or None for "let native do it".

    ``on_native`` runs once, the first time a builder finds its primitive native.
    """
    ecb = Backing("aes-ecb", native_new)
    cbc = Backing("aes-cbc", native_new)
    ctr = Backing("aes-ctr", native_new)
    cfb = Backing("aes-cfb", native_new)
    ofb = Backing("aes-ofb", native_new)
    gcm = Backing("aes-gcm", native_new)
    native_seen = []

    def native(backing: Backing) -> None:
        if not native_seen:
            native_seen.append(backing)
            on_native()

    def build_ecb(key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or not kwargs.keys() <= _ECB_KEYWORDS:
            return None
        provider = ecb.slot.get() or native(ecb)
        return provider and EcbCipher(ecb, provider, key)

    def build_cbc(key: bytes, args: tuple, kwargs: dict) -> Any:
        iv = _iv_argument(args, kwargs, _IV_KEYWORDS)
        provider = iv and (cbc.slot.get() or native(cbc))
        return provider and CbcCipher(cbc, provider, key, iv)

    def build_ofb(key: bytes, args: tuple, kwargs: dict) -> Any:
        iv = _iv_argument(args, kwargs, _IV_KEYWORDS)
        provider = iv and (ofb.slot.get() or native(ofb))
        return provider and OfbCipher(ofb, provider, key, iv)

    def build_cfb(key: bytes, args: tuple, kwargs: dict) -> Any:
        segment_size = kwargs.get("segment_size", 8)
        if type(segment_size) is not int or segment_size not in CFB_SEGMENTS:
            return None
        iv = _iv_argument(args, kwargs, _CFB_KEYWORDS)
        provider = iv and (cfb.slot.get() or native(cfb))
        return provider and CfbCipher(cfb, provider, key, iv, segment_size)

    def build_ctr(key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or not kwargs.keys() <= _CTR_KEYWORDS:
            return None
        counter = kwargs.get("counter")
        if counter is not None:
            if "nonce" in kwargs or "initial_value" in kwargs:
                return None
            start = _counter_object(counter)
        else:
            start = _nonce_and_initial_value(kwargs.get("nonce"), kwargs.get("initial_value", 0))
        provider = start and (ctr.slot.get() or native(ctr))
        return provider and CtrCipher(ctr, provider, key, start[0], start[1])

    def build_gcm(key: bytes, args: tuple, kwargs: dict) -> Any:
        if len(args) > 1 or not kwargs.keys() <= _GCM_KEYWORDS:
            return None
        nonce = args[0] if args else kwargs.get("nonce")
        nonce_type = type(nonce)
        if nonce_type is not bytes:
            if nonce is None:
                nonce = os.urandom(16)
            elif not _buffers.is_plain(nonce):
                return None
            else:
                nonce = bytes(nonce)
        if len(nonce) not in GCM_NONCE_SIZES:
            return None
        mac_len = kwargs.get("mac_len", 16)
        if type(mac_len) is not int or not 4 <= mac_len <= 16:
            return None
        provider = gcm.slot.get() or native(gcm)
        return provider and GcmCipher(gcm, provider, key, nonce, mac_len)

    build_ecb.backing, build_cbc.backing, build_cfb.backing = ecb, cbc, cfb
    build_ofb.backing, build_ctr.backing, build_gcm.backing = ofb, ctr, gcm
    return {
        MODE_ECB: build_ecb,
        MODE_CBC: build_cbc,
        MODE_CFB: build_cfb,
        MODE_OFB: build_ofb,
        MODE_CTR: build_ctr,
        MODE_GCM: build_gcm,
        MODE_CCM: _aes_ccm.builder(Backing("aes-ccm", native_new), native),
        MODE_EAX: _aes_eax.builder(Backing("aes-eax", native_new), native),
    }


def _iv_argument(args: tuple, kwargs: dict, allowed: frozenset) -> bytes | None:
    """The IV of CBC, CFB or OFB given once (positionally, ``iv=`` or ``IV=``), or a random one."""
    if len(args) > 1 or not kwargs.keys() <= allowed:
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
