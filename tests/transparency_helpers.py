"""Shared helpers for the transparency evidence: suite runner, differential and Wycheproof tests.

design.md's transparency contract says a patched call returns what native
pycryptodome returns and raises what it raises. The helpers here turn that
into one comparison:

* a *scenario* is a function ``scenario(rec, module)`` that drives a
  pycryptodome module (``Crypto.Cipher.AES`` or ``Cryptodome.Cipher.AES``)
  and records every result or exception in a :class:`Recorder`;
* :func:`both` runs the scenario with the agent active, then natively (the
  patched attributes swapped back to the originals that
  :mod:`accel_agent.patching` keeps), and fails with the first differing step;
* :func:`against_native_transcript` does the same for the few scenarios that
  stream 2 GiB, against native's transcript recorded once
  (``tests/vectors/native-transcripts.json``) when it was recorded from the
  same pycryptodome; ``ACCEL_NATIVE_TRANSCRIPTS=live`` runs native instead;
* :class:`Tally` counts comparisons, mismatches and accelerated calls per
  test, for the terminal summaries of the test folders;
* the test modules' common prelude: :data:`RAISED`,
  :func:`flavours_or_skip` and :func:`with_flavours` (one run per installed
  flavour), :func:`require_acceleration` and :func:`accelerated_calls` (the
  "plain call goes through the agent" checks).

Scenarios must build every input (mutable buffers included) inside the
function and reach pycryptodome through the module object at call time
(``module.new``), never through a name bound earlier.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import accel_agent
from accel_agent import activation, catalog, hooks, patching, registry

REPO_ROOT = Path(__file__).resolve().parents[1]

# The two names pycryptodome ships under: pycryptodome and pycryptodomex.
FLAVOURS = ("Crypto", "Cryptodome")

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


# --------------------------------------------------------------------------- flavours


def installed_flavours() -> list[str]:
    """The package names (``Crypto``, ``Cryptodome``) importable in this interpreter."""
    found = []
    for name in FLAVOURS:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        found.append(name)
    return found


def flavours_or_skip() -> list[str]:
    """The installed flavours; with none, the calling test module is skipped as a whole.

    Call it at module level (it uses ``pytest.skip(allow_module_level=True)``).
    """
    found = installed_flavours()
    if not found:
        pytest.skip("neither pycryptodome nor pycryptodomex is installed", allow_module_level=True)
    return found


def with_flavours(test):
    """Decorator: run ``test`` once per installed flavour (its ``flavour`` argument)."""
    return pytest.mark.parametrize("flavour", installed_flavours())(test)


def flavour_version(flavour: str) -> str:
    return str(importlib.import_module(flavour).__version__)


def flavour_major(flavour: str) -> int:
    return int(importlib.import_module(flavour).version_info[0])


def import_from(flavour: str, dotted: str):
    """``import_from("Cryptodome", "Cipher.AES")`` is the module ``Cryptodome.Cipher.AES``."""
    return importlib.import_module("%s.%s" % (flavour, dotted))


# --------------------------------------------------------------------------- the agent


def ensure_agent() -> None:
    """Activate the agent in this process if something (a test, ``uninstall``) turned it off."""
    if not activation.is_active():
        accel_agent.activate("quiet")


def patch_failure(module) -> str | None:
    """Why the agent's patch of ``module`` failed (it then stays native), or None."""
    return hooks.failures.get(module.__name__)


def require_patched(module) -> None:
    """Fail loudly when ``module`` is not patched: a comparison would prove nothing."""
    if not patching.is_patched(module.__name__):
        raise AssertionError(
            "%s is not patched by the agent (active=%s): the comparison would be native "
            "against native" % (module.__name__, activation.is_active())
        )


def catalog_names() -> list[str]:
    return [spec.name for spec in catalog.PRIMITIVES]


