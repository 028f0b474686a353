"""Run starkbank-ecdsa's own test suite natively and under the agent, and compare.

    python tests/libraries/starkbank_ecdsa/run_suite.py --tests DIR [--work-dir DIR]
                                                        [--json-out FILE]

starkbank-ecdsa's tests are not in its wheel or sdist: they are the
``tests/`` folder of its repository at the release's tag (DIR; its
``.ci/library-suites/starkbank-ecdsa.sh`` fetches it). The folder is copied
into each run's own empty directory, so the installed ``ellipticcurve`` is
the one tested, and run with pytest (its unittest cases, as its CI's
``unittest discover`` finds them) twice, each in a fresh interpreter: with
``ACCEL_AGENT=off`` (native) and ``ACCEL_AGENT=quiet`` (the agent activated
at start-up by its .pth).

The verdict: every test has the same outcome under the agent as natively,
``Ecdsa`` was patched, and both ECDSA primitives of its curves served a
non-zero number of calls under the agent. The last line of output is one
JSON object (the same as ``--json-out``); the exit status is 0 on a clean
verdict, 1 on a difference, 2 when a run could not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
# Its tests sign and verify on both of its curves.
REQUIRED_PRIMITIVES = ("ecdsa-p256", "ecdsa-secp256k1")


def child_main(mode: str, tests: str, out: str) -> int:
    import pytest

    from accel_agent import activation

    if activation.is_active() != (mode == "agent"):
        problem = "the agent's activation does not match ACCEL_AGENT=%s" % MODES[mode]
        Path(out).write_text(json.dumps({"problem": problem}))
        return EXIT_BROKEN
    recorder = _PytestRecorder()
    args = ["-c", os.devnull, "-p", "no:cacheprovider", "-q", "--no-header", "-rs"]
    args += [
        "-o",
        "python_files=test*.py",
        "-p",
        "no:randomly",
        "--rootdir",
        str(Path(tests).parent),
        tests,
    ]
    started = time.monotonic()
    exit_code = pytest.main(args, plugins=[recorder])
    from importlib import metadata

    from accel_agent import patching, registry

    results = {
        "mode": mode,
        "exit_code": int(exit_code),
        "outcomes": recorder.outcomes,
        "details": recorder.details,
        "seconds": round(time.monotonic() - started, 1),
        "version": metadata.version("starkbank-ecdsa"),
        "calls": registry.calls(),
        "patched": sorted(
            "%s.%s" % (module, name)
            for module, names in patching.patched_names().items()
            if module.split(".")[0] == "ellipticcurve"
            for name in names
        ),
    }
    Path(out).write_text(json.dumps(results))
    return EXIT_OK


def _run(python: str, mode: str, tests: Path, work: Path) -> tuple:
    run_dir = work / mode
    shutil.rmtree(run_dir, ignore_errors=True)
    shutil.copytree(tests, run_dir / "tests")
    out, log = work / ("%s.json" % mode), work / ("%s.log" % mode)
    out.unlink(missing_ok=True)
    command = [python, str(Path(__file__).resolve()), "--child", mode, "--json-out", str(out)]
    command += ["--tests", str(run_dir / "tests")]
    log_file = open(log, "wb")  # noqa: SIM115 - closed in _finish
    process = subprocess.Popen(
        command, cwd=run_dir, env=_child_env(MODES[mode]), stdin=subprocess.DEVNULL,
        stdout=log_file, stderr=subprocess.STDOUT,
    )  # fmt: skip
    return process, out, log, log_file


def _finish(mode: str, process, out: Path, log: Path, log_file) -> dict:
    try:
        code = process.wait(timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return {"problem": "%s run timed out; log: %s" % (mode, log)}
    finally:
        log_file.close()
    if not out.exists():
        tail = log.read_text(errors="replace")[-3000:]
        return {
            "problem": "%s run exited %d without results; %s ends:\n%s" % (mode, code, log, tail)
        }
    results = json.loads(out.read_text())
    results["log"] = str(log)
    return results


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
        problems.append("the agent patched nothing in ellipticcurve")
    if not n_out:
        problems.append("the suite ran no tests")
    verdict = {
        "version": agent["version"],
        "native": {**_counts(n_out), "seconds": native["seconds"]},
        "agent": {**_counts(a_out), "seconds": agent["seconds"]},
        "same_results": not differing,
        "differences": differing,
        "agent_only_failures": {
            test: agent["details"].get(test, "")[-800:]
            for test, d in differing.items()
            if d["agent"] in FAILED_OUTCOMES
        },
        "native_failures": sorted(t for t, o in n_out.items() if o in FAILED_OUTCOMES),
        "calls": calls,
        "accelerated_without_calls": idle,
        "patched": agent["patched"],
        "problems": problems,
    }
    verdict["ok"] = not differing and not idle and not problems
    return verdict


def _print_verdict(verdict: dict) -> None:
    if "native" not in verdict:
        print("starkbank-ecdsa: could not run: %s" % "; ".join(verdict["problems"]))
        return
    for mode in ("native", "agent"):
        c = verdict[mode]
        print(
            "starkbank-ecdsa %s %s: %d run, %d passed, %d failures, %d errors, %d skipped in %.0f s"
            % (verdict["version"], mode, c["run"], c["passed"], c["failures"], c["errors"],
               c["skipped"], c["seconds"])
        )  # fmt: skip
    for test in verdict["native_failures"]:
        print("  fails natively too (not the agent's doing): %s" % test)
    for test, outcomes in verdict["differences"].items():
        print("  DIFFERENT %s: native %s, agent %s" % (test, outcomes["native"], outcomes["agent"]))
    print("  patched: %s" % ", ".join(verdict["patched"]))
    print("  accelerated calls under the agent: %s"
          % ", ".join("%s=%d" % item for item in verdict["calls"].items()))  # fmt: skip
    for problem in verdict["problems"]:
        print("  PROBLEM: %s" % problem)
    if verdict["accelerated_without_calls"]:
        idle = ", ".join(verdict["accelerated_without_calls"])
        print("  NO CALL WENT THROUGH THE AGENT: %s" % idle)
    print(
        "  starkbank-ecdsa: %s" % ("same results as native" if verdict["ok"] else "NOT TRANSPARENT")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter to test with")
    parser.add_argument("--tests", required=True, help="the suite's tests/ folder")
    parser.add_argument("--work-dir", help="where logs and results go (default: a temporary one)")
    parser.add_argument("--json-out", help="write the verdict here too")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.child, args.tests, args.json_out)
    work = Path(args.work_dir or tempfile.mkdtemp(prefix="starkbank-ecdsa-suite-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    tests = Path(args.tests).resolve()
    children = {mode: _run(args.python, mode, tests, work) for mode in MODES}
    runs = {mode: _finish(mode, *child) for mode, child in children.items()}
    verdict = compare(runs["native"], runs["agent"])
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
