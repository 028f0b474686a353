"""Sampling the agent's own calls, for shadow mode and the savings report.

Every patch goes through :func:`accel_agent.patching.patch_attribute`, which
knows each patched attribute's native original and its replacement. When
shadow mode or the report is on (and only then: with both off nothing here
is imported and patching installs replacements as they are), a listener
there puts a thin wrapper around each replacement:

* most calls go straight to the replacement: in shadow mode after one
  counter increment and one draw from shadow mode's own generator
  (:class:`_Draws`, seedable); with the report alone the wrapper is there
  only for the one call after each tick of :class:`_Sampler`'s clock;
* a sampled call is timed, the primitive that served it is found by which
  registry slots counted it, and its data bytes are measured. In shadow mode
  the native original runs too, on a snapshot of the same inputs, and
  :mod:`accel_agent.shadow` compares the two outcomes;
* a sampled call that returns a streaming object (a cipher, hash or MAC
  object) makes that object *followed*: its class is swapped for a subclass
  of the same name (``isinstance``, ``type(obj).__name__``, ``copy`` hold)
  whose public methods do the same, per call, against a native twin made by
  the native original from the same arguments. Sampling is therefore per
  call for one-shot calls and per object for streaming objects;
* a sampled call of a pyaes or pyDes method (their objects' state is plain
  attributes) runs the library's own method on a deep copy of the object,
  and compares results and states (:func:`_measure_method_call`): such
  calls stand alone and are sampled per call;
* a randomized result (a PSS or random-``k`` signature, an OAEP ciphertext,
  a generated key) is judged by native's checks of it
  (:mod:`accel_agent.shadow_checks`).

Shadow work runs in the caller's thread, inside the call; the one
background thread, the report's sampling clock, only swaps attributes.
While a sampled call runs, calls it makes itself (native HMAC calling a
hash's ``new``) go straight to their replacement.
"""

from __future__ import annotations

import functools
import inspect
import os
import random
import sys
import threading
import time
import types
import weakref

from accel_agent import hooks, patching, registry, savings, shadow, shadow_checks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# The standard library's hashlib and hmac constructors are patched only on
# interpreters without OpenSSL's; they are not pycryptodome's API and the
# comparison code itself relies on hmac.compare_digest.
_NOT_INSTRUMENTED = frozenset(("hashlib", "hmac"))
# Arguments that carry the data a call processes (the rest are keys, nonces, options).
_DATA_PARAMETERS = ("data", "msg", "message", "plaintext", "ciphertext")
_DATA_METHODS = frozenset(
    ("update", "encrypt", "decrypt", "encrypt_and_digest", "decrypt_and_verify", "seal", "open")
)
# Facts of a new object that a later call depends on, compared at creation.
_OBJECT_FACTS = ("nonce", "iv", "block_size", "digest_size", "key_size", "mode", "oid")
_HASH_FAMILIES = frozenset(("md5", "sha1", "sha2", "sha3", "blake2"))
# Pure-Python libraries whose patched methods change their objects' plain
# attributes (pyaes's modes and feeders, pyDes's ciphers): native's side of
# such a call runs on a copy of the object (_measure_method_call). Other
# libraries' patched methods (python-ecdsa's keys) change nothing.
_STATEFUL_LIBRARIES = frozenset(("pyaes", "pyDes"))
_VALUE_TYPES = (bytes, bytearray, memoryview, str, int, float, bool, type(None), tuple, list)

_settings = {"shadow": False, "rate": 0.0, "report": False}
_local = threading.local()
_followers: dict[type, type | None] = {}  # accelerated class -> its followed subclass
_followed: dict[int, _Followed] = {}  # id(object) -> what follows it
_signatures: dict[object, tuple[int, str] | None] = {}
_SET_CLASS = object.__dict__["__class__"].__set__
# Above zero while native's side of a sampled call runs: the patched calls
# native code makes then (native GCM making its ECB and CTR ciphers) go to
# their originals, so native's side is native all through and a fault of
# the agent's cannot hide on both sides. A shared counter rather than a
# thread-local one keeps the unsampled path to one cell read; another
# thread meanwhile is served natively too, which is always correct.
_native_side = [0]
# (module name, attribute) -> its entry, for every instrumented attribute
_entries: dict[tuple[str, str], _Entry] = {}