def acceleration(primitive: str) -> tuple[bool, str]:
    """(accelerated?, why): the registry chose a provider *and* a target routes calls to it.

    A primitive that is in the catalog but that no target has asked a slot
    for (a target still being written) is not accelerated: nothing reaches it.
    """
    if primitive not in catalog.BY_NAME:
        return False, "%s is not in the agent's catalog (not accelerated yet)" % primitive
    chosen = registry.choice(primitive)
    why = "%s: %s (%s)" % (primitive, chosen.outcome, chosen.reason)
    if chosen.outcome != registry.ACCELERATED:
        return False, why
    if primitive not in registry.calls():
        # A patched module's patch runs at its first call: run the waiting ones,
        # as that call would, before saying that no target asked for a slot.
        from accel_agent import hooks

        hooks.run_waiting()
    if primitive not in registry.calls():
        return False, "%s, but no target routes calls to it yet (no slot)" % why
    return True, why


def is_accelerated(primitive: str) -> bool:
    return acceleration(primitive)[0]


def call_counts() -> dict[str, int]:
    return dict(registry.calls())


def count_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    names = set(before) | set(after)
    delta = {name: after.get(name, 0) - before.get(name, 0) for name in names}
    return {name: value for name, value in sorted(delta.items()) if value}


def require_acceleration(primitive: str) -> str:
    """Why ``primitive`` is accelerated here; skips the test (saying why) when it is not."""
    accelerated, why = acceleration(primitive)
    if not accelerated:
        pytest.skip(why)
    return why


@contextlib.contextmanager
def accelerated_calls() -> Iterator[dict[str, int]]:
    """The accelerated calls the body makes, per primitive (filled in when the body ends)."""
    made: dict[str, int] = {}
    before = call_counts()
    yield made
    made.update(count_delta(before, call_counts()))


@contextlib.contextmanager
def natively():
    """Run the body with every patched attribute set back to its original, then re-patch.

    Reads :mod:`accel_agent.patching`'s registry of originals and never
    writes it (style.md #3), so the agent's own state is untouched: this is
    cheaper and quieter than ``uninstall()`` + ``activate()``, which would
    re-run the early-reference scan and its warning at every example.
    """
    swapped = []
    for module_name, names in patching.patched_names().items():
        module = sys.modules.get(module_name)
        if module is None:
            continue
        for name in names:
            # Dotted names are methods of a class of the module (python-ecdsa's keys).
            swapped.append((module, name, patching.current_value(module, name)))
            try:
                original = patching.get_original(module_name, name)
            except KeyError:  # the agent added the attribute: natively it does not exist
                original = patching.MISSING
            patching.set_value(module, name, original)
    try:
        yield
    finally:
        for module, name, patched in swapped:
            patching.set_value(module, name, patched)


# --------------------------------------------------------------------------- recording


class Shape:
    """Wrap a value whose type and length, not content, must match (random nonces)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


def describe(value: object) -> object:
    """A comparable, printable description of a result: its type matters, not only its bytes."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Shape):
        inner = value.value
        return ("shape", type(inner).__name__, len(inner) if hasattr(inner, "__len__") else None)
    if isinstance(value, bytes):
        return ("bytes", value)
    if isinstance(value, bytearray):
        return ("bytearray", bytes(value))
    if isinstance(value, memoryview):
        return ("memoryview", value.tobytes())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(describe(item) for item in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, describe(v)) for k, v in value.items()))
    # A cipher object (update() returns self): its type is the agent's own, by design.
    return ("object",)


def describe_exception(exc: BaseException) -> tuple[str, str]:
    kind = type(exc)
    name = "%s.%s" % (kind.__module__, kind.__qualname__)
    if isinstance(exc, AttributeError):
        # The message names the object's class, which is the agent's own by design;
        # what counts is which attribute is missing.
        return name, str(getattr(exc, "name", None) or "")
    return name, _ADDRESS.sub(" at 0x…", str(exc))


# Exception types that must never reach a caller, not even chained to what it
# catches (``__context__``, ``__cause__``): pyca/cryptography's and pyo3's.
FOREIGN_EXCEPTION_MODULES = ("cryptography", "pyo3", "builtins.PanicException")


