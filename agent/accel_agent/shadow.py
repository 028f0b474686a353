"""Shadow mode's judgement: are the agent's outcome and native's the same, and what if not.

:mod:`accel_agent.instrument` runs both sides of a sampled call; this module
prepares native's inputs (a snapshot where the agent's call could change
them), compares the two outcomes, and acts on a mismatch:

* the caller gets native's result or exception (and native's bytes in an
  ``output=`` buffer);
* the primitives that served the call go native for the rest of the process
  (:func:`accel_agent.registry.force_native`);
* one ``accel-agent: shadow mismatch: <primitive> <method> <size class>``
  line goes to stderr, naming no data;
* ``status()`` and the savings report record it (:mod:`accel_agent.savings`).

Byte strings are compared with :func:`hmac.compare_digest`: a sampled call
takes no longer for where a tag or plaintext first differs than native's
own constant-time checks would.

The test-only hook :func:`corrupt_for_tests` flips one output bit of the
agent's side of sampled calls of one primitive, to prove the comparison
catches it. It is refused unless ``ACCEL_AGENT_TEST_HOOKS=1`` is set *and*
pytest is running a test (``PYTEST_CURRENT_TEST``, which pytest sets for the
duration of each test): neither alone turns it on.
"""

from __future__ import annotations

import functools
import os
import types
from hmac import compare_digest

from accel_agent import messages, registry, savings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

ENV_TEST_HOOKS = "ACCEL_AGENT_TEST_HOOKS"
ENV_TEST_CORRUPT = "ACCEL_AGENT_TEST_CORRUPT"  # a primitive, for subprocess tests
UNKNOWN = "(unidentified)"  # figures of sampled work no slot claimed (yet)
_corrupt: set[str] = set()
_MISSING = object()


class Outcome:
    """What one side of a call did: returned ``value`` or raised ``error``."""

    __slots__ = ("value", "error")

    def __init__(self, value: Any, error: BaseException | None) -> None:
        self.value = value
        self.error = error

    @classmethod
    def of(cls, function: Callable, args: tuple, kwargs: dict) -> Outcome:
        try:
            return cls(function(*args, **kwargs), None)
        except Exception as exc:  # noqa: BLE001 - compared, then raised to the caller
            return cls(None, exc)

    def result(self) -> Any:
        """The value, or the error raised; once: the outcome lets go of its error.

        A kept exception holds its traceback, whose frames hold the
        outcomes (and the caller's buffers, and the C buffers exported from
        them): a cycle native code never makes. Left to the garbage
        collector, such a cycle can clear a memoryview that C still exports
        (a crash in pycryptodome's GCM); so the outcome lets go of the error
        it raises, and native's side keeps none (:meth:`detached`).
        """
        error = self.error
        if error is None:
            return self.value
        self.error = None
        try:
            raise error
        finally:
            del error

    def detached(self) -> Outcome:
        """This outcome with its error's tracebacks dropped: it holds no frame (native's side)."""
        error, seen = self.error, set()
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            error.__traceback__ = None
            error = error.__cause__ or error.__context__
        return self


def inputs_for_native(args: tuple, kwargs: dict) -> tuple[tuple, dict, list | None]:
    """(args, kwargs, outputs) for native's side of a call; outputs None: not comparable.

    Without an ``output=`` buffer the agent's call cannot change its inputs,
    so native gets the very same objects. With one, the buffer may overlap an
    input (in place, or further on): before the agent's call, the bytearray
    under the output is copied, and native gets views of the copy at the same
    offsets, so it meets the same overlap on the same bytes; every other
    argument is handed over as it is, provided it is provably apart from the
    output's memory (else the call is not comparable). ``outputs`` pairs the
    caller's buffer with native's.
    """
    output = kwargs.get("output")
    if output is None:
        return args, kwargs, []
    try:
        view = memoryview(output)
    except TypeError:
        return args, kwargs, []
    if view.readonly or not view.c_contiguous:
        return args, kwargs, []  # native rejects it as the agent does, before writing
    if type(output) is bytearray:
        base = output
    elif type(output) is memoryview and type(output.obj) is bytearray and view.format == "B":
        base = output.obj
    else:
        # An array, an mmap, a cast view: a stand-in of another type could be
        # judged otherwise.
        return args, kwargs, None
    copy = bytearray(base)
    try:
        native_args = tuple(_remapped(value, base, copy) for value in args)
        native_kwargs = {key: _remapped(value, base, copy) for key, value in kwargs.items()}
    except _NotComparable:
        return args, kwargs, None
    return native_args, native_kwargs, [(output, native_kwargs["output"])]