class _Entry:
    """One instrumented attribute: the bare replacement and the wrapper that samples it.

    Also what a sampled call needs: the figures' site, the method's own name
    (``encrypt`` of ``..._GcmCipher.encrypt``) and the native original.
    """

    __slots__ = (
        "module",
        "name",
        "replacement",
        "wrapper",
        "armed",
        "site",
        "method",
        "original",
        "library",
    )

    def __init__(self, module: Any, name: str, replacement: Any, original: Any) -> None:
        self.module = module
        self.name = name
        self.replacement = replacement
        self.wrapper: Any = None
        self.armed = False  # report only: the wrapper is installed, for one sampled call
        self.site = savings.site("%s.%s" % (module.__name__, name))
        self.method = name.rsplit(".", 1)[-1]
        self.original = original
        # "AESModeOfOperationCBC.encrypt": a method of a class of a library whose
        # objects keep their state in plain attributes that the method changes.
        library = module.__name__.split(".")[0]
        self.library = library if "." in name and library in _STATEFUL_LIBRARIES else None

    def install(self, value: Any) -> None:
        patching.set_value(self.module, self.name, value)


def enabled() -> bool:
    return bool(_settings["shadow"] or _settings["report"])


def shadow_rate() -> float | None:
    return float(_settings["rate"]) if _settings["shadow"] else None


def enable(shadow_rate: float | None, report: bool, seed: int | None = None) -> None:
    """Instrument every replacement installed from now on, and those installed already.

    ``shadow_rate`` None: shadow mode is off, and the report alone samples
    as :class:`_Sampler` says. ``seed``: shadow mode's draws are seeded with
    it (a run samples the same calls again); None, they come from the OS.
    """
    disable()
    _settings.update(shadow=shadow_rate is not None, rate=shadow_rate or 0.0, report=report)
    if not enabled():
        return
    _draws.reseed(seed)
    hooks.run_waiting()  # patches waiting for a first call: wrap their replacements, not stand-ins
    patching.patch_listeners.append(_on_patch)
    for module_name, names in patching.patched_names().items():
        module = _module(module_name)
        if module is None:
            continue
        for name in names:
            current = patching.current_value(module, name)
            installed = _on_patch(module, name, current, patching.saved_value(module_name, name))
            if installed is not current:
                patching.set_value(module, name, installed)
    if not _settings["shadow"]:
        _sampler.start()


def disable() -> None:
    """Put the bare replacements back (tests, benchmarks); followed objects keep their twins."""
    _sampler.stop()
    if _on_patch in patching.patch_listeners:
        patching.patch_listeners.remove(_on_patch)
    with _sampler.lock:
        for (module_name, name), entry in list(_entries.items()):
            module = _module(module_name)
            if (
                module is not None
                and patching.is_patched(module_name, name)
                and patching.current_value(module, name) is entry.wrapper
            ):
                entry.install(entry.replacement)
        _entries.clear()
    _settings.update(shadow=False, rate=0.0, report=False)


def _module(name: str) -> Any:
    return sys.modules.get(name)


class _Draws:
    """Shadow mode's sampling draws: a generator of its own, never the program's ``random``.

    Drawing from the ``random`` module would move a seeded program's own
    sequence on (``random.seed(1)`` then ``random.random()`` would differ
    from native's run). Seeded (``ACCEL_AGENT_SHADOW_SEED``), a run samples
    the same calls again; unseeded, the OS seeds it, and a forked child gets
    a seed of its own rather than its parent's draws.
    """

    def __init__(self) -> None:
        self.generator = random.Random()
        self.seed: int | None = None

    def reseed(self, seed: int | None) -> None:
        self.seed = seed
        self.generator.seed(seed)  # None: from the OS

    def after_fork_in_child(self) -> None:
        if self.seed is None:
            self.generator.seed(None)


_draws = _Draws()


