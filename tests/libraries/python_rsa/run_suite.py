"""Run python-rsa's own tests natively and under the agent, and compare test by test.

    python tests/libraries/python_rsa/run_suite.py --tests DIR [--compat FILE] [--python PY]
                                                   [--work-dir DIR] [--json-out FILE]

``DIR`` is the ``tests/`` directory of a python-rsa sdist. The newest sdist
on PyPI that ships its tests is 4.7.2 (4.8 and later, built with Poetry,
ship none: .ci/library-suites/python-rsa.sh downloads 4.7.2's and runs it
against the pinned python-rsa). The doctests of the installed python-rsa's
own modules (``rsa.pkcs1``, ``rsa.key``, ...) run as well: they come with
the pinned release itself.

4.7.2's tests import two helpers, ``byte`` and ``xor_bytes``, from
``rsa._compat``, a module python-rsa dropped in 4.8. ``--compat FILE`` names
that sdist's own ``rsa/_compat.py``; when the installed python-rsa has no
``rsa._compat``, it is loaded under that name before the tests are
imported (test helpers only: nothing python-rsa itself calls).

Each run is a fresh interpreter, ``ACCEL_AGENT=off`` and then
``ACCEL_AGENT=quiet``; the comparison, the verdict and its printing are
pycryptodome's suite runner's (tests/suite/run_selftest.py), reused: the
same outcomes test by test, and a non-zero call count for every primitive
reported accelerated. The last line of output is the verdict as JSON; the
exit status is 0 on a clean verdict, 1 on a difference, 2 when a run failed.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "suite"))
import run_selftest  # noqa: E402 - the shared recorder and verdict

NAME = "python-rsa"
EXIT_OK, EXIT_DIFFERENT, EXIT_BROKEN = 0, 1, 2
CHILD_TIMEOUT = 1800

# Test modules of the sdist left out, each with its reason.
EXCLUDED_MODULES = {
    "test_mypy": "type-checks the sdist's own sources with mypy; no call into python-rsa",
}
# python-rsa's modules whose docstrings hold doctests (those of the installed release).
DOCTEST_MODULES = (
    "rsa.common",
    "rsa.core",
    "rsa.key",
    "rsa.pem",
    "rsa.pkcs1",
    "rsa.pkcs1_v2",
    "rsa.prime",
    "rsa.randnum",
    "rsa.transform",
)


# ============================================================== in the child interpreter


def _suite(tests_dir: Path) -> unittest.TestSuite:
    loader = unittest.TestLoader()
    # top_level_dir is the sdist copy's root: the tests import as "tests.test_x",
    # and "rsa" resolves to the installed release (the copy holds tests/ only).
    discovered = loader.discover(str(tests_dir), top_level_dir=str(tests_dir.parent))
    suite = unittest.TestSuite()
    for test in run_selftest.flatten(discovered):
        # test.id() names the module, also for a module that failed to import
        # ("unittest.loader._FailedTest.tests.test_mypy").
        if not set(test.id().split(".")) & EXCLUDED_MODULES.keys():
            suite.addTest(test)
    for name in DOCTEST_MODULES:
        try:
            module = importlib.import_module(name)
            suite.addTests(doctest.DocTestSuite(module))
        except (ImportError, ValueError):  # absent in this release, or no doctests
            continue
    return suite


def _flatten_ids(tests_dir: Path) -> list:
    """Every test :func:`_suite` would run, flattened (for the wiring tests)."""
    return list(run_selftest.flatten(_suite(tests_dir)))


def _provide_compat(compat: Path | None) -> None:
    """Register the sdist's ``rsa/_compat.py`` as ``rsa._compat`` if python-rsa lacks it."""
    import importlib.util

    if compat is None or importlib.util.find_spec("rsa._compat") is not None:
        return
    spec = importlib.util.spec_from_file_location("rsa._compat", compat)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["rsa._compat"] = module


