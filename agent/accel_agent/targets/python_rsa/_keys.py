"""OpenSSL twins of python-rsa keys, in two small bounded caches keyed by the key's numbers.

python-rsa's ``PublicKey`` and ``PrivateKey`` use ``__slots__`` (no
``__dict__``, no ``__weakref__``), so unlike pycryptodome's keys a twin
cannot live on the key object, nor in a weak table. Converting on every
call is too dear: for RSA-2048 the private conversion (consistency checks
and one probing signature, :meth:`RsaProvider.load_private`) costs about as
much as two signatures. So the twins are cached, keyed by the numbers
themselves:

* the key of an entry is the tuple of numbers the operation depends on
  (``(n, e)`` for public operations, ``(n, e, d, p, q)`` for signing, which
  python-rsa computes as ``m^d mod n``): a key object whose attributes are
  changed simply finds another entry, and two equal keys share one;
* the caches are bounded (:data:`PRIVATE_ENTRIES`, :data:`PUBLIC_ENTRIES`),
  least recently used first out, and emptied by ``registry.reset()``;
* a key OpenSSL refuses (too small for the probe, inconsistent numbers) is
  cached as refused, so its calls go native without converting again.

The price, documented in docs/compatibility-python-rsa.md: up to
:data:`PRIVATE_ENTRIES` private keys (their numbers and OpenSSL copies)
stay in memory after the application dropped its key objects, until they
are pushed out by other keys, ``registry.reset()`` empties the caches, or
the process ends. ``ACCEL_AGENT_EXCLUDE=rsa`` keeps python-rsa native and caches nothing.
"""

from __future__ import annotations

from accel_agent import forksafe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

PRIVATE_ENTRIES = 16
PUBLIC_ENTRIES = 64
REFUSED = False  # cached for a key OpenSSL would not take


class BoundedCache:
    """A small thread-safe LRU mapping; ``get_or_make`` never raises for a refused key."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: dict[tuple, Any] = {}
        # Renewed in a forked child: a lock another thread held at the fork
        # would be copied locked, and the child's first python-rsa call would hang.
        forksafe.rlock(vars(self), "_lock")

    def __len__(self) -> int:
        return len(self._entries)

    def get_or_make(self, numbers: tuple, make: Callable[[], Any]) -> Any:
        """The twin for ``numbers`` (made by ``make`` on a miss), or None when refused."""
        entries = self._entries
        with self._lock:
            twin = entries.pop(numbers, None)
            if twin is not None:
                entries[numbers] = twin  # most recently used goes last
        if twin is None:
            try:
                twin = make()
            except Exception:  # noqa: BLE001 - refused by OpenSSL: native serves this key
                twin = REFUSED
            self.put(numbers, twin)
        return twin or None

    def put(self, numbers: tuple, twin: Any) -> None:
        with self._lock:
            entries = self._entries
            entries.pop(numbers, None)
            entries[numbers] = twin
            while len(entries) > self.limit:
                del entries[next(iter(entries))]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


private_twins = BoundedCache(PRIVATE_ENTRIES)
public_twins = BoundedCache(PUBLIC_ENTRIES)


def clear() -> None:
    """Forget every twin (``registry.reset()``, tests)."""
    private_twins.clear()
    public_twins.clear()


def _all_int(*values: Any) -> bool:
    return all(type(value) is int for value in values)


def public_twin(provider: Any, key: Any) -> Any:
    """The OpenSSL public key for a python-rsa key's ``(n, e)``, or None."""
    n, e = key.n, key.e
    if not _all_int(n, e):
        return None
    return public_twins.get_or_make((n, e), lambda: provider.load_public(n, e))


def private_twin(provider: Any, key: Any) -> Any:
    """The OpenSSL private key for a python-rsa ``PrivateKey``, or None.

    python-rsa signs with ``m^d mod n``; OpenSSL with the CRT values of the
    same ``d``, ``p`` and ``q``, which is the same number once the provider
    checked ``p*q == n`` and ``e*d == 1`` modulo ``p-1`` and ``q-1`` (and
    probed one signature). The key's own ``exp1``, ``exp2`` and ``coef`` are
    not used (python-rsa's signing does not use them either).
    """
    n, e, d, p, q = key.n, key.e, key.d, key.p, key.q
    if not _all_int(n, e, d, p, q) or p < 3 or q < 3:
        return None
    return private_twins.get_or_make(
        (n, e, d, p, q), lambda: provider.load_private(n, e, d, p, q, pow(p, -1, q))
    )


def remember_private(key_numbers: tuple, twin: Any) -> None:
    """Cache the twin of a key generated through OpenSSL (no conversion on first use)."""
    private_twins.put(key_numbers, twin)
