"""pyaes's ``AESModeOfOperation{ECB,CBC,CTR,CFB,OFB}`` served by the AES providers.

The patch replaces methods of pyaes's own classes (:func:`patch`), so every
object, however it was reached, is served. The rules that keep it transparent:

* **pyaes's attributes stay the state.** After every call the object holds
  what pyaes's code would have left: CBC's ``_last_cipherblock``, CTR's
  ``_remaining_counter`` and the user's ``Counter`` (its ``_counter`` list
  changed in place, as ``Counter.increment`` does, wrapping at 2**128), CFB's
  ``_shift_register``, OFB's ``_last_precipherblock`` and ``_remaining_block``,
  with pyaes's own types (lists where pyaes leaves lists). An OpenSSL context
  kept in the object (``_accel_agent_state``) is only a cache: it is used
  while the state it was left in is still there (checked by identity, and for
  the shared ``Counter`` by value), otherwise a new one is opened from
  pyaes's state.
* **Anything unusual is pyaes's.** Input that is not ``bytes`` (pyaes takes
  ``str`` and rejects ``bytearray`` with its own errors), wrong lengths (its
  ``ValueError`` texts), CFB segment sizes OpenSSL lacks (anything but 1 and
  16 bytes), a ``Counter`` subclass or a state pyaes's code would trip on:
  the original method runs, on the same attributes, and the cache is dropped.
* **The key schedule is deferred.** pyaes expands the key in Python (about
  40 us, more than a whole 1 KiB message through OpenSSL): ``__init__`` given
  a ``bytes`` or ``bytearray`` key of a valid size keeps (a copy of) the key,
  and ``_aes`` (pyaes's ``AES`` object) is built the first time something
  reads it. Copies and pickles carry ``_aes`` and not the key or the cache
  (``__getstate__``), so they look as pyaes's own and are served natively.
  These two shims (the ``_aes`` property and ``__getstate__``) stay in the
  base class after ``accel_agent.uninstall()``, so that objects made under
  the agent keep working with pyaes's own methods; they behave as a plain
  attribute and the default pickling.
"""

from __future__ import annotations

import sys

from accel_agent import patching, registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable

KEY_SIZES = (16, 24, 32)
BLOCK_SIZE = 16
KEY = "_accel_agent_key"  # the AES key, for OpenSSL (pyaes itself keeps round keys)
CACHE = "_accel_agent_state"  # the OpenSSL context and the state it matches
ENCRYPT, DECRYPT = 0, 1
_MISSING = object()
_COUNTER_MODULUS = 1 << 128

# The patched encrypt/decrypt functions of ECB and CBC -> (multi-block runner,
# direction): what the block feeders (:mod:`.feeder`) look up.
BLOCK_RUNS: dict[Callable, tuple[Callable, int]] = {}
# The exact classes whose feeders may hand several blocks at once.
BLOCK_CLASSES: set[type] = set()


def _keystream_encrypt(serve, native):
    """The ``encrypt`` of a keystream mode (CTR, OFB): ``serve`` it, or pyaes's own ``native``.

    ``serve(state, key, plaintext)`` returns the output, or None to decline;
    a declined call forgets the cached OpenSSL context, since pyaes's own
    method then moves the state on.
    """

    def encrypt(self, plaintext):
        state = self.__dict__
        key = state.get(KEY)
        if key is not None and type(plaintext) is bytes:
            out = serve(state, key, plaintext)
            if out is not None:
                return out
        state.pop(CACHE, None)
        return native(self, plaintext)

    return encrypt


def _xor(left: bytes, right: bytes) -> bytes:
    """Two equally long byte strings XORed (short ones: the keystream's leftovers)."""
    return (int.from_bytes(left, "big") ^ int.from_bytes(right, "big")).to_bytes(len(left), "big")


def _references(state: dict, name: str) -> int:
    return sys.getrefcount(state.get(name))


# What _references() says of a list that only an instance's __dict__ holds.
_EXCLUSIVE = _references({"list": []}, "list")


def _block(value: Any) -> bytes | None:
    """A 16-byte block from pyaes's state (bytes, or a list of byte values), else None."""
    if type(value) is bytes:
        return value if len(value) == BLOCK_SIZE else None
    if type(value) is not list or len(value) != BLOCK_SIZE:
        return None
    try:
        return bytes(value)
    except (TypeError, ValueError):
        return None


