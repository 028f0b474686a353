"""Run pyaes's own test scripts natively and under the agent, and compare.

    python tests/libraries/pyaes/run_suite.py --tests DIR [--reference agent] [--json-out FILE]

pyaes 1.6.1's sdist ships its tests as two scripts, ``tests/test-aes.py``
(every mode, key size and a range of lengths against PyCrypto's API, which
pycryptodome provides; it raises on a mismatch) and ``tests/test-blockfeeder.py``
(the ``Encrypter``/``Decrypter`` feeders and the stream helpers; it prints
``passed=True`` or ``passed=False``). Each script runs twice, each time in a
fresh interpreter: with ``ACCEL_AGENT=off`` (native) and with
``ACCEL_AGENT=quiet`` (the agent activated by its .pth, checked with
``accel_agent.activation.is_active()``).

The reference the scripts compare against, pycryptodome, is patched by the
agent too. By default the agent's run puts pycryptodome's AES back to its
own code (``--reference native``), so pyaes under the agent is checked
against an implementation the agent does not touch, and the accelerated-call
counts are pyaes's alone; ``--reference agent`` leaves it accelerated.

The verdict: every script's outcome (finished or the exception it raised,
and its output without the timing lines) is the same under the agent as
natively, no ``passed=False`` appears, and every AES mode primitive that the
agent accelerates served a non-zero number of calls. The last line is one
JSON object (the same as ``--json-out``); the exit status is 0 on a clean
verdict, 1 on a difference, 2 when a run could not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

MODES = {"native": "off", "agent": "quiet"}
EXIT_OK, EXIT_DIFFERENT, EXIT_BROKEN = 0, 1, 2
PRIMITIVES = ("aes-ecb", "aes-cbc", "aes-ctr", "aes-cfb", "aes-ofb")
MARKER = "accel-suite-result: "
# Lines that measure time, not behaviour (test-aes.py prints them per mode).
TIMING_PREFIXES = ("  Average time:", "  Native better by:")
CHILD_TIMEOUT = 1800


# ============================================================== in the child interpreter


def child(script: str, reference: str) -> int:
    """Run one script as ``__main__``; print its outcome and the agent's call counts."""
    import runpy
    import traceback

    from accel_agent import activation, patching, registry

    active = activation.is_active()
    if active and reference == "native":
        import Crypto.Cipher.AES  # noqa: F401 - imported here so its patch can be taken away

        patching.restore_module("Crypto.Cipher.AES")
    error = None
    sys.argv = [script]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            error = "SystemExit: %s" % exc.code
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        error = "%s: %s" % (type(exc).__name__, exc)
        traceback.print_exc()
    sys.stdout.flush()
    result = {"active": active, "error": error, "calls": registry.calls()}
    if active:
        import accel_agent

        primitives = accel_agent.status(resolve=False).get("primitives", {})
        result["accelerated"] = sorted(
            name
            for name, facts in primitives.items()
            if name in PRIMITIVES and facts and facts.get("accelerated")
        )
    print(MARKER + json.dumps(result), flush=True)
    return 0


# ============================================================== in the parent


def run_script(script: Path, mode: str, reference: str) -> dict:
    env = dict(os.environ, ACCEL_AGENT=MODES[mode])
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(script), "--reference", reference],
        cwd=script.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    seconds = time.perf_counter() - started
    lines = proc.stdout.splitlines()
    results = [line for line in lines if line.startswith(MARKER)]
    if proc.returncode != 0 or not results:
        broken = "exit %d: %s" % (proc.returncode, proc.stderr[-2000:])
        return {"broken": broken, "seconds": seconds}
    result = json.loads(results[-1][len(MARKER) :])
    output = [line for line in lines if not line.startswith((MARKER,) + TIMING_PREFIXES)]
    result.update(
        output=output,
        failed_checks=[line.strip() for line in output if "passed=False" in line],
        seconds=round(seconds, 2),
        stderr_tail=proc.stderr[-800:] if result.get("error") else "",
    )
    return result


def verdict(scripts: list[Path], runs: dict) -> dict:
    differences, native_failures, broken = [], [], []
    calls: dict[str, int] = {}
    accelerated: set[str] = set()
    for script in scripts:
        native, agent = runs["native"][script.name], runs["agent"][script.name]
        for mode, run in (("native", native), ("agent", agent)):
            if "broken" in run:
                broken.append("%s (%s): %s" % (script.name, mode, run["broken"]))
        if broken:
            continue
        if native["active"] or not agent["active"]:
            broken.append("%s: the agent was not off natively and on under the agent" % script.name)
            continue
        if native["error"] or native["failed_checks"]:
            native_failures.append(script.name)
        if (agent["error"], agent["output"]) != (native["error"], native["output"]):
            differences.append(
                {
                    "script": script.name,
                    "native": native["error"] or "finished",
                    "agent": agent["error"] or "finished",
                    "agent_only_lines": [
                        line for line in agent["output"] if line not in native["output"]
                    ][:20],
                }
            )
        if agent["failed_checks"]:
            failed = agent["failed_checks"]
            differences.append({"script": script.name, "agent_failed_checks": failed})
        for name, count in agent["calls"].items():
            calls[name] = calls.get(name, 0) + count
        accelerated.update(agent.get("accelerated", ()))
    idle = sorted(name for name in accelerated if not calls.get(name))
    ok = not broken and not differences and not idle
    return {
        "ok": ok,
        "scripts": [script.name for script in scripts],
        "differences": differences,
        "native_failures": native_failures,
        "broken": broken,
        "accelerated": sorted(accelerated),
        "idle_accelerated": idle,
        "calls": {name: calls.get(name, 0) for name in PRIMITIVES},
        "seconds": {
            mode: {name: run.get("seconds") for name, run in per_script.items()}
            for mode, per_script in runs.items()
        },
    }


def report(result: dict, reference: str) -> None:
    print("pyaes's own tests, native vs agent (reference pycryptodome: %s)" % reference)
    for name in result["scripts"]:
        native = result["seconds"]["native"].get(name)
        agent = result["seconds"]["agent"].get(name)
        print("  %-22s native %7.2fs   agent %7.2fs" % (name, native or 0, agent or 0))
    print("  accelerated calls: %s" % ", ".join("%s=%d" % kv for kv in result["calls"].items()))
    for line in result["broken"]:
        print("  BROKEN: %s" % line)
    for difference in result["differences"]:
        print("  DIFFERENT: %s" % json.dumps(difference))
    if result["native_failures"]:
        print("  failing natively too (not held against the agent): %s" % result["native_failures"])
    if result["idle_accelerated"]:
        print("  accelerated but never called: %s" % ", ".join(result["idle_accelerated"]))
    print("verdict: %s" % ("same results as native" if result["ok"] else "FAILED"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=Path, help="the tests/ folder of pyaes's sdist")
    parser.add_argument("--reference", choices=("native", "agent"), default="native")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.reference)
    if args.tests is None:
        parser.error("--tests is required")
    scripts = sorted(args.tests.resolve().glob("test-*.py"))
    if not scripts:
        print("no test-*.py in %s" % args.tests, file=sys.stderr)
        return EXIT_BROKEN
    runs = {mode: {s.name: run_script(s, mode, args.reference) for s in scripts} for mode in MODES}
    result = verdict(scripts, runs)
    report(result, args.reference)
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))
    if result["broken"]:
        return EXIT_BROKEN
    return EXIT_OK if result["ok"] else EXIT_DIFFERENT


if __name__ == "__main__":
    sys.exit(main())
