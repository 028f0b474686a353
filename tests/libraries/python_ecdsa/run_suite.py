"""Run python-ecdsa's own test suite natively and under the agent, and compare.

    python tests/libraries/python_ecdsa/run_suite.py [--select EXPR] [--seed N]
                                                     [--work-dir DIR] [--json-out FILE]

python-ecdsa ships its tests inside the package (``ecdsa/test_*.py``); they
are run with pytest (``--pyargs ecdsa``) twice, each time in a fresh
interpreter started from an empty directory: with ``ACCEL_AGENT=off``
(native) and with ``ACCEL_AGENT=quiet`` (the agent activated at start-up by
its .pth). Both runs use the same Hypothesis seed, so the property tests
draw the same examples in both, and nothing of the suite is deselected:
the suite's own Hypothesis settings (``max_examples`` of 10 for its slow
properties, its ``--fast`` switch off) apply as in its CI.

The verdict: every test has the same outcome under the agent as natively,
python-ecdsa's key classes were patched, and every ECDSA primitive the
suite's curves use served a non-zero number of calls under the agent. The
last line of output is one JSON object (the same as ``--json-out``); the
exit status is 0 on a clean verdict, 1 on a difference, 2 when a run could
not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "suite"))  # tests/suite

from run_selftest import (  # noqa: E402 - the pycryptodome runner's pieces, shared
    EXIT_BROKEN,
    EXIT_DIFFERENT,
    EXIT_OK,
    FAILED_OUTCOMES,
    _child_env,
    _counts,
    _PytestRecorder,
)

MODES = {"native": "off", "agent": "quiet"}
CHILD_TIMEOUT = 1800
DEFAULT_SEED = 20260901
# What the suite must drive through OpenSSL under the agent: its tests sign,
# verify and generate keys on each of these curves.
REQUIRED_PRIMITIVES = (
    "ecdsa-p192",
    "ecdsa-p224",
    "ecdsa-p256",
    "ecdsa-p384",
    "ecdsa-p521",
    "ecdsa-secp256k1",
    "ecc-keygen",
)


# ============================================================== in the child interpreter


def child_main(mode: str, select: str | None, seed: int, out: str) -> int:
    import pytest

    from accel_agent import activation

    active = activation.is_active()
    if active != (mode == "agent"):
        problem = (
            "the agent did not activate at start-up (is accel-agent installed here, with its .pth?)"
            if mode == "agent"
            else "the agent is active although ACCEL_AGENT=off"
        )
        Path(out).write_text(json.dumps({"problem": problem}))
        return EXIT_BROKEN
    recorder = _PytestRecorder()
    # An empty configuration from an empty directory: no conftest or settings
    # of this repository get involved, and no cache file is written.
    args = ["-c", os.devnull, "-p", "no:cacheprovider", "-q", "--no-header", "-rs"]
    args += ["-p", "no:randomly", "--hypothesis-seed=%d" % seed, "--pyargs", "ecdsa"]
    if select:
        args += ["-k", select]
    started = time.monotonic()
    exit_code = pytest.main(args, plugins=[recorder])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    import ecdsa

    import accel_agent
    from accel_agent import patching, registry

    summary = accel_agent.status(resolve=False)
    results = {
        "mode": mode,
        "exit_code": int(exit_code),
        "outcomes": recorder.outcomes,
        "details": recorder.details,
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "version": str(ecdsa.__version__),
        "python": sys.version.split()[0],
        "calls": registry.calls(),
        "accelerated": sorted(
            name for name, entry in summary["primitives"].items() if entry["accelerated"]
        ),
        "patched": sorted(
            "%s.%s" % (module, name)
            for module, names in patching.patched_names().items()
            if module.split(".")[0] == "ecdsa"
            for name in names
        ),
    }
    Path(out).write_text(json.dumps(results))
    return EXIT_OK


# ============================================================== in the parent


def _start_child(python: str, mode: str, select: str | None, seed: int, work: Path):
    out = work / ("python-ecdsa-%s.json" % mode)
    log = work / ("python-ecdsa-%s.log" % mode)
    for stale in (out, log):
        stale.unlink(missing_ok=True)
    command = [python, str(Path(__file__).resolve()), "--child", mode, "--json-out", str(out)]
    command += ["--seed", str(seed)] + (["--select", select] if select else [])
    # Each run in its own empty directory: the suite's OpenSSL interoperability
    # tests write their files (t/...) relative to it.
    cwd = work / mode
    cwd.mkdir(exist_ok=True)
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=_child_env(MODES[mode]),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    return process, out, log


def _finish_child(mode: str, process, out: Path, log: Path, started: float) -> dict:
    try:
        code = process.wait(timeout=max(1.0, CHILD_TIMEOUT - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return {"problem": "%s run timed out after %d s; log: %s" % (mode, CHILD_TIMEOUT, log)}
    if not out.exists():
        tail = log.read_text(errors="replace")[-3000:]
        return {
            "problem": "%s run exited %d without results; %s ends:\n%s" % (mode, code, log, tail)
        }
    results = json.loads(out.read_text())
    results["wall_seconds"] = round(time.monotonic() - started, 1)
    results["log"] = str(log)
    return results


def run_both(python: str, select: str | None, seed: int, work: Path) -> dict[str, dict]:
    """Both runs at once (each is one CPU-bound process; CI has two cores)."""
    started = time.monotonic()
    children = {mode: _start_child(python, mode, select, seed, work) for mode in MODES}
    try:
        return {mode: _finish_child(mode, *child, started) for mode, child in children.items()}
    finally:  # interrupted: leave no suite running
        for process, _out, _log in children.values():
            if process.poll() is None:
                process.kill()
                process.wait()


def compare(native: dict, agent: dict) -> dict:
    """The verdict from the two runs."""
    problems = [r["problem"] for r in (native, agent) if "problem" in r]
    if problems:
        return {"ok": False, "problems": problems}
    n_out, a_out = native["outcomes"], agent["outcomes"]
    differing = {
        test: {"native": n_out.get(test, "absent"), "agent": a_out.get(test, "absent")}
        for test in sorted(set(n_out) | set(a_out))
        if n_out.get(test) != a_out.get(test)
    }
    calls = {name: agent["calls"].get(name, 0) for name in REQUIRED_PRIMITIVES}
    idle = [name for name, count in calls.items() if not count]
    problems = []
    if not agent["patched"]:
        problems.append("the agent patched nothing in ecdsa")
    if not n_out:
        problems.append("the suite ran no tests")
    verdict = {
        "version": agent["version"],
        "python": agent["python"],
        "native": {**_counts(n_out), "seconds": native["seconds"], "cpu": native["cpu_seconds"]},
        "agent": {**_counts(a_out), "seconds": agent["seconds"], "cpu": agent["cpu_seconds"]},
        "same_results": not differing,
        "differences": differing,
        "agent_only_failures": {
            test: agent["details"].get(test, "")[-800:]
            for test, d in differing.items()
            if d["agent"] in FAILED_OUTCOMES
        },
        "native_failures": sorted(t for t, o in n_out.items() if o in FAILED_OUTCOMES),
        "calls": calls,
        "all_calls": agent["calls"],
        "accelerated_without_calls": idle,
        "patched": agent["patched"],
        "problems": problems,
        "logs": {"native": native["log"], "agent": agent["log"]},
    }
    verdict["ok"] = not differing and not idle and not problems
    return verdict


def _print_verdict(verdict: dict) -> None:
    if "native" not in verdict:
        print("python-ecdsa: could not run: %s" % "; ".join(verdict["problems"]))
        return
    for mode in ("native", "agent"):
        c = verdict[mode]
        print(
            "python-ecdsa %s %s: %d run, %d passed, %d failures, %d errors, %d skipped"
            " in %.0f s (%.0f s CPU)"
            % (
                verdict["version"],
                mode,
                c["run"],
                c["passed"],
                c["failures"],
                c["errors"],
                c["skipped"],
                c["seconds"],
                c["cpu"],
            )
        )
    for test in verdict["native_failures"]:
        print("  fails natively too (not the agent's doing): %s" % test)
    for test, outcomes in verdict["differences"].items():
        print("  DIFFERENT %s: native %s, agent %s" % (test, outcomes["native"], outcomes["agent"]))
        detail = verdict["agent_only_failures"].get(test)
        if detail:
            print("    " + detail.strip().splitlines()[-1][:300])
    for test, outcomes in verdict.get("flaky", {}).items():
        print(
            "  flaky, not the agent's: %s: native %s, agent %s, then %s in both on a rerun"
            % (test, outcomes["native"], outcomes["agent"], outcomes["rerun"])
        )
    print("  patched: %s" % ", ".join(verdict["patched"]))
    print(
        "  accelerated calls under the agent: %s"
        % ", ".join("%s=%d" % item for item in verdict["calls"].items())
    )
    for problem in verdict["problems"]:
        print("  PROBLEM: %s" % problem)
    if verdict["accelerated_without_calls"]:
        print(
            "  NO CALL WENT THROUGH THE AGENT: %s" % ", ".join(verdict["accelerated_without_calls"])
        )
    print("  python-ecdsa: %s" % ("same results as native" if verdict["ok"] else "NOT TRANSPARENT"))


def _confirm(verdict: dict, python: str, seed: int, work: Path) -> None:
    """Run the differing tests again, both ways: a difference that does not repeat is timing.

    A few of the suite's tests race threads against signals or each other
    (``test_jacobi.py::TestJacobi::test_multithreading_with_interrupts``
    sends SIGINT while worker threads multiply): on a loaded machine they
    fail now and then, natively as well. A test that differed once and then
    has the same outcome in both modes is listed as ``flaky`` and does not
    fail the verdict; one that differs again does.
    """
    names = sorted({test.split("::")[-1].split("[")[0] for test in verdict["differences"]})
    rerun_dir = work / "rerun"
    rerun_dir.mkdir(exist_ok=True)
    again = run_both(python, " or ".join(names), seed, rerun_dir)
    if any("problem" in run for run in again.values()):
        return
    native, agent = again["native"]["outcomes"], again["agent"]["outcomes"]
    flaky = {
        test: {**first, "rerun": native.get(test, "absent")}
        for test, first in verdict["differences"].items()
        if native.get(test) == agent.get(test) and native.get(test) is not None
    }
    if not flaky:
        return
    verdict["flaky"] = flaky
    verdict["differences"] = {t: d for t, d in verdict["differences"].items() if t not in flaky}
    verdict["agent_only_failures"] = {
        t: d for t, d in verdict["agent_only_failures"].items() if t not in flaky
    }
    verdict["same_results"] = not verdict["differences"]
    verdict["ok"] = (
        verdict["same_results"]
        and not verdict["accelerated_without_calls"]
        and not verdict["problems"]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter to test with")
    parser.add_argument("--select", help="only tests matching (pytest -k)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="Hypothesis seed")
    parser.add_argument("--work-dir", help="where logs and results go (default: a temporary one)")
    parser.add_argument("--json-out", help="write the verdict here too")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.child, args.select, args.seed, args.json_out)
    work = Path(args.work_dir or tempfile.mkdtemp(prefix="python-ecdsa-suite-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    runs = run_both(args.python, args.select, args.seed, work)
    verdict = compare(runs["native"], runs["agent"])
    verdict["seed"] = args.seed
    if verdict.get("differences") and not verdict.get("problems"):
        _confirm(verdict, args.python, args.seed, work)
    _print_verdict(verdict)
    line = json.dumps(verdict, sort_keys=True)
    if args.json_out:
        Path(args.json_out).write_text(line)
    print(line)
    if "native" not in verdict:
        return EXIT_BROKEN
    return EXIT_OK if verdict["ok"] else EXIT_DIFFERENT


if __name__ == "__main__":
    sys.exit(main())