class _Sampler:
    """Report only: when each entry point gets its sampling wrapper back, on a clock.

    Sampling costs no wrapper on unsampled calls: every ``ARM_EVERY``
    seconds a daemon thread gives each entry point its wrapper back, which
    measures the next call and takes itself out again. The clock is not the
    garbage collector's: a program that keeps nothing, or turns the collector
    off, is sampled as often as any other. The thread only swaps attributes;
    every sampled call runs in the caller's thread, inside the call. A forked
    child starts its own. At most one sampled call per entry point in use,
    ten times a second, tens of microseconds each.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stopping: threading.Event | None = None
        self.registered = False

    def start(self) -> None:
        if not self.registered and hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork_in_child)
            self.registered = True
        self.stop()
        stopping = self.stopping = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(stopping,), name="accel-agent-report-sampler", daemon=True
        )
        thread.start()

    def stop(self) -> None:
        if self.stopping is not None:
            self.stopping.set()
            self.stopping = None

    def _run(self, stopping: threading.Event) -> None:
        # The first arming comes soon, not with the first call, whose time
        # includes the provider's first-use costs: short runs get a sample.
        delay = ARM_FIRST
        while not stopping.wait(delay):
            self.arm()
            delay = ARM_EVERY

    def arm(self) -> None:
        with self.lock:
            for entry in list(_entries.values()):
                entry.armed = True
                # What is installed is asked, not remembered: tests swap originals in and out.
                if patching.current_value(entry.module, entry.name) is entry.replacement:
                    entry.install(entry.wrapper)


ARM_FIRST = 0.02  # seconds from start (or fork) to the first arming
ARM_EVERY = 0.1  # seconds between armings
_sampler = _Sampler()


def _after_fork_in_child() -> None:
    _draws.after_fork_in_child()
    if _settings["report"] and not _settings["shadow"]:
        _sampler.lock = threading.Lock()  # the parent's may have been held by its thread
        _sampler.start()


def _on_patch(module: Any, name: str, replacement: Any, original: Any) -> Any:
    """The patching listener: a wrapper around ``replacement``, or it unchanged."""
    if module.__name__ in _NOT_INSTRUMENTED or original is patching.MISSING:
        return replacement
    known = _entries.get((module.__name__, name))
    if known is not None and replacement in (known.wrapper, known.replacement):
        return known.wrapper if _settings["shadow"] else known.replacement
    # Classmethods, staticmethods and properties keep their descriptor
    # behaviour only unwrapped; objects with a __call__ (the compiled fast
    # paths) are callables and are wrapped.
    if isinstance(replacement, (classmethod, staticmethod, property)) or not callable(replacement):
        return replacement
    if not callable(original) or isinstance(original, type):
        return replacement
    if _settings["shadow"]:
        # One function under two names natively (Hash.RIPEMD's new is
        # Hash.RIPEMD160's, which a target copies, wrapper and all) stays one.
        for other in list(_entries.values()):
            if other.original is original and replacement in (other.replacement, other.wrapper):
                alias = _Entry(module, name, other.replacement, original)
                alias.wrapper = other.wrapper
                _entries[(module.__name__, name)] = alias
                return alias.wrapper
    entry = _entries[(module.__name__, name)] = _Entry(module, name, replacement, original)
    entry.wrapper = _wrapper(entry)
    if _settings["shadow"]:
        return entry.wrapper
    return replacement  # report only: armed by the sampler's clock


def _wrapper(entry: _Entry) -> Callable:
    site, replacement = entry.site, entry.replacement
    if _settings["shadow"]:
        rate = float(_settings["rate"])
        draw = _draws.generator.random
        native_side = _native_side

        def wrapper(*args, **kwargs):
            site.calls += 1
            if not native_side[0] and draw() >= rate:
                return replacement(*args, **kwargs)
            return _sampled(entry, args, kwargs, True)

    else:

        def wrapper(*args, **kwargs):
            if entry.armed:
                entry.armed = False
                entry.install(replacement)  # unsampled calls meet the bare replacement
            site.calls += 1
            return _sampled(entry, args, kwargs, False)

    try:
        functools.update_wrapper(wrapper, replacement)
    except (AttributeError, TypeError):
        wrapper.__wrapped__ = replacement
    wrapper.__accel_instrumented__ = True
    return wrapper


# --------------------------------------------------------------------------- sampled calls


def _busy() -> bool:
    return getattr(_local, "busy", False)


def _slot_counts() -> dict[str, int]:
    return {name: slot.total_calls() for name, slot in registry.slots().items()}


def _served(before: dict[str, int]) -> list[str]:
    """The primitives whose slots counted a call since ``before``, most specific first.

    A MAC or signature served by the agent may count the hash it used too:
    the primitive named first is the one that is not a hash, if any.
    """
    after = _slot_counts()
    served = [name for name, count in after.items() if count > before.get(name, 0)]
    return sorted(served, key=lambda name: (registry.choice(name).family in _HASH_FAMILIES, name))


def _data_size(function: Any, method: str, args: tuple, kwargs: dict, bound: bool = False) -> int:
    """Bytes of data (not keys, nonces or options) a call hands over.

    ``bound``: ``args`` starts with the object a method is called on.
    """
    position = _data_position(function, method, bound)
    if position is None:
        return 0
    index, name = position
    value = kwargs.get(name) if name in kwargs else (args[index] if len(args) > index else None)
    if value is None or isinstance(value, str):
        return 0
    try:
        return memoryview(value).nbytes
    except TypeError:
        return 0


def _data_position(function: Any, method: str, bound: bool) -> tuple[int, str] | None:
    key = (function, method)
    try:
        return _signatures[key]
    except (KeyError, TypeError):
        pass
    position = None
    try:
        parameters = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        parameters = None
    if parameters is not None:
        for index, name in enumerate(parameters):
            if name in _DATA_PARAMETERS:
                position = (index, name)
                break
    elif method in _DATA_METHODS:
        position = (1 if bound else 0, "data")
    try:
        _signatures[key] = position
    except TypeError:
        pass
    return position


def _sampled(entry: _Entry, args: tuple, kwargs: dict, compare: bool) -> Any:
    if _native_side[0]:
        entry.site.calls -= 1  # native's own work, not the program's
        return entry.original(*args, **kwargs)
    if _busy():
        return entry.replacement(*args, **kwargs)
    _local.busy = True
    _local.agent = None
    try:
        if entry.library and args and type(getattr(args[0], "__dict__", None)) is dict:
            outcome = _measure_method_call(entry, args, kwargs, compare)
        else:
            outcome = _measure_call(entry, args, kwargs, compare)
    except Exception as exc:  # noqa: BLE001 - a fault of the comparison, never the caller's
        replacement = entry.replacement
        outcome = _internal_error(exc, lambda: shadow.Outcome.of(replacement, args, kwargs))
    finally:
        _local.busy = False
    return outcome.result()


def _internal_error(exc: Exception, serve: Callable) -> shadow.Outcome:
    """A fault in shadow mode's own code: the call keeps the agent's outcome, one line says so."""
    from accel_agent import messages

    messages.problem(
        "shadow mode: internal error (%s); the call was served without a comparison"
        % type(exc).__name__
    )
    agent = getattr(_local, "agent", None)
    return agent if agent is not None else serve()


def _agent_side(entry: _Entry, args: tuple, kwargs: dict) -> tuple[shadow.Outcome, int, list[str]]:
    """The agent's side of a sampled call: its outcome, its time, the primitives that served it."""
    before = _slot_counts()
    started = time.perf_counter_ns()
    agent = _local.agent = shadow.Outcome.of(entry.replacement, args, kwargs)
    agent_ns = time.perf_counter_ns() - started
    return agent, agent_ns, _served(before)


