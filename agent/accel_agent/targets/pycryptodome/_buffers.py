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


def plain_bytes(data: Any) -> bytes | None:
    """``data`` as bytes when it is a plain buffer (:func:`is_plain`), else None."""
    if type(data) is bytes:
        return data
    if is_plain(data):
        return bytes(data)
    return None


# The most bytes pyca/cryptography takes in one argument of a one-shot AEAD call
# (AESGCM, ChaCha20Poly1305, AESOCB3, AESSIV, AESCCM; past it: OverflowError)
# and of GCM's authenticate_additional_data (past it: a Rust panic). Data
# longer than this is split where the API streams, else served by native.
ONE_CALL_MAX = 2**31 - 1


def aad_fits(chunks: Any) -> bool:
    """Whether associated data kept as ``chunks`` fits one one-shot AEAD call."""
    total = 0
    for chunk in chunks:
        total += len(chunk)
    return total <= ONE_CALL_MAX


def fits_one_call(data: Any, chunks: Any, extra: int = 0) -> bool:
    """Whether ``data`` (plus ``extra`` bytes: a tag joined to it) and ``chunks`` fit one call."""
    return len(data) + extra <= ONE_CALL_MAX and aad_fits(chunks)


def call_sized(data: bytes) -> list[Any]:
    """``data`` as pieces that each fit one OpenSSL call (views on it, no copy)."""
    if len(data) <= ONE_CALL_MAX:
        return [data]
    view = memoryview(data)
    return [view[i : i + ONE_CALL_MAX] for i in range(0, len(data), ONE_CALL_MAX)]


def is_key(key: Any, sizes: tuple[int, ...]) -> bool:
    return is_plain(key) and len(key) in sizes


def servable(data: Any, output: Any, block_size: int = 1) -> bool:
    """True when the fast path can serve ``data`` (and ``output``) exactly as native does."""
    if output is None:  # the common call: no second function frame
        return is_plain(data) and not len(data) % block_size
    if not shapes_servable(data, output, block_size):
        return False
    # pycryptodome reads and writes block by block: an output that overlaps
    # its input at another offset sees its own writes, which computing the
    # whole result first would not. Only the same memory (in place) is served.
    return output is None or output is data or type(data) is bytes or not overlaps_elsewhere(
        data, output
    )


def shapes_servable(data: Any, output: Any, block_size: int = 1) -> bool:
    """Plain buffers of fitting lengths, whatever memory they share."""
    if not is_plain(data) or len(data) % block_size:
        return False
    if output is None:
        return True
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


def overlaps_elsewhere(data: Any, output: Any) -> bool:
    """True when ``output``'s memory overlaps ``data``'s but does not start where it starts.

    Decided on the buffers' addresses and lengths, not on the objects: two
    memoryviews (of ctypes arrays, numpy slices, ``mmap``) can share memory
    while their ``obj`` differ. Only calls given an ``output`` that is not
    their input pay for it. A buffer whose address cannot be read counts
    as overlapping (native serves it).
    """
    try:
        start, size = buffer_span(data)
        out_start, out_size = buffer_span(output)
    except (TypeError, ValueError, BufferError):
        return True
    if start == out_start:
        return False  # in place: reading a block before writing it is what native does too
    return start < out_start + out_size and out_start < start + size


def buffer_span(buffer: Any) -> tuple[int, int]:
    """(address, length in bytes) of a contiguous buffer's memory."""
    api = _buffer_api()
    view = api.Py_buffer()
    if api.get(buffer, api.byref(view), 0) != 0:  # PyBUF_SIMPLE: contiguous bytes
        raise BufferError("no simple buffer")
    try:
        return view.buf or 0, view.len
    finally:
        api.release(api.byref(view))


_api: list = []


def _buffer_api() -> Any:
    """CPython's ``PyObject_GetBuffer`` through ctypes, loaded on first use."""
    if _api:
        return _api[0]
    import ctypes
    import types

    class Py_buffer(ctypes.Structure):  # noqa: N801 - CPython's struct name
        _fields_ = [
            ("buf", ctypes.c_void_p),
            ("obj", ctypes.c_void_p),
            ("len", ctypes.c_ssize_t),
            ("itemsize", ctypes.c_ssize_t),
            ("readonly", ctypes.c_int),
            ("ndim", ctypes.c_int),
            ("format", ctypes.c_char_p),
            ("shape", ctypes.c_void_p),
            ("strides", ctypes.c_void_p),
            ("suboffsets", ctypes.c_void_p),
            ("internal", ctypes.c_void_p),
        ]

    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = (ctypes.py_object, ctypes.c_void_p, ctypes.c_int)
    get.restype = ctypes.c_int
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = (ctypes.c_void_p,)
    release.restype = None
    api = types.SimpleNamespace(Py_buffer=Py_buffer, get=get, release=release, byref=ctypes.byref)
    _api.append(api)
    return api


def last_block(tail: bytes, data: Any, size: int) -> bytes:
    """The last ``size`` bytes (a copy) of a stream whose last bytes were ``tail``, once the
    plain buffer ``data`` follows."""
    if len(data) >= size:
        return bytes(data[-size:])
    return (tail + bytes(data))[-size:]


def partial_block(tail: bytes, length: int, size: int) -> bytes:
    """The incomplete last block of a stream of ``length`` bytes whose last bytes are
    ``tail`` (kept by ``last_block``); empty when the stream is whole blocks."""
    pending = length % size
    return tail[len(tail) - pending :] if pending else b""


def stand_in(output: Any) -> Any:
    """A buffer of its own that native judges as it judges ``output`` (None stays None).

    For a native judge whose call may succeed: it then writes into the
    stand-in, not into memory the caller's input may share. What native
    checks of an ``output`` is its type, whether it is writable, its length
    and that its memory is contiguous; an ``output`` it would refuse for
    another reason is given as it is (a refusal writes nothing).
    """
    if type(output) is bytearray:
        return bytearray(len(output))
    if type(output) is not memoryview or output.readonly or not output.c_contiguous:
        return output
    try:
        own = memoryview(bytearray(output.nbytes))
        if output.itemsize == 1:
            return own.cast("B", output.shape) if output.ndim != 1 else own
        return own.cast(output.format, output.shape)
    except (TypeError, ValueError):
        return output


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
