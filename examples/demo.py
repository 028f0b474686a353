"""The demo `make run` runs: seal_files.py natively and under accel-agent, timed, cross-checked.

examples/seal_files.py is an ordinary pycryptodome program (AES-GCM per
file, an ECDSA P-256 signed manifest) that knows nothing of the agent. This
driver, on one generated directory of files:

1. makes the keys under the agent (``ACCEL_AGENT=on``: its two status lines
   show on stderr);
2. seals the directory natively (``ACCEL_AGENT=off``) and under the agent
   (``ACCEL_AGENT=quiet``, what ``accel-agent enable`` sets), interleaved,
   ``--reps`` times each, and opens each sealed copy with the *other* mode:
   sealed under the agent, opened natively, and the other way round; every
   restored tree must equal the source byte for byte;
3. tampers with one sealed file and with the manifest: both modes must
   refuse, with the same message;
4. prints the CPU times (median over the reps) and which primitives the
   agent served, with how many calls;
5. seals once more in shadow mode (``ACCEL_AGENT=shadow``, every call also
   done natively and compared: there must be no mismatch), and ends with the
   savings report of the agent's runs (``ACCEL_AGENT_REPORT``, merged by
   ``accel-agent report``).

Exit 0 when everything matched, 1 on any mismatch (the first lines of the
report say which), 2 when the program itself could not run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "seal_files.py")

OK, MISMATCH, BROKEN = 0, 1, 2

# Runs the program as `python -c BOOTSTRAP program args...` so that its CPU
# time (from the first line of the program, interpreter start-up excluded)
# and, under the agent, the calls the agent served are written to the file
# named by DEMO_RESULT at exit. The program itself is not changed.
BOOTSTRAP = r"""
import atexit, json, os, runpy, sys, time
_result_path = os.environ.pop("DEMO_RESULT")
_started = time.process_time()
def _report():
    facts = {"cpu_s": time.process_time() - _started, "calls": {}}
    agent = sys.modules.get("accel_agent")
    if agent is not None:
        for name, entry in agent.status(resolve=False)["primitives"].items():
            if entry["calls"]:
                facts["calls"][name] = [entry["provider"], entry["calls"]]
    with open(_result_path, "w") as handle:
        json.dump(facts, handle)
atexit.register(_report)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class Run:
    """One finished run of the program."""

    def __init__(self, returncode: int, stdout: str, stderr: str, facts: dict, process_s: float):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.cpu_s = facts.get("cpu_s", float("nan"))  # the program, start-up excluded
        self.calls = facts.get("calls", {})
        self.process_s = process_s  # the whole child process, interpreter start-up included


def run_program(
    program: str,
    mode: str,
    args: list[str],
    scratch: str,
    show_stderr: bool = False,
    reports: str | None = None,
) -> Run:
    """Run the program with ACCEL_AGENT=mode; its CPU time and the agent's call counts.

    ``reports``: the directory the agent's runs write their savings reports to.
    """
    result_path = os.path.join(scratch, "result.json")
    if os.path.exists(result_path):
        os.remove(result_path)
    environment = dict(os.environ, ACCEL_AGENT=mode, DEMO_RESULT=result_path)
    environment.pop("ACCEL_AGENT_EXCLUDE", None)
    environment.pop("ACCEL_AGENT_REPORT", None)
    if reports is not None and mode != "off":
        environment["ACCEL_AGENT_REPORT"] = reports
    if mode == "shadow":
        environment["ACCEL_AGENT_SHADOW_RATE"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(
        [sys.executable, "-c", BOOTSTRAP, program, *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    process_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if show_stderr and completed.stderr:
        sys.stderr.write(completed.stderr)
    facts = {}
    if os.path.exists(result_path):
        with open(result_path) as handle:
            facts = json.load(handle)
    return Run(completed.returncode, completed.stdout, completed.stderr, facts, process_s)


def make_files(root: str, count: int, seed: int = 8) -> int:
    """A directory of ``count`` files shaped like a small project: mostly small, a few large."""
    rng = random.Random(seed)
    total = 0
    for index in range(count):
        roll = rng.random()
        if roll < 0.85:
            size = rng.randint(200, 4 << 10)  # configs, notes, small records
        elif roll < 0.99:
            size = rng.randint(4 << 10, 64 << 10)  # documents
        else:
            size = rng.randint(256 << 10, 1 << 20)  # images, archives
        folder = os.path.join(root, "dir%02d" % (index % 12))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "file%04d.bin" % index), "wb") as handle:
            handle.write(rng.getrandbits(8 * size).to_bytes(size, "little") if size else b"")
        total += size
    return total


def tree_differences(expected_root: str, actual_root: str) -> list[str]:
    """Paths missing, extra or different in actual_root (empty when the trees are equal)."""

    def contents(root: str) -> dict[str, str]:
        found = {}
        for directory, _, names in os.walk(root):
            for name in names:
                full = os.path.join(directory, name)
                found[os.path.relpath(full, root)] = full
        return found

    expected, actual = contents(expected_root), contents(actual_root)
    problems = ["missing %s" % path for path in sorted(set(expected) - set(actual))]
    problems += ["unexpected %s" % path for path in sorted(set(actual) - set(expected))]
    for path in sorted(set(expected) & set(actual)):
        with open(expected[path], "rb") as left, open(actual[path], "rb") as right:
            if left.read() != right.read():
                problems.append("different %s" % path)
    return problems


def flip_one_byte(path: str, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ 0x01]))