def _sample_figures(
    site: savings.Site, primitives: list[str], size: int, agent_ns: int
) -> savings.PrimitiveStats | None:
    """A sample in the figures of the primitive that served it (None: none known yet)."""
    if not primitives:
        return None
    site.sampled += 1
    stats = savings.primitive(primitives[0])
    stats.add_sample(size, agent_ns)
    return stats


def _measure_call(entry: _Entry, args: tuple, kwargs: dict, compare: bool) -> shadow.Outcome:
    site, method, original = entry.site, entry.method, entry.original
    native_args, native_kwargs, outputs = shadow.inputs_for_native(args, kwargs)
    agent, agent_ns, primitives = _agent_side(entry, args, kwargs)
    followable = agent.error is None and not isinstance(agent.value, _VALUE_TYPES)
    if not primitives and not followable:
        site.native_routed += 1  # the replacement handed the call to native itself
        return agent
    size = _data_size(original, method, args, kwargs)
    # AES objects count their call on first use, not when made: such an
    # object is followed with its primitive still to be found.
    stats = _sample_figures(site, primitives, size, agent_ns)
    if not compare:
        if followable:
            _follow(agent.value, None, primitives, stats, site, size, agent_ns)
        return agent
    if outputs is None or _calls_back(args, kwargs):
        # Native's side cannot redo this call unseen (an object made so goes unfollowed).
        (stats or savings.primitive(shadow.UNKNOWN)).uncomparable += 1
        return agent
    shadow.corrupt_if_asked(primitives, method, agent, outputs)
    started = time.perf_counter_ns()
    native = _native_run(original, native_args, native_kwargs)
    native_ns = time.perf_counter_ns() - started
    named = primitives or [site.name]
    if followable and native.error is None and not isinstance(native.value, _VALUE_TYPES):
        native = _matched_twin(agent.value, native, original, native_args, native_kwargs)
        same = shadow.same_facts(agent.value, native.value, _OBJECT_FACTS)
        if same and type(agent.value) is not type(native.value):
            if stats is not None:
                stats.native_ns += native_ns
                stats.comparisons += 1
                native_ns = 0
            if _follow(
                agent.value, native.value, primitives, stats, site, size, agent_ns, native_ns
            ):
                return agent
        judged = stats or savings.primitive(shadow.UNKNOWN)
        judged.native_ns += native_ns
        if same and shadow_checks.is_key(agent.value):
            # A generated key: native's checks on it, not its class name alone.
            same = shadow_checks.generated_key(
                agent.value, native.value, original, native_args, native_kwargs, _native_run
            )
            if same is None:
                judged.uncomparable += 1
                return agent
        judged.comparisons += 1
        if not same:
            shadow.mismatch(named, method, size)
            return native
        if not primitives and type(agent.value) is type(native.value):
            site.native_routed += 1  # a native object: the agent declined this call
        return agent
    judged = stats or savings.primitive(shadow.UNKNOWN)
    judged.native_ns += native_ns
    judged.comparisons += 1
    if shadow.same_outcome(agent, native, outputs):
        return agent
    if shadow.native_broke_itself(agent, native) or _native_choked_on_ours(
        agent, native, args, kwargs
    ):
        judged.comparisons -= 1
        judged.uncomparable += 1
        return agent
    if not outputs and _randomized(native, original, native_args, native_kwargs):
        judged.comparisons -= 1
        judged.uncomparable += 1
        return agent
    shadow.mismatch(named, method, size)
    shadow.give_native_outputs(outputs)
    return native