def foreign_in_chain(exc: BaseException) -> str | None:
    """The first exception chained to ``exc`` (or ``exc`` itself) of a foreign type, named."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        kind = type(current)
        name = "%s.%s" % (kind.__module__, kind.__qualname__)
        if name.startswith(FOREIGN_EXCEPTION_MODULES) or kind.__name__ == "PanicException":
            return name
        pending += [current.__context__, current.__cause__]
    return None


class Recorder:
    """The transcript of one run of a scenario: (label, outcome, detail) per step."""

    RAISED = object()  # what :meth:`call` returns when the call raised

    def __init__(self) -> None:
        self.steps: list[tuple] = []

    def call(self, label: str, function, *args, **kwargs):
        """Call, record the result (or the exception), return the result or :attr:`RAISED`."""
        try:
            result = function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every exception is part of the contract
            foreign = foreign_in_chain(exc)
            assert foreign is None, "%s: %s reached the caller, chained to %r" % (
                label,
                foreign,
                exc,
            )
            self.steps.append((label, "raised") + describe_exception(exc))
            return self.RAISED
        self.steps.append((label, "returned", describe(result)))
        return result

    def raised(self) -> int:
        """How many recorded steps were exceptions (the tally's per-case exception counts)."""
        return sum(1 for step in self.steps if step[1] == "raised")

    def note(self, label: str, value: object) -> None:
        """Record a value computed by the scenario (an output buffer after a call, say)."""
        self.steps.append((label, "value", describe(value)))

    def attributes(self, label: str, obj: object, names, shape_only=()) -> None:
        """Record public attributes (absent ones too); ``shape_only`` ones by type and length."""
        for name in names:
            try:
                value = getattr(obj, name)
            except AttributeError:
                self.steps.append(("%s.%s" % (label, name), "absent"))
                continue
            except Exception as exc:  # noqa: BLE001 - a property that raises is recorded too
                self.steps.append(("%s.%s" % (label, name), "raised") + describe_exception(exc))
                continue
            if name in shape_only:
                value = Shape(value)
            self.steps.append(("%s.%s" % (label, name), "value", describe(value)))

    def public_face(self, label: str, obj: object, names, shape_only=()) -> None:
        """:meth:`attributes`, then the public names ``obj`` exposes: its ``dir()``, readable.

        A name ``dir()`` lists but ``getattr`` cannot read is left out: once
        (a CI run, never reproduced) native pycryptodome's own ``CtrMode``
        object, made with a suffixed counter and so without ``nonce``, had
        ``dir()`` list ``nonce`` while reading it raised ``AttributeError``:
        native disagreeing with itself, not a name a program can use.
        """
        self.attributes(label, obj, names, shape_only)
        self.note(
            label + " public names",
            sorted(n for n in dir(obj) if not n.startswith("_") and _readable(obj, n)),
        )


def _readable(obj: object, name: str) -> bool:
    """Whether ``getattr(obj, name)`` gives a value (a property that raises otherwise counts)."""
    try:
        getattr(obj, name)
    except AttributeError:
        return False
    except Exception:  # noqa: BLE001 - a property raising something else is still a name
        return True
    return True


# What :meth:`Recorder.call` returns when the call raised (scenarios stop there).
RAISED = Recorder.RAISED


class Mismatch(AssertionError):
    """The agent and native pycryptodome disagreed on a scenario."""


def _short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 20] + "...(%d chars)" % len(text)


def first_difference(agent: list[tuple], native: list[tuple]) -> str | None:
    for index in range(max(len(agent), len(native))):
        a = agent[index] if index < len(agent) else "<no step>"
        n = native[index] if index < len(native) else "<no step>"
        if a != n:
            context = [_short(step, 100) for step in native[max(0, index - 3) : index]]
            return "step %d differs\n  before: %s\n  agent:  %s\n  native: %s" % (
                index,
                " | ".join(context) or "-",
                _short(a, 400),
                _short(n, 400),
            )
    return None


# --------------------------------------------------------------------------- tallies


