"""Run pyDes's own tests natively and under the agent, and compare.

    python tests/libraries/pydes/run_suite.py --tests FILE [--work-dir DIR] [--json-out FILE]

pyDes's tests are ``test_pydes.py`` of its repository (FILE; neither its
sdist nor PyPI has it; ``.ci/library-suites/pydes.sh`` fetches it): four
functions that print what they find, ``_example_des_``,
``_example_triple_des_``, ``_fulltest_`` (17 numbered checks, each printing
``Successful`` or ``Error``) and ``_filetest_`` (which encrypts and decrypts
``pyDes.py`` itself with DES and writes ``pyDes.py.enc``/``.dec``). Each run
gets its own directory with the test file and a copy of the installed
``pyDes.py``, and calls the four functions in a fresh interpreter: with
``ACCEL_AGENT=off`` (native) and ``ACCEL_AGENT=quiet`` (the agent activated
at start-up by its .pth).

The verdict: every function printed the same text (its timings masked) and
raised the same exception or none, the two written files are the same, every
``_fulltest_`` check printed ``Successful``, ``pyDes`` was patched, and both
Triple DES primitives served calls under the agent. The last line of output
is one JSON object (the same as ``--json-out``); the exit status is 0 on a
clean verdict, 1 on a difference, 2 when a run could not be made.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "suite"))  # tests/suite

from run_selftest import (  # noqa: E402 - the pycryptodome runner's pieces, shared
    EXIT_BROKEN,
    EXIT_OK,
    MODES,
    child_env,
    child_results,
    emit_verdict,
)

CHILD_TIMEOUT = 1800
FUNCTIONS = ("_example_des_", "_example_triple_des_", "_fulltest_", "_filetest_")
WRITTEN = ("pyDes.py.enc", "pyDes.py.dec")
REQUIRED_PRIMITIVES = ("tdes-ecb", "tdes-cbc")
FULLTEST_CHECKS = 17
# "DES time taken: 0.012345", "Total time taken: ...", "DES file test time: ..."
_TIMING = re.compile(r"(time(?: taken)?: )[-+0-9.e]+")


def masked(text: str) -> str:
    """A function's output with its timings replaced (they differ from run to run)."""
    return _TIMING.sub(r"\1<seconds>", text)


