"""GHASH's field arithmetic (NIST SP 800-38D, 6.3-6.4), to rebuild native GcmMode's state.

pycryptodome's ``GcmMode`` keeps its GHASH value in a C buffer that
``copy.copy`` shares between an object and its copy. OpenSSL's context
keeps the same value where nothing can read it, but its tag is that value
one or two multiplications by H later, XORed with E(K, J0). Knowing H, the
lengths and the last partial block, the value is recovered by dividing by
H: the only use of this module, on the rare path of a copy of an object
in the middle of a message. Plain Python: well under a millisecond a copy,
nothing on any per-message path.

Blocks are 128-bit integers read big-endian, the bit order of SP 800-38D
(the first bit of the block is the coefficient of x^0).
"""

from __future__ import annotations

BLOCK_SIZE = 16
_R = 0xE1 << 120  # x^128 = x^7 + x^2 + x + 1, in the reflected bit order


def multiply(x: int, y: int) -> int:
    """x * y in GF(2^128) (SP 800-38D, Algorithm 1)."""
    z = 0
    v = y
    for bit in range(127, -1, -1):
        if (x >> bit) & 1:
            z ^= v
        v = (v >> 1) ^ _R if v & 1 else v >> 1
    return z


def _reflected(value: int) -> int:
    """The 128 bits of ``value`` in the other order (SP 800-38D's order <-> x^i at bit i)."""
    return int(format(value, "0128b")[::-1], 2)


_MODULUS = (1 << 128) | 0x87  # x^128 + x^7 + x^2 + x + 1, x^i at bit i


def inverse(x: int) -> int:
    """1 / x in GF(2^128). ``x`` is not zero.

    The extended Euclidean algorithm on polynomials over GF(2) (Hankerson,
    Menezes and Vanstone, Guide to Elliptic Curve Cryptography, Algorithm
    2.48): about 0.2 ms in Python, where x^(2^128 - 2) took 4 ms.
    """
    if not x:
        raise ZeroDivisionError("0 has no inverse in GF(2^128)")
    u, v = _reflected(x), _MODULUS
    g1, g2 = 1, 0
    while u != 1:
        j = u.bit_length() - v.bit_length()
        if j < 0:
            u, v, g1, g2, j = v, u, g2, g1, -j
        u ^= v << j
        g1 ^= g2 << j
    return _reflected(g1)


def block(data: bytes) -> int:
    """A block of at most 16 bytes, zero-padded on the right, as an integer."""
    return int.from_bytes(data.ljust(BLOCK_SIZE, b"\x00"), "big")


def lengths_block(aad_len: int, msg_len: int) -> int:
    """[8 * len(A)]_64 || [8 * len(C)]_64."""
    return ((8 * aad_len) << 64) | (8 * msg_len)


def ghash(h: int, data: bytes) -> int:
    """GHASH_H of ``data`` zero-padded to whole blocks."""
    y = 0
    for start in range(0, len(data), BLOCK_SIZE):
        y = multiply(y ^ block(data[start : start + BLOCK_SIZE]), h)
    return y


def pre_counter_block(h: int, nonce: bytes) -> bytes:
    """J0 (SP 800-38D, 7.1 step 2)."""
    if len(nonce) == 12:
        return nonce + b"\x00\x00\x00\x01"
    padded = nonce + bytes(-len(nonce) % BLOCK_SIZE)
    value = ghash(h, padded + (8 * len(nonce)).to_bytes(BLOCK_SIZE, "big"))
    return value.to_bytes(BLOCK_SIZE, "big")


def state_before_tag(
    h_inverse: int, masked_tag: int, aad_len: int, msg_len: int, partial: bytes
) -> int:
    """GHASH's value before the last partial block and the lengths block.

    ``masked_tag`` is the whole 16-byte tag XOR E(K, J0), that is
    ``((Y ^ partial) * H ^ lengths) * H`` (without the partial block's
    step when ``partial`` is empty), and ``Y`` is returned: what native's
    GHASH buffer holds while ``partial`` waits in its cache.
    """
    y = multiply(masked_tag, h_inverse) ^ lengths_block(aad_len, msg_len)
    if partial:
        y = multiply(y, h_inverse) ^ block(partial)
    return y