def patch(module: ModuleType) -> None:
    """Patch ``pyaes.aes``'s mode classes; all or nothing."""
    names = ("aes-ecb", "aes-cbc", "aes-ctr", "aes-cfb", "aes-ofb")
    slots = {name: registry.slot(name) for name in names}
    base = module.AESBlockModeOfOperation
    replacements = _base(base, module.AES)
    replacements += _ecb(module.AESModeOfOperationECB, slots["aes-ecb"])
    replacements += _cbc(module.AESModeOfOperationCBC, slots["aes-cbc"])
    replacements += _ctr(module.AESModeOfOperationCTR, slots["aes-ctr"], module.Counter)
    replacements += _cfb(module.AESModeOfOperationCFB, slots["aes-cfb"])
    replacements += _ofb(module.AESModeOfOperationOFB, slots["aes-ofb"])
    try:
        for owner, name, value in replacements:
            if name in vars(owner):
                patching.update_wrapper(value, vars(owner)[name])
            # "AESModeOfOperationCTR.encrypt": a method of a class of pyaes.aes.
            patching.patch_attribute(module, "%s.%s" % (owner.__name__, name), value)
    except BaseException:
        patching.restore_module(module.__name__)
        raise
    BLOCK_CLASSES.update((module.AESModeOfOperationECB, module.AESModeOfOperationCBC))


def _base(base: type, aes_class: type) -> list[tuple[type, str, Any]]:
    """``__init__`` keeps the key, ``_aes`` is built on first read, ``__getstate__`` hides both."""
    original_init = vars(base)["__init__"]

    def __init__(self, key):
        if type(key) in (bytes, bytearray) and len(key) in KEY_SIZES:
            state = self.__dict__
            state.pop("_aes", None)  # a second __init__ replaces the key, as pyaes's does
            state.pop(CACHE, None)
            state[KEY] = bytes(key)  # pyaes expands it at once: later changes do not count
            return
        original_init(self, key)

    def get_aes(self):
        state = self.__dict__
        aes = state.get("_aes", _MISSING)
        if aes is _MISSING:
            key = state.get(KEY)
            if key is None:
                raise AttributeError("%r object has no attribute '_aes'" % type(self).__name__)
            aes = state["_aes"] = aes_class(key)
        return aes

    def set_aes(self, value):
        # Someone else's AES object: the key OpenSSL would use is no longer known.
        state = self.__dict__
        state["_aes"] = value
        state.pop(KEY, None)
        state.pop(CACHE, None)

    def del_aes(self):
        state = self.__dict__
        if "_aes" not in state and KEY not in state:
            raise AttributeError("%r object has no attribute '_aes'" % type(self).__name__)
        for name in ("_aes", KEY, CACHE):
            state.pop(name, None)

    def __getstate__(self):
        """pyaes's own attributes only: a copy or pickle is what pyaes would make."""
        state = dict(self.__dict__)
        key = state.pop(KEY, None)
        state.pop(CACHE, None)
        if key is not None and "_aes" not in state:
            state["_aes"] = aes_class(key)
        return state

    # The two shims stay when the agent is uninstalled (they are not in the
    # registry of originals): objects made under the agent hold a key instead
    # of ``_aes``, and pyaes's own methods, put back, must still find it.
    if not getattr(vars(base).get("_aes"), "accel_agent_shim", False):
        aes_property = property(get_aes, set_aes, del_aes, "pyaes's AES object, built on first use")
        aes_property.fget.accel_agent_shim = True
        base._aes = aes_property
        base.__getstate__ = __getstate__
    return [(base, "__init__", __init__)]


def _ecb(cls: type, slot: registry.Slot) -> list[tuple[type, str, Any]]:
    """ECB: no state; one context per direction, opened on first use."""
    original = vars(cls)

    def context(self, direction: int) -> Any:
        state = self.__dict__
        key = state.get(KEY)
        if key is None:
            return None
        cache = state.get(CACHE)
        if cache is None:
            cache = state[CACHE] = [None, None]
        ctx = cache[direction]
        if ctx is None:
            provider = slot.get()
            if provider is None:
                return None
            ctx = provider.encryptor(key) if direction == ENCRYPT else provider.decryptor(key)
            cache[direction] = ctx
        return ctx

    def make(direction: int, native: Callable) -> Callable:
        def method(self, data):
            if type(data) is bytes and len(data) == BLOCK_SIZE:
                ctx = context(self, direction)
                if ctx is not None:
                    slot.calls += 1
                    return ctx.update(data)
            return native(self, data)

        def run(mode: Any, data: bytes) -> bytes | None:
            ctx = context(mode, direction)
            if ctx is None:
                return None
            slot.calls += 1
            return ctx.update(data)

        BLOCK_RUNS[method] = (run, direction)
        return method

    return [
        (cls, "encrypt", make(ENCRYPT, original["encrypt"])),
        (cls, "decrypt", make(DECRYPT, original["decrypt"])),
    ]