class _NotComparable(Exception):
    """An argument's overlap with the output cannot be reproduced for native."""


def _address(buffer: Any) -> int:
    import ctypes

    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))


def _remapped(value: Any, base: bytearray, copy: bytearray) -> Any:
    """``value`` as native must see it: over ``copy`` where it lies over ``base``."""
    if value is base:
        return copy
    if type(value) is memoryview and value.obj is base:
        if not value.c_contiguous or value.format != "B" or value.ndim != 1:
            raise _NotComparable
        if not value.nbytes:
            twin = memoryview(copy)[0:0]
        elif value.readonly or not base:
            raise _NotComparable
        else:
            offset = _address(value) - _address(base)
            twin = memoryview(copy)[offset : offset + value.nbytes]
        return twin.toreadonly() if value.readonly else twin
    if _apart(value, base):
        return value  # the agent's call cannot change it: native gets it as the caller gave it
    raise _NotComparable


def _apart(value: Any, base: bytearray) -> bool:
    """Whether ``value`` is no buffer over ``base``'s memory (the output's), provably.

    Native must get such a value as it is: a copy of another type or shape
    (bytes for a strided view) could be accepted where the value is refused.
    """
    kind = type(value)
    if kind is bytes or kind is bytearray:
        return True  # immutable, or memory of its own
    try:
        view = memoryview(value)
    except TypeError:
        return True  # no buffer: nothing the output's bytes could change
    if view.obj is base:
        return False
    if type(view.obj) in (bytes, bytearray) or not view.nbytes:
        return True
    if view.readonly or not view.c_contiguous or not base:
        return False  # memory whose address is not at hand: it may lie over the output's
    start, first = _address(view), _address(base)
    return start + view.nbytes <= first or first + len(base) <= start


def calls_back(args: tuple, kwargs: dict, libraries: frozenset[str]) -> bool:
    """Whether a call hands over code of the caller's own (a callback, a random source).

    Native's side would run that code a second time, which the caller can
    see (a decoder that counts its calls, a test's generator that hands out
    a fixed stream): such a call is not comparable. Code is the caller's
    unless it is a class, a function of a C module, or a module-level
    function without a closure of ``libraries`` (the patched libraries, the
    agent, the standard library) outside their test modules (pycryptodome
    ships its tests in its package, ``Crypto.SelfTest``). Bound methods,
    nested functions and objects with a ``__call__`` carry state, and are
    the caller's whatever their module; the agent's own callables (its
    compiled fast paths) are not.
    """
    return any(_callers_code(value, libraries) for value in args + tuple(kwargs.values()))


def _callers_code(value: Any, libraries: frozenset[str]) -> bool:
    if not callable(value) or isinstance(value, type):
        return False
    if isinstance(value, types.BuiltinFunctionType):  # builtin_function_or_method
        return not isinstance(value.__self__, types.ModuleType) and value.__self__ is not None
    if isinstance(value, types.FunctionType):
        module = (getattr(value, "__module__", None) or "").split(".")
        return (
            value.__closure__ is not None
            or "<locals>" in value.__qualname__
            or module[0] not in libraries
            or any(part.lower().startswith(("test", "selftest")) for part in module)
        )
    if isinstance(value, functools.partial):
        return _callers_code(value.func, libraries) or calls_back(
            value.args, value.keywords, libraries
        )
    return type(value).__module__.split(".")[0] != "accel_agent"


