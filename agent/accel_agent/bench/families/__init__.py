"""The crypto benchmark's families: one module per family, each a declarative list of rows.

A family module (``agent/accel_agent/bench/families/aes.py`` is the model)
imports its helpers from this package
(``from accel_agent.bench.families import KIB, MIB, Row, random_bytes``)
and defines:

* ``NAME`` - what ``--family`` selects (``"aes"``);
* ``TITLE`` - one line printed above the family's table;
* ``ROWS`` - a tuple of :class:`Row`: a label, the agent primitive that
  serves it (``accel_agent.status()["primitives"]`` names it), and a
  ``build(size)`` function returning two zero-argument callables doing the
  same work: ``(pycryptodome_call, direct_call)``. The pycryptodome call is
  timed twice, with the agent uninstalled (native) and active (agent); the
  direct call uses pyca/cryptography as its own users would;

Both callables must return the same bytes (a tuple of bytes counts as their
concatenation, so ``encrypt_and_digest``'s ``(ct, tag)`` matches AESGCM's
``ct || tag``): the benchmark checks it before timing, so a row can never
compare different work. The pycryptodome callable must look ``new`` up at
call time (``AES.new(...)``, never a ``new`` bound at import), or the agent's
patch would be invisible to it. Per-call objects (ciphers, contexts) are
created inside the callables: the common usage is one new cipher per message.

A family's performance targets, if it has any, are in
:mod:`accel_agent.bench.targets`, not here: they are the project's promises,
listed in docs/performance.md.

Adding a family: a new module here with those three names, and its name in
:data:`FAMILIES`; ``accel-agent bench --family NAME`` then runs it. A family
whose library is not installed (its import raises ImportError) is left out
of a run with that reason, so a family may measure an optional library
(python-rsa, pyaes...). The modules are imported only by the benchmark.

Moving a family written for the old ``bench/families/`` (before the
benchmark moved into the package): ``git mv bench/families/X.py
agent/accel_agent/bench/families/X.py``, then in it
``from bench.families import`` becomes ``from accel_agent.bench.families
import``; nothing else changes.
"""

from __future__ import annotations

import importlib
import random

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

KIB = 1024
MIB = 1024 * KIB
# The message sizes of the benchmark standard; --sizes selects among them.
STANDARD_SIZES = (64, KIB, 16 * KIB, MIB)

# Family modules, in the order their tables print.
FAMILIES = (
    "aes",
    "ccm_eax",
    "aes_ocb_siv_kw",
    "chacha",
    "hashes",
    "pubkey",
    "python_ecdsa",
    "starkbank_ecdsa",
    "pyaes",
    "pydes",
    "python_rsa",
    "apps",
)


class Row:
    """One line of a family's table, measured at each of its sizes."""

    __slots__ = ("label", "primitive", "build", "sizes")

    def __init__(
        self,
        label: str,
        primitive: str,
        build: Callable[[int], tuple[Callable[[], object], Callable[[], object]]],
        sizes: Sequence[int] | None = None,
    ) -> None:
        self.label = label  # "gcm enc"; unique within its family
        self.primitive = primitive  # the agent's name: "aes-gcm"
        self.build = build  # size -> (pycryptodome call, direct cryptography call)
        # None: the run's sizes. A tuple: its standard sizes follow --sizes,
        # others (a 16-byte single block) always run.
        self.sizes = tuple(sizes) if sizes is not None else None

    def sizes_for(self, run_sizes: Sequence[int]) -> list[int]:
        if self.sizes is None:
            return list(run_sizes)
        return [s for s in self.sizes if s in run_sizes or s not in STANDARD_SIZES]

    def __repr__(self) -> str:
        return "Row(%r, %r)" % (self.label, self.primitive)


def load(name: str):
    """The family module ``name`` (imports pycryptodome and cryptography)."""
    if name not in FAMILIES:
        raise KeyError("unknown family %r (known: %s)" % (name, ", ".join(FAMILIES)))
    return importlib.import_module("%s.%s" % (__name__, name))


_random = random.Random(20240229)  # fixed: every run encrypts the same bytes


def random_bytes(length: int) -> bytes:
    """Deterministic filler for keys, nonces and messages (a benchmark, not a secret)."""
    return _random.getrandbits(8 * length).to_bytes(length, "little") if length else b""


def flatten(result: object) -> bytes:
    """A call's result as bytes: tuples (``(ct, tag)``) and lists are concatenated."""
    if isinstance(result, (tuple, list)):
        return b"".join(bytes(part) for part in result)
    return bytes(result)


def size_label(size: int) -> str:
    if size >= MIB and size % MIB == 0:
        return "%d MiB" % (size // MIB)
    if size >= KIB and size % KIB == 0:
        return "%d KiB" % (size // KIB)
    return "%d B" % size