def _cbc(cls: type, slot: registry.Slot) -> list[tuple[type, str, Any]]:
    """CBC: the chaining block is ``_last_cipherblock`` (a list after encrypt, the
    ciphertext block itself after decrypt, as pyaes leaves them)."""
    original = vars(cls)

    def context(state: dict, direction: int) -> Any:
        key = state.get(KEY)
        if key is None:
            return None
        chain = state.get("_last_cipherblock", _MISSING)
        cache = state.get(CACHE)
        if cache is not None and cache[0] == direction and cache[2] is chain:
            return cache
        iv = _block(chain)
        provider = slot.get() if iv is not None else None
        if provider is None:
            return None
        ctx = provider.encryptor(key, iv) if direction == ENCRYPT else provider.decryptor(key, iv)
        cache = state[CACHE] = [direction, ctx, chain]
        return cache

    def process(mode: Any, data: bytes, direction: int) -> bytes | None:
        state = mode.__dict__
        cache = context(state, direction)
        if cache is None:
            return None
        out = cache[1].update(data)
        chain = list(out[-BLOCK_SIZE:]) if direction == ENCRYPT else data[-BLOCK_SIZE:]
        if direction == DECRYPT and len(data) == BLOCK_SIZE:
            chain = data  # pyaes keeps the very object it was given
        state["_last_cipherblock"] = cache[2] = chain
        slot.calls += 1
        return out

    def make(direction: int, native: Callable) -> Callable:
        def method(self, data):
            if type(data) is bytes and len(data) == BLOCK_SIZE:
                out = process(self, data, direction)
                if out is not None:
                    return out
            self.__dict__.pop(CACHE, None)
            return native(self, data)

        def run(mode: Any, data: bytes) -> bytes | None:
            return process(mode, data, direction)

        BLOCK_RUNS[method] = (run, direction)
        return method

    return [
        (cls, "encrypt", make(ENCRYPT, original["encrypt"])),
        (cls, "decrypt", make(DECRYPT, original["decrypt"])),
    ]


def _ctr(cls: type, slot: registry.Slot, counter_class: type) -> list[tuple[type, str, Any]]:
    """CTR: keystream left over in ``_remaining_counter``, the next block in the ``Counter``.

    pyaes's ``decrypt`` calls ``self.encrypt``: patching ``encrypt`` serves both.
    The message is padded with zeros to whole blocks, so the output's tail is
    exactly the keystream pyaes keeps for the next call, and the context stays
    on a block boundary where the ``Counter`` says it is.
    """
    native = vars(cls)["encrypt"]

    def serve(state: dict, key: bytes, data: bytes) -> bytes | None:
        # pyaes extends the old _remaining_counter list in place (+=) before it
        # rebinds the attribute: where another object holds that list (a shallow
        # copy), pyaes's loop keeps that sharing exact.
        shared = _references(state, "_remaining_counter") > _EXCLUSIVE
        counter = state.get("_counter")
        remaining = state.get("_remaining_counter")
        if type(remaining) is not list:
            return None
        length, left = len(data), len(remaining)
        try:
            leftover = bytes(remaining)
        except (TypeError, ValueError):
            return None
        if length <= left:  # the leftover keystream suffices: no AES block at all
            state["_remaining_counter"] = remaining[length:]
            return _xor(data, leftover[:length]) if length else b""
        if shared or type(counter) is not counter_class or len(vars(counter)) != 1:
            return None  # a subclass, or an instance with its own increment: pyaes's loop
        values = vars(counter).get("_counter")
        cache = state.get(CACHE)
        if cache is not None and cache[1] is counter and cache[2] == values:
            start = cache[3]
        else:
            block = _block(values)
            provider = slot.get() if block is not None else None
            if provider is None:
                return None
            start = int.from_bytes(block, "big")
            cache = state[CACHE] = [provider.encryptor(key, block), counter, None, start]
        head = _xor(data[:left], leftover) if left else b""
        rest = data[left:] if left else data
        size = length - left
        blocks = (size + BLOCK_SIZE - 1) // BLOCK_SIZE
        pad = blocks * BLOCK_SIZE - size
        out = cache[0].update(rest + bytes(pad) if pad else rest)
        # Counter.increment changes its list in place; on wrapping it zeroes that
        # list and goes on in a new one.
        value = start + blocks
        if value >= _COUNTER_MODULUS:
            value -= _COUNTER_MODULUS
            values[:] = bytes(BLOCK_SIZE)
            counter._counter = list(value.to_bytes(BLOCK_SIZE, "big"))
        else:
            values[:] = value.to_bytes(BLOCK_SIZE, "big")
        cache[2], cache[3] = list(counter._counter), value
        state["_remaining_counter"] = list(out[size:]) if pad else []
        slot.calls += 1
        if pad:
            out = out[:size]
        return head + out if left else out

    encrypt = _keystream_encrypt(serve, native)

    native_counter_init = vars(counter_class)["__init__"]

    def counter_init(self, initial_value=1):
        # pyaes builds the 16 bytes in a Python loop (~2 us, a third of a short
        # CTR message under the agent); for an int the result is the same list.
        if type(initial_value) is int:
            self._counter = list((initial_value % _COUNTER_MODULUS).to_bytes(BLOCK_SIZE, "big"))
        else:
            native_counter_init(self, initial_value)

    return [(cls, "encrypt", encrypt), (counter_class, "__init__", counter_init)]


