"""What ``new`` of a pycryptodome block cipher module does for the classic modes, for any cipher.

A builder validates the arguments of one mode exactly as far as it serves
them and returns the accelerated object, or None so that the original
``new`` (and pycryptodome's own checks and errors) handles the call. The
builders read the cipher's :class:`~accel_agent.providers.block_ciphers.BlockCipher`
record (block size, OpenSSL's modes) and a :class:`CipherModule`, what the
pycryptodome module adds to it (its own keywords, its key rules): AES and
Triple DES share every line here.
"""

from __future__ import annotations

import os

from accel_agent import registry
from accel_agent.speedups import (
    CFB_SEGMENTS_SERVED,
    COUNTER_BLOCKS_SERVED,
    NONCE,
)
from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome._block_modes import (
    CTR_FRESH_FIELDS,
    MODE_CBC,
    MODE_CFB,
    MODE_CTR,
    MODE_ECB,
    MODE_OFB,
    CounterBlock,
    classes_for,
    fresh_layout,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from accel_agent.providers.block_ciphers import BlockCipher


class Backing:
    """What an accelerated object needs from its patch: its registry slot and the original new."""

    __slots__ = ("slot", "native_new")

    def __init__(self, primitive: str, native_new: Callable) -> None:
        self.slot = registry.slot(primitive)
        self.native_new = native_new


class CipherModule:
    """A pycryptodome cipher module as the builders see it (``Crypto.Cipher.AES``, ``.DES3``).

    ``keywords``: what the module's base cipher takes besides the key
    (AES's ``use_aesni``, which picks pycryptodome's own implementation and
    changes no result). ``key_allowed(key)``: the module's own rule beyond
    the key sizes (Triple DES refuses a key that degenerates to single DES);
    a key it refuses goes to the original ``new``, which raises native's error.
    """

    __slots__ = ("cipher", "keywords", "key_allowed")

    def __init__(
        self,
        cipher: BlockCipher,
        keywords: frozenset[str] = frozenset(),
        key_allowed: Callable[[bytes], bool] | None = None,
    ) -> None:
        self.cipher = cipher
        self.keywords = keywords
        self.key_allowed = key_allowed

    def key_bytes(self, key: Any) -> bytes | None:
        """The key as bytes when it is served: a plain buffer of a size and value OpenSSL takes."""
        if type(key) is bytes:
            key_bytes = key if len(key) in self.cipher.key_sizes else None
        elif _buffers.is_plain(key) and len(key) in self.cipher.key_sizes:
            key_bytes = bytes(key)  # a copy: the caller may change a bytearray later
        else:
            return None
        if key_bytes is None or self.key_allowed is None or self.key_allowed(key_bytes):
            return key_bytes
        return None


class FirstNative:
    """Runs ``on_native`` once, the first time a builder finds its primitive native."""

    __slots__ = ("_on_native", "_seen")

    def __init__(self, on_native: Callable[[], None]) -> None:
        self._on_native = on_native
        self._seen = False

    def __call__(self, backing: Backing | None = None) -> None:
        if not self._seen:
            self._seen = True
            self._on_native()


class ModeBuilder:
    """One mode's builder: ``build(key, args, kwargs)`` is the object, or None."""

    __slots__ = ("module", "cls", "backing", "native", "block_size", "_iv_keywords")

    def __init__(self, module: CipherModule, cls: type, backing: Backing, native: Callable) -> None:
        self.module = module
        self.cls = cls
        self.backing = backing
        self.native = native
        self.block_size = module.cipher.block_size
        self._iv_keywords = frozenset(("iv", "IV")) | module.keywords

    def provider(self) -> Any:
        """The slot's provider, or None (and the first native seen is reported)."""
        provider = self.backing.slot.get()
        if provider is None:
            self.native(self.backing)
        return provider

    def iv_argument(self, args: tuple, kwargs: dict, allowed: frozenset) -> bytes | None:
        """CBC's, CFB's or OFB's IV given once (positionally, ``iv=``, ``IV=``), or a random one."""
        if len(args) > 1 or not kwargs.keys() <= allowed:
            return None
        candidates = (args[0] if args else None, kwargs.get("iv"), kwargs.get("IV"))
        given = [value for value in candidates if value is not None]
        if len(given) > 1:
            return None
        if not given:
            return os.urandom(self.block_size)
        iv = given[0]
        if not _buffers.is_plain(iv) or len(iv) != self.block_size:
            return None
        return bytes(iv)

    def build(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        raise NotImplementedError


class EcbBuilder(ModeBuilder):
    __slots__ = ()

    def build(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or not kwargs.keys() <= self.module.keywords:
            return None
        backing = self.backing
        provider = backing.slot.get() or self.native(backing)
        return provider and self.cls(backing, provider, key)


class IvBuilder(ModeBuilder):
    """CBC and OFB: a key and one IV."""

    __slots__ = ()

    def build(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        # AES.new(key, mode, iv=iv) with bytes of the block's length, flat: what
        # iv_argument() would return for it (~6,000 instructions of its new otherwise).
        iv = kwargs.get("iv") if not args and len(kwargs) == 1 else None
        if type(iv) is not bytes or len(iv) != self.block_size:
            iv = self.iv_argument(args, kwargs, self._iv_keywords)
        backing = self.backing
        # the slot read inline, not self.provider(): a frame less per message
        provider = iv and (backing.slot.get() or self.native(backing))
        return provider and self.cls(backing, provider, key, iv)


class CfbBuilder(ModeBuilder):
    """CFB: segments of 8 bits or the block (OpenSSL's), or any whole bytes between (decryption)."""

    __slots__ = ("_segments", "_cfb_keywords")

    def __init__(self, *args: Any) -> None:
        ModeBuilder.__init__(self, *args)
        self._segments = self.module.cipher.cfb_segments
        # made once: a union per call cost ~1,200 instructions of every CFB new
        self._cfb_keywords = self._iv_keywords | {"segment_size"}

    def build(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        segment_size = kwargs.get("segment_size", 8)
        if type(segment_size) is not int:
            return None
        if segment_size not in self._segments and not (
            CFB_SEGMENTS_SERVED
            and not segment_size % 8
            and 8 < segment_size < 8 * self.block_size
        ):
            return None
        # iv= bytes of the block's length (and segment_size=) flat, as in IvBuilder
        iv = None
        if not args and len(kwargs) == 1 + ("segment_size" in kwargs):
            iv = kwargs.get("iv")
        if type(iv) is not bytes or len(iv) != self.block_size:
            iv = self.iv_argument(args, kwargs, self._cfb_keywords)
        backing = self.backing
        provider = iv and (backing.slot.get() or self.native(backing))
        return provider and self.cls(backing, provider, key, iv, segment_size)


class CtrBuilder(ModeBuilder):
    """CTR with ``nonce``/``initial_value`` or any valid ``Counter`` dict (see ``CtrCipher``)."""

    __slots__ = ("_keywords",)

    def __init__(self, *args: Any) -> None:
        ModeBuilder.__init__(self, *args)
        self._keywords = frozenset(("nonce", "initial_value", "counter")) | self.module.keywords

    def build(self, key: bytes, args: tuple, kwargs: dict) -> Any:
        if args or not kwargs.keys() <= self._keywords:
            return None
        counter = kwargs.get("counter")
        if counter is not None:
            if "nonce" in kwargs or "initial_value" in kwargs:
                return None
            block = self.counter_object(counter)
        else:
            block = self.nonce_and_initial_value(
                kwargs.get("nonce"), kwargs.get("initial_value", 0)
            )
        if block is None:
            return None
        provider = self.backing.slot.get()  # self.provider(), inline: once per message
        if provider is None:
            self.native(self.backing)
            return None
        return self.cls(self.backing, provider, key, block)

    def fresh_values(self, nonce_size: int) -> tuple:
        """CTR_FRESH_FIELDS' values for ``new(key, MODE_CTR, nonce=nonce)``, bytes of that size.

        What ``build`` makes for that call, taken from the class's own
        ``__init__`` run once on placeholders (so the per-size values, the
        counter field's length and limits, are computed in one place); the
        counter block, a fresh object per call, becomes ``speedups.fresh``.
        """
        counter = CounterBlock(NONCE, self.block_size - nonce_size)
        stored = dict(zip(*fresh_layout(self.cls, self.backing, counter)))
        return tuple(stored[name] for name in CTR_FRESH_FIELDS)

    def nonce_and_initial_value(self, nonce: Any, initial_value: Any) -> CounterBlock | None:
        """``nonce`` + ``initial_value`` as a counter block, when plain and valid."""
        block_size = self.block_size
        if nonce is None:
            nonce = os.urandom(block_size // 2)
        elif type(nonce) not in (bytes, bytearray) or len(nonce) >= block_size:
            return None  # pycryptodome concatenates nonce + counter: a memoryview nonce fails there
        counter_len = block_size - len(nonce)
        if type(initial_value) is int:
            if not 0 <= initial_value < 1 << (8 * counter_len):
                return None
            return CounterBlock(bytes(nonce), counter_len, b"", initial_value)
        if _buffers.is_plain(initial_value) and len(initial_value) == counter_len:
            start = int.from_bytes(initial_value, "big")
            return CounterBlock(bytes(nonce), counter_len, b"", start)
        return None

    def counter_object(self, counter: Any) -> CounterBlock | None:
        """A ``Crypto.Util.Counter`` (a dict) of plain values that fill one block.

        A counter OpenSSL's CTR cannot follow (little-endian, a suffix) is
        served only where counter blocks are cheaper than native
        (``speedups.COUNTER_BLOCKS_SERVED``).
        """
        if type(counter) is not dict:
            return None
        try:
            prefix, suffix = counter["prefix"], counter["suffix"]
            counter_len, initial_value = counter["counter_len"], counter["initial_value"]
            little_endian = counter["little_endian"]
        except KeyError:
            return None
        if (
            type(little_endian) is not bool
            or type(prefix) is not bytes
            or type(suffix) is not bytes
            or type(counter_len) is not int
            or counter_len < 1
            or type(initial_value) is not int
            or len(prefix) + counter_len + len(suffix) != self.block_size
            or not 0 <= initial_value < 1 << (8 * counter_len)
        ):
            return None
        block = CounterBlock(prefix, counter_len, suffix, initial_value, little_endian, True)
        if not block.openssl_follows and not COUNTER_BLOCKS_SERVED:
            return None
        return block


# pycryptodome's mode constant -> (primitive suffix, OpenSSL's mode it needs, builder)
CLASSIC_MODES: dict[int, tuple[str, str, type]] = {
    MODE_ECB: ("ecb", "ECB", EcbBuilder),
    MODE_CBC: ("cbc", "CBC", IvBuilder),
    MODE_CFB: ("cfb", "CFB", CfbBuilder),
    MODE_OFB: ("ofb", "OFB", IvBuilder),
    MODE_CTR: ("ctr", "CTR", CtrBuilder),
}


def classic_builders(
    module: CipherModule, native_new: Callable, native: Callable
) -> dict[int, ModeBuilder]:
    """The builders of every classic mode OpenSSL has for the module's cipher."""
    cipher = module.cipher
    classes = classes_for(cipher)
    made = {}
    for mode, (suffix, openssl_mode, builder) in CLASSIC_MODES.items():
        if openssl_mode in cipher.modes:
            backing = Backing("%s-%s" % (cipher.name, suffix), native_new)
            made[mode] = builder(module, classes[mode], backing, native)
    return made
