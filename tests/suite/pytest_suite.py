"""Run a project's own pytest suite natively and under the agent, and compare.

    python tests/suite/pytest_suite.py --name NAME --root DIR --package PACKAGE
                                       --require PRIMITIVE[,...] [--distribution DIST]
                                       [--work-dir DIR] [--json-out FILE] -- PYTEST_ARGS...

The one runner for every suite that pytest runs: the applications' (their
tests from their sdists, .ci/app-suites/), python-ecdsa's (inside its
package: ``--pyargs ecdsa`` from an empty ``--root``) and starkbank-ecdsa's
(its repository's ``tests/``). The tests run with pytest twice, at once,
each in a fresh interpreter working in its own copy of ``--root``: with
``ACCEL_AGENT=off`` (native) and ``ACCEL_AGENT=quiet`` (the agent activated
at start-up by its .pth). pytest gets an empty configuration (``-c
/dev/null``, so no ``addopts`` such as ``--cov`` of a setup.cfg applies)
with ``--rootdir`` at the copy; the project's conftest.py files still load
unless PYTEST_ARGS says ``--noconftest``. The same Hypothesis seed is used
in both runs, so property tests draw the same examples.

The verdict: every test has the same outcome under the agent as natively,
the agent patched the crypto library the project uses (``--package``:
``Crypto``, ``Cryptodome``, ``rsa``, ``ecdsa``, ``ellipticcurve`` or
``pyaes``), and each primitive named in ``--require`` served calls under
the agent: the project's crypto really went through OpenSSL, not through a
cryptography fallback of its own. Every non-zero call count is printed, and
the version of ``--distribution`` when given. The last line of output is
one JSON object (the same as ``--json-out``); the exit status is 0 on a
clean verdict, 1 on a difference, 2 when a run could not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run_selftest, beside this file

from run_selftest import (  # noqa: E402 - the pycryptodome runner's pieces, shared
    EXIT_BROKEN,
    EXIT_OK,
    FAILED_OUTCOMES,
    PytestRecorder,
    child_env,
    child_results,
    emit_verdict,
    outcome_counts,
)

MODES = {"native": "off", "agent": "quiet"}
CHILD_TIMEOUT = 1800  # python-ecdsa's whole suite takes minutes per run
HYPOTHESIS_SEED = 20260901


# ============================================================== in the child interpreter


def child_main(
    mode: str, package: str, distribution: str | None, pytest_args: list[str], out: str
) -> int:
    import pytest

    from accel_agent import activation

    if activation.is_active() != (mode == "agent"):
        problem = (
            "the agent did not activate at start-up (is accel-agent installed here, with its .pth?)"
            if mode == "agent"
            else "the agent is active although ACCEL_AGENT=off"
        )
        Path(out).write_text(json.dumps({"problem": problem}))
        return EXIT_BROKEN
    recorder = PytestRecorder()
    args = ["-c", os.devnull, "--rootdir", os.getcwd(), "-p", "no:cacheprovider"]
    args += ["-q", "--no-header", "-rs", "-p", "no:randomly"]
    try:
        import hypothesis  # noqa: F401 - only to know whether its plugin takes --hypothesis-seed

        args.append("--hypothesis-seed=%d" % HYPOTHESIS_SEED)
    except ImportError:
        pass
    started = time.monotonic()
    exit_code = pytest.main(args + pytest_args, plugins=[recorder])
    usage = resource.getrusage(resource.RUSAGE_SELF)

    from importlib import metadata

    from accel_agent import patching, registry

    results = {
        "mode": mode,
        "version": metadata.version(distribution) if distribution else None,
        "exit_code": int(exit_code),
        "outcomes": recorder.outcomes,
        "details": recorder.details,
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "python": sys.version.split()[0],
        "calls": {name: count for name, count in registry.calls().items() if count},
        "patched": sorted(
            "%s.%s" % (module, name)
            for module, names in patching.patched_names().items()
            if module.split(".")[0] == package
            for name in names
        ),
    }
    Path(out).write_text(json.dumps(results))
    return EXIT_OK


# ============================================================== in the parent


def _start_child(python: str, mode: str, args, work: Path):
    out, log = work / ("%s.json" % mode), work / ("%s.log" % mode)
    for stale in (out, log):
        stale.unlink(missing_ok=True)
    # Each run in its own copy of the sources: tests that write next to
    # themselves (keyring files, generated keys) cannot see the other's.
    cwd = work / mode
    shutil.rmtree(cwd, ignore_errors=True)
    shutil.copytree(args.root, cwd, symlinks=True)
    command = [python, str(Path(__file__).resolve()), "--child", mode, "--json-out", str(out)]
    command += ["--package", args.package]
    if args.distribution:
        command += ["--distribution", args.distribution]
    command += ["--"] + args.pytest_args
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=child_env(MODES[mode]),
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
    return child_results(mode, code, out, log)


def run_both(python: str, args, work: Path) -> dict[str, dict]:
    """Both runs at once (each is one CPU-bound process; CI has two cores)."""
    started = time.monotonic()
    children = {mode: _start_child(python, mode, args, work) for mode in MODES}
    try:
        return {mode: _finish_child(mode, *child, started) for mode, child in children.items()}
    finally:  # interrupted: leave no suite running
        for process, _out, _log in children.values():
            if process.poll() is None:
                process.kill()
                process.wait()


def _mode_counts(outcomes: dict, run: dict) -> dict:
    return {**outcome_counts(outcomes), "seconds": run["seconds"], "cpu": run["cpu_seconds"]}


def compare(name: str, required: list[str], native: dict, agent: dict) -> dict:
    """The verdict from the two runs."""
    problems = [r["problem"] for r in (native, agent) if "problem" in r]
    if problems:
        return {"name": name, "ok": False, "problems": problems}
    n_out, a_out = native["outcomes"], agent["outcomes"]
    differing = {
        test: {"native": n_out.get(test, "absent"), "agent": a_out.get(test, "absent")}
        for test in sorted(set(n_out) | set(a_out))
        if n_out.get(test) != a_out.get(test)
    }
    idle = [primitive for primitive in required if not agent["calls"].get(primitive)]
    problems = []
    if not agent["patched"]:
        problems.append("the agent patched nothing in the application's crypto library")
    if not n_out:
        problems.append("the suite ran no tests")
    if native["calls"]:
        problems.append("calls were counted natively: %s" % native["calls"])
    verdict = {
        "name": name,
        "version": agent.get("version"),
        "python": agent["python"],
        "native": _mode_counts(n_out, native),
        "agent": _mode_counts(a_out, agent),
        "same_results": not differing,
        "differences": differing,
        "agent_only_failures": {
            test: agent["details"].get(test, "")[-800:]
            for test, d in differing.items()
            if d["agent"] in FAILED_OUTCOMES
        },
        "native_failures": sorted(t for t, o in n_out.items() if o in FAILED_OUTCOMES),
        "calls": dict(sorted(agent["calls"].items())),
        "required": required,
        "required_without_calls": idle,
        "patched": agent["patched"],
        "problems": problems,
        "logs": {"native": native["log"], "agent": agent["log"]},
    }
    verdict["ok"] = not differing and not idle and not problems
    return verdict


def print_verdict(verdict: dict) -> None:
    name = verdict["name"]
    if "native" not in verdict:
        print("%s: could not run: %s" % (name, "; ".join(verdict["problems"])))
        return
    label = "%s %s" % (name, verdict["version"]) if verdict.get("version") else name
    for mode in ("native", "agent"):
        c = verdict[mode]
        print(
            "%s %s: %d run, %d passed, %d failures, %d errors, %d skipped in %.0f s (%.0f s CPU)"
            % (label, mode, c["run"], c["passed"], c["failures"], c["errors"], c["skipped"],
               c["seconds"], c["cpu"])
        )  # fmt: skip
    for test in verdict["native_failures"]:
        print("  fails natively too (not the agent's doing): %s" % test)
    for test, outcomes in verdict["differences"].items():
        print("  DIFFERENT %s: native %s, agent %s" % (test, outcomes["native"], outcomes["agent"]))
        detail = verdict["agent_only_failures"].get(test)
        if detail:
            print("    " + detail.strip().splitlines()[-1][:300])
    print(
        "  patched: %d names, e.g. %s"
        % (len(verdict["patched"]), ", ".join(verdict["patched"][:4]))
    )
    print(
        "  accelerated calls under the agent: %s"
        % (", ".join("%s=%d" % item for item in verdict["calls"].items()) or "none")
    )
    for problem in verdict["problems"]:
        print("  PROBLEM: %s" % problem)
    if verdict["required_without_calls"]:
        print("  NO CALL WENT THROUGH THE AGENT: %s" % ", ".join(verdict["required_without_calls"]))
    print("  %s: %s" % (name, "same results as native" if verdict["ok"] else "NOT TRANSPARENT"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter to test with")
    parser.add_argument("--name", default="suite", help="the project, for the output")
    parser.add_argument("--root", type=Path, help="the unpacked sdist (copied once per run)")
    parser.add_argument("--package", required=True, help="the crypto package the agent patches")
    parser.add_argument(
        "--require", default="", help="primitives that must serve calls, comma-separated"
    )
    parser.add_argument("--distribution", help="the installed distribution whose version to report")
    parser.add_argument("--work-dir", help="where copies, logs and results go (default: temporary)")
    parser.add_argument("--json-out", help="write the verdict here too")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest runs, deselections")
    args = parser.parse_args(argv)
    if args.child:
        return child_main(
            args.child, args.package, args.distribution, args.pytest_args, args.json_out
        )
    if args.root is None:
        parser.error("--root is required")
    args.root = args.root.resolve()
    work = Path(args.work_dir or tempfile.mkdtemp(prefix="%s-suite-" % args.name)).resolve()
    work.mkdir(parents=True, exist_ok=True)
    required = [p for p in args.require.split(",") if p]
    runs = run_both(args.python, args, work)
    verdict = compare(args.name, required, runs["native"], runs["agent"])
    print_verdict(verdict)
    return emit_verdict(verdict, args.json_out, made="native" in verdict)


if __name__ == "__main__":
    sys.exit(main())
