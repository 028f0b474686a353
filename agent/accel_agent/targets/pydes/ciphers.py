"""pyDes's ``des`` and ``triple_des`` (ECB, CBC) served by the Triple DES providers.

The patch replaces four methods of pyDes's own classes (:func:`patch`), so
every object, however it was reached, is served. The rules that keep it
transparent:

* **pyDes's attributes stay the state.** The OpenSSL key is the object's key
  (``_baseDes__key``) only while its 16 round keys (``Kn``) are that key's
  schedule: they are what pyDes's own rounds would use, and they are
  compared on every call. Nothing is kept in the object beyond pyDes's own
  attributes, so ``vars()``, copies and pickles are pyDes's.
* **The scratch attributes are left as pyDes leaves them.** pyDes's rounds
  leave, in each ``des`` object, ``final`` (the bits of the last block its DES
  produced, before CBC's XOR on decryption) and ``L``/``R`` (the last round's
  halves, which are that block's bits through the inverse of the final
  permutation), and ``triple_des`` in CBC leaves every part's ``_iv`` at the
  last ciphertext block. They are computed from the last block after each
  call; the inner blocks of a Triple DES chain (a part's own DES output) are
  one single-DES block each, through DES-EDE3 with K1=K2=K3.
* **pyDes's own code does everything but the blocks.** ``triple_des``'s
  ``encrypt``/``decrypt`` call pyDes's ``_guardAgainstUnicode``, ``_padData``
  and ``_unpadData`` as it does, in its order, so its padding rules and
  errors are its own; ``des``'s ``encrypt``/``decrypt`` are pyDes's, over the
  patched ``crypt``. Anything unusual runs pyDes's original method: empty or
  partial blocks (pyDes's errors, or its second padding), a mode, IV, key or
  round keys pyDes would treat differently or trip on, subclasses, input
  other than ``bytes`` (``str`` for ``triple_des``, which pyDes encodes;
  ``bytearray`` there is extended in place by pyDes's padding).
* **OpenSSL's refusals are pyDes's business.** The OpenSSL calls come before
  any state is written; if one raises (OpenSSL may refuse DES-EDE3 keys whose
  parts are equal, single DES run as K1=K2=K3 among them, under a FIPS
  configuration), the call is pyDes's own, from the start.
* **The key schedule is computed as a table look-up.** pyDes builds ``Kn`` in
  Python (about 100 us a key, 300 us a ``triple_des``: more than a whole
  message through OpenSSL); each round-key bit is a fixed bit of the key, so
  ``Kn``, ``L`` and ``R`` are the same lists made from the key's bits by index,
  and the last three keys' schedules are kept for the next object of the
  same key (:class:`RecentSchedules`).

Single DES runs as DES-EDE3 with the key three times (the TRIPLE_DES record
and slots); the Triple DES part of ``triple_des`` is one DES-EDE3 call over the
whole message, K1 K2 K3 (K1 K2 K1 for a 16-byte key).
"""

from __future__ import annotations

import functools
import weakref
from operator import itemgetter

from accel_agent import patching, registry
from accel_agent.constant_time import compare_digest
from accel_agent.providers.base import keeps_keys, key_reuse_enabled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

BLOCK_SIZE = 8
ROUNDS = 16
ROUND_KEY_BITS = 48
ENCRYPT, DECRYPT = 0, 1  # pyDes's des.ENCRYPT, des.DECRYPT
KEY = "_baseDes__key"  # where _baseDes.setKey keeps the key (name-mangled)
PARTS = ("_triple_des__key1", "_triple_des__key2", "_triple_des__key3")

# A byte's bits, most significant first, one byte each: pyDes's bit lists.
_BYTE_BITS = tuple(bytes((value >> (7 - i)) & 1 for i in range(8)) for value in range(256))


def _bits(block: bytes) -> bytes:
    """``block``'s bits as pyDes's ``__String_to_BitList`` lists them (one 0/1 byte each)."""
    return b"".join(map(_BYTE_BITS.__getitem__, block))


def _xor(left: bytes, right: bytes) -> bytes:
    return (int.from_bytes(left, "big") ^ int.from_bytes(right, "big")).to_bytes(BLOCK_SIZE, "big")