def _measure_method_call(
    entry: _Entry, args: tuple, kwargs: dict, compare: bool
) -> shadow.Outcome:
    """A method of a pure-Python library's object (pyaes, pyDes): native runs on a copy of it.

    The library's own method is native; it runs on a deep copy of the object
    made before the agent's call, and both the results and the two objects'
    states after the call are compared (the agent writes the library's own
    state back). Each call stands alone, so such calls are sampled per call,
    streaming objects included. On a mismatch the caller's object takes
    native's state and the caller native's result.
    """
    site, method, original = entry.site, entry.method, entry.original
    obj = args[0]
    snapshot = shadow.state_snapshot(obj, entry.library) if compare else None
    native_args, native_kwargs, outputs = shadow.inputs_for_native(args[1:], kwargs)
    agent, agent_ns, primitives = _agent_side(entry, args, kwargs)
    size = _data_size(original, method, args, kwargs)
    stats = _sample_figures(site, primitives, size, agent_ns)
    if not compare:
        return agent
    judged = stats or savings.primitive(shadow.UNKNOWN)
    if snapshot is None or outputs is None or _calls_back(args[1:], kwargs):
        judged.uncomparable += 1
        return agent
    shadow.corrupt_if_asked(primitives, method, agent, outputs)
    started = time.perf_counter_ns()
    native = _native_run(original, (snapshot,) + native_args, native_kwargs)
    judged.native_ns += time.perf_counter_ns() - started
    judged.comparisons += 1
    if shadow.same_outcome(agent, native, outputs) and shadow.same_state(obj, snapshot):
        return agent
    if shadow.native_broke_itself(agent, native):
        judged.comparisons -= 1
        judged.uncomparable += 1
        return agent
    shadow.mismatch(primitives or [site.name], method, size)
    shadow.restore_state(obj, snapshot)
    shadow.give_native_outputs(outputs)
    return native


# The standard library's top-level names, whose functions a call may be handed
# (sys.stdlib_module_names from Python 3.10; before it, the likely few).
_STANDARD_LIBRARY = frozenset(
    getattr(sys, "stdlib_module_names", ("builtins", "functools", "hashlib", "hmac", "os"))
)


def _calls_back(args: tuple, kwargs: dict) -> bool:
    """Whether the call hands over the caller's own code (:func:`shadow.calls_back`)."""
    if not any(callable(value) for value in args + tuple(kwargs.values())):
        return False
    libraries = {name.split(".")[0] for name in patching.patched_names()}
    libraries.update(_STANDARD_LIBRARY, ("accel_agent",))
    return shadow.calls_back(args, kwargs, frozenset(libraries))


