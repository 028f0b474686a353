"""Known answers as data: one JSON file per set, and the one loader that reads them.

A set is named after the primitive it gates (``aes-gcm.json``), or after a
part of one (``hchacha20.json``, which the ``chacha20`` row also names). A
file is one JSON object: which checker runs it, where its vectors come from,
and the vectors, each an object of named fields::

    {"checker": "block-mode", "source": "NIST SP 800-38A appendix F.2",
     "vectors": [{"label": "...", "key": "2b7e...", "iv": "0001...", ...}]}

Bytes are hex strings, or ``{"ascii": "..."}`` where the bytes are text;
big integers are hex strings; small integers are numbers. The checker
declares each field's decoder (:func:`octets`, :func:`big_integer`, ...), and
:func:`vectors` turns the objects into the tuples it unpacks, in its order.

Read only when a primitive's self-check runs (its first use), never at
import of ``accel_agent``. Every first use pays for the reading, and
``json``'s import compiles half a dozen regular expressions (about 1 ms
here), while the decoder those regular expressions serve is not the one that
runs: CPython's ``json`` parses with its C scanner, ``_json.make_scanner``.
The loader calls that scanner directly (about 0.3 ms to load it, then tens
of microseconds a file) and falls back to ``json.loads`` where there is no
such scanner. Either way a file is parsed as data: nothing in it runs.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Decoder = Callable[[Any], Any]

__all__ = [
    "big_integer",
    "octets",
    "octets_list",
    "integer",
    "optional_octets",
    "rsa_key",
    "dsa_key",
    "text",
    "path",
    "read",
    "vectors",
]

_HERE = os.path.dirname(os.path.abspath(__file__))


def text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def octets(value: Any) -> bytes:
    """A hex string, or ``{"ascii": text}``."""
    if isinstance(value, dict) and set(value) == {"ascii"}:
        return value["ascii"].encode("ascii")
    if not isinstance(value, str):
        raise ValueError("not hex or ascii")
    return bytes.fromhex(value)


def optional_octets(value: Any) -> bytes | None:
    return None if value is None else octets(value)


def octets_list(value: Any) -> list[bytes]:
    if not isinstance(value, list):
        raise ValueError("not a list")
    return [octets(item) for item in value]


def integer(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("not an integer")
    return value


def big_integer(value: Any) -> int:
    """A non-negative integer written in hex (JSON numbers lose precision past 2**53)."""
    if not isinstance(value, str):
        raise ValueError("not a hex integer")
    return int(value, 16)


def rsa_key(value: Any) -> tuple[int, int, int, int, int]:
    """``{"n", "e", "d", "p", "q"}`` as the tuple ``(n, e, d, p, q)``; e is a number."""
    if not isinstance(value, dict) or set(value) != {"n", "e", "d", "p", "q"}:
        raise ValueError("not an RSA key")
    n, d, p, q = (big_integer(value[name]) for name in "ndpq")
    return n, integer(value["e"]), d, p, q


def dsa_key(value: Any) -> tuple[int, int, int, int, int]:
    """``{"p", "q", "g", "x", "y"}`` as the tuple ``(p, q, g, y, x)``."""
    if not isinstance(value, dict) or set(value) != {"p", "q", "g", "x", "y"}:
        raise ValueError("not a DSA key")
    return tuple(big_integer(value[name]) for name in "pqgyx")


class _ScanContext:
    """What ``_json.make_scanner`` reads of a decoder: JSON as written, no hooks."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> Any:
        raise ValueError("not JSON: %s" % name)  # NaN and Infinity


_WHITESPACE = " \t\n\r"
_parse: Callable[[str], Any] | None = None


def _parser() -> Callable[[str], Any]:
    """JSON's own C scanner wrapped as ``json.loads`` (without its module), made once."""
    global _parse
    if _parse is not None:
        return _parse
    try:
        import _json

        scan = _json.make_scanner(_ScanContext())
    except (ImportError, AttributeError, TypeError):  # not CPython's json accelerator
        import json

        _parse = json.loads
        return _parse

    def parse(text: str) -> Any:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except StopIteration:
            raise ValueError("not JSON") from None
        if text[end:].strip(_WHITESPACE):
            raise ValueError("not JSON: more after the value")
        return value

    _parse = parse
    return parse


def path(name: str) -> str:
    """Where the set ``name`` lives (it may not exist)."""
    return os.path.join(_HERE, name + ".json")


def read(name: str) -> dict[str, Any]:
    """The document of set ``name``; FileNotFoundError when there is none."""
    if os.sep in name or (os.altsep and os.altsep in name) or name.startswith((".", "_")):
        raise FileNotFoundError("not a set name")
    with open(path(name), encoding="utf-8") as file:
        document = _parser()(file.read())
    if not isinstance(document, dict) or not isinstance(document.get("checker"), str):
        raise ValueError("a known-answer file names its checker")
    if not isinstance(document.get("vectors"), list) or not document["vectors"]:
        raise ValueError("a known-answer file lists its vectors")
    return document


def vectors(document: dict[str, Any], fields: dict[str, Decoder]) -> tuple[tuple, ...]:
    """The document's vectors as tuples in ``fields``' order, each field decoded.

    A missing or unexpected field is a ValueError naming the field and the
    vector's position, never a value.
    """
    decoded = []
    for index, vector in enumerate(document["vectors"]):
        if not isinstance(vector, dict) or set(vector) != set(fields):
            wrong = sorted(set(vector) ^ set(fields)) if isinstance(vector, dict) else ["?"]
            raise ValueError("vector %d: fields %s" % (index, ", ".join(wrong)))
        try:
            decoded.append(tuple(decode(vector[name]) for name, decode in fields.items()))
        except ValueError as exc:
            raise ValueError("vector %d: %s" % (index, exc)) from None
    return tuple(decoded)
