"""Which buffers an accelerated call may serve itself, and how results reach ``output=``.

pycryptodome accepts bytes, bytearray and memoryview, and writes into a
bytearray or writeable memoryview of the same length. The fast path serves
exactly the plain cases; everything else (wrong types, wrong lengths,
read-only or strided buffers, multi-byte item formats) is left to native
code, which raises its own errors or handles the exotic input itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def is_plain(data: Any) -> bool:
    """bytes, bytearray, or a one-dimensional contiguous memoryview of bytes."""
    kind = type(data)
    if kind is bytes or kind is bytearray:
        return True
    return kind is memoryview and data.ndim == 1 and data.c_contiguous and data.format == "B"


def is_key(key: Any, sizes: tuple[int, ...]) -> bool:
    return is_plain(key) and len(key) in sizes


def servable(data: Any, output: Any, block_size: int = 1) -> bool:
    """True when the fast path can serve ``data`` (and ``output``) exactly as native does."""
    if not is_plain(data) or len(data) % block_size:
        return False
    if output is None:
        return True
    if output is not data and type(data) is not bytes and _base(output) is _base(data):
        # pycryptodome reads and writes block by block: an output that overlaps
        # its input at another offset sees its own writes, which computing the
        # whole result first would not. Only the same buffer (in place) is served.
        return False
    kind = type(output)
    if kind is bytearray:
        return len(output) == len(data)
    return (
        kind is memoryview
        and not output.readonly
        and output.ndim == 1
        and output.c_contiguous
        and output.format == "B"
        and len(output) == len(data)
    )


def _base(buffer: Any) -> Any:
    """The object that owns a buffer's memory."""
    return buffer.obj if type(buffer) is memoryview else buffer


def deliver(result: bytes, output: Any) -> bytes | None:
    """Return ``result``, or copy it into ``output`` and return None (pycryptodome's contract).

    The result is complete before the copy, so an ``output`` that overlaps
    the input is handled as native handles it.
    """
    if output is None:
        return result
    if type(output) is memoryview and output.format != "B":
        output = output.cast("B")
    output[: len(result)] = result
    return None


def raw_bytes(data: Any) -> bytes:
    """The bytes pycryptodome's C code reads from a buffer it accepted: the first len(data)."""
    return bytes(memoryview(data).cast("B")[: len(data)])
