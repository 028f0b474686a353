"""Start-up cost of the agent: ``python -c pass`` with and without it.

design.md's goal: with the agent installed but not asked for, the .pth line
adds at most 1 ms to interpreter start-up. This measures it as a user feels
it, wall clock (``time.perf_counter``) around ``subprocess.run``, no
``-X importtime``:

* baseline: a venv with the same interpreter, cryptography and pycryptodome
  but no accel-agent (``.venv-bench-noagent``, created on first use);
* idle: the agent's venv (``.venv``), nothing asking for the agent;
* active and lazy: ``-X accel=quiet`` and ``ACCEL_AGENT=quiet``;
* on: ``-X accel``, which runs every self-check and imports cryptography.

Runs are interleaved (baseline, idle, quiet, ... then again, the order
rotating each round) and each case is compared with the baseline of the same
round. ``--all-pythons`` measures the idle cost once per Python 3.9-3.13
found under pyenv, one line per version.

Exit status: 0, or 1 with ``--strict`` when the goal is missed (timing on a
shared machine is noisy, so only a deliberate run should fail on it), or 2
when a venv cannot be set up or a case does not behave as expected.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from accel_agent.bench import timing
from accel_agent.bench.table import Table, format_ms, format_ratio, verdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_MS = 1.0
PYTHON_VERSIONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
# What the baseline venv gets, at the versions the agent's venv has.
SHARED_DISTRIBUTIONS = ("cryptography", "cffi", "pycparser", "pycryptodome")

BASELINE = "no agent (baseline)"
IDLE = "idle (installed)"


class SetupError(Exception):
    """A venv cannot be made or a case misbehaves; the message says which."""


def case_table() -> list[tuple[str, str, list[str], dict[str, str]]]:
    """(name, venv role, interpreter arguments, extra environment) for each case."""
    return [
        (BASELINE, "baseline", [], {}),
        (IDLE, "agent", [], {}),
        ("-X accel=quiet", "agent", ["-X", "accel=quiet"], {}),
        ("ACCEL_AGENT=quiet", "agent", [], {"ACCEL_AGENT": "quiet"}),
        ("-X accel (on)", "agent", ["-X", "accel"], {}),
    ]


def clean_environment() -> dict[str, str]:
    """This environment without anything that would wake the agent.

    PYTHONDONTWRITEBYTECODE goes too: with it, a module edited after install
    is compiled again at every start, which measures the compiler, not the
    agent (the preflight run writes the fresh .pyc).
    """
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ACCEL_AGENT") and k != "PYTHONDONTWRITEBYTECODE"
    }


def run_quietly(argv: list[str], what: str) -> str:
    result = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        # pip's WARNING lines (an unreachable extra index, say) bury the real error.
        tail = ([line for line in lines if not line.startswith("WARNING:")] or lines)[-5:]
        raise SetupError("%s failed (exit %d): %s" % (what, result.returncode, " | ".join(tail)))
    return result.stdout


def venv_python(venv: str) -> str:
    return os.path.join(venv, "bin", "python")


def interpreter_facts(python: str) -> dict | None:
    """Version, base interpreter and installed distributions; None if it does not run."""
    probe = (
        "import json, os, sys\n"
        "from importlib import metadata\n"
        "names = %r\n"
        "versions = {}\n"
        "for name in names:\n"
        "    try:\n"
        "        versions[name] = metadata.version(name)\n"
        "    except metadata.PackageNotFoundError:\n"
        "        versions[name] = None\n"
        "base = os.path.join(sys.base_prefix, 'bin', 'python%%d.%%d' %% sys.version_info[:2])\n"
        "print(json.dumps({'version': '%%d.%%d.%%d' %% sys.version_info[:3],\n"
        "    'implementation': sys.implementation.name, 'base': os.path.realpath(base),\n"
        "    'versions': versions}))\n"
    ) % (SHARED_DISTRIBUTIONS + ("accel-agent",),)
    try:
        result = subprocess.run(
            [python, "-c", probe],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=clean_environment(),
            check=False,
        )
    except OSError:
        return None
    if result.returncode != 0:
        return None
    return json.loads(result.stdout)


def pins(facts: dict) -> list[str]:
    return [
        "%s==%s" % (name, facts["versions"][name])
        for name in SHARED_DISTRIBUTIONS
        if facts["versions"].get(name)
    ]


def ensure_baseline(agent_facts: dict, venv: str) -> dict:
    """A venv with the agent venv's interpreter and libraries, without accel-agent."""
    wanted = {name: agent_facts["versions"].get(name) for name in SHARED_DISTRIBUTIONS}
    facts = interpreter_facts(venv_python(venv))
    if (
        facts is not None
        and facts["base"] == agent_facts["base"]
        and facts["versions"].get("accel-agent") is None
        and all(facts["versions"].get(name) == version for name, version in wanted.items())
    ):
        return facts
    print("setting up %s (%s, %s)" % (venv, agent_facts["base"], " ".join(pins(agent_facts))))
    shutil.rmtree(venv, ignore_errors=True)
    run_quietly([agent_facts["base"], "-m", "venv", venv], "creating %s" % venv)
    pip = [venv_python(venv), "-m", "pip", "--disable-pip-version-check", "install", "-q"]
    run_quietly(pip + pins(agent_facts), "installing into %s" % venv)
    facts = interpreter_facts(venv_python(venv))
    if facts is None:
        raise SetupError("%s does not run after setup" % venv)
    return facts


