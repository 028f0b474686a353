"""The builders of ``AES.new`` for the one-shot modes OCB, SIV, KW and KWP, added to :mod:`.aes`'s.

A builder validates the arguments exactly as far as it serves them and
returns the accelerated object, or None so that the original ``new`` (and
pycryptodome's own checks and errors) handles the call. A mode the installed
pycryptodome lacks (KW and KWP before 4.x) gets no builder: ``new`` then
passes it on unchanged.
"""

from __future__ import annotations

import os

from accel_agent import registry
from accel_agent.providers.aes_aead import OCB_NONCE_SIZES
from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome._aes_kw import KwCipher, KwpCipher
from accel_agent.targets.pycryptodome._aes_ocb import OcbCipher
from accel_agent.targets.pycryptodome._aes_siv import SivCipher, SivCipher3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

MODE_SIV, MODE_OCB, MODE_KW, MODE_KWP = 10, 12, 13, 14
# OCB_NONCE_SIZES: the provider's (what AESOCB3 takes; native takes 1..15).

# use_aesni picks pycryptodome's own AES implementation: it changes no result.
_OCB_KEYWORDS = frozenset(("nonce", "mac_len", "use_aesni"))
_SIV_KEYWORDS = frozenset(("nonce", "use_aesni"))
_KW_KEYWORDS = frozenset(("use_aesni",))
UNRESOLVED = registry.UNRESOLVED
_blank = object.__new__


def builders(
    module: ModuleType, backing_class: Callable, native_new: Callable, on_native: Callable
) -> dict[int, Callable]:
    """One builder per mode the module has; ``on_native`` runs once, when one turns out native."""
    ocb = backing_class("aes-ocb", native_new)
    siv = backing_class("aes-siv", native_new)
    kw = backing_class("aes-kw", native_new)
    kwp = backing_class("aes-kwp", native_new)
    native_seen = []
    siv_class = SivCipher if _major_version(module) >= 4 else SivCipher3

    def provider_of(backing: Any) -> Any:
        provider = backing.slot.get()
        if provider is None and not native_seen:
            native_seen.append(backing)
            on_native()
        return provider

    ocb_slot = ocb.slot

    def build_ocb(key: bytes, args: tuple, kwargs: dict) -> Any:
        if not args and len(kwargs) == 1:  # AES.new(key, AES.MODE_OCB, nonce=nonce), flat
            nonce = kwargs.get("nonce")
            if type(nonce) is bytes and len(nonce) in OCB_NONCE_SIZES:
                provider = ocb_slot.provider
                if provider is not None and provider is not UNRESOLVED:
                    cipher = _blank(OcbCipher)  # _aes_ocb.FRESH_FIELDS, in its order
                    cipher._backing = ocb
                    cipher._provider = provider
                    cipher._key = key
                    cipher.nonce = nonce
                    return cipher
        if len(args) > 1 or not kwargs.keys() <= _OCB_KEYWORDS or (args and "nonce" in kwargs):
            return None
        mac_len = kwargs.get("mac_len", 16)
        if type(mac_len) is not int or mac_len != 16:
            return None  # OCB3's tag length is part of its nonce block: not a truncation
        nonce = args[0] if args else kwargs.get("nonce")
        if nonce is None:
            nonce = os.urandom(15)  # what native makes up
        elif not _buffers.is_plain(nonce) or len(nonce) not in OCB_NONCE_SIZES:
            return None
        provider = provider_of(ocb)
        return provider and OcbCipher(ocb, provider, key, bytes(nonce))

    siv_slot = siv.slot

    def build_siv(key: bytes, args: tuple, kwargs: dict) -> Any:
        if not args and len(kwargs) == 1:  # AES.new(key, AES.MODE_SIV, nonce=nonce), flat
            nonce = kwargs.get("nonce")
            if type(nonce) is bytes and nonce:
                provider = siv_slot.provider
                if provider is not None and provider is not UNRESOLVED:
                    cipher = _blank(siv_class)  # _aes_siv.FRESH_FIELDS, in its order
                    cipher._backing = siv
                    cipher._provider = provider
                    cipher._key = key
                    cipher.nonce = nonce
                    return cipher
        if len(args) > 1 or not kwargs.keys() <= _SIV_KEYWORDS or (args and "nonce" in kwargs):
            return None
        nonce = args[0] if args else kwargs.get("nonce")
        if nonce is not None and (not _buffers.is_plain(nonce) or not len(nonce)):
            return None
        provider = provider_of(siv)
        return provider and siv_class(siv, provider, key, None if nonce is None else bytes(nonce))

    build_kw = _key_wrap_builder(kw, KwCipher, provider_of)
    build_kwp = _key_wrap_builder(kwp, KwpCipher, provider_of)

    build_ocb.backing, build_siv.backing, build_kw.backing, build_kwp.backing = ocb, siv, kw, kwp
    table = {MODE_OCB: build_ocb, MODE_SIV: build_siv}
    if getattr(module, "MODE_KW", None) == MODE_KW and getattr(module, "MODE_KWP", 0) == MODE_KWP:
        table[MODE_KW] = build_kw
        table[MODE_KWP] = build_kwp
    return table


def _key_wrap_builder(backing: Any, cipher_class: type, provider_of: Callable) -> Callable:
    """The builder of KW or KWP: no arguments but the key (and its keywords)."""
    slot = backing.slot

    def build(key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or (kwargs and not kwargs.keys() <= _KW_KEYWORDS):
            return None
        provider = slot.provider
        if provider is None or provider is UNRESOLVED:
            provider = provider_of(backing)
            if provider is None:
                return None
        cipher = _blank(cipher_class)  # a fresh object's state: _aes_kw.FRESH_FIELDS, in order
        cipher._backing = backing
        cipher._provider = provider
        cipher._key = key
        cipher._done = False
        return cipher

    return build


def _major_version(module: ModuleType) -> int:
    """The major version of the pycryptodome (or pycryptodomex) ``module`` belongs to."""
    import sys

    package = sys.modules.get(module.__name__.split(".")[0])
    version = getattr(package, "version_info", (3,))
    return version[0] if type(version[0]) is int else 3