def _cfb(cls: type, slot: registry.Slot) -> list[tuple[type, str, Any]]:
    """CFB with 1-byte (CFB8) or 16-byte (CFB128) segments; the shift register is
    the last 16 bytes of IV || ciphertext, kept as bytes as pyaes keeps it."""
    original = vars(cls)
    segment_bits = {1: 8, 16: 128}

    def serve(state: dict, data: bytes, direction: int) -> bytes | None:
        key = state.get(KEY)
        segment = state.get("_segment_bytes")
        register = state.get("_shift_register")
        if (
            key is None
            or type(segment) is not int
            or segment not in segment_bits
            or type(register) is not bytes
            or len(register) != BLOCK_SIZE
            or len(data) % segment
        ):
            return None
        if not data:
            return b""
        cache = state.get(CACHE)
        if cache is None or cache[0] != direction or cache[2] is not register:
            provider = slot.get()
            if provider is None:
                return None
            if direction == ENCRYPT:
                ctx = provider.encryptor(key, register, segment_bits[segment])
            else:
                ctx = provider.decryptor(key, register, segment_bits[segment])
            cache = state[CACHE] = [direction, ctx, register]
        out = cache[1].update(data)
        feedback = out if direction == ENCRYPT else data
        if len(feedback) >= BLOCK_SIZE:
            register = feedback[-BLOCK_SIZE:]
        else:
            register = register[len(feedback) :] + feedback
        state["_shift_register"] = cache[2] = register
        slot.calls += 1
        return out

    def make(direction: int, native: Callable) -> Callable:
        def method(self, data):
            if type(data) is bytes:
                out = serve(self.__dict__, data, direction)
                if out is not None:
                    return out
            self.__dict__.pop(CACHE, None)
            return native(self, data)

        return method

    return [
        (cls, "encrypt", make(ENCRYPT, original["encrypt"])),
        (cls, "decrypt", make(DECRYPT, original["decrypt"])),
    ]


def _ofb(cls: type, slot: registry.Slot) -> list[tuple[type, str, Any]]:
    """OFB: ``_last_precipherblock`` + ``_remaining_block`` are the current keystream
    block (used part, unused part); pyaes's ``decrypt`` calls ``self.encrypt``."""
    native = vars(cls)["encrypt"]

    def serve(state: dict, key: bytes, data: bytes) -> bytes | None:
        used = state.get("_last_precipherblock")
        remaining = state.get("_remaining_block")
        if type(remaining) is not list:
            return None
        length, left = len(data), len(remaining)
        if not length:
            return b""
        if length <= left:  # within the current block: pyaes pops and appends in place
            if type(used) is not list:
                return None
            keystream = remaining[:length]
            try:
                out = _xor(data, bytes(keystream))
            except (TypeError, ValueError):
                return None
            used.extend(keystream)
            del remaining[:length]
            return out
        cache = state.get(CACHE)
        if cache is None or cache[1] is not used or cache[2] is not remaining:
            # The context's next block encrypts the current one: used + unused part.
            if left:
                current = _block(used + remaining) if type(used) is list else None
            else:
                current = _block(used)
            provider = slot.get() if current is not None else None
            if provider is None:
                return None
            cache = state[CACHE] = [provider.encryptor(key, current), None, None]
        try:
            head = _xor(data[:left], bytes(remaining)) if left else b""
        except (TypeError, ValueError):
            return None
        if left:  # pyaes pops the leftover bytes into the used list before a new block
            used.extend(remaining)
            del remaining[:]
        rest = data[left:] if left else data
        size = length - left
        pad = -size % BLOCK_SIZE
        out = cache[0].update(rest + bytes(pad) if pad else rest)
        consumed = BLOCK_SIZE - pad  # of the last keystream block
        used = list(_xor(out[size - consumed : size], rest[size - consumed :]))
        remaining = list(out[size:]) if pad else []
        state["_last_precipherblock"] = cache[1] = used
        state["_remaining_block"] = cache[2] = remaining
        slot.calls += 1
        if pad:
            out = out[:size]
        return head + out if left else out

    encrypt = _keystream_encrypt(serve, native)

    return [(cls, "encrypt", encrypt)]