def default_file_present(python: str) -> bool:
    """Whether ``accel-agent enable`` left a default mode: then 'idle' is not idle."""
    out = run_quietly(
        [
            python,
            "-c",
            "import os; from accel_agent import _boot; "
            "print(os.path.exists(_boot.default_file_path()))",
        ],
        "asking %s for its default file" % python,
    )
    return out.strip() == "True"


def make_cases(pythons: dict[str, str], cpu: dict[str, list[float]], names=None) -> dict:
    """Callables for :func:`timing.interleaved`, each one interpreter start.

    Each also appends the child's CPU time (user + system) to ``cpu[name]``:
    unlike wall clock, it does not grow when other processes take the CPU.
    """
    base_env = clean_environment()
    cases = {}
    for name, role, arguments, extra in case_table():
        if names is not None and name not in names:
            continue
        argv = [pythons[role], *arguments, "-c", "pass"]
        env = dict(base_env, **extra)
        cases[name] = _starter(argv, env, cpu.setdefault(name, []))
    return cases


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _starter(argv: list[str], env: dict[str, str], cpu_samples: list[float]):
    def start() -> None:
        before = _children_cpu()
        subprocess.run(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        cpu_samples.append(_children_cpu() - before)

    return start


def preflight(pythons: dict[str, str], names: list[str] | None = None) -> None:
    """Run each case once and check it does what its name says (exit 0, right stderr)."""
    base_env = clean_environment()
    for name, role, arguments, extra in case_table():
        if names is not None and name not in names:
            continue
        result = subprocess.run(
            [pythons[role], *arguments, "-c", "pass"],
            env=dict(base_env, **extra),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise SetupError("%s: exit %d: %s" % (name, result.returncode, result.stderr.strip()))
        wants_status = arguments == ["-X", "accel"]
        if wants_status and "self-check PASSED" not in result.stderr:
            raise SetupError("%s: no 'self-check PASSED' line: %r" % (name, result.stderr))
        if not wants_status and result.stderr:
            raise SetupError("%s: unexpected stderr: %r" % (name, result.stderr.strip()))


def judge(result: dict, goal_ms: float) -> tuple[bool, str, float]:
    """(passed, which clock judged, its added seconds) for the idle case.

    Wall clock is what a user feels, so it judges, unless other processes
    made it too noisy to: when the middle half of the per-round wall-clock
    differences spans more than twice the goal, the child's CPU time (which
    their load does not inflate) judges instead, and the line says so.
    """
    wall = result["added"][IDLE]
    spread = timing.percentile(wall, 0.75) - timing.percentile(wall, 0.25)
    if spread * 1e3 <= 2 * goal_ms:
        added, clock = statistics.median(wall), "wall"
    else:
        added, clock = statistics.median(result["cpu_added"][IDLE]), "CPU"
    return added * 1e3 <= goal_ms, clock, added


def load_note() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return ""
    return "load average %.1f (1 min), %.1f (5 min) on %d CPUs" % (one, five, os.cpu_count() or 0)


def measure(pythons: dict[str, str], runs: int, warmup: int, names=None) -> dict:
    """Wall-clock samples, their per-round differences from the baseline, and CPU time."""
    cpu: dict[str, list[float]] = {}
    cases = make_cases(pythons, cpu, names)
    samples = timing.interleaved(cases, runs=runs, warmup=warmup)
    cpu = {name: values[-runs:] for name, values in cpu.items()}  # drop the warm-up rounds
    return {
        "samples": samples,
        "added": timing.paired_differences(samples, BASELINE),
        "cpu_added": timing.paired_differences(cpu, BASELINE),
    }


def single(args: argparse.Namespace) -> int:
    agent_python = venv_python(args.agent_venv)
    agent_facts = interpreter_facts(agent_python)
    if agent_facts is None or agent_facts["versions"].get("accel-agent") is None:
        raise SetupError("%s has no accel-agent installed; run `make run` first" % args.agent_venv)
    if args.modules_only:
        return modules_report(agent_python, args.module_runs or 20, args.strict)
    baseline_facts = ensure_baseline(agent_facts, args.baseline_venv)
    pythons = {"agent": agent_python, "baseline": venv_python(args.baseline_venv)}
    preflight(pythons)
    idle_is_idle = not default_file_present(agent_python)
    runs = args.runs or 200

    print()
    print("accel-agent start-up cost: `python -c pass`, %d interleaved runs per case" % runs)
    print(
        "agent:    %s (CPython %s, accel-agent %s, pycryptodome %s)"
        % (
            agent_python,
            agent_facts["version"],
            agent_facts["versions"]["accel-agent"],
            agent_facts["versions"].get("pycryptodome") or "not installed",
        )
    )
    print("baseline: %s (same interpreter and libraries, no accel-agent)" % pythons["baseline"])
    if baseline_facts["version"] != agent_facts["version"]:
        raise SetupError("baseline runs Python %s" % baseline_facts["version"])
    if not idle_is_idle:
        print("NOTE: `accel-agent enable` set a default mode in the agent venv: 'idle' is active")
    print()

    result = measure(pythons, runs, args.warmup)
    samples, added = result["samples"], result["added"]
    base_median = statistics.median(samples[BASELINE])
    cpu_added = result["cpu_added"]
    table = Table(["case", "wall ms", "added ms", "added p25..p75", "CPU added", "ratio"])
    for name, values in samples.items():
        if name == BASELINE:
            table.add(name, format_ms(statistics.median(values)), "-", "-", "-", "1.00x")
            continue
        diffs = added[name]
        table.add(
            name,
            format_ms(statistics.median(values)),
            format_ms(statistics.median(diffs), signed=True),
            "%s..%s"
            % (
                format_ms(timing.percentile(diffs, 0.25), signed=True),
                format_ms(timing.percentile(diffs, 0.75), signed=True),
            ),
            format_ms(statistics.median(cpu_added[name]), signed=True),
            format_ratio(statistics.median(values) / base_median),
        )
    table.print()
    print()
    print(
        "wall ms: median wall-clock time of `python -c pass` (perf_counter around subprocess.run)"
    )
    print("added ms: median of the per-round differences from the baseline; p25..p75 their spread")
    print("CPU added: the same for the child's user+system CPU time (immune to other load)")
    print("quiet: active and lazy; on: runs every self-check, imports cryptography")
    print(load_note())
    passed, clock, idle_added = judge(result, args.goal_ms)
    if clock == "CPU":
        print("wall clock too noisy to judge here (other load): the verdict is on CPU time")
    other = "CPU time %s ms" if clock == "wall" else "wall clock %s ms"
    other_added = cpu_added[IDLE] if clock == "wall" else added[IDLE]
    print(
        "GOAL idle start-up cost <= %.2f ms: %s on %s (%s ms; %s)"
        % (
            args.goal_ms,
            verdict(passed),
            "wall clock" if clock == "wall" else "CPU time",
            format_ms(idle_added, signed=True),
            other % format_ms(statistics.median(other_added), signed=True),
        )
    )
    modules_failed = False
    if args.module_runs:
        modules_failed = modules_report(agent_python, args.module_runs, args.strict) != 0
    return 1 if args.strict and (not passed or modules_failed) else 0


# ------------------------------------------------------------------ per module

IMPORT_GOAL_MS = 2.0  # importing one patched module, start-up included, CPU over native
FIRST_CALL_GOAL_MS = 8.0  # the first call of a primitive (cryptography's import, self-check)
MODULE_MODES = {"native (ACCEL_AGENT=off)": "off", "agent (ACCEL_AGENT=quiet)": "quiet"}
NATIVE_MODULE_CASE, AGENT_MODULE_CASE = MODULE_MODES

# A key made once per run, natively, for the signing rows (not timed).
_RSA_KEY = "from Crypto.PublicKey import RSA as _R; _K = _R.import_key(open(%r).read())\n"
_RSA_KEY_FILE = os.path.join(ROOT, "tests", "fixtures", "shadow_rsa_2048.pem")


class ModuleCase:
    """One patched module: its import, then untimed set-up, then one first call."""

    __slots__ = ("name", "module", "setup", "call")

    def __init__(self, name: str, module: str, call: str, setup: str = "") -> None:
        self.name = name  # the row's label: the module and what its first call does
        self.module = module  # imported as M
        self.setup = setup  # run between the import and the call, untimed
        self.call = call  # the first call of the primitive this module serves


MODULE_CASES = (
    ModuleCase(
        "AES GCM 64B",
        "Crypto.Cipher.AES",
        "M.new(bytes(16), M.MODE_GCM, nonce=bytes(12)).encrypt_and_digest(bytes(64))",
    ),
    ModuleCase(
        "AES CBC 64B",
        "Crypto.Cipher.AES",
        "M.new(bytes(16), M.MODE_CBC, iv=bytes(16)).encrypt(bytes(64))",
    ),
    ModuleCase("SHA256 64B", "Crypto.Hash.SHA256", "M.new(bytes(64)).digest()"),
    ModuleCase(
        "HMAC SHA256",
        "Crypto.Hash.HMAC",
        "M.new(bytes(16), bytes(64), digestmod=SHA256).digest()",
        "from Crypto.Hash import SHA256\n",
    ),
    ModuleCase(
        "ChaCha20Poly",
        "Crypto.Cipher.ChaCha20_Poly1305",
        "M.new(key=bytes(32), nonce=bytes(12)).encrypt_and_digest(bytes(64))",
    ),
    ModuleCase("ECC P-256 key", "Crypto.PublicKey.ECC", "M.generate(curve='P-256')"),
    ModuleCase(
        "pss RSA sign",
        "Crypto.Signature.pss",
        "M.new(_K).sign(SHA256.new(b'm'))",
        _RSA_KEY % _RSA_KEY_FILE + "from Crypto.Hash import SHA256\n",
    ),
    ModuleCase("RSA (none)", "Crypto.PublicKey.RSA", "pass"),
    ModuleCase(
        "rsa sign",
        "rsa",
        "M.sign(b'm', _P, 'SHA-256')",
        "_P = M.PrivateKey.load_pkcs1(open(%r, 'rb').read())\n" % _RSA_KEY_FILE,
    ),
    ModuleCase("ecdsa P-256", "ecdsa", "M.SigningKey.generate(curve=M.NIST256p).sign(b'm')"),
    ModuleCase("pyaes CTR 64B", "pyaes", "M.AESModeOfOperationCTR(bytes(16)).encrypt(bytes(64))"),
)

# The child: CPU and wall clock at the start of -c (interpreter and agent start-up:
# process_time counts from the process's start, perf_counter is CLOCK_MONOTONIC,
# the parent's clock too), around the import, around the first call.
_MODULE_CODE = """\
import time
c0, w0 = time.process_time(), time.perf_counter()
import {module} as M
c1, w1 = time.process_time(), time.perf_counter()
{setup}{preimport}c2, w2 = time.process_time(), time.perf_counter()
{call}
c3, w3 = time.process_time(), time.perf_counter()
print(c0, w0 - {launched!r}, c1 - c0, w1 - w0, c3 - c2, w3 - w2)
"""
_MEASURES = ("start", "start wall", "import", "import wall", "call", "call wall")
_TOTALS = ("start+import", "start+import wall")
_OWN = ("own call",)

# The third run of each round: the agent with cryptography's modules already
# imported (untimed, before the call), so that the first call's figure is the
# agent's own part: its provider, its self-check, its patch. The modules are
# those the agent's first call loads, found once per case (discover_imports).
PREIMPORTED = "quiet, cryptography imported before the call"
_DISCOVER_CODE = """\
import sys
import {module} as M
{setup}before = set(sys.modules)
{call}
print(" ".join(sorted(m for m in set(sys.modules) - before
                      if m == "cryptography" or m.startswith("cryptography."))))
"""


def discover_imports(python: str, case: ModuleCase) -> list[str]:
    """The cryptography modules the agent's first call of ``case`` imports."""
    env = dict(clean_environment(), ACCEL_AGENT="quiet")
    code = _DISCOVER_CODE.format(module=case.module, setup=case.setup, call=case.call)
    result = subprocess.run(
        [python, "-c", code], env=env, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    if result.returncode != 0 or result.stderr:
        raise SetupError("%s: exit %d: %s" % (case.name, result.returncode, result.stderr[-300:]))
    return result.stdout.split()


def run_module_case(
    python: str, case: ModuleCase, mode: str, preimport: list[str] | None = None
) -> list[float]:
    """One fresh interpreter: the six figures of :data:`_MEASURES`, in seconds.

    ``preimport``: modules imported after the set-up, before the timed call.
    """
    env = dict(clean_environment(), ACCEL_AGENT=mode)
    launched = time.perf_counter()
    code = _MODULE_CODE.format(
        module=case.module,
        setup=case.setup,
        preimport="".join("import %s\n" % name for name in preimport or ()),
        call=case.call,
        launched=launched,
    )
    result = subprocess.run(
        [python, "-c", code],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 or result.stderr:
        raise SetupError(
            "%s (%s): exit %d: %s"
            % (case.name, mode, result.returncode, result.stderr.strip()[-300:])
        )
    return [float(value) for value in result.stdout.split()]


def measure_modules(python: str, runs: int, cases=MODULE_CASES) -> dict:
    """Per case, the per-run differences agent - native of each measure (interleaved).

    Also "own call": the first call's CPU time under the agent with
    cryptography's modules imported beforehand, minus native's first call.
    """
    added: dict[str, dict[str, list[float]]] = {}
    preimports = {case.name: discover_imports(python, case) for case in cases}
    for case in cases:
        added[case.name] = {measure: [] for measure in _MEASURES + _TOTALS + _OWN}
    for number in range(runs + 1):  # round 0 warms the page cache, thrown away
        for case in cases:
            order = list(MODULE_MODES.values()) + [PREIMPORTED]
            if number % 2:
                order.reverse()
            figures = {
                mode: run_module_case(
                    python, case, "quiet" if mode == PREIMPORTED else mode,
                    preimports[case.name] if mode == PREIMPORTED else None,
                )
                for mode in order
            }  # fmt: skip
            if number == 0:
                continue
            diffs = [agent - native for agent, native in zip(figures["quiet"], figures["off"])]
            diffs += [diffs[0] + diffs[2], diffs[1] + diffs[3]]
            own, native = figures[PREIMPORTED], figures["off"]
            diffs.append(own[4] - native[4])
            for measure, diff in zip(_MEASURES + _TOTALS + _OWN, diffs):
                added[case.name][measure].append(diff)
    return added


def modules_report(python: str, runs: int, strict: bool) -> int:
    print()
    print("per module, %d interleaved runs: what ACCEL_AGENT=quiet adds to ACCEL_AGENT=off" % runs)
    print("(median of the per-run differences, ms; CPU = process_time, wall = perf_counter)")
    added = measure_modules(python, runs)
    table = Table(
        ["case", "start+imp CPU", "wall", "import CPU", "wall", "call CPU", "wall", "own CPU"],
        width=96,
    )
    failed = False
    for name, figures in added.items():
        median = {measure: statistics.median(values) for measure, values in figures.items()}
        start_import, start_import_wall = median["start+import"], median["start+import wall"]
        import_ok = start_import * 1e3 <= IMPORT_GOAL_MS
        call_ok = median["call"] * 1e3 <= FIRST_CALL_GOAL_MS
        failed = failed or not (import_ok and call_ok)
        table.add(
            name,
            format_ms(start_import, signed=True) + ("" if import_ok else " !"),
            format_ms(start_import_wall, signed=True),
            format_ms(median["import"], signed=True),
            format_ms(median["import wall"], signed=True),
            format_ms(median["call"], signed=True) + ("" if call_ok else " !"),
            format_ms(median["call wall"], signed=True),
            format_ms(median["own call"], signed=True),
        )
    table.print()
    for case in MODULE_CASES:
        print("  %-14s import %s; %s" % (case.name, case.module, case.call.replace("M.", "")))
    print("start+imp: the interpreter's start-up (the agent's activation) and the import;")
    print("import: the import statement alone; call: the primitive's first use (under")
    print("the agent: loading its provider, cryptography included, and its self-check);")
    print("own: the same first call with cryptography's modules imported before it (the")
    print("agent's own part; call - own is what importing cryptography costs there).")
    print(
        "! marks a goal missed: start+imp <= +%.1f ms, first call <= +%.1f ms (CPU)"
        % (IMPORT_GOAL_MS, FIRST_CALL_GOAL_MS)
    )
    print(load_note())
    return 1 if strict and failed else 0


def pyenv_root() -> str:
    try:
        out = subprocess.run(
            ["pyenv", "root"], capture_output=True, text=True, check=True
        ).stdout.strip()
        if out:
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    return os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")


def find_interpreter(root: str, minor: str) -> str | None:
    """The newest CPython ``minor``.N under pyenv's versions (free-threaded builds excluded)."""
    pattern = re.compile(r"^%s\.(\d+)$" % re.escape(minor))
    found = []
    for path in glob.glob(os.path.join(root, "versions", minor + ".*")):
        match = pattern.match(os.path.basename(path))
        python = os.path.join(path, "bin", "python")
        if match and os.access(python, os.X_OK):
            found.append((int(match.group(1)), python))
    return max(found)[1] if found else None


def pycryptodome_pin() -> str:
    with open(os.path.join(ROOT, "requirements", "pycryptodome-4.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("pycryptodome=="):
                return line.strip()
    raise SetupError("requirements/pycryptodome-4.txt pins no pycryptodome")


def build_wheel(directory: str) -> str:
    run_quietly(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            directory,
            ROOT,
        ],
        "building the accel-agent wheel",
    )
    wheels = glob.glob(os.path.join(directory, "accel_agent-*.whl"))
    if len(wheels) != 1:
        raise SetupError(
            "expected one accel-agent wheel in %s, found %d" % (directory, len(wheels))
        )
    return wheels[0]


def ensure_agent_venv(interpreter: str, venv: str, wheel: str) -> dict:
    """A venv of ``interpreter`` with this wheel (reinstalled every time) and pycryptodome."""
    facts = interpreter_facts(venv_python(venv))
    if facts is None or facts["base"] != os.path.realpath(interpreter):
        print("setting up %s" % venv)
        shutil.rmtree(venv, ignore_errors=True)
        run_quietly([interpreter, "-m", "venv", venv], "creating %s" % venv)
    pip = [venv_python(venv), "-m", "pip", "--disable-pip-version-check", "install", "-q"]
    run_quietly(pip + [wheel, pycryptodome_pin()], "installing into %s" % venv)
    run_quietly(pip + ["--no-deps", "--force-reinstall", wheel], "reinstalling the agent")
    facts = interpreter_facts(venv_python(venv))
    if facts is None:
        raise SetupError("%s does not run after setup" % venv)
    return facts


def all_pythons(args: argparse.Namespace) -> int:
    runs = args.runs or 100
    root = pyenv_root()
    interpreters = {minor: find_interpreter(root, minor) for minor in args.versions}
    with tempfile.TemporaryDirectory(prefix="accel-bench-wheel-") as scratch:
        wheel = args.wheel or build_wheel(scratch)
        prepared = {}
        for minor, interpreter in interpreters.items():
            if interpreter is None:
                continue
            agent_venv = os.path.join(ROOT, ".venv-bench-py%s" % minor)
            baseline_venv = os.path.join(ROOT, ".venv-bench-py%s-noagent" % minor)
            try:
                agent_facts = ensure_agent_venv(interpreter, agent_venv, wheel)
                ensure_baseline(agent_facts, baseline_venv)
                pythons = {"agent": venv_python(agent_venv), "baseline": venv_python(baseline_venv)}
                preflight(pythons, [BASELINE, IDLE])
            except SetupError as exc:
                prepared[minor] = exc
                print("bench.startup: Python %s: %s" % (minor, exc), file=sys.stderr)
            else:
                prepared[minor] = (agent_facts, pythons)

    print()
    print("idle start-up cost per Python: `python -c pass`, %d interleaved runs each" % runs)
    table = Table(
        [
            "python",
            "baseline ms",
            "idle ms",
            "added ms",
            "CPU added",
            "ratio",
            "<= %.2f ms" % args.goal_ms,
        ]
    )
    failed = broken = False
    for minor, interpreter in interpreters.items():
        if interpreter is None:
            table.note("%-8s SKIPPED: no interpreter under %s/versions" % (minor, root))
            continue
        if isinstance(prepared[minor], SetupError):
            table.note("%-8s SETUP FAILED (the reason is above)" % minor)
            broken = True
            continue
        agent_facts, pythons = prepared[minor]
        print("measuring Python %s ..." % agent_facts["version"], file=sys.stderr, flush=True)
        result = measure(pythons, runs, args.warmup, [BASELINE, IDLE])
        base = statistics.median(result["samples"][BASELINE])
        idle = statistics.median(result["samples"][IDLE])
        added = statistics.median(result["added"][IDLE])
        passed, clock, _ = judge(result, args.goal_ms)
        failed = failed or not passed
        table.add(
            agent_facts["version"],
            format_ms(base),
            format_ms(idle),
            format_ms(added, signed=True),
            format_ms(statistics.median(result["cpu_added"][IDLE]), signed=True),
            format_ratio(idle / base),
            verdict(passed) + ("*" if clock == "CPU" else ""),
        )
    table.print()
    print("added ms: median of the per-round wall-clock differences; CPU added: the same for")
    print("the child's user+system CPU time. The verdict is on wall clock; * marks a verdict")
    print("on CPU time, where other load made wall clock too noisy to judge.")
    print(load_note())
    if broken:
        return 2
    return 1 if args.strict and failed else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.startup", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--runs", type=int, default=None, help="runs per case (200; 100 per Python)"
    )
    parser.add_argument("--warmup", type=int, default=5, help="rounds run first and thrown away")
    parser.add_argument("--goal-ms", type=float, default=GOAL_MS, help="idle cost goal (1.0)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument(
        "--module-runs",
        type=int,
        default=20,
        help="interleaved runs per patched module (import and first call); 0: skip them",
    )
    parser.add_argument(
        "--modules-only", action="store_true", help="only the per-module import and first call"
    )
    parser.add_argument("--agent-venv", default=os.path.join(ROOT, ".venv"))
    parser.add_argument("--baseline-venv", default=os.path.join(ROOT, ".venv-bench-noagent"))
    parser.add_argument(
        "--all-pythons", action="store_true", help="idle cost once per pyenv Python 3.9-3.13"
    )
    parser.add_argument(
        "--versions",
        type=lambda text: [part.strip() for part in text.split(",") if part.strip()],
        default=list(PYTHON_VERSIONS),
        help="with --all-pythons: comma-separated minor versions (3.9,...,3.13)",
    )
    parser.add_argument("--wheel", help="with --all-pythons: install this wheel, not a fresh build")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return all_pythons(args) if args.all_pythons else single(args)
    except SetupError as exc:
        print("bench.startup: %s" % exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