# --------------------------------------------------------------------------- objects' own state
# pyaes's and pyDes's objects keep their state in plain attributes, and the
# agent patches their classes' methods: native's side of such a call is the
# library's own method run on a copy of the object from before the call, and
# the two objects' states after it are compared as well as the results.

_PLAIN = (bytes, bytearray, str, int, float, bool, type(None))


def state_snapshot(obj: Any, library: str) -> Any:
    """A deep copy of ``obj`` for native's side, or None where it cannot stand for ``obj``.

    Only plain values and objects of ``library``'s own classes (a top-level
    module name) may be in it: an object of the caller's class (a subclass of
    pyaes's ``Counter``) could run the caller's code a second time, or not
    copy as it is.
    """
    import copy

    if not _library_state(obj, library, set()):
        return None
    try:
        return copy.deepcopy(obj)
    except Exception:  # noqa: BLE001 - an object that does not copy: not comparable
        return None


def _library_state(value: Any, library: str, seen: set) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if id(value) in seen:
        return True
    seen.add(id(value))
    if type(value) in (list, tuple):
        return all(_library_state(item, library, seen) for item in value)
    if type(value) is dict:
        return all(
            _library_state(key, library, seen) and _library_state(item, library, seen)
            for key, item in value.items()
        )
    if isinstance(value, types.MethodType):
        # pyaes's feeders hold their mode's methods (``mode.encrypt``): fine
        # when the function is one of the object's class (patched or not).
        owner = value.__self__
        return any(
            value.__func__ in vars(klass).values() for klass in type(owner).__mro__
        ) and _library_state(owner, library, seen)
    if type(getattr(value, "__dict__", None)) is not dict:
        return False
    return type(value).__module__.split(".")[0] == library and _library_state(
        _state_of(value), library, seen
    )


def same_state(mine: Any, theirs: Any, seen: set | None = None) -> bool:
    """Whether two objects (the caller's, native's copy) hold the same state, deeply."""
    seen = set() if seen is None else seen
    if type(mine) is not type(theirs):
        return False
    if isinstance(mine, _PLAIN):
        return _same_value(mine, theirs)
    if (id(mine), id(theirs)) in seen:
        return True
    seen.add((id(mine), id(theirs)))
    if type(mine) in (list, tuple):
        return len(mine) == len(theirs) and all(
            same_state(a, b, seen) for a, b in zip(mine, theirs)
        )
    if type(mine) is dict:
        return mine.keys() == theirs.keys() and all(
            same_state(mine[key], theirs[key], seen) for key in mine
        )
    if isinstance(mine, types.MethodType):
        return mine.__func__ is theirs.__func__ and same_state(mine.__self__, theirs.__self__, seen)
    return same_state(_state_of(mine), _state_of(theirs), seen)