def _matched_twin(
    obj: Any, native: shadow.Outcome, original: Callable, args: tuple, kwargs: dict
) -> shadow.Outcome:
    """A twin with the object's own random nonce or IV, when the caller let one be drawn.

    ``AES.new(key, AES.MODE_GCM)`` draws a nonce: the twin made from the same
    arguments drew another, and would differ in everything. Made again with
    the agent object's value it is the object's true twin.
    """
    for name in ("nonce", "iv"):
        if name in kwargs:
            continue
        mine = getattr(obj, name, None)
        theirs = getattr(native.value, name, None)
        if isinstance(mine, bytes) and isinstance(theirs, bytes) and mine != theirs:
            return _native_run(original, args, dict(kwargs, **{name: mine}))
    return native


def _native_run(function: Callable, args: tuple, kwargs: dict) -> shadow.Outcome:
    _native_side[0] += 1
    try:
        return shadow.Outcome.of(function, args, kwargs).detached()
    finally:
        _native_side[0] -= 1


def _uncounted(function: Callable, args: tuple, kwargs: dict) -> shadow.Outcome:
    """An agent's call made by shadow mode itself: the slots' counts stay the program's."""
    before = _slot_counts()
    outcome = shadow.Outcome.of(function, args, kwargs)
    slots = registry.slots()
    for name, count in _slot_counts().items():
        slots[name].calls -= count - before.get(name, 0)
    return outcome


def _randomized(native: shadow.Outcome, function: Callable, args: tuple, kwargs: dict) -> bool:
    """Whether native disagrees with itself on the same inputs (OAEP, PSS, random-k ECDSA).

    Such outputs cannot be compared byte for byte: the sample counts as
    uncomparable, not as a mismatch.
    """
    if native.error is not None:
        return False
    again = _native_run(function, args, kwargs)
    return not shadow.same_outcome(again, native, [])


def _agent_made(value: Any) -> bool:
    """Whether ``value`` is one of the agent's objects (a hash object it made, followed or not)."""
    kind = type(value)
    if getattr(kind, "__accel_follower__", False):
        return True
    hashes = sys.modules.get("accel_agent.targets.pycryptodome.hashes")
    wrappers = getattr(hashes, "WRAPPERS", None)
    return isinstance(wrappers, set) and kind in wrappers


def _native_choked_on_ours(
    agent: shadow.Outcome, native: shadow.Outcome, args: tuple, kwargs: dict
) -> bool:
    """Native raised where the agent did not, given an object of the agent's.

    Native code reaches into the C state of the objects it is handed (PBKDF2
    reads a hash object's ``_state``); an agent's object has none, which is
    why the agent's own target serves such calls. Native's error there says
    nothing about the agent's answer: the sample is uncomparable.
    """
    if native.error is None or agent.error is not None:
        return False
    return any(_agent_made(value) for value in args + tuple(kwargs.values()))


def _stateless(obj: Any) -> bool:
    """Objects whose methods may run twice: public-key ciphers and signers, not streams."""
    return not any(
        hasattr(obj, name) for name in ("nonce", "iv", "block_size", "digest_size", "update")
    )


# --------------------------------------------------------------------------- followed objects


class _Followed:
    """What follows one sampled object: its native twin, its primitives, its figures."""

    __slots__ = ("twin", "primitives", "stats", "site", "native_only", "pending", "lock")

    def __init__(
        self,
        twin: Any,
        primitives: list[str],
        stats: savings.PrimitiveStats | None,
        site: savings.Site,
        pending: tuple[int, int, int],
    ) -> None:
        self.twin = twin  # None in report-only mode: measured, not compared
        self.primitives = primitives
        self.stats = stats  # None until a call shows which primitive serves the object
        self.site = site
        self.native_only = False  # after a mismatch every call goes to the twin
        self.pending = pending  # (bytes, agent ns, native ns) of the making, until known
        # Held for a call's agent side and twin side together: threads sharing
        # the object (undefined natively, but never a crash) take turns, so the
        # twin sees the calls in the object's order and no race passes for a
        # mismatch. A shallow copy shares the state, and so the lock.
        self.lock = threading.RLock()

    def identify(self, primitives: list[str]) -> None:
        self.primitives = primitives
        self.stats = savings.primitive(primitives[0])
        size, agent_ns, native_ns = self.pending
        self.stats.add_sample(size, agent_ns)
        if native_ns:
            self.stats.native_ns += native_ns
            self.stats.comparisons += 1  # the making's facts
        self.site.sampled += 1