def child_main(mode: str, tests_dir: Path, compat: Path | None, out: Path) -> int:
    from accel_agent import activation

    active = activation.is_active()
    if active != (mode == "agent"):
        out.write_text(json.dumps({"problem": "agent active: %s in mode %s" % (active, mode)}))
        return EXIT_BROKEN
    import rsa

    _provide_compat(compat)
    started = time.monotonic()
    with open(os.devnull, "w") as sink:
        runner = unittest.TextTestRunner(
            stream=sink, verbosity=0, resultclass=run_selftest.unittest_result_class()
        )
        result = runner.run(_suite(tests_dir))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    import accel_agent
    from accel_agent import patching

    summary = accel_agent.status(resolve=False)
    results = {
        "framework": "unittest",
        "exit_code": 0 if result.wasSuccessful() else 1,
        "outcomes": result.outcomes,
        "details": result.details,
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "version": rsa.__version__,
        "mode": mode,
        "active": active,
        "test_vectors": None,
        "python": sys.version.split()[0],
        "primitives": {
            name: {
                "accelerated": entry["accelerated"],
                "provider": entry["provider"],
                "reason": entry["reason"],
                "calls": entry["calls"],
            }
            for name, entry in summary["primitives"].items()
        },
        "patched": sorted(
            "%s.%s" % (module, name)
            for module, names in patching.patched_names().items()
            if module.split(".")[0] == "rsa"
            for name in names
        ),
    }
    out.write_text(json.dumps(results))
    return EXIT_OK


# ============================================================== in the parent


def _start(python: str, mode: str, tests_dir: Path, compat: Path | None, work: Path):
    out, log = work / ("%s.json" % mode), work / ("%s.log" % mode)
    command = [python, str(Path(__file__).resolve()), "--child", mode]
    command += ["--tests", str(tests_dir), "--json-out", str(out)]
    if compat is not None:
        command += ["--compat", str(compat)]
    # Each run in a directory of its own: the CLI tests write and delete key
    # files in the current directory, and the two runs go at once.
    cwd = work / mode
    cwd.mkdir(exist_ok=True)
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=cwd,  # no conftest.py or configuration of this repository
            env=run_selftest.child_env(run_selftest.MODES[mode]),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    return process, out, log


def run(python: str, tests_dir: Path, compat: Path | None, work: Path) -> dict:
    started = time.monotonic()
    pending = {mode: _start(python, mode, tests_dir, compat, work) for mode in run_selftest.MODES}
    try:
        runs = {
            mode: run_selftest.finish_child(process, out, log, started)
            for mode, (process, out, log) in pending.items()
        }
    finally:  # interrupted: leave no suite running
        for process, _out, _log in pending.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    verdict = run_selftest.compare(NAME, runs["native"], runs["agent"])
    verdict["excluded"] = EXCLUDED_MODULES
    run_selftest.print_verdict(verdict)
    for module, reason in EXCLUDED_MODULES.items():
        print("  left out: %s (%s)" % (module, reason))
    return verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", required=True, help="the tests/ directory of an rsa sdist")
    parser.add_argument("--compat", help="the sdist's rsa/_compat.py (4.7.2's tests need it)")
    parser.add_argument("--python", default=sys.executable, help="interpreter to test with")
    parser.add_argument("--json-out", help="also write the verdict (child: the results) here")
    parser.add_argument("--work-dir", help="where runs write logs and results (default: temp)")
    parser.add_argument("--child", choices=run_selftest.MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tests_dir = Path(args.tests).resolve()
    compat = Path(args.compat).resolve() if args.compat else None
    if args.child:
        return child_main(args.child, tests_dir, compat, Path(args.json_out))
    if args.work_dir:
        work = Path(args.work_dir).resolve()
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = Path(tempfile.mkdtemp(prefix="accel-python-rsa-"))
    verdict = run(args.python, tests_dir, compat, work)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(verdict, indent=1))
    print(json.dumps(verdict, separators=(",", ":")))
    if "native" not in verdict:
        return EXIT_BROKEN
    return EXIT_OK if verdict["ok"] else EXIT_DIFFERENT


if __name__ == "__main__":
    sys.exit(main())