def _state_of(obj: Any) -> dict:
    """The state a copy or pickle of ``obj`` holds: the library's own attributes.

    The pyaes target keeps a mode object's key in place of pyaes's ``_aes``
    until something reads it; its ``__getstate__`` gives pyaes's attributes.
    """
    getstate = getattr(type(obj), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        state = getstate(obj)
        if type(state) is dict:
            return state
    return vars(obj)


def restore_state(target: Any, source: Any, seen: set | None = None) -> None:
    """Give ``target`` (the caller's object) native's state from ``source``, in place.

    Objects inside it stay the caller's objects (a feeder's mode object, which
    the caller may hold too): their state is restored in turn.
    """
    seen = set() if seen is None else seen
    if id(target) in seen:
        return
    seen.add(id(target))
    mine, theirs = vars(target), vars(source)
    for name in list(mine):
        if name not in theirs:
            del mine[name]
    for name, value in theirs.items():
        current = mine.get(name, _MISSING)
        if (
            current is not _MISSING
            and type(current) is type(value)
            and type(getattr(current, "__dict__", None)) is dict
        ):
            restore_state(current, value, seen)
        else:
            mine[name] = value


def _same_value(mine: Any, theirs: Any) -> bool:
    if type(mine) is not type(theirs):
        return False
    if isinstance(mine, (bytes, bytearray)):
        return compare_digest(mine, theirs)
    if isinstance(mine, memoryview):
        return compare_digest(mine.tobytes(), theirs.tobytes())
    if isinstance(mine, str):
        if mine.isascii() and theirs.isascii():
            return compare_digest(mine, theirs)
        return mine == theirs
    if isinstance(mine, (tuple, list)):
        return len(mine) == len(theirs) and all(map(_same_value, mine, theirs))
    if isinstance(mine, (int, float, bool, type(None))):
        return mine == theirs
    # An object: the same class name is what a caller can tell apart here.
    return type(mine).__name__ == type(theirs).__name__


def same_outcome(mine: Outcome, theirs: Outcome, outputs: list) -> bool:
    """Same exception type, or same value and same ``output=`` bytes."""
    if mine.error is not None or theirs.error is not None:
        return (
            mine.error is not None
            and theirs.error is not None
            and type(mine.error) is type(theirs.error)
        )
    if not _same_value(mine.value, theirs.value):
        return False
    for caller_buffer, native_buffer in outputs:
        if not compare_digest(memoryview(caller_buffer).tobytes(), bytes(native_buffer)):
            return False
    return True


def native_broke_itself(mine: Outcome, theirs: Outcome) -> bool:
    """Native failed an assertion of its own where the agent did not: no answer to compare.

    An ``AssertionError`` is no outcome of pycryptodome's API but a broken
    internal state: native ``GcmMode`` after a rejected multi-byte-item view
    mid-message, whose GHASH and CTR halves then disagree, fails one on every
    later call, where the agent's object (a divergence kept on purpose) goes
    on. The caller keeps the agent's outcome; an object goes on unobserved.
    """
    return isinstance(theirs.error, AssertionError) and not isinstance(mine.error, AssertionError)


def same_facts(mine: Any, theirs: Any, names: tuple[str, ...]) -> bool:
    """Whether two objects agree on the facts a later call depends on (nonce, sizes...)."""
    if type(mine).__name__ != type(theirs).__name__:
        return False
    for name in names:
        a = _fact(mine, name)
        b = _fact(theirs, name)
        if isinstance(a, Outcome) or isinstance(b, Outcome):
            if not (isinstance(a, Outcome) and isinstance(b, Outcome)):
                return False
            if type(a.error) is not type(b.error):
                return False
        elif (a is _MISSING) != (b is _MISSING) or (a is not _MISSING and not _same_value(a, b)):
            return False
    return True


def _fact(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name, _MISSING)
    except Exception as exc:  # noqa: BLE001 - a property that raises: compare the type
        return Outcome(None, exc)


def give_native_outputs(outputs: list) -> None:
    """Put native's bytes into the caller's ``output=`` buffers."""
    for caller_buffer, native_buffer in outputs:
        view = memoryview(caller_buffer).cast("B")
        view[:] = native_buffer


def size_class(size: int) -> str:
    """The size of a call's data as a class, never the size itself."""
    for limit, label in ((64, "<=64B"), (1024, "<=1KiB"), (16384, "<=16KiB"), (1 << 20, "<=1MiB")):
        if size <= limit:
            return label
    return ">1MiB"


def mismatch(primitives: list[str], method: str, size: int) -> None:
    """Act on a mismatch: primitives native, one line, recorded (the caller gets native's)."""
    from accel_agent import catalog

    label = size_class(size)
    primitive = primitives[0]  # an entry point's name when no slot claimed the call
    for name in primitives:
        if name in catalog.BY_NAME:
            registry.force_native(name, "shadow mismatch (%s %s)" % (method, label))
    savings.primitive(primitive).record_mismatch(method, label)
    messages.problem("shadow mismatch: %s %s %s" % (primitive, method, label))


# --------------------------------------------------------------------------- test-only hook


class TestHookRefused(RuntimeError):
    """The corruption hook was asked for outside a test run."""


def test_hooks_allowed() -> bool:
    return os.environ.get(ENV_TEST_HOOKS) == "1" and bool(os.environ.get("PYTEST_CURRENT_TEST"))


def corrupt_for_tests(primitive: str | None) -> None:
    """Flip one output bit of the agent's sampled calls of ``primitive`` (None: stop).

    Refused (:class:`TestHookRefused`) unless ``ACCEL_AGENT_TEST_HOOKS=1``
    and pytest is running a test.
    """
    if primitive is not None and not test_hooks_allowed():
        raise TestHookRefused(
            "the corruption hook needs %s=1 and a running pytest test" % ENV_TEST_HOOKS
        )
    _corrupt.clear()
    if primitive is not None:
        _corrupt.add(primitive)


def corrupt_from_environment() -> None:
    """A child process's corruption hook, from ``ACCEL_AGENT_TEST_CORRUPT`` (same refusal)."""
    primitive = os.environ.get(ENV_TEST_CORRUPT)
    if primitive:
        try:
            corrupt_for_tests(primitive)
        except TestHookRefused as exc:
            messages.problem(str(exc))


def corrupt_if_asked(primitives: list[str], method: str, outcome: Outcome, outputs: list) -> None:
    """The test hook: flip one bit of the agent's output (or fail its verification)."""
    if not _corrupt or not _corrupt.intersection(primitives) or outcome.error is not None:
        return
    if outputs:
        view = memoryview(outputs[0][0]).cast("B")
        if len(view):
            view[-1] ^= 1
            return
    value = outcome.value
    flipped = _flipped(value)
    if flipped is _MISSING:
        flipped = _tampered_key(value)
    if flipped is not _MISSING:
        outcome.value = flipped
    elif value is None and "verify" in method:
        outcome.error = ValueError("corrupted by the test hook")


def _flipped(value: Any) -> Any:
    if isinstance(value, bytes) and value:
        return value[:-1] + bytes([value[-1] ^ 1])
    if isinstance(value, bytearray) and value:
        copy = bytearray(value)
        copy[-1] ^= 1
        return copy
    if isinstance(value, str) and value:
        return value[:-1] + ("0" if value[-1] != "0" else "1")
    if isinstance(value, bool):
        return not value
    if isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            flipped = _flipped(item)
            if flipped is not _MISSING:
                items = list(value)
                items[index] = flipped
                return type(value)(items)
    return _MISSING


def _tampered_key(value: Any) -> Any:
    """A copy of a generated key with one bit of its private part flipped (the test hook)."""
    if type(value).__name__ not in ("RsaKey", "EccKey", "DsaKey"):
        return _MISSING
    getattr(value, "pointQ", None)  # an ECC key's public point made now, from the true d
    tampered = object.__new__(type(value))  # copy.copy cannot pickle RSA's blinding lock
    state = vars(tampered)
    state.update(vars(value))
    if isinstance(state.get("_seed"), bytes):  # Ed25519, X25519...: the point is the seed's
        state["_seed"] = _flipped(state["_seed"])
    elif state.get("_d") is not None:  # RSA's d stays odd, ECC's d in range
        state["_d"] = type(state["_d"])(int(state["_d"]) ^ 2)
    elif isinstance(state.get("_key"), dict) and "x" in state["_key"]:  # DSA
        numbers = dict(state["_key"])
        numbers["x"] = type(numbers["x"])(int(numbers["x"]) ^ 2)
        state["_key"] = numbers
    else:
        return _MISSING
    return tampered
