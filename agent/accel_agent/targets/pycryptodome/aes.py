"""``Crypto.Cipher.AES`` (and ``Cryptodome.Cipher.AES``) served by OpenSSL.

The patch replaces the module's ``new`` with a fast path (design.md, "Cost
of being there"): the common argument shapes of ECB, CBC, CTR, CFB, OFB and
GCM are recognised here, validated exactly as pycryptodome validates them,
and served by the objects of :mod:`._block_modes` and :mod:`._aes_gcm`.
Anything else (another mode, an argument this module does not know, a
value pycryptodome would reject, a counter that OpenSSL cannot express)
goes to the original ``new``, so pycryptodome raises its own errors.
"""

from __future__ import annotations

import os

from accel_agent import forksafe, patching, registry, speedups
from accel_agent.providers.block_ciphers import AES, GCM_NONCE_SIZES, SIV_KEY_SIZES
from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome._aes_gcm import FRESH_FIELDS, GcmCipher
from accel_agent.targets.pycryptodome._block_builders import (
    Backing,
    CipherModule,
    FirstNative,
    ModeBuilder,
    classic_builders,
)
from accel_agent.targets.pycryptodome._block_modes import (
    CTR_FRESH_FIELDS,
    MODE_CBC,
    MODE_CTR,
    MODE_ECB,
    MODE_OFB,
    apply_calibration,
    fresh_layout,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

KEY_SIZES = AES.key_sizes
MODE_GCM, MODE_CCM, MODE_EAX = 11, 8, 9
MODE_SIV = 10  # its key is two AES keys
# ``use_aesni`` and ``use_clmul`` change nothing in the result: they pick
# pycryptodome's own implementation (AES-NI or portable C, CLMUL or portable GHASH).
AES_MODULE = CipherModule(AES, frozenset(("use_aesni",)))
_GCM_KEYWORDS = frozenset(("nonce", "mac_len", "use_aesni", "use_clmul"))
UNRESOLVED = registry.UNRESOLVED


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one AES module (``Crypto`` or ``Cryptodome``)."""
    apply_calibration(AES)
    original_new = module.new
    native = FirstNative(lambda: _unpatch_if_all_native(module, backings))
    made = _builders(original_new, native)
    builders = {
        mode: made_builder.build if isinstance(made_builder, ModeBuilder) else made_builder
        for mode, made_builder in made.items()
    }
    later = _FirstUseModes(module, original_new, native, builders)
    backings = [made_builder.backing for made_builder in made.values()] + later.backings
    gcm_backing = made[MODE_GCM].backing
    gcm_slot = gcm_backing.slot
    nonce_min, nonce_max = GCM_NONCE_SIZES[0], GCM_NONCE_SIZES[-1]

    def new(key: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        # The most frequent call, AES.new(key, AES.MODE_GCM, nonce=nonce) with
        # bytes, is checked inline: at 64 bytes a message costs about as much
        # as one extra Python call. (A keyword-only ``nonce`` parameter would
        # bind faster, but loses the order of the keywords, which
        # pycryptodome's "Unknown parameters" messages show.)
        if mode == MODE_GCM and len(kwargs) == 1 and type(key) is bytes and not args:
            nonce = kwargs.get("nonce")
            if (
                type(nonce) is bytes
                and nonce_min <= len(nonce) <= nonce_max
                and len(key) in KEY_SIZES
            ):
                provider = gcm_slot.provider
                if provider is not None and provider is not UNRESOLVED:
                    return GcmCipher(gcm_backing, provider, key, nonce)
        if type(mode) is int:
            build = builders.get(mode)
            if build is not None:
                if mode == MODE_SIV:
                    key_bytes = _siv_key_bytes(key)
                elif type(key) is bytes and len(key) in KEY_SIZES:
                    key_bytes = key  # the common case, without a call
                else:
                    key_bytes = AES_MODULE.key_bytes(key)
                if key_bytes is not None:
                    cipher = build(key_bytes, args, kwargs)
                    if cipher is not None:
                        return cipher
        return original_new(key, mode, *args, **kwargs)

    # With the compiled fast path, the GCM shape above is served in C (which
    # lays the object out as _aes_gcm.FRESH_FIELDS says) and ``new`` takes
    # every other call (speedups.gcm_new).
    installed = speedups.gcm_new(
        GcmCipher, FRESH_FIELDS, gcm_backing, gcm_slot, UNRESOLVED, new, original_new,
        shape=(MODE_GCM, KEY_SIZES, GCM_NONCE_SIZES),
    )  # fmt: skip
    # The classic modes' shapes now (their code is loaded), the later modes' once
    # theirs is (their first use).
    _serve_ctr_shape(installed, made[MODE_CTR])
    _serve_classic_shapes(installed, made)
    later.on_load = lambda loaded: _serve_later_shapes(installed, later, loaded)
    patching.patch_attribute(module, "new", installed)


def _serve_ctr_shape(front: Any, ctr: Any) -> None:
    """``AES.new(key, AES.MODE_CTR, nonce=nonce)`` with bytes served by the compiled front.

    Nonces of every size the CTR builder takes (shorter than the block); it
    makes what the builder makes for them (``_block_modes.CTR_FRESH_FIELDS``).
    """
    speedups.add_shape(
        front, MODE_CTR, ctr.cls, CTR_FRESH_FIELDS, ctr.fresh_values, ctr.backing.slot,
        range(ctr.block_size),
    )  # fmt: skip


def _serve_classic_shapes(front: Any, made: dict) -> None:
    """``AES.new(key, AES.MODE_ECB)`` and ``AES.new(key, mode, iv=iv)`` (CBC, OFB) with bytes,
    served by the compiled front: the object the mode's builder makes for that call
    (``_block_modes.fresh_layout``). CFB stays with its builder: a CFB-8 object takes
    its calibrated threshold from the class when it is made."""
    ecb = made[MODE_ECB]
    fields, values = fresh_layout(ecb.cls, ecb.backing)
    speedups.add_shape(front, MODE_ECB, ecb.cls, fields, values, ecb.backing.slot)
    for mode in (MODE_CBC, MODE_OFB):
        builder = made[mode]
        fields, values = fresh_layout(builder.cls, builder.backing, speedups.NONCE)
        speedups.add_shape(
            front, mode, builder.cls, fields, values, builder.backing.slot,
            range(builder.block_size, builder.block_size + 1), keyword="iv",
        )  # fmt: skip


def _serve_later_shapes(front: Any, later: _FirstUseModes, loaded: dict) -> None:
    """The compiled front serves, with bytes, what the builders' flat paths make.

    ``AES.new(key, AES.MODE_CCM, nonce=nonce)`` (``_aes_ccm.FRESH_FIELDS``),
    ``AES.new(key, AES.MODE_OCB, nonce=nonce)`` (``_aes_ocb.FRESH_FIELDS``) and,
    where this pycryptodome has them, ``AES.new(key, AES.MODE_KW)`` and
    ``MODE_KWP`` (``_aes_kw.FRESH_FIELDS``).
    """
    from accel_agent.providers.aes_aead import OCB_NONCE_SIZES
    from accel_agent.targets.pycryptodome import _aes_ccm, _aes_kw, _aes_ocb

    ccm, ocb = later.backing("aes-ccm"), later.backing("aes-ocb")
    speedups.add_shape(
        front, MODE_CCM, _aes_ccm.CcmCipher, _aes_ccm.FRESH_FIELDS,
        _aes_ccm.fresh_values(ccm), ccm.slot, _aes_ccm.NONCE_SIZES,
    )  # fmt: skip
    speedups.add_shape(
        front, MODE_OCB, _aes_ocb.OcbCipher, _aes_ocb.FRESH_FIELDS,
        _aes_ocb.fresh_values(ocb), ocb.slot, OCB_NONCE_SIZES,
    )  # fmt: skip
    for mode, cls, primitive in (
        (MODE_KW, _aes_kw.KwCipher, "aes-kw"),
        (MODE_KWP, _aes_kw.KwpCipher, "aes-kwp"),
    ):
        if mode in loaded:
            backing = later.backing(primitive)
            speedups.add_shape(
                front, mode, cls, _aes_kw.FRESH_FIELDS, _aes_kw.fresh_values(backing),
                backing.slot,
            )  # fmt: skip


def _siv_key_bytes(key: Any) -> bytes | None:
    """SIV's key (two AES keys) as bytes, when a plain buffer of a size it takes."""
    if type(key) is bytes:
        return key if len(key) in SIV_KEY_SIZES else None
    if _buffers.is_plain(key) and len(key) in SIV_KEY_SIZES:
        return bytes(key)  # a copy: the caller may change a bytearray later
    return None


def _unpatch_if_all_native(module: ModuleType, backings: list) -> None:
    """Once every AES primitive turned out native, take the fast path away: a refused
    primitive must cost nothing (pycryptodome's own GCM calls ``new`` three times)."""
    if all(backing.slot.get() is None for backing in backings):
        patching.restore_module(module.__name__)


class GcmBuilder(ModeBuilder):
    """GCM with a nonce pyca/cryptography takes and a tag of 4..16 bytes."""

    __slots__ = ()

    def build(self, key: bytes, args: tuple, kwargs: dict) -> Any:
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
        provider = self.provider()
        return provider and GcmCipher(self.backing, provider, key, nonce, mac_len)


def _builders(native_new: Callable, native: Callable) -> dict[int, Any]:
    """One builder per mode: the classic ones (the generic builders over the AES record)
    and GCM. ``native`` runs when a builder finds its primitive native."""
    made: dict[int, Any] = dict(classic_builders(AES_MODULE, native_new, native))
    made[MODE_GCM] = GcmBuilder(AES_MODULE, GcmCipher, Backing("aes-gcm", native_new), native)
    return made


MODE_OCB, MODE_KW, MODE_KWP = 12, 13, 14
# The modes whose code loads at their first use, not at the patch: eight
# modules that an import of Crypto.Cipher.AES would otherwise pay for
# (docs/activation.md, "Start-up cost"). mode -> its primitive.
_LATER_MODES = {
    MODE_CCM: "aes-ccm",
    MODE_EAX: "aes-eax",
    MODE_OCB: "aes-ocb",
    MODE_SIV: "aes-siv",
    MODE_KW: "aes-kw",
    MODE_KWP: "aes-kwp",
}


class _FirstUseModes:
    """CCM, EAX, OCB, SIV, KW and KWP: a stand-in builder each, until one is first used.

    Their slots exist from the patch on (``backings``: the registry sees
    every AES primitive, and a fallback to native takes the fast path away
    as before); the first call of any of them imports their modules,
    puts the real builders in ``builders`` (which ``new`` reads at every
    call, so later calls meet them directly) and hands the call on.
    """

    def __init__(
        self, module: ModuleType, native_new: Callable, native: Callable, builders: dict
    ) -> None:
        self._module = module
        self._native_new = native_new
        self._native = native
        self._builders = builders
        # KW and KWP only where this pycryptodome has them (4.x).
        has_kw = getattr(module, "MODE_KW", None) == MODE_KW
        has_kw = has_kw and getattr(module, "MODE_KWP", None) == MODE_KWP
        self._modes = [m for m in _LATER_MODES if has_kw or m not in (MODE_KW, MODE_KWP)]
        self._by_primitive = {
            _LATER_MODES[mode]: Backing(_LATER_MODES[mode], native_new) for mode in self._modes
        }
        self.backings = list(self._by_primitive.values())
        # run once the builders are loaded, given them (mode -> builder)
        self.on_load: Callable[[dict], None] | None = None
        for mode in self._modes:
            builders[mode] = self._first_call(mode)

    def _first_call(self, mode: int) -> Callable:
        def build(key: bytes, args: tuple, kwargs: dict) -> Any:
            return self._load()[mode](key, args, kwargs)

        return build

    def _load(self) -> dict:
        with forksafe.importing_first_use:
            from accel_agent.targets.pycryptodome import (
                _aes_ccm,
                _aes_eax,
                _aes_one_shot_builders,
            )

        backing = self._by_primitive
        loaded = {
            MODE_CCM: _aes_ccm.builder(backing["aes-ccm"], self._native),
            MODE_EAX: _aes_eax.builder(backing["aes-eax"], self._native),
        }
        # OCB, SIV, KW and KWP (only the modes this pycryptodome has).
        loaded.update(
            _aes_one_shot_builders.builders(
                self._module,
                lambda primitive, _: backing[primitive],
                self._native_new,
                self._native,
            )
        )
        self._builders.update(loaded)
        if self.on_load is not None:
            self.on_load(loaded)
        return loaded

    def backing(self, primitive: str) -> Backing:
        return self._by_primitive[primitive]
