"""AEAD calls mid-message whose ``output=`` overlaps the input elsewhere: native's loop writes them.

pycryptodome's CTR and ChaCha20 loops read the input while they write the
output. Where the two overlap at another address, bytes written ahead are
read back later, and how many a step reads before it writes depends on the
build: pycryptodome 4.4's CTR XORs 16 bytes at a time within its key-stream
buffer, then byte by byte; 3.x's goes byte by byte. Computing the whole
result first, as OpenSSL does, gives other bytes.

So, rather than model any build, the XOR is handed to a native cipher of
the same algorithm (pycryptodome's own CTR or ChaCha20 object, the one the
native AEAD object uses inside) placed at the same key-stream position, its
key-stream buffer lined up as the native AEAD object's would be. The
accelerated object's MAC is then given what native's MAC reads: the output
after the XOR when encrypting (fed as the plaintext that yields it), the
input before it when decrypting.

At the start of a message the AEAD targets hand such calls to a whole
native twin instead; this module serves the middle of a message, where no
twin can take over (the MAC state so far is OpenSSL's).
"""

from __future__ import annotations

from accel_agent.targets.pycryptodome._buffers import overlaps_elsewhere

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# A native cipher for such a call starts at the last multiple of this many
# bytes of key stream before the call's position and skips to it: a multiple
# of every native key-stream buffer (AES-CTR: 16 blocks in 4.4), so that its
# buffer refills where the native AEAD object's would, at most this many
# bytes of key stream to skip.
ALIGNMENT = 4096


def aligned_start(position: int) -> int:
    """Where a native cipher for a call at ``position`` (bytes of key stream used) starts."""
    return position - position % ALIGNMENT


def skip_to(cipher: Any, start: int, position: int, method: str) -> Any:
    """``cipher`` (placed at ``start``) moved on to ``position`` with ``method``; returned.

    ``method`` is the direction the call will use: pycryptodome's ciphers
    refuse to change direction.
    """
    if position > start:
        getattr(cipher, method)(bytes(position - start))
    return cipher


def byte_view(buffer: Any) -> Any:
    """``buffer`` as native's C code reads it: a plain buffer as is, else its first len() bytes.

    None when it has no contiguous single-byte view (a multi-byte item
    format): such calls are left to the caller's general path.
    """
    if type(buffer) is bytes or type(buffer) is bytearray:
        return buffer
    try:
        view = memoryview(buffer)
    except TypeError:
        return None
    if view.itemsize != 1 or not view.c_contiguous or view.ndim == 0:
        return None
    if view.format == "B" and view.ndim == 1:
        return view
    return view.cast("B")[: len(view)]  # len(): the first dimension, as native counts


def encrypt(native_at: Callable[[str], Any], data: Any, output: Any) -> bytes:
    """Native's XOR of ``data`` into ``output``; returns what native's MAC-side input was.

    ``native_at(method)`` makes a native cipher at the call's position,
    moved there with ``method``. The returned bytes are the plaintext that
    a whole-result encryption turns into what ``output`` now holds (its XOR
    with the key stream), so an OpenSSL AEAD context fed them MACs native's
    ciphertext.
    """
    size = len(data)
    key_stream = native_at("encrypt").encrypt(bytes(size))
    native_at("encrypt").encrypt(data, output=output)
    written = bytes(memoryview(output).cast("B")[:size])
    read = int.from_bytes(written, "little") ^ int.from_bytes(key_stream, "little")
    return read.to_bytes(size, "little")


def decrypt(native_at: Callable[[str], Any], data: Any, output: Any) -> bytes:
    """Native's XOR of ``data`` into ``output``; returns the ciphertext as it was before it."""
    ciphertext = bytes(data)
    native_at("decrypt").decrypt(data, output=output)
    return ciphertext


def aliased(data: Any, output: Any) -> bool:
    """Whether ``output`` shares memory with ``data`` at another address (a byte view both)."""
    return (
        output is not None
        and type(data) is not bytes
        and byte_view(output) is not None
        and overlaps_elsewhere(data, output)
    )