class Demo:
    """The steps of the demo, with every failure collected for the report."""

    def __init__(self, program: str, workdir: str, reps: int) -> None:
        self.program = program
        self.workdir = workdir
        self.reps = reps
        self.failures: list[str] = []
        self.source = os.path.join(workdir, "files")
        self.keys = os.path.join(workdir, "keys")
        self.scratch = os.path.join(workdir, "scratch")
        self.reports = os.path.join(workdir, "reports")
        os.makedirs(self.scratch, exist_ok=True)
        os.makedirs(self.reports, exist_ok=True)
        self.times: dict[tuple[str, str], list[Run]] = {}
        self.agent_calls: dict[str, list] = {}
        self.last_sealed: dict[str, str] = {}  # mode -> the latest directory sealed in it

    def run(self, mode: str, *args: str, show_stderr: bool = False) -> Run:
        result = run_program(
            self.program, mode, list(args), self.scratch, show_stderr, self.reports
        )
        if mode != "off":
            for name, (provider, count) in result.calls.items():
                entry = self.agent_calls.setdefault(name, [provider, 0])
                entry[1] += count
        return result

    def must_succeed(self, what: str, result: Run) -> bool:
        if result.returncode != 0:
            self.failures.append(
                "%s: exit %d: %s" % (what, result.returncode, result.stderr.strip()[-500:])
            )
            return False
        return True

    def seal_and_cross_open(self, rep: int) -> None:
        """Seal under each mode, then open each sealed copy under the other mode."""
        order = ("off", "quiet") if rep % 2 == 0 else ("quiet", "off")
        for earlier in self.last_sealed.values():  # keep the tmpfs small
            shutil.rmtree(earlier, ignore_errors=True)
        sealed = {}
        for mode in order:
            out = os.path.join(self.workdir, "sealed-%s-%d" % (_label(mode), rep))
            result = self.run(mode, "seal", self.source, out, "--keys", self.keys)
            self.times.setdefault(("seal", mode), []).append(result)
            if self.must_succeed("seal (%s)" % _label(mode), result):
                sealed[mode] = out
        for sealer, opener in (("quiet", "off"), ("off", "quiet")):
            if sealer not in sealed:
                continue
            dest = os.path.join(self.workdir, "opened-%s-by-%s-%d" % (
                _label(sealer), _label(opener), rep))  # fmt: skip
            result = self.run(opener, "open", sealed[sealer], dest, "--keys", self.keys)
            self.times.setdefault(("open", opener), []).append(result)
            what = "sealed %s, opened %s" % (_label(sealer), _label(opener))
            if self.must_succeed(what, result):
                problems = tree_differences(self.source, dest)
                if problems:
                    self.failures.append("%s: %s" % (what, "; ".join(problems[:5])))
            shutil.rmtree(dest, ignore_errors=True)
        self.last_sealed = sealed

    def shadow_finds_no_mismatch(self) -> None:
        """Seal once in shadow mode: every call also done natively, and compared."""
        out = os.path.join(self.workdir, "sealed-in-shadow-mode")
        result = self.run("shadow", "seal", self.source, out, "--keys", self.keys)
        if not self.must_succeed("seal (shadow mode)", result):
            return
        if "shadow mismatch" in result.stderr:
            self.failures.append("shadow mode: %s" % result.stderr.strip()[-500:])
        shutil.rmtree(out, ignore_errors=True)

    def savings_report(self) -> dict:
        """The agent's runs' reports, merged: printed as ``accel-agent report`` prints them."""
        command = [sys.executable, "-m", "accel_agent", "report"]
        table = subprocess.run(command + [self.reports], capture_output=True, text=True)
        merged = subprocess.run(command + ["--json", self.reports], capture_output=True, text=True)
        if table.returncode != 0 or merged.returncode != 0:
            self.failures.append("accel-agent report: %s" % (table.stderr or merged.stderr))
            return {}
        print("demo: the savings report of the agent's runs (accel-agent report):")
        for line in table.stdout.splitlines():
            print("  " + line)
        account = json.loads(merged.stdout)
        if account["totals"]["mismatches"]:
            self.failures.append("shadow mode: %d mismatches" % account["totals"]["mismatches"])
        return account

    def tampering_is_refused_alike(self) -> None:
        """A flipped ciphertext bit and a flipped manifest byte: both modes refuse, same words."""
        sealed = self.last_sealed.get("quiet") or self.last_sealed.get("off")
        if sealed is None:
            return
        print("demo: tampered copies, refused alike natively and under the agent:")
        with open(os.path.join(sealed, "MANIFEST.json")) as handle:
            first = json.load(handle)["files"][0]["path"]
        cases = (
            ("a flipped ciphertext bit", first + ".enc", 20),  # past the 12-byte nonce
            ("a flipped manifest byte", "MANIFEST.json", 30),
        )
        for what, relative, offset in cases:
            copy = os.path.join(self.workdir, "tampered")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(sealed, copy)
            flip_one_byte(os.path.join(copy, relative), offset)
            answers = {}
            for mode in ("off", "quiet"):
                dest = os.path.join(self.workdir, "tampered-out-%s" % _label(mode))
                result = self.run(mode, "open", copy, dest, "--keys", self.keys)
                answers[mode] = (result.returncode, result.stderr.strip())
                shutil.rmtree(dest, ignore_errors=True)
            native, agent = answers["off"], answers["quiet"]
            if native[0] != 1 or "refused" not in native[1]:
                self.failures.append("%s: native did not refuse it: %r" % (what, native))
            if agent != native:
                self.failures.append(
                    "%s: the agent answered %r where native answered %r" % (what, agent, native)
                )
            else:
                said = native[1].rpartition("refused: ")[2].replace(copy + ": ", "")
                print("  %s: %s" % (what, said))
            shutil.rmtree(copy, ignore_errors=True)

    def report_times(self, files: int, size: int) -> None:
        print()
        print("%-36s %9s %9s %9s" % ("CPU time, median of %d runs" % self.reps,
                                      "native", "agent", "speed-up"))  # fmt: skip
        for step in ("seal", "open"):
            native = self.times.get((step, "off"), [])
            agent = self.times.get((step, "quiet"), [])
            if not native or not agent:
                continue
            for label, attribute in (
                ("%s %d files (%.1f MiB)" % (step, files, size / 2**20), "cpu_s"),
                ("  the same, with Python's start-up", "process_s"),
            ):
                native_s = statistics.median(getattr(run, attribute) for run in native)
                agent_s = statistics.median(getattr(run, attribute) for run in agent)
                print(
                    "%-36s %7.3f s %7.3f s %8.1fx"
                    % (label, native_s, agent_s, native_s / agent_s if agent_s else float("nan"))
                )
        if self.agent_calls:
            served = ", ".join(
                "%s %d (%s)" % (name, count, provider)
                for name, (provider, count) in sorted(self.agent_calls.items())
            )
            print(textwrap.fill("served by the agent: " + served, 79, subsequent_indent="  "))
        else:
            self.failures.append("the agent served no call: is accel-agent installed here?")


