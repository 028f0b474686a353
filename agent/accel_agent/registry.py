"""The provider table: for each primitive, which provider serves it and why.

For every primitive of :mod:`accel_agent.catalog` the registry walks the
providers in priority order and takes the first that passes the four gates
of design.md: (1) the platform requirement, (2) the known-answer self-check
in this process, (3) calibration says it is not slower than native, (4) the
user did not exclude it. Otherwise the primitive is served by ``native``.

Choices are made lazily, on a primitive's first use (or all at once by
:func:`resolve_all` in ``on``/``assert`` mode), then cached: a call pays one
attribute read through its :class:`Slot`.
"""

from __future__ import annotations

import sys

from accel_agent import config as _config
from accel_agent import forksafe, messages

# The catalog, calibration, the platform facts and the providers' exceptions
# are imported when a primitive is first decided, not when a patch asks for
# its slot: a patched module's import stays cheap (docs/activation.md,
# "Start-up cost"). A slot's name is therefore checked against the catalog
# at its first use, not when the slot is made.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from accel_agent.catalog import PrimitiveSpec

# How a primitive ended up, for status() and for assert mode.
ACCELERATED = "accelerated"
NATIVE_BY_CHOICE = "native-by-choice"  # calibration or the user said so: healthy
NOT_ACCELERATED = "not-accelerated"  # something that should work did not: unhealthy

# A slot's provider before its first use decides it (see Slot.provider).
UNRESOLVED = object()


class Choice:
    """The outcome for one primitive."""

    __slots__ = (
        "primitive",
        "family",
        "provider_name",
        "provider",
        "outcome",
        "reason",
        "refusals",
    )

    def __init__(
        self,
        primitive: str,
        family: str,
        provider_name: str,
        provider: object,
        outcome: str,
        reason: str,
        refusals: dict[str, str],
    ) -> None:
        self.primitive = primitive
        self.family = family
        self.provider_name = provider_name  # "openssl", "hashlib" or "native"
        self.provider = provider  # the provider object, None for native
        self.outcome = outcome
        self.reason = reason
        self.refusals = refusals  # provider name -> why it was not taken

    def as_dict(self) -> dict[str, object]:
        return {
            "family": self.family,
            "provider": self.provider_name,
            "accelerated": self.outcome == ACCELERATED,
            "outcome": self.outcome,
            "reason": self.reason,
            "refused": dict(self.refusals),
        }


class Slot:
    """A target's handle on one primitive: ``slot.get()`` is the provider or None.

    ``calls`` counts the calls the provider served (for status and for the
    proof that test suites went through the accelerated path); it is a plain
    integer, approximate under heavy threading, never used for decisions.
    ``counters`` are objects with a ``calls`` attribute of their own (the
    compiled fast paths, which count in C); :meth:`total_calls` adds them.
    """

    __slots__ = ("name", "provider", "calls", "counters")

    def __init__(self, name: str) -> None:
        self.name = name
        # The hot-path read: the provider, None for native, or UNRESOLVED
        # until the first use decides. A fast path (Python or compiled) may
        # read it directly and call get() only while it is UNRESOLVED; only
        # the registry writes it.
        self.provider: object = UNRESOLVED
        self.calls = 0
        self.counters: list = []

    def total_calls(self) -> int:
        return self.calls + sum(counter.calls for counter in self.counters)

    def get(self) -> object:
        provider = self.provider
        if provider is UNRESOLVED:
            provider = self.provider = choice(self.name).provider
        return provider


# Held while a provider is decided (its self-check included); renewed in a
# forked child (forksafe), where a thread that held it no longer exists.
_lock = forksafe.rlock(globals(), "_lock")

_choices: dict[str, Choice] = {}
_slots: dict[str, Slot] = {}
_exclusions: frozenset[str] | None = None
# Whether a primitive that should be accelerated but is not says so on stderr
# when it is decided; activation turns it off where the status lines say it.
report_fallbacks = True


def slot(name: str) -> Slot:
    """The slot of primitive ``name`` (created on first request).

    A name the catalog does not know raises KeyError at the slot's first
    use (:func:`choice`).
    """
    existing = _slots.get(name)
    if existing is not None:
        return existing
    with _lock:
        return _slots.setdefault(name, Slot(name))


def choice(name: str) -> Choice:
    """Decide (once) which provider serves primitive ``name``."""
    existing = _choices.get(name)
    if existing is not None:
        return existing
    with _lock:
        existing = _choices.get(name)
        if existing is None:
            # Loads the provider (cryptography's modules) and the self-check.
            with forksafe.importing_first_use:
                existing = _choices[name] = _decide(_spec(name))
        return existing


def _spec(name: str) -> PrimitiveSpec:
    from accel_agent import catalog

    spec = catalog.BY_NAME.get(name)
    if spec is None:
        raise KeyError("unknown primitive %r" % name)
    return spec


def resolve_all() -> list[Choice]:
    """Decide every primitive now (on/assert mode: self-checks before ``__main__``)."""
    from accel_agent import catalog

    return [choice(spec.name) for spec in catalog.PRIMITIVES]