class Tally:
    """Per-test counts for the terminal summary: comparisons, mismatches, accelerated calls.

    Each comparison (one :func:`both` call: one generated example) also adds
    the exceptions each side's run raised (``agent_raised``, ``native_raised``);
    the summary line of a test shows both, which must be equal.
    """

    COUNTS = ("comparisons", "mismatches", "agent_raised", "native_raised")

    def __init__(self) -> None:
        self.current = "<outside a test>"
        self.tests: dict[str, dict] = {}

    def _entry(self, test_id: str | None = None) -> dict:
        key = test_id or self.current
        entry = self.tests.setdefault(key, {"calls": {}})
        for name in self.COUNTS:
            entry.setdefault(name, 0)
        return entry

    def compared(self, mismatch: bool, agent_raised: int = 0, native_raised: int = 0) -> None:
        entry = self._entry()
        entry["comparisons"] += 1
        entry["mismatches"] += int(mismatch)
        entry["agent_raised"] += agent_raised
        entry["native_raised"] += native_raised

    def add_calls(self, test_id: str, delta: dict[str, int]) -> None:
        calls = self._entry(test_id)["calls"]
        for name, value in delta.items():
            calls[name] = calls.get(name, 0) + value

    def merge(self, other: dict[str, dict]) -> None:
        for test_id, entry in other.items():
            mine = self._entry(test_id)
            for name in self.COUNTS:
                mine[name] += entry.get(name, 0)
            self.add_calls(test_id, entry["calls"])

    def totals(self) -> dict:
        calls: dict[str, int] = {}
        for entry in self.tests.values():
            for name, value in entry["calls"].items():
                calls[name] = calls.get(name, 0) + value
        totals: dict = {"tests": len(self.tests)}
        for name in self.COUNTS:
            totals[name] = sum(e.get(name, 0) for e in self.tests.values())
        totals["calls"] = dict(sorted(calls.items()))
        return totals

    def summary_lines(self, detail_limit: int = 12) -> list[str]:
        """One line per test; a function with more than ``detail_limit`` items gets one line."""
        rows: dict[str, dict] = {}
        by_function: dict[str, list[str]] = {}
        for test_id in self.tests:
            by_function.setdefault(test_id.split("[")[0], []).append(test_id)
        for function, test_ids in by_function.items():
            if len(test_ids) > detail_limit:
                part = Tally()
                part.tests = {t: self.tests[t] for t in test_ids}
                rows["%s[%d items]" % (function, len(test_ids))] = part.totals()
            else:
                rows.update((t, self.tests[t]) for t in test_ids)
        lines = []
        width = max([len(t) for t in rows] + [10])
        for test_id, entry in sorted(rows.items()):
            if not entry["comparisons"] and not entry["calls"]:
                continue
            calls = ", ".join("%s=%d" % kv for kv in sorted(entry["calls"].items())) or "-"
            lines.append(
                "%-*s %6d compared %3d mismatched  raised: agent %d, native %d  "
                "accelerated calls: %s"
                % (
                    width,
                    test_id,
                    entry["comparisons"],
                    entry["mismatches"],
                    entry.get("agent_raised", 0),
                    entry.get("native_raised", 0),
                    calls,
                )
            )
        folders = sorted({_folder(t) for t in self.tests})
        for folder in folders:
            part = Tally()
            part.tests = {t: e for t, e in self.tests.items() if _folder(t) == folder}
            lines.append(part.total_line(folder))
        return lines

    def total_line(self, title: str) -> str:
        totals = self.totals()
        return (
            "%s: %d comparisons in %d tests, %d mismatches; exceptions raised: agent %d, "
            "native %d; accelerated calls: %s"
        ) % (
            title,
            totals["comparisons"],
            totals["tests"],
            totals["mismatches"],
            totals["agent_raised"],
            totals["native_raised"],
            ", ".join("%s=%d" % kv for kv in totals["calls"].items()) or "none",
        )


def _folder(test_id: str) -> str:
    return test_id.split("::")[0].rsplit("/", 1)[0]


TALLY = Tally()


# --------------------------------------------------------------------------- data kept


