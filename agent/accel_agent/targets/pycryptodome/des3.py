"""``Crypto.Cipher.DES3`` (and ``Cryptodome.Cipher.DES3``) served by OpenSSL's DES-EDE3.

Triple DES is the :data:`~accel_agent.providers.block_ciphers.TRIPLE_DES`
record and the module's key rule; the modes, their objects and their
builders are the generic ones AES uses (:mod:`._block_builders`,
:mod:`._block_modes`). ECB, CBC, CFB-8, CFB-64 and OFB are served; CTR
(OpenSSL has none for Triple DES), EAX and OpenPGP go to the original
``new``, as does every key pycryptodome refuses, so its errors are its own.
``adjust_key_parity`` is left native.
"""

from __future__ import annotations

import functools

from accel_agent import patching
from accel_agent.providers.block_ciphers import TRIPLE_DES
from accel_agent.targets.pycryptodome._block_builders import (
    CipherModule,
    FirstNative,
    classic_builders,
)
from accel_agent.targets.pycryptodome._block_modes import apply_calibration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

# The bits of a DES key that are not parity bits.
_KEY_BITS = int.from_bytes(b"\xfe" * 8, "big")


def is_triple(key: bytes) -> bool:
    """pycryptodome's rule, parity bits ignored: the first two 8-byte parts differ,
    and so do the last two (for a 16-byte key, K1 K2, both are K1 against K2).

    The parts are compared as XORed integers, with no early exit on the
    key's bytes; a refused key is left to native, which raises its own error.
    """
    first = int.from_bytes(key[:8], "big") ^ int.from_bytes(key[8:16], "big")
    last = int.from_bytes(key[-16:-8], "big") ^ int.from_bytes(key[-8:], "big")
    return bool(first & _KEY_BITS) and bool(last & _KEY_BITS)


DES3_MODULE = CipherModule(TRIPLE_DES, key_allowed=is_triple)


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one DES3 module (``Crypto`` or ``Cryptodome``)."""
    apply_calibration(TRIPLE_DES)
    original_new = module.new
    native = FirstNative(lambda: _unpatch_if_all_native(module, made))
    made = classic_builders(DES3_MODULE, original_new, native)
    builders = {mode: builder.build for mode, builder in made.items()}
    key_bytes = DES3_MODULE.key_bytes

    def new(key: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        if type(mode) is int:
            build = builders.get(mode)
            if build is not None:
                served_key = key_bytes(key)
                if served_key is not None:
                    cipher = build(served_key, args, kwargs)
                    if cipher is not None:
                        return cipher
        return original_new(key, mode, *args, **kwargs)

    # Named as native's (its name, documentation and __wrapped__): argument
    # errors read "new() takes ..." as native's do.
    patching.patch_attribute(module, "new", functools.update_wrapper(new, original_new))


def _unpatch_if_all_native(module: ModuleType, made: dict) -> None:
    """Once every Triple DES primitive turned out native, take the fast path away."""
    if all(builder.backing.slot.get() is None for builder in made.values()):
        patching.restore_module(module.__name__)
