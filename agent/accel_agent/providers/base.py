"""What every provider shares: the two ways a provider can be refused, and key reuse."""

from __future__ import annotations

from _weakrefset import WeakSet  # what weakref.WeakSet is; loaded by site already

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class ProviderUnavailable(Exception):
    """The provider cannot run here (library missing, OpenSSL too old).

    The message is the reason the registry records.
    """


class AlgorithmAbsent(ProviderUnavailable):
    """This OpenSSL does not have the algorithm at all, by its build or version.

    Not a fault of the installation (RIPEMD-160 before OpenSSL 3.0.7, where
    only the legacy provider has it): when every provider says so, the
    primitive is native by choice, not an unhealthy fallback.
    """


class SelfCheckFailed(Exception):
    """A known-answer test gave a wrong answer; the message names the vector, never its bytes."""


class LastKeyReuse:
    """What pyca/cryptography makes of a key, kept for the last key object, reused while it returns.

    pyca/cryptography's AEAD classes (``AESGCM``, ``ChaCha20Poly1305``,
    ``AESOCB3``, ``AESSIV``) expand the key when they are made: 0.8-2.7 us,
    more than encrypting a kilobyte; ``algorithms.AES(key)``, which every
    AES context and CMAC starts from, validates it in Python (~370 ns).
    pycryptodome code makes a new cipher per message, usually with the same
    key object, so a provider keeps what it made of the most recent key and
    hands it out again when the very same ``bytes`` object comes back.

    * Identity (``is``), not equality: nothing is hashed or compared that
      depends on the key's value, so no timing reveals anything about it;
      an equal key in another object is only made again.
    * One key per provider: a new key object replaces the old one, whose
      OpenSSL context is freed (and cleansed by OpenSSL).
    * The objects only read their key (an AEAD call copies a base context),
      so threads may share one.
    * It keeps that one key past the objects the application made with it,
      until another key is used, :func:`forget_all` runs (the agent's
      ``uninstall()``), or the process ends. ``ACCEL_AGENT_KEY_REUSE=off``
      turns it off (docs/security.md).
    """

    __slots__ = ("_make", "_last", "_peers", "__weakref__")

    def __init__(self, make: Callable[[bytes], Any], *, shares_key_with: tuple = ()) -> None:
        """``shares_key_with``: the other caches of the same provider (see :meth:`for_key`)."""
        self._make = make
        self._last: tuple[Any, Any] = (None, None)
        self._peers: tuple[LastKeyReuse, ...] = ()
        for peer in shares_key_with:
            self._peers += (peer,)
            peer._peers += (self,)
        key_reuse_enabled()  # settle the setting now: for_key reads _state directly
        _ALL.add(self)

    def for_key(self, key: bytes) -> Any:
        last_key, made = self._last
        if key is last_key:
            return made
        made = self._make(key)
        if _state["enabled"]:
            self._last = (key, made)
            # A provider with several caches (GCM: its AES for streams and its
            # AESGCM for whole messages) keeps one key in all: a new key here
            # drops another key there.
            for peer in self._peers:
                if peer._last[0] is not key:
                    peer.forget()
        return made

    def forget(self) -> None:
        self._last = (None, None)


_ALL: WeakSet[Any] = WeakSet()  # LastKeyReuse caches, and keeps_keys() ones
# "enabled": None until the first LastKeyReuse is made or activation says.
_state: dict[str, bool | None] = {"enabled": None}


def set_key_reuse(enabled: bool | None) -> None:
    """Turn key reuse on or off (activation, tests; ``None``: the environment decides).

    Turning it off forgets every kept key at once.
    """
    _state["enabled"] = enabled
    if not enabled:
        forget_all()


def key_reuse_enabled() -> bool:
    """The setting in force: activation's choice, or the environment's, read at first use."""
    if _state["enabled"] is None:
        from accel_agent import config

        _state["enabled"] = config.key_reuse()
    return bool(_state["enabled"])


def keeps_keys(cache: Any) -> None:
    """Have :func:`forget_all` call ``cache.forget()`` too: a key cache of a target's own.

    Such a cache reads :func:`key_reuse_enabled` before keeping a key. It is
    held weakly, as the :class:`LastKeyReuse` caches are.
    """
    _ALL.add(cache)


def forget_all() -> None:
    """Drop every kept key (``uninstall()``; turning key reuse off)."""
    for reuse in list(_ALL):
        reuse.forget()