def reachable(root: object, needle: bytes, depth: int = 4) -> bool:
    """Whether ``needle`` is inside a bytes or bytearray reachable from ``root``.

    Follows ``gc.get_referents`` ``depth`` levels down (attributes, lists,
    dicts), skipping classes and modules: what an object keeps of a secret,
    compared by the tests with what native's object keeps.
    """
    seen = set()
    frontier = [root]
    for _ in range(depth):
        following = []
        for obj in frontier:
            for ref in gc.get_referents(obj):
                if id(ref) in seen or isinstance(ref, type) or type(ref).__name__ == "module":
                    continue
                seen.add(id(ref))
                if isinstance(ref, (bytes, bytearray)) and needle in bytes(ref):
                    return True
                following.append(ref)
        frontier = following
    return False


# --------------------------------------------------------------------------- both


class Comparison:
    """What :func:`both` saw: the two transcripts and the accelerated calls of the agent's run."""

    def __init__(self, agent: Recorder, native: Recorder, calls: dict[str, int]) -> None:
        self.agent = agent
        self.native = native
        self.calls = calls  # primitive -> accelerated calls made by the agent's run
        self.patched = True  # whether the agent had patched the module at all

    def accelerated(self, primitive: str) -> int:
        return self.calls.get(primitive, 0)


def _under_the_agent(scenario, module, *args, **kwargs) -> tuple[Recorder, dict, dict]:
    """The scenario's run under the agent: its transcript, and the call counts before and after.

    A module whose patch *failed* is an error (one the agent left alone is not).
    """
    ensure_agent()
    failure = patch_failure(module)
    if failure:
        raise AssertionError("the agent failed to patch %s: %s" % (module.__name__, failure))
    agent = Recorder()
    before = call_counts()
    scenario(agent, module, *args, **kwargs)
    return agent, before, call_counts()


def both(scenario, module, *args, **kwargs) -> Comparison:
    """Run ``scenario(rec, module, ...)`` under the agent, then natively; fail on any difference.

    The native run must make no accelerated call (it would not be native).
    A module the agent left alone (nothing in it accelerated here, say
    ``ACCEL_AGENT_EXCLUDE=aes``) is compared all the same, trivially; one
    whose patch *failed* is an error.
    """
    agent, before, after_agent = _under_the_agent(scenario, module, *args, **kwargs)
    native = Recorder()
    with natively():
        scenario(native, module, *args, **kwargs)
    leaked = count_delta(after_agent, call_counts())
    return _judged(module, agent, agent.steps, native, count_delta(before, after_agent), leaked)


def _judged(module, agent, agent_steps, native, calls, leaked=None, source="") -> Comparison:
    """Count one comparison; fail on a leaked accelerated call or a differing step.

    ``agent_steps`` are the agent's steps as they are compared (a recorded
    transcript's are compared as the file holds them); ``source`` says where
    native's came from, for the message.
    """
    difference = first_difference(agent_steps, native.steps)
    TALLY.compared(
        mismatch=difference is not None or bool(leaked),
        agent_raised=agent.raised(),
        native_raised=native.raised(),
    )
    if leaked:
        raise AssertionError("the native run made accelerated calls: %s" % leaked)
    if difference is not None:
        raise Mismatch("agent and native %s%s differ: %s" % (module.__name__, source, difference))
    comparison = Comparison(agent, native, calls)
    comparison.patched = patching.is_patched(module.__name__)
    return comparison


# ------------------------------------------------------------ recorded native transcripts

NATIVE_TRANSCRIPTS = REPO_ROOT / "tests" / "vectors" / "native-transcripts.json"
# recorded (the default): a transcript recorded from the same pycryptodome
# stands in for the native run; live: native runs, as in both(); record:
# native runs and its transcript is written (or replaced) in the file.
TRANSCRIPTS_MODE = "ACCEL_NATIVE_TRANSCRIPTS"
TRANSCRIPTS_MODES = ("recorded", "live", "record")
_XDIST_GROUP = re.compile(r"@[\w-]+$")


def _to_json(value):
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, (tuple, list)):
        return [_to_json(item) for item in value]
    return value


def _from_json(value):
    if isinstance(value, dict):
        return bytes.fromhex(value["hex"])
    if isinstance(value, list):
        return tuple(_from_json(item) for item in value)
    return value


def _transcript_facts(module) -> dict:
    flavour = module.__name__.split(".")[0]
    return {"flavour": flavour, "version": str(importlib.import_module(flavour).__version__)}