class DesTables:
    """Index maps from a key's or a block's 64 bits, derived from pyDes's own tables.

    The round keys pyDes's ``__create_sub_keys`` makes (PC-1, the halves
    rotated by the cumulative left rotations, PC-2) are 768 bits, each a fixed
    bit of the key: :meth:`round_keys` ORs one precomputed mask per key nibble
    (16 look-ups instead of pyDes's 16 rounds of list work). ``halves`` is PC-1
    alone (pyDes's ``L`` and ``R`` after the schedule: the rotations add up to
    28, a whole turn). ``rounds_out`` undoes the final permutation: ``R16 ||
    L16`` from the block pyDes's ``final`` holds.
    """

    def __init__(self, des_class: type) -> None:
        pc1 = list(des_class._des__pc1)
        pc2 = list(des_class._des__pc2)
        rotations = list(des_class._des__left_rotations)
        final = list(des_class._des__fp)
        if (
            sum(rotations) != 28
            or len(rotations) != ROUNDS
            or sorted(final) != list(range(64))
            or len(pc1) != 56
            or len(pc2) != ROUND_KEY_BITS
        ):
            raise ValueError("pyDes's DES tables are not DES's")
        schedule = []  # round-key bit -> key bit
        shift = 0
        for rotation in rotations:
            shift += rotation
            halves = [pc1[(j + shift) % 28] for j in range(28)]
            halves += [pc1[28 + (j + shift) % 28] for j in range(28)]
            schedule.extend(halves[index] for index in pc2)
        # then pyDes's L and R after the schedule: C0 || D0, PC-1 itself
        schedule.extend(pc1)
        size = len(schedule)
        # key bit -> the round-key bits it becomes, as an int of 0x01 bytes
        masks = [0] * 64
        for position, source in enumerate(schedule):
            masks[source] |= 1 << (8 * (size - 1 - position))
        # nibble (0..15, most significant first) -> value (0..15) -> mask
        self._nibbles = tuple(
            tuple(
                functools.reduce(
                    int.__or__, (masks[4 * nibble + i] for i in range(4) if value & (8 >> i)), 0
                )
                for value in range(16)
            )
            for nibble in range(16)
        )
        self._size = size
        inverse = [0] * 64
        for position, source in enumerate(final):
            inverse[source] = position
        self.rounds_out = itemgetter(*inverse)

    def schedule(self, key: bytes) -> tuple[list[list[int]], list[int], list[int]]:
        """pyDes's ``Kn`` (16 new lists of 48 bits), ``L`` and ``R`` for an 8-byte key."""
        nibbles = self._nibbles
        value = 0
        position = 0
        for byte in key:
            value |= nibbles[position][byte >> 4] | nibbles[position + 1][byte & 15]
            position += 2
        bits = list(value.to_bytes(self._size, "big"))
        rows = [bits[start : start + ROUND_KEY_BITS] for start in _ROW_STARTS]
        return rows, bits[_HALVES : _HALVES + 28], bits[_HALVES + 28 :]

    def round_keys(self, key: bytes) -> list[list[int]]:
        """pyDes's ``Kn`` for an 8-byte key."""
        return self.schedule(key)[0]


class RecentSchedules:
    """What is kept of the last few DES keys: a new object of a key just used costs a copy.

    Programs make a new ``triple_des`` per message with one key; computing
    its three schedules again would be most of the call. An entry is
    ``(key, Kn, L, R, contexts)``: ``Kn`` as :meth:`DesTables.schedule`
    makes it, a private list of lists no pyDes object is given (each object
    gets copies of its rows), ``L``/``R`` as bytes, and ``contexts`` the
    single-DES ECB contexts of the key by direction (:meth:`contexts`). A
    key is found by constant-time comparison with each entry's, never
    hashed. At most :data:`SIZE` keys are kept (one Triple DES key's parts),
    the oldest replaced first, until the agent's ``uninstall()`` or the
    process's end; with key reuse off (``ACCEL_AGENT_KEY_REUSE=off``) none
    (docs/security.md).
    """

    __slots__ = ("tables", "_entries", "__weakref__")
    SIZE = 3

    def __init__(self, tables: DesTables) -> None:
        self.tables = tables
        self._entries: tuple[tuple[bytes, list[list[int]], bytes, bytes, dict], ...] = ()
        keeps_keys(self)

    def _entry(self, key: bytes) -> tuple | None:
        for entry in self._entries:  # replaced whole, never changed: a consistent one
            if compare_digest(entry[0], key):
                return entry
        return None

    def get(self, key: bytes) -> tuple[list[list[int]], bytes, bytes]:
        """``(Kn, L, R)`` of an 8-byte key; ``Kn`` may be shared: compare it, never hand it out."""
        entry = self._entry(key)
        if entry is None:
            rows, left, right = self.tables.schedule(key)
            entry = (key, rows, bytes(left), bytes(right), {})
            if key_reuse_enabled():
                self._entries = (entry,) + self._entries[: self.SIZE - 1]
        return entry[1:4]

    def contexts(self, key: bytes) -> dict | None:
        """The kept key's single-DES contexts by direction, or None where it is not kept.

        ECB holds nothing between calls of whole blocks; a caller takes a
        context out (``pop``) for its call and puts it back, so that two
        threads never use one at once (one that finds none makes its own).
        """
        entry = self._entry(key)
        return None if entry is None else entry[4]

    def forget(self) -> None:
        self._entries = ()