def _label(mode: str) -> str:
    return "natively" if mode == "off" else "under the agent"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1500, help="files to generate (1500)")
    parser.add_argument("--reps", type=int, default=2, help="timed runs per mode (2)")
    parser.add_argument("--workdir", help="work here (kept) instead of a temporary directory")
    parser.add_argument("--program", default=PROGRAM, help=argparse.SUPPRESS)  # tests
    args = parser.parse_args(argv)

    sys.stdout.reconfigure(line_buffering=True)  # in order with the agent's stderr lines
    # tmpfs where there is one, so that the disk's speed stays out of the figures.
    shm = "/dev/shm"
    scratch_root = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    workdir = args.workdir or tempfile.mkdtemp(prefix="accel-demo-", dir=scratch_root)
    try:
        os.makedirs(workdir, exist_ok=True)
        demo = Demo(args.program, workdir, max(1, args.reps))
        size = make_files(demo.source, args.files)
        print("demo: %d files, %.1f MiB, in %s" % (args.files, size / 2**20, demo.source))
        print("demo: making the keys with ACCEL_AGENT=on (the agent's status lines follow)")
        keygen = demo.run("on", "keygen", demo.keys, show_stderr=True)
        if keygen.returncode != 0:
            print("demo: the program failed: %s" % keygen.stderr.strip(), file=sys.stderr)
            return BROKEN
        print(
            "demo: %d round%s of seal and open, natively (ACCEL_AGENT=off) and under the agent"
            % (demo.reps, "" if demo.reps == 1 else "s")
        )
        for rep in range(demo.reps):
            demo.seal_and_cross_open(rep)
        if not demo.failures:
            print("  sealed natively, opened under the agent: every file identical")
            print("  sealed under the agent, opened natively: every file identical")
        demo.tampering_is_refused_alike()
        demo.report_times(args.files, size)
        print("demo: sealing once more in shadow mode (every call also done natively)")
        demo.shadow_finds_no_mismatch()
        account = demo.savings_report()
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    if demo.failures:
        for failure in demo.failures:
            print("demo: MISMATCH: %s" % failure, file=sys.stderr)
        print("demo: FAILED", file=sys.stderr)
        return MISMATCH
    totals = account.get("totals", {})
    print(
        "demo: shadow mode compared %d calls with native pycryptodome: %d mismatches"
        % (totals.get("comparisons", 0), totals.get("mismatches", 0))
    )
    print("demo: PASSED")
    return OK


if __name__ == "__main__":
    sys.exit(main())