def _follow(
    obj: Any,
    twin: Any,
    primitives: list[str],
    stats: Any,
    site: savings.Site,
    size: int = 0,
    agent_ns: int = 0,
    native_ns: int = 0,
    lock: Any = None,
) -> bool:
    """Make ``obj`` followed; False (and nothing changed) where its class cannot be swapped."""
    cls = type(obj)
    follower = _follower_class(cls)
    judged = stats or savings.primitive(shadow.UNKNOWN)
    if follower is None:
        judged.unfollowed += 1
        return False
    key = id(obj)
    try:
        weakref.finalize(obj, _followed.pop, key, None)
    except TypeError:
        judged.unfollowed += 1
        return False
    try:
        # Cipher objects answer isinstance() through a __class__ property
        # without a setter: object's own descriptor swaps the class.
        _SET_CLASS(obj, follower)
    except TypeError:
        judged.unfollowed += 1
        return False
    followed = _Followed(twin, primitives, stats, site, (size, agent_ns, native_ns))
    _followed[key] = followed
    if lock is not None:
        followed.lock = lock
    return True


def _public_methods(cls: type) -> dict[str, Any]:
    from accel_agent import speedups  # its compiled methods (ECB's encrypt) are methods too

    kinds = (types.FunctionType, types.MethodDescriptorType, types.WrapperDescriptorType)
    methods = {}
    for name in dir(cls):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(cls, name, None)
        if isinstance(static, kinds + speedups.METHOD_TYPES):
            methods[name] = getattr(cls, name)
    return methods


def _follower_class(cls: type) -> type | None:
    """A subclass of ``cls`` of the same name whose public methods are followed."""
    if cls in _followers:
        return _followers[cls]
    follower = None
    if not getattr(cls, "__accel_follower__", False):
        namespace: dict[str, Any] = {"__slots__": (), "__accel_follower__": True}
        for name, base_method in _public_methods(cls).items():
            namespace[name] = _followed_method(name, base_method)
        if inspect.getattr_static(cls, "__copy__", None) is not None:
            namespace["__copy__"] = _followed_copy(cls.__copy__)
        namespace["__setattr__"] = _unfollowing(cls.__setattr__)
        namespace["__delattr__"] = _unfollowing(cls.__delattr__)
        try:
            follower = type(cls.__name__, (cls,), namespace)
            follower.__qualname__ = cls.__qualname__
            follower.__module__ = cls.__module__
        except TypeError:
            follower = None
        else:
            _register_like(cls, follower)
    _followers[cls] = follower
    return follower


def _register_like(cls: type, follower: type) -> None:
    """Let targets that recognise their classes by membership recognise the follower too.

    The hash target's ``WRAPPERS`` (read by HMAC and the KDFs through an
    exact ``type(obj) in WRAPPERS`` test) is the one such table; without the
    follower in it a followed hash object handed to PBKDF2 would be taken
    for a foreign one.
    """
    hashes = sys.modules.get("accel_agent.targets.pycryptodome.hashes")
    wrappers = getattr(hashes, "WRAPPERS", None)
    if isinstance(wrappers, set) and cls in wrappers:
        wrappers.add(follower)


def _followed_method(name: str, base_method: Callable) -> Callable:
    def method(self, *args, **kwargs):
        followed = _followed.get(id(self))
        if followed is None:  # a copy made by copy.copy, or type(obj)(...): not sampled
            return base_method(self, *args, **kwargs)
        if followed.native_only:
            return _native_only_call(self, followed, name, args, kwargs)
        if _busy():
            return base_method(self, *args, **kwargs)
        with followed.lock:
            _local.busy = True
            _local.agent = None
            try:
                outcome = _followed_call(self, followed, name, base_method, args, kwargs)
            except Exception as exc:  # noqa: BLE001 - a fault of the comparison, not the caller's
                _followed.pop(id(self), None)  # its twin may have missed the call: stop following
                outcome = _internal_error(
                    exc, lambda: shadow.Outcome.of(base_method, (self,) + args, kwargs)
                )
            finally:
                _local.busy = False
        return outcome.result()

    method.__name__ = name
    method.__qualname__ = getattr(base_method, "__qualname__", name)
    method.__doc__ = getattr(base_method, "__doc__", None)
    return method


