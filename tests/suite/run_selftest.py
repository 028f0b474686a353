"""Run pycryptodome's own test suite natively and under the agent, and compare.

    python tests/suite/run_selftest.py [--flavour Crypto|Cryptodome ...] [--skip-slow]
                                       [--select EXPR] [--parallel] [--json-out FILE]
                                       [--native recorded|live|record]
                                       [--agent-mode quiet|shadow]

For each flavour (``Crypto`` = pycryptodome, ``Cryptodome`` = pycryptodomex;
default: every one installed) the suite runs twice, each time in a fresh
interpreter: with ``ACCEL_AGENT=off`` (native) and with ``ACCEL_AGENT=quiet``
(the agent activated at start-up by its .pth, checked with
``accel_agent.activation.is_active()``). pycryptodome 4.x runs its suite
with pytest (``Crypto.SelfTest.main``), 3.x with unittest
(``SelfTest.get_tests``); both are driven here the way their own
``python -m Crypto.SelfTest`` does, slow tests included unless ``--skip-slow``.
Install ``pycryptodome-test-vectors`` for the full vector set.

The verdict: the set of (test, outcome) under the agent equals the native
one, and every primitive that ``accel_agent.status(resolve=False)`` reports
as accelerated served a non-zero number of calls. Tests that fail natively
are listed, not held against the agent. The last line of output is one JSON
object (the same as ``--json-out``); the exit status is 0 on a clean verdict,
1 on a difference, 2 when a run could not be made.

Native's outcomes can be recorded (``--native record``: both runs, then the
native outcomes written to ``tests/suite/native-outcomes/``) and, by default
(``--native recorded``), stand in for the native run: the suite then runs
only under the agent. A record stands in only for the run it was made from:
the same flavour, version, test vectors, Python, machine, CPU features,
``--skip-slow`` and ``--select``. It holds the SHA-256 of every
(test, outcome) pair but those of :data:`INTERNALS_TESTS`, which it lists.
When the agent's outcomes hash the same, they are native's, test by test;
when anything differs, or no record fits, the native run is made after all
and the two are compared as without a record, so a difference is always
shown test by test against a live native run. ``--native live`` always
runs native.

``--agent-mode shadow`` runs the agent's side in shadow mode at rate 1
(``ACCEL_AGENT=shadow``, ``ACCEL_AGENT_SHADOW_RATE=1``): every accelerated
call is done natively too and compared, and what the suite sees must still
be native's. The verdict then holds ``accel_agent.status()["shadow"]``'s
counts (comparisons, uncomparable, mismatches), and a mismatch fails it.
Shadow mode decides every primitive at start-up, as ``on`` does: an
accelerated primitive without a call fails the verdict only if a call asked
for it (its slot resolved, which is what decides one in quiet mode); the
others are listed apart ("decided at start-up, asked for by no call").
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAVOURS = ("Crypto", "Cryptodome")
MODES = {"native": "off", "agent": "quiet"}
AGENT_MODES = ("quiet", "shadow")  # ACCEL_AGENT of the agent's run
EXIT_OK, EXIT_DIFFERENT, EXIT_BROKEN = 0, 1, 2
CHILD_TIMEOUT = 3600
FAILED_OUTCOMES = ("failed", "error")
LISTED = 50  # tests listed by name in the verdict (the counts are complete)
DETAIL_CHARS = 800  # of each agent-only failure's traceback
RECORDS = Path(__file__).resolve().with_name("native-outcomes")
NATIVE_CHOICES = ("recorded", "live", "record")


# ============================================================== in the child interpreter


class PytestRecorder:
    """pytest plugin: the outcome of every test (worst phase wins) and a short reason."""

    _RANK = {"passed": 0, "skipped": 1, "xfailed": 1, "xpassed": 2, "failed": 3, "error": 3}

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.details: dict[str, str] = {}

    def _set(self, nodeid: str, outcome: str, detail: str = "") -> None:
        previous = self.outcomes.get(nodeid)
        if previous is None or self._RANK[outcome] > self._RANK[previous]:
            self.outcomes[nodeid] = outcome
            if detail:
                self.details[nodeid] = detail[-3000:]

    def pytest_runtest_logreport(self, report) -> None:
        xfail = hasattr(report, "wasxfail")
        if report.when == "call":
            if report.passed:
                self._set(report.nodeid, "xpassed" if xfail else "passed")
            elif report.skipped:
                self._set(report.nodeid, "xfailed" if xfail else "skipped")
            else:
                self._set(report.nodeid, "failed", report.longreprtext)
        elif report.failed:  # setup or teardown
            self._set(report.nodeid, "error", report.longreprtext)
        elif report.skipped and report.when == "setup":
            self._set(report.nodeid, "xfailed" if xfail else "skipped")

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self._set("collect:" + report.nodeid, "error", report.longreprtext)


def _run_pytest_suite(flavour: str, skip_slow: bool, select: str | None) -> dict:
    import pytest

    self_test = importlib.import_module(flavour + ".SelfTest")
    recorder = PytestRecorder()
    base = list(getattr(self_test, "_PYTEST_ARGS", ["-p", flavour + ".SelfTest.plugin"]))
    # Run from an empty directory with an empty configuration, so neither this
    # repository's pytest settings and conftests nor a cache file get involved.
    args = base + ["-c", os.devnull, "-p", "no:cacheprovider", "-q", "--no-header"]
    args += ["-W", "ignore::DeprecationWarning"]
    args += ["--pyargs", flavour + ".SelfTest"]
    if skip_slow:
        args.append("--skip-slow-tests")
    if select:
        args += ["-k", select]
    exit_code = pytest.main(args, plugins=[recorder])
    return {
        "framework": "pytest",
        "exit_code": int(exit_code),
        "outcomes": recorder.outcomes,
        "details": recorder.details,
    }


def unittest_result_class():
    import unittest

    class Recording(unittest.TextTestResult):
        """Outcome per test; legacy ``runTest`` tests share an id, so the description
        and an ordinal tell them apart (the suite's order is deterministic)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.outcomes: dict[str, str] = {}
            self.details: dict[str, str] = {}
            self._seen: dict[str, int] = {}
            self._current: dict[int, str] = {}

        def _key(self, test) -> str:
            key = self._current.get(id(test))
            if key is None:
                key = test.id()
                description = test.shortDescription()
                if description:
                    key += " [%s]" % description.strip()
                count = self._seen[key] = self._seen.get(key, 0) + 1
                if count > 1:
                    key += " #%d" % count
                self._current[id(test)] = key
            return key

        def startTest(self, test):
            super().startTest(test)
            self.outcomes.setdefault(self._key(test), "passed")

        def _mark(self, test, outcome, detail=""):
            key = self._key(test)
            if self.outcomes.get(key) in FAILED_OUTCOMES:
                return
            self.outcomes[key] = outcome
            if detail:
                self.details[key] = detail[-3000:]

        def addError(self, test, err):
            super().addError(test, err)
            self._mark(test, "error", self._exc_info_to_string(err, test))

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._mark(test, "failed", self._exc_info_to_string(err, test))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._mark(test, "skipped")

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._mark(test, "xfailed")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._mark(test, "xpassed")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                failed = issubclass(err[0], test.failureException)
                self._mark(
                    test, "failed" if failed else "error", self._exc_info_to_string(err, test)
                )

    return Recording


def _run_unittest_suite(flavour: str, skip_slow: bool, select: str | None) -> dict:
    import unittest

    self_test = importlib.import_module(flavour + ".SelfTest")
    config = {"slow_tests": not skip_slow, "wycheproof_warnings": False}
    tests = self_test.get_tests(config=config)
    suite = unittest.TestSuite()
    for test in flatten(tests):
        if select is None or select in test.id():
            suite.addTest(test)
    with open(os.devnull, "w") as sink:
        runner = unittest.TextTestRunner(
            stream=sink, verbosity=0, resultclass=unittest_result_class()
        )
        result = runner.run(suite)
    return {
        "framework": "unittest",
        "exit_code": 0 if result.wasSuccessful() else 1,
        "outcomes": result.outcomes,
        "details": result.details,
    }


def flatten(tests):
    import unittest

    for test in tests:
        if isinstance(test, unittest.TestSuite):
            yield from flatten(test)
        else:
            yield test


def child_main(flavour: str, mode: str, skip_slow: bool, select: str | None, out: str) -> int:
    """Run one flavour's suite in this interpreter and write what happened to ``out``."""
    from accel_agent import activation

    active = activation.is_active()
    if active != (mode == "agent"):
        problem = (
            "the agent did not activate at start-up (is accel-agent installed in this "
            "interpreter's environment, with its .pth?)"
            if mode == "agent"
            else "the agent is active although ACCEL_AGENT=off"
        )
        Path(out).write_text(json.dumps({"problem": problem}))
        return EXIT_BROKEN
    flavour_module = importlib.import_module(flavour)
    self_test = importlib.import_module(flavour + ".SelfTest")
    started = time.monotonic()
    if hasattr(self_test, "get_tests"):  # pycryptodome 3.x: unittest
        results = _run_unittest_suite(flavour, skip_slow, select)
    else:  # pycryptodome 4.x: pytest
        results = _run_pytest_suite(flavour, skip_slow, select)
    results["seconds"] = round(time.monotonic() - started, 1)
    # CPU time says what the suite costs even on a busy machine, where wall time does not.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    results["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)
    import accel_agent
    from accel_agent import patching, registry

    summary = accel_agent.status(resolve=False)
    slots = registry.slots()
    results.update(
        flavour=flavour,
        version=str(flavour_module.__version__),
        mode=mode,
        active=active,
        test_vectors=_test_vectors_version(),
        python=sys.version.split()[0],
        machine=platform.machine(),
        cpu_features=_cpu_features(flavour),
        calls=registry.calls(),
        primitives={
            name: {
                "accelerated": entry["accelerated"],
                "provider": entry["provider"],
                "reason": entry["reason"],
                "calls": entry["calls"],
                # Whether a call asked for the provider (its slot resolved): in
                # quiet mode that is what decides a primitive; shadow mode, like
                # on, decides them all at start-up for its status lines.
                "asked": name in slots and slots[name].provider is not registry.UNRESOLVED,
            }
            for name, entry in summary["primitives"].items()
        },
        patched=sorted(
            "%s.%s" % (module, name)
            for module, names in patching.patched_names().items()
            if module.split(".")[0] == flavour
            for name in names
        ),
        shadow=_shadow_counts(summary.get("shadow")),
    )
    Path(out).write_text(json.dumps(results))
    return EXIT_OK


def _shadow_counts(shadow: dict | None) -> dict | None:
    """Shadow mode's figures for the verdict (None: shadow mode was off)."""
    if not shadow or not shadow.get("on"):
        return None
    return {
        "rate": shadow["rate"],
        "comparisons": shadow["comparisons"],
        "uncomparable": shadow["uncomparable"],
        "mismatches": shadow["mismatches"],
    }


def _cpu_features(flavour: str) -> dict:
    """The CPU features pycryptodome's C code (and so which of its tests run) depends on."""
    try:
        features = importlib.import_module(flavour + ".Util._cpu_features")
    except ImportError:
        return {}
    return {
        name: bool(getattr(features, name)())
        for name in ("have_aes_ni", "have_clmul")
        if hasattr(features, name)
    }


def _test_vectors_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("pycryptodome-test-vectors")
    except Exception:  # noqa: BLE001 - not installed: the suite skips the extended vectors
        return None


# ============================================================== in the parent


def installed_flavours(python: str) -> list[str]:
    code = "import importlib.util as u; print(' '.join(n for n in %r if u.find_spec(n)))" % (
        FLAVOURS,
    )
    result = subprocess.run(
        [python, "-c", code],
        capture_output=True,
        text=True,
        env=child_env("off"),
        check=True,
    )
    return result.stdout.split()


def child_env(agent_mode: str) -> dict:
    env = dict(os.environ)
    env["ACCEL_AGENT"] = agent_mode
    if agent_mode == "shadow":
        env["ACCEL_AGENT_SHADOW_RATE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)  # the outer pytest's options are not the suite's
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def _start(python, flavour, mode, skip_slow, select, work: Path, agent_mode="quiet"):
    out = work / ("%s-%s.json" % (flavour, mode))
    log = work / ("%s-%s.log" % (flavour, mode))
    command = [python, str(Path(__file__).resolve()), "--child", mode, "--flavour", flavour]
    command += ["--json-out", str(out)]
    if skip_slow:
        command.append("--skip-slow")
    if select:
        command += ["--select", select]
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=work,  # no conftest.py or pytest configuration of this repository
            env=child_env(agent_mode if mode == "agent" else MODES[mode]),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    return process, out, log


def finish_child(process, out: Path, log: Path, started: float) -> dict:
    try:
        code = process.wait(timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return {"problem": "timed out after %d s; log: %s" % (CHILD_TIMEOUT, log)}
    results = child_results("the", code, out, log)
    results["wall_seconds"] = round(time.monotonic() - started, 1)
    return results


def child_results(label: str, code: int, out: Path, log: Path) -> dict:
    """What a child that exited with ``code`` wrote to ``out``, or the problem, with its log's end.

    ``label`` names the run in the problem ("native", "agent"): the runners
    of the other libraries' suites read their children's results here too.
    """
    if not out.exists():
        tail = log.read_text(errors="replace")[-3000:]
        return {
            "problem": "%s run exited %d without results; log %s ends:\n%s"
            % (label, code, log, tail)
        }
    results = json.loads(out.read_text())
    results["log"] = str(log)
    return results


def outcome_counts(outcomes: dict[str, str]) -> dict[str, int]:
    counts = {"run": 0, "passed": 0, "failures": 0, "errors": 0, "skipped": 0}
    for outcome in outcomes.values():
        if outcome == "skipped":
            counts["skipped"] += 1
            continue
        counts["run"] += 1
        if outcome == "failed":
            counts["failures"] += 1
        elif outcome == "error":
            counts["errors"] += 1
        elif outcome in ("passed", "xfailed", "xpassed"):
            counts["passed"] += 1
    return counts


def _times(results: dict) -> dict:
    return {"seconds": results["seconds"], "cpu_seconds": results.get("cpu_seconds")}


# Tests of pycryptodome's internals that cannot pass under the agent, each
# with its reason (docs/compatibility*.md list the same): a test id matching
# one of these substrings may fail under the agent where it passes natively.
# Nothing else may differ.
INTERNALS_TESTS = {
    "test_ECC_NIST.py::test_scalar_multiply_public[": (
        "spies on pycryptodome's C scalar multiplication during DSS signing and "
        "verifying; under the agent OpenSSL computes and pycryptodome's C code is not called"
    ),
    "test_ECC_Ed448.py::test_scalar_multiply_public[": (
        "the same spy for eddsa; under the agent OpenSSL signs and verifies"
    ),
    "test_BLAKE2.py::TestBlake2bRawCopy::": (
        "calls pycryptodome's C blake2b_copy() on the objects' C states (_state); under "
        "the agent OpenSSL holds the state and the objects keep none of their input to "
        "rebuild one from (docs/security.md)"
    ),
    "test_BLAKE2.py::TestBlake2sRawCopy::": ("the same C copy for BLAKE2s"),
}


def _internals_reason(test: str) -> str | None:
    for pattern, reason in INTERNALS_TESTS.items():
        if pattern in test:
            return reason
    return None


# The facts of a run that decide which tests run and how they end natively:
# a record stands in only for a run with the same ones.
RECORD_FACTS = (
    "flavour", "version", "framework", "test_vectors", "python", "machine", "cpu_features"
)


def outcomes_digest(outcomes: dict[str, str]) -> str:
    """SHA-256 of every (test, outcome) pair but those of :data:`INTERNALS_TESTS`."""
    digest = hashlib.sha256()
    for test in sorted(outcomes):
        if not _internals_reason(test):
            digest.update(("%s\t%s\n" % (test, outcomes[test])).encode())
    return digest.hexdigest()


def _facts(results: dict, skip_slow: bool, select: str | None) -> dict:
    facts = {name: results.get(name) for name in RECORD_FACTS}
    facts.update(skip_slow=skip_slow, select=select)
    return facts


def record_path(facts: dict) -> Path:
    return RECORDS / ("%s-%s%s.json" % (
        facts["flavour"], facts["version"], "-skip-slow" if facts["skip_slow"] else ""
    ))


def write_record(native: dict, skip_slow: bool, select: str | None) -> Path:
    """Keep a native run's outcomes (hashed), so later runs can leave native out."""
    if select:
        raise SystemExit("--native record: a record is of a whole run, not of --select")
    facts = _facts(native, skip_slow, select)
    outcomes = native["outcomes"]
    record = {
        "about": "pycryptodome's own suite, run natively (ACCEL_AGENT=off) by "
        "tests/suite/run_selftest.py --native record; it stands in for the native run "
        "only when every fact matches",
        "recorded": time.strftime("%Y-%m-%d"),
        "facts": facts,
        "tests": len(outcomes),
        "digest": outcomes_digest(outcomes),
        "internals_tests": {t: o for t, o in sorted(outcomes.items()) if _internals_reason(t)},
        "not_passed": {t: o for t, o in sorted(outcomes.items()) if o != "passed"},
        "seconds": native["seconds"],
        "cpu_seconds": native.get("cpu_seconds"),
    }
    path = record_path(facts)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path


def recorded_native(agent: dict, skip_slow: bool, select: str | None) -> tuple[dict | None, str]:
    """Native's results as recorded, if a record fits the agent's run; else (None, why not).

    The outcomes returned are the agent's own wherever the digest proves them
    native's, and the record's for the tests of pycryptodome's internals.
    """
    if "problem" in agent:
        return None, "the agent's run could not be made"
    facts = _facts(agent, skip_slow, select)
    path = record_path(facts)
    if not path.exists():
        return None, "no record of native's outcomes at %s" % path
    record = json.loads(path.read_text())
    recorded_facts = record["facts"]
    keys = set(facts) | set(recorded_facts)
    stale = sorted(k for k in keys if facts.get(k) != recorded_facts.get(k))
    if stale:
        return None, "%s was made with other %s" % (path.name, ", ".join(stale))
    outcomes = {t: o for t, o in agent["outcomes"].items() if not _internals_reason(t)}
    internals = {t for t in agent["outcomes"] if _internals_reason(t)}
    if outcomes_digest(outcomes) != record["digest"] or internals != set(record["internals_tests"]):
        return None, "the agent's outcomes are not the recorded native ones"
    outcomes.update(record["internals_tests"])
    native = {
        "outcomes": outcomes,
        "seconds": record["seconds"],
        "cpu_seconds": record["cpu_seconds"],
        "log": "recorded %s in %s" % (record["recorded"], path),
    }
    return native, "recorded %s" % record["recorded"]


def compare(flavour: str, native: dict, agent: dict) -> dict:
    """The verdict for one flavour from its two runs.

    An accelerated primitive without a call fails the verdict when a call
    asked for it (its slot resolved), as every accelerated primitive is in
    quiet mode, which decides one on its first call. Shadow mode, like
    ``on``, decides every primitive at start-up for its status lines: those
    that no call of this run asked for (a ``--select`` of GCM never asks for
    ECDSA) are listed apart with that reason and fail nothing.
    """
    verdict: dict = {"flavour": flavour}
    problems = [r["problem"] for r in (native, agent) if "problem" in r]
    if problems:
        verdict.update(ok=False, problems=problems)
        return verdict
    n_out, a_out = native["outcomes"], agent["outcomes"]
    differing = {
        test: {"native": n_out.get(test, "absent"), "agent": a_out.get(test, "absent")}
        for test in sorted(set(n_out) | set(a_out))
        if n_out.get(test) != a_out.get(test)
    }
    accepted = {
        test: _internals_reason(test)
        for test, outcomes in differing.items()
        if _internals_reason(test) and outcomes["native"] not in FAILED_OUTCOMES
    }
    differing = {test: d for test, d in differing.items() if test not in accepted}
    accelerated = sorted(name for name, p in agent["primitives"].items() if p["accelerated"])
    uncalled = [name for name in accelerated if not agent["primitives"][name]["calls"]]
    idle = [name for name in uncalled if agent["primitives"][name].get("asked", True)]
    decided_at_start = [name for name in uncalled if name not in idle]
    verdict.update(
        differing_count=len(differing),
        version=agent["version"],
        framework=agent["framework"],
        test_vectors=agent["test_vectors"],
        native={**outcome_counts(n_out), **_times(native)},
        agent={**outcome_counts(a_out), **_times(agent)},
        same_results=not differing,
        internals_tests_accepted=accepted,
        differences=_capped(differing),
        agent_only_failures=_capped(
            {
                test: agent["details"].get(test, "")[-DETAIL_CHARS:]
                for test, d in differing.items()
                if d["agent"] in FAILED_OUTCOMES
            }
        ),
        native_failures=sorted(t for t, o in n_out.items() if o in FAILED_OUTCOMES)[:LISTED],
        calls={name: p["calls"] for name, p in sorted(agent["primitives"].items())},
        accelerated=accelerated,
        accelerated_without_calls=idle,
        decided_at_start_not_called=decided_at_start,
        patched=agent["patched"],
        logs={"native": native["log"], "agent": agent["log"]},
    )
    shadow = agent.get("shadow")
    if shadow is not None:
        verdict["shadow"] = shadow
    verdict["ok"] = (
        not differing
        and not idle
        and bool(agent["patched"])
        and not (shadow and shadow["mismatches"])
    )
    if not agent["patched"]:
        verdict["problems"] = ["the agent patched nothing in %s" % flavour]
    return verdict


def emit_verdict(verdict: dict, json_out: str | None, made: bool) -> int:
    """Print ``verdict`` as the output's last line (and write it to ``json_out``); the exit status.

    For the runners of the other libraries' suites: 2 when the runs could not
    be ``made``, else 0 on a clean verdict, 1 on a difference.
    """
    line = json.dumps(verdict, sort_keys=True)
    if json_out:
        Path(json_out).write_text(line)
    print(line)
    if not made:
        return EXIT_BROKEN
    return EXIT_OK if verdict["ok"] else EXIT_DIFFERENT


def _capped(items: dict) -> dict:
    """The first :data:`LISTED` entries: the JSON line must stay readable."""
    return dict(list(items.items())[:LISTED])


def print_verdict(verdict: dict) -> None:
    flavour = verdict["flavour"]
    if "native" not in verdict:
        print("%s: could not run: %s" % (flavour, "; ".join(verdict["problems"])))
        return
    for mode in ("native", "agent"):
        c = verdict[mode]
        label = mode
        if mode == "native" and verdict.get("native_source", "run now").startswith("recorded"):
            label = "native (%s)" % verdict["native_source"]
        print(
            "%s %s %s: %d run, %d failures, %d errors, %d skipped in %.0f s (%.0f s CPU)"
            % (
                flavour,
                verdict["version"],
                label,
                c["run"],
                c["failures"],
                c["errors"],
                c["skipped"],
                c["seconds"],
                c["cpu_seconds"] or 0,
            )
        )
    for test in verdict["native_failures"]:
        print("  fails natively too (not the agent's doing): %s" % test)
    for test, reason in verdict["internals_tests_accepted"].items():
        print("  accepted, a test of pycryptodome's internals: %s (%s)" % (test, reason))
    for test, outcomes in verdict["differences"].items():
        print("  DIFFERENT %s: native %s, agent %s" % (test, outcomes["native"], outcomes["agent"]))
        detail = verdict["agent_only_failures"].get(test)
        if detail:
            print("    " + detail.strip().splitlines()[-1][:300])
    calls = ", ".join("%s=%d" % kv for kv in verdict["calls"].items()) or "none"
    print("  accelerated calls under the agent: %s" % calls)
    shadow = verdict.get("shadow")
    if shadow is not None:
        print(
            "  shadow mode at rate %s: %d comparisons, %d uncomparable, %d mismatches%s"
            % (
                shadow["rate"],
                shadow["comparisons"],
                shadow["uncomparable"],
                sum(len(found) for found in shadow["mismatches"].values()),
                (" (%s)" % ", ".join(sorted(shadow["mismatches"]))) if shadow["mismatches"] else "",
            )
        )
    if verdict.get("decided_at_start_not_called"):
        print(
            "  decided at start-up, asked for by no call of this run (shadow mode decides"
            " every primitive for its status lines; quiet would not have decided them): %s"
            % ", ".join(verdict["decided_at_start_not_called"])
        )
    if verdict["accelerated_without_calls"]:
        print(
            "  ACCELERATED BUT NEVER CALLED: %s" % ", ".join(verdict["accelerated_without_calls"])
        )
    print("  %s: %s" % (flavour, "same results as native" if verdict["ok"] else "NOT TRANSPARENT"))


def _run_modes(
    python, flavour, modes, skip_slow, select, parallel, work: Path, agent_mode="quiet"
) -> dict:
    """Run the suite in each of ``modes`` (at once with ``parallel``); their results by mode."""
    runs = {}
    pending: list = []
    try:
        if parallel:
            started = time.monotonic()
            pending = [
                (m, _start(python, flavour, m, skip_slow, select, work, agent_mode)) for m in modes
            ]
            for mode, (process, out, log) in pending:
                runs[mode] = finish_child(process, out, log, started)
        else:
            for mode in modes:
                started = time.monotonic()
                pending = [
                    (mode, _start(python, flavour, mode, skip_slow, select, work, agent_mode))
                ]
                runs[mode] = finish_child(*pending[0][1], started)
    finally:  # interrupted (Ctrl-C, a timeout of the caller): leave no suite running
        for _, (process, _out, _log) in pending:
            if process.poll() is None:
                process.kill()
                process.wait()
    return runs


def run(
    python, flavours, skip_slow, select, parallel, work: Path, native="live", agent_mode="quiet"
) -> dict:
    verdicts = {}
    for flavour in flavours:
        runs, source = {}, "run now"
        if native == "recorded":
            runs = _run_modes(
                python, flavour, ["agent"], skip_slow, select, parallel, work, agent_mode
            )
            recorded, source = recorded_native(runs["agent"], skip_slow, select)
            if recorded is None:
                print("%s: native runs now: %s" % (flavour, source))
                sys.stdout.flush()
                runs.update(_run_modes(python, flavour, ["native"], skip_slow, select, False, work))
                source = "run now (%s)" % source
            else:
                runs["native"] = recorded
        else:
            runs = _run_modes(
                python, flavour, list(MODES), skip_slow, select, parallel, work, agent_mode
            )
            if native == "record" and "problem" not in runs["native"]:
                print("%s: native outcomes recorded in %s" % (
                    flavour, write_record(runs["native"], skip_slow, select)))
        verdicts[flavour] = compare(flavour, runs["native"], runs["agent"])
        verdicts[flavour]["native_source"] = source
        print_verdict(verdicts[flavour])
        sys.stdout.flush()
    return {
        "ok": bool(verdicts) and all(v["ok"] for v in verdicts.values()),
        "python": python,
        "skip_slow": skip_slow,
        "select": select,
        "native": native,
        "agent_mode": agent_mode,
        "flavours": verdicts,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--flavour", action="append", choices=FLAVOURS, help="default: all installed"
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter to test with")
    parser.add_argument("--skip-slow", action="store_true", help="skip the suite's slow tests")
    parser.add_argument("--select", help="only tests matching (pytest -k / unittest id substring)")
    parser.add_argument("--parallel", action="store_true", help="run native and agent at once")
    parser.add_argument("--json-out", help="also write the verdict (child: the results) here")
    parser.add_argument("--work-dir", help="where runs write logs and results (default: temp)")
    parser.add_argument(
        "--native",
        choices=NATIVE_CHOICES,
        default="recorded",
        help="recorded: a fitting record of native's outcomes stands in for the native run "
        "(the default); live: run native always; record: run both and record native's",
    )
    parser.add_argument(
        "--agent-mode",
        choices=AGENT_MODES,
        default="quiet",
        help="the agent's run: quiet (the default), or shadow (shadow mode at rate 1: every "
        "accelerated call compared with native; the verdict counts the comparisons)",
    )
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        (flavour,) = args.flavour
        return child_main(flavour, args.child, args.skip_slow, args.select, args.json_out)

    flavours = args.flavour or installed_flavours(args.python)
    if not flavours:
        print("neither pycryptodome nor pycryptodomex is installed for %s" % args.python)
        print(json.dumps({"ok": False, "python": args.python, "flavours": {}}))
        return EXIT_BROKEN
    if args.work_dir:
        work = Path(args.work_dir).resolve()  # the children run elsewhere
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = Path(tempfile.mkdtemp(prefix="accel-selftest-"))
    verdict = run(
        args.python,
        flavours,
        args.skip_slow,
        args.select,
        args.parallel,
        work,
        args.native,
        args.agent_mode,
    )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(verdict, indent=1))
    print(json.dumps(verdict, separators=(",", ":")))
    if any("native" not in v for v in verdict["flavours"].values()):
        return EXIT_BROKEN
    return EXIT_OK if verdict["ok"] else EXIT_DIFFERENT


if __name__ == "__main__":
    sys.exit(main())