_ROW_STARTS = tuple(range(0, ROUNDS * ROUND_KEY_BITS, ROUND_KEY_BITS))
_HALVES = ROUNDS * ROUND_KEY_BITS  # where C0 || D0 starts in the schedule's bits
# des object -> (key, the round keys it was checked with, RecentSchedules'
# private lists): the check of Kn against its key is one list comparison
# while both are as they were. Entries live no longer than their object.
_checked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def patch(module: ModuleType) -> None:
    """Patch ``pyDes.des`` and ``pyDes.triple_des``; all or nothing."""
    des_class = module.des
    triple_class = module.triple_des
    if module.CBC != 1 or des_class.ENCRYPT != ENCRYPT or des_class.DECRYPT != DECRYPT:
        return  # not the pyDes this target knows: all native
    schedules = RecentSchedules(DesTables(des_class))
    ecb = registry.slot("tdes-ecb")
    cbc = registry.slot("tdes-cbc")
    names = (
        (des_class, "_des__create_sub_keys"),
        (des_class, "crypt"),
        (triple_class, "encrypt"),
        (triple_class, "decrypt"),
    )
    natives = {(owner, name): vars(owner)[name] for owner, name in names}
    cipher = _Ciphers(des_class, triple_class, schedules, ecb, cbc, module.CBC, natives)
    replacements = [
        (des_class, "_des__create_sub_keys", cipher.create_sub_keys),
        (des_class, "crypt", cipher.crypt),
        (triple_class, "encrypt", cipher.triple_encrypt),
        (triple_class, "decrypt", cipher.triple_decrypt),
    ]
    try:
        for owner, name, value in replacements:
            functools.update_wrapper(value, vars(owner)[name])
            patching.patch_attribute(module, "%s.%s" % (owner.__name__, name), value)
    except BaseException:
        patching.restore_module(module.__name__)
        raise


