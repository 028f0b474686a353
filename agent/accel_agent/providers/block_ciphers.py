"""Block ciphers as records of facts, read by the generic modes of operation.

A :class:`BlockCipher` says what a mode needs to know of its cipher: its
block size, the key sizes OpenSSL is given, pyca/cryptography's algorithm
class, and which of OpenSSL's modes exist for it. The mode providers
(:mod:`.block_modes`), the pycryptodome objects and builders, and the
checks of the arguments all read these records, so a second cipher is a
second record, not a copy of the modes. Nothing here imports
pyca/cryptography until :func:`algorithm_class` is called (a provider's
first use).
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers.base import ProviderUnavailable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class BlockCipher:
    """One block cipher: the facts its modes of operation read."""

    __slots__ = (
        "name",
        "block_size",
        "key_sizes",
        "algorithm",
        "modes",
        "requires",
        "full_key_size",
    )

    def __init__(
        self,
        name: str,
        block_size: int,
        key_sizes: tuple[int, ...],
        algorithm: str,
        modes: frozenset[str],
        requires: tuple[str, ...] = (),
        full_key_size: int | None = None,
    ) -> None:
        self.name = name  # the primitives' prefix: "aes" -> "aes-cbc"
        self.block_size = block_size  # bytes
        self.key_sizes = key_sizes  # bytes, as OpenSSL takes them
        # pyca/cryptography's class in hazmat.primitives.ciphers.algorithms
        # (or, from 43.0 for the old ciphers, hazmat.decrepit.ciphers.algorithms)
        self.algorithm = algorithm
        # pyca/cryptography's mode classes OpenSSL has for this cipher
        self.modes = modes
        self.requires = requires  # platform capabilities of its fast providers
        # Where a shorter key is a repeat of the full one's first part (Triple
        # DES: K1 K2 is K1 K2 K1), OpenSSL is given the full form.
        self.full_key_size = full_key_size

    @property
    def cfb_segments(self) -> tuple[int, int]:
        """The CFB segment sizes (bits) OpenSSL has: CFB-8 and the full block."""
        return (8, 8 * self.block_size)

    def __repr__(self) -> str:
        return "BlockCipher(%r)" % self.name


AES = BlockCipher(
    "aes",
    16,
    (16, 24, 32),
    "AES",
    frozenset(("ECB", "CBC", "CTR", "CFB8", "CFB", "OFB", "GCM")),
    requires=("aes",),
)
# GCM's nonce sizes (bytes) that pyca/cryptography's GCM takes; pycryptodome
# takes more, which stay native. Read by the provider, the target and, through
# it, the compiled AES.new (speedups.gcm_new).
GCM_NONCE_SIZES = range(8, 129)
# SIV's key is two AES keys, one for S2V (CMAC) and one for CTR. Read by the
# provider and by the target's ``new`` on every SIV call (so kept here, loaded
# with AES, rather than in the SIV provider's module).
SIV_KEY_SIZES = tuple(2 * size for size in AES.key_sizes)
# DES-EDE3: OpenSSL has no CTR for it. A 16-byte key is K1 K2 K1 (keying
# option 2); single DES (one 8-byte key) is not offered here.
TRIPLE_DES = BlockCipher(
    "tdes",
    8,
    (16, 24),
    "TripleDES",
    frozenset(("ECB", "CBC", "CFB8", "CFB", "OFB")),
    full_key_size=24,
)


def cryptography_ciphers() -> tuple[Any, Any, Any]:
    """pyca/cryptography's ``Cipher``, ``algorithms`` and ``modes``, or ProviderUnavailable."""
    cipher = cryptography_module("hazmat.primitives.ciphers").Cipher
    algorithms = cryptography_module("hazmat.primitives.ciphers.algorithms")
    return cipher, algorithms, cryptography_module("hazmat.primitives.ciphers.modes")


def algorithm_class(cipher: BlockCipher) -> type:
    """pyca/cryptography's algorithm class of ``cipher``.

    pyca/cryptography 43.0 moved the old ciphers (TripleDES among them) to
    its ``decrepit`` package; the old name still works there but warns
    (``CryptographyDeprecationWarning``), which must never reach the user:
    the decrepit class is taken where it exists, and the old name is read
    with that warning silenced where it does not.
    """
    try:
        from cryptography.hazmat.decrepit.ciphers import algorithms as decrepit
    except ImportError:
        decrepit = None
    found = getattr(decrepit, cipher.algorithm, None) if decrepit is not None else None
    if found is not None:
        return found
    _, algorithms, _ = cryptography_ciphers()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = getattr(algorithms, cipher.algorithm, None)
    if found is None:
        raise ProviderUnavailable("pyca/cryptography has no %s" % cipher.algorithm)
    return found


def algorithm_maker(cipher: BlockCipher) -> Callable[[bytes], Any]:
    """``key -> algorithm object`` for ``cipher``, a short key given in its full form.

    pyca/cryptography 45 and later warn (``CryptographyDeprecationWarning``)
    on a two-key Triple DES key; K1 K2 K1 is the same key in the form they
    take without a word.
    """
    algorithm = algorithm_class(cipher)
    full = cipher.full_key_size
    if full is None:
        return algorithm
    repeat = full - min(cipher.key_sizes)

    def make(key: bytes) -> Any:
        return algorithm(key if len(key) == full else key + key[:repeat])

    return make


def mode_class(mode_name: str) -> type:
    """pyca/cryptography's mode class; CFB, CFB8 and OFB moved to ``decrepit`` (43.0)."""
    _, _, modes = cryptography_ciphers()
    try:
        from cryptography.hazmat.decrepit.ciphers import modes as decrepit_modes
    except ImportError:
        decrepit_modes = None
    if decrepit_modes is not None and hasattr(decrepit_modes, mode_name):
        return getattr(decrepit_modes, mode_name)
    return getattr(modes, mode_name)