def child_main(mode: str, out: str) -> int:
    from accel_agent import activation

    if activation.is_active() != (mode == "agent"):
        problem = "the agent's activation does not match ACCEL_AGENT=%s" % MODES[mode]
        Path(out).write_text(json.dumps({"problem": problem}))
        return EXIT_BROKEN
    sys.path.insert(0, os.getcwd())
    import test_pydes

    from accel_agent import patching, registry

    started = time.monotonic()
    functions = {}
    for name in FUNCTIONS:
        buffer = io.StringIO()
        raised = None
        with contextlib.redirect_stdout(buffer):
            try:
                getattr(test_pydes, name)()
            except Exception as exc:  # noqa: BLE001 - recorded and compared
                raised = [type(exc).__name__, str(exc)]
        functions[name] = {"output": masked(buffer.getvalue()), "raised": raised}
    written = {}
    for name in WRITTEN:
        path = Path(name)
        written[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
    from importlib import metadata

    results = {
        "mode": mode,
        "functions": functions,
        "written": written,
        "seconds": round(time.monotonic() - started, 1),
        "version": metadata.version("pyDes"),
        "calls": registry.calls(),
        "patched": sorted(
            "%s.%s" % (module, name)
            for module, names in patching.patched_names().items()
            if module == "pyDes"
            for name in names
        ),
    }
    Path(out).write_text(json.dumps(results))
    return EXIT_OK


def _installed_pydes(python: str) -> Path:
    found = subprocess.run(
        [python, "-c", "import importlib.util as u; print(u.find_spec('pyDes').origin)"],
        env=child_env("off"), capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(found.stdout.strip())


def _run(python: str, mode: str, tests: Path, library: Path, work: Path) -> dict:
    run_dir = work / mode
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    shutil.copy(tests, run_dir / "test_pydes.py")
    shutil.copy(library, run_dir / "pyDes.py")  # what _filetest_ reads (the same code)
    out, log = work / ("%s.json" % mode), work / ("%s.log" % mode)
    out.unlink(missing_ok=True)
    command = [python, str(Path(__file__).resolve()), "--child", mode, "--json-out", str(out)]
    command += ["--tests", str(run_dir / "test_pydes.py")]
    with open(log, "wb") as log_file:
        try:
            code = subprocess.run(
                command, cwd=run_dir, env=child_env(MODES[mode]), stdin=subprocess.DEVNULL,
                stdout=log_file, stderr=subprocess.STDOUT, timeout=CHILD_TIMEOUT,
            ).returncode  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"problem": "%s run timed out; log: %s" % (mode, log)}
    return child_results(mode, code, out, log)


def compare(native: dict, agent: dict) -> dict:
    """The verdict from the two runs."""
    problems = [r["problem"] for r in (native, agent) if "problem" in r]
    if problems:
        return {"ok": False, "problems": problems}
    differing = sorted(
        name for name in FUNCTIONS if native["functions"].get(name) != agent["functions"].get(name)
    )
    if native["written"] != agent["written"]:
        differing.append("files written by _filetest_")
    fulltest = agent["functions"].get("_fulltest_", {}).get("output", "")
    successful = len(re.findall(r"^Test \d+: +Successful$", fulltest, re.M))
    calls = {name: agent["calls"].get(name, 0) for name in REQUIRED_PRIMITIVES}
    idle = [name for name, count in calls.items() if not count]
    problems = []
    if not agent["patched"]:
        problems.append("the agent patched nothing in pyDes")
    if successful != FULLTEST_CHECKS or "Error" in fulltest:
        problems.append(
            "_fulltest_ printed %d of %d Successful lines" % (successful, FULLTEST_CHECKS)
        )
    raised = {
        name: result["raised"] for name, result in agent["functions"].items() if result["raised"]
    }
    if raised:
        problems.append("functions raised: %s" % raised)
    verdict = {
        "version": agent["version"],
        "seconds": {"native": native["seconds"], "agent": agent["seconds"]},
        "same_results": not differing,
        "differences": differing,
        "fulltest_successful": successful,
        "calls": calls,
        "accelerated_without_calls": idle,
        "patched": agent["patched"],
        "problems": problems,
    }
    verdict["ok"] = not differing and not idle and not problems
    return verdict


def _print_verdict(verdict: dict) -> None:
    if "version" not in verdict:
        print("pyDes: could not run: %s" % "; ".join(verdict["problems"]))
        return
    seconds = verdict["seconds"]
    print(
        "pyDes %s: %s run natively in %.1f s, under the agent in %.1f s; "
        "_fulltest_: %d/%d Successful"
        % (verdict["version"], ", ".join(FUNCTIONS), seconds["native"], seconds["agent"],
           verdict["fulltest_successful"], FULLTEST_CHECKS)
    )  # fmt: skip
    for name in verdict["differences"]:
        print("  DIFFERENT: %s" % name)
    print("  patched: %s" % ", ".join(verdict["patched"]))
    print("  accelerated calls under the agent: %s"
          % ", ".join("%s=%d" % item for item in verdict["calls"].items()))  # fmt: skip
    for problem in verdict["problems"]:
        print("  PROBLEM: %s" % problem)
    if verdict["accelerated_without_calls"]:
        print(
            "  NO CALL WENT THROUGH THE AGENT: %s" % ", ".join(verdict["accelerated_without_calls"])
        )
    print("  pyDes: %s" % ("same results as native" if verdict["ok"] else "NOT TRANSPARENT"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter to test with")
    parser.add_argument("--tests", required=True, help="pyDes's test_pydes.py")
    parser.add_argument("--work-dir", help="where logs and results go (default: a temporary one)")
    parser.add_argument("--json-out", help="write the verdict here too")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.child, args.json_out)
    work = Path(args.work_dir or tempfile.mkdtemp(prefix="pydes-suite-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    tests = Path(args.tests).resolve()
    library = _installed_pydes(args.python)
    # One after the other: native pyDes is CPU-bound for seconds.
    runs = {mode: _run(args.python, mode, tests, library, work) for mode in MODES}
    verdict = compare(runs["native"], runs["agent"])
    _print_verdict(verdict)
    return emit_verdict(verdict, args.json_out, made="version" in verdict)


if __name__ == "__main__":
    sys.exit(main())