class _Ciphers:
    """The replacement methods, over one pyDes module's classes and the two slots."""

    def __init__(
        self,
        des_class: type,
        triple_class: type,
        schedules: RecentSchedules,
        ecb: registry.Slot,
        cbc: registry.Slot,
        cbc_mode: int,
        natives: dict[tuple[type, str], Any],
    ) -> None:
        self.des_class = des_class
        self.triple_class = triple_class
        self.schedules = schedules
        self.rounds_out = schedules.tables.rounds_out
        self.ecb, self.cbc = ecb, cbc  # the slots of tdes-ecb and tdes-cbc
        self.cbc_mode = cbc_mode
        self.native = natives
        # Plain functions (not bound methods): pyDes's classes get them as methods.
        self.create_sub_keys = self._make_create_sub_keys()
        self.crypt = self._make_crypt()
        self.triple_encrypt = self._make_triple(ENCRYPT)
        self.triple_decrypt = self._make_triple(DECRYPT)

    # -- state ---------------------------------------------------------------

    def des_key(self, part: Any) -> bytes | None:
        """The 8-byte key of a ``des`` object whose ``Kn`` is that key's schedule, else None."""
        if type(part) is not self.des_class:
            return None
        state = part.__dict__
        key = state.get(KEY)
        round_keys = state.get("Kn")
        if (
            type(key) not in (bytes, bytearray)
            or len(key) != BLOCK_SIZE
            or type(round_keys) is not list
            or state.get("block_size") != BLOCK_SIZE
            or type(state.get("block_size")) is not int
        ):
            return None
        checked = _checked.get(part)
        # The very key object checked before (bytes cannot change; identity,
        # so nothing compares the key's value), and Kn still what it was.
        if checked is not None and checked[0] is key and round_keys == checked[1]:
            return key
        # pyDes's rounds read Kn[i][j]: rows equal to the schedule's give its result.
        expected = self.schedules.get(bytes(key))[0]
        if round_keys != expected:
            return None
        if type(key) is bytes:  # a bytearray may change in place: checked every time
            _checked[part] = (key, expected)
        return bytes(key)

    def mode_is_cbc(self, state: dict) -> bool | None:
        """pyDes's ``getMode() == CBC`` for a plain int mode, else None (native)."""
        mode = state.get("_mode")
        if type(mode) is not int:
            return None
        return mode == self.cbc_mode

    def mode_and_iv(self, state: dict, iv_types: tuple) -> tuple[bool, bytes | None] | None:
        """(:meth:`mode_is_cbc`, the IV as bytes in CBC, else None), or None (native).

        Served: a plain int mode and, in CBC, an IV of one block of one of
        ``iv_types``.
        """
        cbc = self.mode_is_cbc(state)
        if cbc is None:
            return None
        if not cbc:
            return False, None
        iv = state.get("_iv")
        if type(iv) not in iv_types or len(iv) != BLOCK_SIZE:
            return None
        return True, bytes(iv)

    def leave(self, part: Any, block: bytes) -> None:
        """Set ``final``, ``R`` and ``L`` as pyDes's rounds leave them after DES gave ``block``."""
        state = part.__dict__
        bits = _bits(block)
        halves = self.rounds_out(bits)
        state["L"] = list(halves[32:])
        state["R"] = list(halves[:32])
        state["final"] = list(bits)

    def single(self, key: bytes, block: bytes, direction: int) -> bytes | None:
        """One block of single DES of the 8-byte ``key``, as DES-EDE3 with K1=K2=K3.

        The context of a kept key is reused (:meth:`RecentSchedules.contexts`):
        its making is most of a single block's cost.
        """
        provider = self.ecb.get()
        if provider is None:
            return None
        kept = self.schedules.contexts(key)
        ctx = None if kept is None else kept.pop(direction, None)
        if ctx is None:
            make = provider.encryptor if direction == ENCRYPT else provider.decryptor
            ctx = make(key * 3)
        out = ctx.update(block)
        if kept is not None:
            kept[direction] = ctx
        return out

    # -- des -----------------------------------------------------------------

    def _make_create_sub_keys(self):
        schedules = self.schedules
        des_class = self.des_class
        native = self.native[(des_class, "_des__create_sub_keys")]

        def create_sub_keys(self_):
            state = self_.__dict__
            key = state.get(KEY)
            round_keys = state.get("Kn")
            if (
                type(self_) is des_class
                and type(key) in (bytes, bytearray)
                and len(key) == BLOCK_SIZE
                and type(round_keys) is list
                and len(round_keys) == ROUNDS
            ):
                rows, left, right = schedules.get(bytes(key))
                state["L"] = list(left)
                state["R"] = list(right)
                # pyDes assigns Kn[i] one by one: the same list object, new rows.
                round_keys[:] = [row[:] for row in rows]
                if type(key) is bytes:
                    _checked[self_] = (key, rows)
                return
            native(self_)

        return create_sub_keys

    def serve_des(self, part: Any, data: bytes, direction: int) -> bytes | None:
        """``des.crypt`` of whole blocks through OpenSSL, or None to run pyDes's."""
        state = part.__dict__
        length = len(data)
        if not length or length % BLOCK_SIZE:
            return None
        mode = self.mode_and_iv(state, (bytes, bytearray))
        if mode is None:
            return None
        cbc, iv = mode
        key = self.des_key(part)
        if key is None:
            return None
        slot = self.cbc if cbc else self.ecb
        provider = slot.get()
        if provider is None:
            return None
        data = bytes(data)
        if direction == ENCRYPT:
            out = provider.encryptor(key * 3, iv).update(data)
            last = out[-BLOCK_SIZE:]
        else:
            out = provider.decryptor(key * 3, iv).update(data)
            last = out[-BLOCK_SIZE:]
            if cbc:  # pyDes's final is DES's output, before the XOR with the chain
                last = _xor(
                    last, data[-2 * BLOCK_SIZE : -BLOCK_SIZE] if length > BLOCK_SIZE else iv
                )
        self.leave(part, last)
        slot.calls += 1
        return out

    def _make_crypt(self):
        des_class = self.des_class
        serve = self.serve_des
        native = self.native[(des_class, "crypt")]

        def crypt(self_, data, crypt_type):
            if (
                type(self_) is des_class
                and type(data) in (bytes, bytearray)
                and type(crypt_type) is int
                and crypt_type in (ENCRYPT, DECRYPT)
            ):
                try:
                    out = serve(self_, data, crypt_type)
                except Exception:  # noqa: BLE001 - OpenSSL refused (a FIPS rule on keys): pyDes's
                    out = None
                if out is not None:
                    return out
            return native(self_, data, crypt_type)

        return crypt

    # -- triple_des ----------------------------------------------------------

    def triple_plan(self, obj: Any) -> tuple | None:
        """(cbc, iv, parts, keys) for a ``triple_des`` OpenSSL can serve, else None."""
        state = obj.__dict__
        if state.get("block_size") != BLOCK_SIZE or type(state.get("block_size")) is not int:
            return None
        # pyDes hands the IV to each part's setIV: bytes of 8 pass unchanged.
        mode = self.mode_and_iv(state, (bytes,))
        if mode is None:
            return None
        cbc, iv = mode
        parts = tuple(state.get(name) for name in PARTS)
        keys = []
        for index, part in enumerate(parts):
            if index == 2 and part is parts[0]:  # a 16-byte key: K3 is K1's object
                keys.append(keys[0])
                continue
            key = self.des_key(part)
            if key is None or self.mode_is_cbc(part.__dict__) is not cbc:
                return None
            keys.append(key)
        return cbc, iv, parts, keys

    def serve_triple(self, plan: tuple, data: bytes, direction: int) -> bytes | None:
        """The whole message through DES-EDE3; the parts' state as pyDes's block loop leaves it."""
        cbc, iv, parts, keys = plan
        slot = self.cbc if cbc else self.ecb
        provider = slot.get()
        if provider is None:
            return None
        first, second, third = parts
        key = keys[0] + keys[1] + keys[2]
        if direction == ENCRYPT:
            out = provider.encryptor(key, iv).update(data)
            plain, cipher = data, out
        else:
            out = provider.decryptor(key, iv).update(data)
            plain, cipher = out, data
        chain = cipher[-BLOCK_SIZE:]
        # What the first part's DES takes (encrypting) or gives (decrypting).
        outer = plain[-BLOCK_SIZE:]
        if cbc:
            previous = cipher[-2 * BLOCK_SIZE : -BLOCK_SIZE] if len(cipher) > BLOCK_SIZE else iv
            outer = _xor(outer, previous)
        encrypted = self.single(keys[0], outer, ENCRYPT)
        decrypted = self.single(keys[2], chain, DECRYPT)
        if encrypted is None or decrypted is None:
            return None
        if direction == ENCRYPT:
            # pyDes runs part 1, 2, 3 on each block: with a 16-byte key the
            # third part is the first object, and its state is the third's.
            states = ((first, encrypted), (second, decrypted), (third, chain))
        else:  # decryption runs part 3, 2, 1 on each block
            states = ((third, decrypted), (second, encrypted), (first, outer))
        for part, block in states:
            self.leave(part, block)
        if cbc:  # pyDes's loop ends with setIV(the last ciphertext block) on every part
            for part in parts:
                part.__dict__["_iv"] = chain
        slot.calls += 1
        return out

    def _make_triple(self, direction: int):
        name = "encrypt" if direction == ENCRYPT else "decrypt"
        plan_for = self.triple_plan
        serve = self.serve_triple
        triple_class = self.triple_class
        native = self.native[(triple_class, name)]

        def method(self_, data, pad=None, padmode=None):
            if type(self_) is triple_class and type(data) in (bytes, str):
                plan = plan_for(self_)
                if plan is not None:
                    # pyDes's own steps, in its order: its errors, its padding.
                    text = self_._guardAgainstUnicode(data)
                    pad_char = self_._guardAgainstUnicode(pad) if pad is not None else None
                    if direction == ENCRYPT:
                        text = self_._padData(text, pad_char, padmode)
                    if type(text) is bytes and text and not len(text) % BLOCK_SIZE:
                        try:
                            out = serve(plan, text, direction)
                        except Exception:  # noqa: BLE001 - OpenSSL refused: pyDes's
                            out = None
                        if out is not None:
                            if direction == DECRYPT:
                                return self_._unpadData(out, pad_char, padmode)
                            return out
            # Every step above is free of side effects on bytes and str: pyDes's
            # method starts again from the caller's arguments.
            return native(self_, data, pad, padmode)

        return method