def _transcripts_mode() -> str:
    mode = os.environ.get(TRANSCRIPTS_MODE, "").strip() or "recorded"
    if mode not in TRANSCRIPTS_MODES:
        raise pytest.UsageError("%s=%s: one of %s" % (TRANSCRIPTS_MODE, mode, TRANSCRIPTS_MODES))
    return mode


def _write_transcript(key: str, facts: dict, steps: list[tuple]) -> None:
    """Add one transcript to the file (locked: two workers may record at once)."""
    with open(Path(tempfile.gettempdir()) / "accel-native-transcripts.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = {"about": "", "transcripts": {}}
        if NATIVE_TRANSCRIPTS.exists():
            data = json.loads(NATIVE_TRANSCRIPTS.read_text())
        data["about"] = (
            "Native pycryptodome's transcripts of the scenarios that stream 2 GiB of fixed "
            "(all-zero) inputs, by test id: recorded with %s=record, they stand in for "
            "the native run of a test when its pycryptodome is the one named in facts. "
            "Zero keys and data only: nothing secret." % TRANSCRIPTS_MODE
        )
        data["transcripts"][key] = {"facts": facts, "steps": _to_json(steps)}
        data["transcripts"] = dict(sorted(data["transcripts"].items()))
        NATIVE_TRANSCRIPTS.write_text(json.dumps(data, indent=1) + "\n")


def _transcripts() -> dict:
    if not NATIVE_TRANSCRIPTS.exists():
        return {}
    return json.loads(NATIVE_TRANSCRIPTS.read_text())["transcripts"]


def has_transcript(key: str) -> bool:
    """Whether a transcript of ``key`` is recorded, from whichever pycryptodome."""
    return key in _transcripts()


def recorded_transcript(key: str, module) -> list[tuple] | None:
    """Native's recorded steps for ``key``, if recorded from this pycryptodome; else None."""
    entry = _transcripts().get(key)
    if entry is None or entry["facts"] != _transcript_facts(module):
        return None
    return list(_from_json(entry["steps"]))


def against_native_transcript(key: str, scenario, module, *args, **kwargs) -> Comparison:
    """:func:`both`, with native's run replaced by its recorded transcript when one fits.

    For scenarios whose inputs are fixed and whose native run is long (2 GiB
    streamed at a few hundred MB/s): the agent's run is compared step by
    step, as in :func:`both`, with what native pycryptodome did when the
    transcript was recorded. A transcript fits when it was recorded from the
    same package and version; when none fits, native runs, as in :func:`both`.
    ``key`` names the transcript: the test's id, without the ``@group`` that
    pytest-xdist's ``--dist loadgroup`` adds.
    """
    key = _XDIST_GROUP.sub("", key)
    mode = _transcripts_mode()
    native_steps = recorded_transcript(key, module) if mode == "recorded" else None
    if mode == "recorded" and native_steps is None and not has_transcript(key):
        pytest.fail(
            "no native transcript for %s in %s: record it with %s=record"
            % (key, NATIVE_TRANSCRIPTS.name, TRANSCRIPTS_MODE)
        )
    if native_steps is None:
        comparison = both(scenario, module, *args, **kwargs)
        if mode == "record":
            _write_transcript(key, _transcript_facts(module), comparison.native.steps)
        return comparison
    agent, before, after = _under_the_agent(scenario, module, *args, **kwargs)
    agent_steps = list(_from_json(_to_json(agent.steps)))  # as the record holds them
    native = Recorder()
    native.steps = native_steps
    source = " (recorded transcript %s)" % key
    return _judged(module, agent, agent_steps, native, count_delta(before, after), source=source)


def outcome(function, *args, **kwargs) -> tuple:
    """One call's result or exception, described as :class:`Recorder` records it."""
    rec = Recorder()
    rec.call("call", function, *args, **kwargs)
    return rec.steps[0][1:]


# --------------------------------------------------------------------------- settings


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


# --------------------------------------------------------------------------- pytest glue

_WORKER_KEY = "accel_transparency_tally"
# The report of a test's call phase, kept for its fixtures' teardown.
_CALL_REPORT = pytest.StashKey()
# Set to 1, a session fails unless every primitive the agent accelerates in
# this process made an accelerated call in some test: how CI's multi-Python
# job proves that tests/differential reaches every primitive on every Python.
REQUIRE_EVERY_PRIMITIVE = "ACCEL_REQUIRE_EVERY_PRIMITIVE"


def unserved_primitives(calls: dict[str, int]) -> list[str]:
    """The primitives accelerated here that no test called through the agent."""
    ensure_agent()
    primitives = accel_agent.status()["primitives"]
    return sorted(
        name for name, facts in primitives.items() if facts["accelerated"] and not calls.get(name)
    )


class SummaryPlugin:
    """Markers, xdist merging and the terminal summary; registered once by the conftests."""

    def pytest_configure(self, config):
        config.addinivalue_line(
            "markers",
            "accelerates(primitive=None): the test must make accelerated calls of the primitive "
            "(default: its case parameter's) whenever the agent accelerates it",
        )
        config.addinivalue_line(
            "markers", "native_only(primitive): the test must make no accelerated call of it"
        )

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call":
            item.stash[_CALL_REPORT] = report

    unserved: list[str] | None = None

    def pytest_sessionfinish(self, session):
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: hand the tally to the controller
            workeroutput[_WORKER_KEY] = json.dumps(TALLY.tests)
            return
        if env_int(REQUIRE_EVERY_PRIMITIVE, 0):
            self.unserved = unserved_primitives(TALLY.totals()["calls"])
            if self.unserved:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        payload = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
        if payload:
            TALLY.merge(json.loads(payload))

    def pytest_terminal_summary(self, terminalreporter):
        if not TALLY.tests:
            return
        terminalreporter.section("accel-agent transparency: agent vs native")
        for line in TALLY.summary_lines():
            terminalreporter.write_line(line)
        if self.unserved is not None:
            terminalreporter.write_line(
                "every accelerated primitive served: %s"
                % ("FAILED, no accelerated call of " + ", ".join(self.unserved)
                   if self.unserved else "yes")
            )  # fmt: skip


def register_plugin(config) -> None:
    if not config.pluginmanager.has_plugin("accel-transparency"):
        config.pluginmanager.register(SummaryPlugin(), "accel-transparency")


# What a comparison folder's conftest.py imports to wire this in (pytest takes
# hooks and fixtures from a conftest's names, wherever they were defined):
#     from transparency_helpers import agent_on_and_counted, pytest_configure


def pytest_configure(config) -> None:
    register_plugin(config)


@pytest.fixture(autouse=True)
def agent_on_and_counted(request):
    """Every test of the folder: the agent on, its calls counted, its markers checked."""
    yield from track(request)


def track(request):
    """The body of each folder's autouse fixture: agent on, calls counted, markers checked."""
    ensure_agent()
    TALLY.current = request.node.nodeid
    before = call_counts()
    yield
    delta = count_delta(before, call_counts())
    TALLY.add_calls(request.node.nodeid, delta)
    TALLY.current = "<outside a test>"
    report = request.node.stash.get(_CALL_REPORT, None)
    if report is not None and report.skipped:
        return  # a test that skipped (its input is missing, say) made no calls to check
    marker = request.node.get_closest_marker("accelerates")
    if marker is not None:
        primitive = marker.args[0] if marker.args else _case_primitive(request)
        accelerated, why = acceleration(primitive)
        if accelerated and not delta.get(primitive):
            pytest.fail(
                "%s is accelerated (%s) but this test made no accelerated call of it; calls: %s"
                % (primitive, why, delta or "none")
            )
    marker = request.node.get_closest_marker("native_only")
    if marker is not None and delta.get(marker.args[0]):
        pytest.fail(
            "%s must stay native here, but %d accelerated calls were made"
            % (marker.args[0], delta[marker.args[0]])
        )


def _case_primitive(request) -> str:
    callspec = getattr(request.node, "callspec", None)
    case = callspec.params.get("case") if callspec is not None else None
    if case is None:
        raise pytest.UsageError("@accelerates without a primitive needs a 'case' parameter")
    return case.primitive