def decided() -> list[Choice]:
    """The choices made so far, in catalog order."""
    from accel_agent import catalog

    return [_choices[spec.name] for spec in catalog.PRIMITIVES if spec.name in _choices]


def force_native(name: str, reason: str) -> None:
    """Serve primitive ``name`` natively for the rest of the process (a shadow mismatch).

    The reset listeners make targets that keep a resolved provider in a
    closure ask their slot again, which now answers native; objects made
    before keep their provider (shadow mode hands a followed object to its
    native twin itself).
    """
    spec = _spec(name)
    with _lock:
        previous = _choices.get(name)
        refusals = dict(previous.refusals) if previous is not None else {}
        if previous is not None and previous.provider_name != "native":
            refusals[previous.provider_name] = reason
        _choices[name] = Choice(
            name, spec.family, "native", None, NOT_ACCELERATED, reason, refusals
        )
        existing = _slots.get(name)
        if existing is not None:
            existing.provider = None
    for listener in list(reset_listeners):
        listener()


def slots() -> dict[str, Slot]:
    """Every slot made so far, by primitive name (a copy)."""
    return dict(_slots)


def calls() -> dict[str, int]:
    return {name: s.total_calls() for name, s in sorted(_slots.items())}


def set_exclusions(names: frozenset[str] | None) -> None:
    """Use these exclusions instead of reading the environment (activation, tests)."""
    global _exclusions
    _exclusions = names


def reset() -> None:
    """Forget every choice so the next use decides again (tests; recalibration)."""
    with _lock:
        _choices.clear()
        for existing in _slots.values():
            existing.provider = UNRESOLVED
            existing.calls = 0
            for counter in existing.counters:
                counter.calls = 0
    for listener in list(reset_listeners):
        listener()


# Called after reset(): targets that keep a resolved provider in a closure
# (the per-call cost of a slot lookup shows on 64-byte hashes) forget it.
reset_listeners: list = []


def _excluded(spec: PrimitiveSpec, provider_name: str) -> bool:
    names = _exclusions if _exclusions is not None else _config.exclusions()
    return bool({spec.name, spec.family, provider_name, "all"} & names)


def _decide(spec: PrimitiveSpec) -> Choice:
    """Walk the providers in priority order; the first that passes every gate wins."""
    from accel_agent import calibration
    from accel_agent import platform as _platform
    from accel_agent.providers.base import AlgorithmAbsent, ProviderUnavailable, SelfCheckFailed

    said = False  # a line about this primitive is on stderr already
    refusals: dict[str, str] = {}
    by_choice = None  # a reason that makes "native" a healthy outcome
    facts = _platform.facts()
    for provider_spec in spec.providers:
        name = provider_spec.name
        if _excluded(spec, name):
            by_choice = refusals[name] = "excluded by the user"
            continue
        platform_reason = facts.unsupported_reason or facts.missing(spec.requires)
        if platform_reason:
            refusals[name] = platform_reason
            continue
        preferred = calibration.preferred(spec.name)
        if preferred == calibration.NATIVE:
            by_choice = refusals[name] = "native is faster here"
            continue
        if preferred is not None and preferred != name:
            refusals[name] = "%s is faster here" % preferred
            continue
        try:
            provider = _load(provider_spec.factory)
        except ProviderUnavailable as exc:
            refusals[name] = str(exc)
            if isinstance(exc, AlgorithmAbsent):
                by_choice = refusals[name]  # nothing here to accelerate it with
            continue
        try:
            _selfcheck_run(spec.name, provider)
        except SelfCheckFailed as exc:
            refusals[name] = "self-check failed: %s" % exc
            messages.problem(
                "self-check of %s (%s) FAILED: %s; using native" % (spec.name, name, exc)
            )
            said = True
            continue
        return Choice(
            spec.name, spec.family, name, provider, ACCELERATED, "self-check passed", refusals
        )
    if by_choice is not None:
        return Choice(spec.name, spec.family, "native", None, NATIVE_BY_CHOICE, by_choice, refusals)
    reason = next(iter(refusals.values()), "no provider")
    if report_fallbacks and not said:
        # Quiet mode's one word on it (on and assert modes say it in the status lines).
        messages.problem("%s: %s; using native pycryptodome" % (spec.family, reason))
    return Choice(spec.name, spec.family, "native", None, NOT_ACCELERATED, reason, refusals)


def _load(factory_spec: str) -> object:
    from accel_agent.providers.base import ProviderUnavailable

    module_name, _, attribute = factory_spec.partition(":")
    try:
        __import__(module_name)
    except ImportError as exc:
        raise ProviderUnavailable("%s cannot be imported (%s)" % (module_name, exc)) from None
    try:
        return getattr(sys.modules[module_name], attribute)()
    except ProviderUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - a broken provider must not reach the caller
        raise ProviderUnavailable(
            "%s failed (%s: %s)" % (factory_spec, type(exc).__name__, exc)
        ) from None


def _selfcheck_run(primitive: str, provider: object) -> None:
    from accel_agent import selfcheck  # imported on first use: its vectors are not start-up cost

    selfcheck.run(primitive, provider)
