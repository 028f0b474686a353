"""AES key wrap rows (KW and KWP, AES-128): ``AES.new(key, mode)`` then ``seal``/``unseal``.

One new cipher per message. The direct column is what a pyca/cryptography
user writes: ``aes_key_wrap(key, data)`` and its padded and unwrapping
siblings. Rows stop at 16 KiB: natively a 1 MiB wrap is 786,432 AES calls
in a Python loop, seconds per call (docs/performance.md gives one timing).
pycryptodome 3.x has no key wrap: there the family has no rows.
"""

from __future__ import annotations

from Crypto.Cipher import AES
from cryptography.hazmat.primitives import keywrap

from accel_agent.bench.families import KIB, Row, random_bytes

NAME = "keywrap"
TITLE = "AES-KW and AES-KWP (AES-128); one new cipher per message"
SIZES = (64, KIB, 16 * KIB)  # natively, larger ones take seconds per call

KEY = random_bytes(16)


def _wrap(padded: bool, seal: bool):
    mode_name = "MODE_KWP" if padded else "MODE_KW"
    wrap = keywrap.aes_key_wrap_with_padding if padded else keywrap.aes_key_wrap
    unwrap = keywrap.aes_key_unwrap_with_padding if padded else keywrap.aes_key_unwrap

    def build(size: int):
        data = random_bytes(size)
        wrapped = wrap(KEY, data)
        mode = getattr(AES, mode_name)

        if seal:

            def pycryptodome():
                return AES.new(KEY, mode).seal(data)

            def direct():
                return wrap(KEY, data)

        else:

            def pycryptodome():
                return AES.new(KEY, mode).unseal(wrapped)

            def direct():
                return unwrap(KEY, wrapped)

        return pycryptodome, direct

    return build


ROWS = (
    (
        Row("kw seal", "aes-kw", _wrap(False, True), sizes=SIZES),
        Row("kw unseal", "aes-kw", _wrap(False, False), sizes=SIZES),
        Row("kwp seal", "aes-kwp", _wrap(True, True), sizes=SIZES),
        Row("kwp unseal", "aes-kwp", _wrap(True, False), sizes=SIZES),
    )
    if hasattr(AES, "MODE_KW")  # pycryptodome 4.x
    else ()
)