def _unfollowing(base: Callable) -> Callable:
    """``__setattr__``/``__delattr__`` of a follower: the caller's own change ends the following.

    An attribute set from outside the object's methods (pycryptodome's suite
    sets ``_msg_len`` on a GCM object to start near its limit) changes the
    object but not its twin, which can then no longer follow it: the object
    goes on unobserved, as the agent's alone. The agent's own changes, made
    inside its methods, leave it followed.
    """

    def change(self, *args):
        if not _busy():
            followed = _followed.pop(id(self), None)
            if followed is not None:
                (followed.stats or savings.primitive(shadow.UNKNOWN)).uncomparable += 1
        base(self, *args)

    change.__name__ = base.__name__
    return change


def _followed_copy(base_copy: Callable) -> Callable:
    """``copy.copy`` of a followed object: the copy is followed by a copy of the twin.

    A cipher object's copy shares its state with the original, natively as
    here; so do the two twins.
    """

    def __copy__(self):
        import copy

        followed = _followed.get(id(self))
        if followed is None:
            return base_copy(self)
        if followed.native_only:
            return copy.copy(followed.twin)
        clone = base_copy(self)
        twin = None if followed.twin is None else copy.copy(followed.twin)
        if type(clone) is type(self):
            _SET_CLASS(clone, type(self).__mro__[1])  # made again a follower below
        _follow(clone, twin, followed.primitives, followed.stats, followed.site, lock=followed.lock)
        return clone

    return __copy__


def _native_only_call(obj: Any, followed: _Followed, name: str, args: tuple, kwargs: dict) -> Any:
    value = getattr(followed.twin, name)(*args, **kwargs)
    return obj if value is followed.twin else value


def _followed_call(
    obj: Any, followed: _Followed, name: str, base_method: Callable, args: tuple, kwargs: dict
) -> shadow.Outcome:
    twin = followed.twin
    native_args, native_kwargs, outputs = shadow.inputs_for_native(args, kwargs)
    before = None if followed.primitives else _slot_counts()
    started = time.perf_counter_ns()
    agent = _local.agent = shadow.Outcome.of(base_method, (obj,) + args, kwargs)
    agent_ns = time.perf_counter_ns() - started
    if before is not None:
        served = _served(before)
        if served:
            followed.identify(served)
    stats = followed.stats or savings.primitive(shadow.UNKNOWN)
    stats.agent_ns += agent_ns
    size = _data_size(base_method, name, (obj,) + args, kwargs, True)
    stats.bytes += size
    made = agent.error is None and not isinstance(agent.value, _VALUE_TYPES)
    if twin is None:
        if made and agent.value is not obj:
            _follow(agent.value, None, followed.primitives, followed.stats, followed.site)
        return agent
    if outputs is None or _calls_back(args, kwargs):
        # The twin cannot follow this call: the object goes on unobserved.
        _followed.pop(id(obj), None)
        stats.uncomparable += 1
        return agent
    shadow.corrupt_if_asked(followed.primitives, name, agent, outputs)
    started = time.perf_counter_ns()
    native = _native_run(getattr(twin, name), native_args, native_kwargs)
    stats.native_ns += time.perf_counter_ns() - started
    stats.comparisons += 1
    if made and agent.value is obj:
        same = native.error is None and native.value is twin
    elif made and native.error is None and not isinstance(native.value, _VALUE_TYPES):
        # copy() and new(): a new object, followed by the twin's own
        same = shadow.same_facts(agent.value, native.value, _OBJECT_FACTS)
        if same and type(agent.value) is not type(native.value):
            _follow(agent.value, native.value, followed.primitives, followed.stats, followed.site)
    else:
        same = shadow.same_outcome(agent, native, outputs)
    if same:
        return agent
    if shadow.native_broke_itself(agent, native):
        _followed.pop(id(obj), None)  # its twin is broken for good
        stats.comparisons -= 1
        stats.uncomparable += 1
        return agent
    if _native_choked_on_ours(agent, native, args, kwargs):
        stats.comparisons -= 1
        stats.uncomparable += 1
        return agent
    if (
        not outputs
        and _stateless(twin)
        and _randomized(native, getattr(twin, name), native_args, native_kwargs)
    ):
        # A drawn salt, k or seed: native's checks of the agent's result instead.
        holds = agent.error is None and shadow_checks.randomized_call(
            obj, twin, name, native_args, native_kwargs, agent.value, (_native_run, _uncounted)
        )
        if holds is None:
            stats.comparisons -= 1
            stats.uncomparable += 1
            return agent
        if holds:
            return agent
    followed.native_only = True
    shadow.mismatch(followed.primitives or [followed.site.name], name, size)
    shadow.give_native_outputs(outputs)
    if native.error is None and native.value is twin:
        return shadow.Outcome(obj, None)
    return native
