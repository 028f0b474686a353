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

Shapes several families share live here too: :class:`AeadCipher` (an AEAD
row's pycryptodome call), :func:`aes_encrypting` (an AES row's direct call),
:func:`chunked` (a stream row's pieces), :func:`verifying` and
:func:`by_length` (a verification's and a randomized signature's two calls).

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
# What a stream row hands its one cipher at a time, as file and socket code does.
STREAM_CHUNK = 64 * KIB

# Family modules, in the order their tables print.
FAMILIES = (
    "aes",
    "aes_aead",
    "keywrap",
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


def chunked(data: bytes) -> list[bytes]:
    """``data`` in :data:`STREAM_CHUNK` pieces, for a stream row."""
    return [data[i : i + STREAM_CHUNK] for i in range(0, len(data), STREAM_CHUNK)]


class AeadCipher:
    """How an AEAD row makes its pycryptodome cipher, a new one per message:
    ``new()``, then ``update(header)``.

    ``new`` is the call written as applications write it
    (``lambda: AES.new(KEY, AES.MODE_OCB, nonce=NONCE)``): the module's
    ``new`` is looked up at each call, so the agent's patch is seen, and no
    ``*args``/``**kwargs`` unpacking (~0.07 us) is added to pycryptodome's
    side. The methods return the row's pycryptodome callable for one way of
    using the cipher; the direct callables stay with each family.
    """

    __slots__ = ("new", "header")

    def __init__(self, new: Callable[[], object], *, header: bytes) -> None:
        self.new = new
        self.header = header

    def sealing(self, data: bytes) -> Callable[[], object]:
        """``encrypt_and_digest(data)``: ``(ciphertext, tag)``."""
        new, header = self.new, self.header

        def pycryptodome():
            cipher = new()
            cipher.update(header)
            return cipher.encrypt_and_digest(data)

        return pycryptodome

    def opening(self, ciphertext: bytes, tag: bytes) -> Callable[[], object]:
        """``decrypt_and_verify(ciphertext, tag)``: the plaintext."""
        new, header = self.new, self.header

        def pycryptodome():
            cipher = new()
            cipher.update(header)
            return cipher.decrypt_and_verify(ciphertext, tag)

        return pycryptodome

    def streaming(self, chunks: Sequence[bytes]) -> Callable[[], object]:
        """``encrypt`` of each chunk through one cipher, then ``digest()``: their list."""
        new, header = self.new, self.header

        def pycryptodome():
            cipher = new()
            cipher.update(header)
            return [cipher.encrypt(chunk) for chunk in chunks] + [cipher.digest()]

        return pycryptodome


def aes_encrypting(key: bytes, mode: Callable[[bytes], object], iv: bytes, data: bytes):
    """The direct call of an AES row: a new pyca/cryptography encryptor for
    ``mode(iv)`` per message, ``update(data) + finalize()``."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

    def direct():
        encryptor = Cipher(algorithms.AES(key), mode(iv)).encryptor()
        return encryptor.update(data) + encryptor.finalize()

    return direct


# What a verification row's callables return: the signature was found valid.
OK = b"ok"


def verifying(
    check: Callable[[], object], direct_check: Callable[[], object], valid: object = None
) -> tuple[Callable[[], bytes], Callable[[], bytes]]:
    """A verification row's two callables, each returning :data:`OK` for a valid signature.

    ``direct_check`` (pyca/cryptography) raises on a bad signature, and so
    does ``check`` by default (pycryptodome); a library whose verify returns
    a value passes what it returns for a valid one as ``valid`` (python-rsa:
    the hash's name; starkbank-ecdsa: True), anything else being
    ``b"invalid"``. The public-key families share this shape.
    """
    if valid is None:

        def library():
            check()
            return OK

    else:

        def library():
            return OK if check() == valid else b"invalid"

    def direct_call():
        direct_check()
        return OK

    return library, direct_call


def by_length(
    pycryptodome_sign: Callable[[], bytes], direct_sign: Callable[[], object], length: int
) -> tuple[Callable[[], bytes], Callable[[], bytes]]:
    """A randomized signature's row: the length of what pycryptodome (or the
    library) makes, against ``length``, what the direct call's signature is
    in that encoding (the direct call's own bytes are in another one, DER)."""
    summary = b"%d" % length

    def pycryptodome():
        return b"%d" % len(pycryptodome_sign())

    def direct_call():
        direct_sign()
        return summary

    return pycryptodome, direct_call


def size_label(size: int) -> str:
    if size >= MIB and size % MIB == 0:
        return "%d MiB" % (size // MIB)
    if size >= KIB and size % KIB == 0:
        return "%d KiB" % (size // KIB)
    return "%d B" % size
