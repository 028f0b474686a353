"""pyaes's ``Encrypter``/``Decrypter`` (``BlockFeeder.feed``): ECB and CBC runs in one call.

pyaes's ``feed`` hands an ECB or CBC mode one 16-byte block per loop turn
(``_can_consume`` never offers more), which is a Python call per block even
when each block is served by OpenSSL. For exactly those classes, fed
``bytes``, the patched ``feed`` computes what the loop would consume (every
whole block while more than 16 bytes are buffered: the last one waits for
the padding decision) and passes it to the mode in one call; the buffer and
the mode end where pyaes's loop leaves them. CTR, CFB and OFB already
consume everything but 16 bytes in one call, so their ``feed`` is pyaes's,
as is everything else: finishing (``feed()``/``feed(None)``), other input
types, feeding after the end, and modes whose state OpenSSL cannot take.
"""

from __future__ import annotations

from accel_agent import patching
from accel_agent.targets.pyaes import modes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

BLOCK_SIZE = 16


def patch(module: ModuleType) -> None:
    """Patch ``pyaes.blockfeeder.BlockFeeder.feed``."""
    feeder_class = module.BlockFeeder
    native_feed = vars(feeder_class)["feed"]

    def feed(self, data=None):
        if type(data) is bytes:
            method = getattr(self, "_feed", None)
            entry = modes.BLOCK_RUNS.get(getattr(method, "__func__", None))
            buffered = getattr(self, "_buffer", None)
            mode = getattr(self, "_mode", None)
            if (
                entry is not None
                and type(buffered) is bytes
                and method.__self__ is mode
                and type(mode) in modes.BLOCK_CLASSES
            ):
                buffered += data
                whole = (len(buffered) - BLOCK_SIZE) // BLOCK_SIZE * BLOCK_SIZE
                if whole <= 0:
                    self._buffer = buffered
                    return b""
                out = entry[0](mode, buffered[:whole])
                if out is not None:
                    self._buffer = buffered[whole:]
                    return out
                # OpenSSL cannot take this mode's state: pyaes's loop, on the same buffer.
                self._buffer = buffered
                return native_feed(self, b"")
        return native_feed(self, data)

    patching.update_wrapper(feed, native_feed)
    patching.patch_attribute(module, "BlockFeeder.feed", feed)
    _patch_final_encrypt(module)


def _patch_final_encrypt(module: ModuleType) -> None:
    """The Encrypter's last step for ECB and CBC: the padded tail in one call.

    With the default PKCS#7 padding, pyaes pads the tail (at most 16
    bytes) to one or two blocks and encrypts them one ``encrypt`` call per
    block; the run of both blocks in one OpenSSL call gives the same bytes
    and leaves the mode where the two calls leave it. Anything else (no
    padding, another option, another class or input type, a mode whose
    state OpenSSL cannot take) is pyaes's own function.
    """
    owner = module.AESBlockModeOfOperation
    native_final = vars(owner).get("_final_encrypt")
    default = getattr(module, "PADDING_DEFAULT", None)
    pad = getattr(module, "append_PKCS7_padding", None)
    if native_final is None or default is None or pad is None:
        return

    def final_encrypt(self, data, padding=default):
        if type(self) in modes.BLOCK_CLASSES and type(data) is bytes and padding == default:
            entry = modes.BLOCK_RUNS.get(vars(type(self)).get("encrypt"))
            if entry is not None and len(data) <= BLOCK_SIZE:
                out = entry[0](self, pad(data))
                if out is not None:
                    return out
        return native_final(self, data, padding)

    patching.update_wrapper(final_encrypt, native_final)
    patching.patch_attribute(module, "AESBlockModeOfOperation._final_encrypt", final_encrypt)
