"""The program the subprocess tests start: a user's program, with a fault put in its way.

    python [-S] child.py SCENARIO [ARGS...]

Environment:

* ``REL_FAULT``: a name from :data:`INJECTIONS`, applied before any crypto call
  (and, with ``-S``, before the agent activates);
* ``REL_PATHS``: with ``-S``, a JSON list of directories to put on sys.path
  (the agent's and pycryptodome's), after which ``import accel_agent.auto``
  activates the agent in the mode ``ACCEL_AGENT`` names.

Every scenario ends by printing one line, ``REL-REPORT {json}``: the
workloads' results as hex and what the agent did (active, calls per
primitive). A scenario never prints key material or data, only results.
"""

from __future__ import annotations

import json
import os
import sys

if sys.flags.no_site and os.environ.get("REL_PATHS"):
    sys.path[1:1] = json.loads(os.environ["REL_PATHS"])

import families  # noqa: E402 - after the paths

MARKER = "PROGRAM-RAN"


# ----------------------------------------------------------------------------- faults


def _provider_unavailable() -> None:
    """An OpenSSL too old for one primitive: its factory refuses, as a real one would."""
    from accel_agent.providers import aes
    from accel_agent.providers.base import ProviderUnavailable

    def gcm_provider():
        raise ProviderUnavailable("OpenSSL 1.0.2 is too old for AES-GCM (simulated)")

    aes.gcm_provider = gcm_provider


def _factory_crashes() -> None:
    """A provider whose construction fails with something else than ProviderUnavailable."""
    from accel_agent.providers import aes

    def gcm_provider():
        raise RuntimeError("simulated OpenSSL initialisation error")

    aes.gcm_provider = gcm_provider


def _known_answer_fails() -> None:
    """AES-CBC's known answer comes out wrong (one byte of the expected ciphertext flipped)."""
    from accel_agent import selfcheck

    checker, vectors = selfcheck.load("aes-cbc")
    label, key, iv, plaintext, ciphertext = vectors[0]
    wrong = bytes([ciphertext[0] ^ 1]) + ciphertext[1:]
    selfcheck.KNOWN_ANSWERS["aes-cbc"] = (checker, ((label, key, iv, plaintext, wrong),))


def _platform_facts_with(**replacements) -> None:
    """Compute the platform facts now, through platform's own reader, with some inputs replaced."""
    from accel_agent import platform

    saved = {}
    targets = {"sys.platform": (sys, "platform"), "os.confstr": (os, "confstr")}
    for name, value in replacements.items():
        owner, attribute = targets.get(name, (platform, name))
        saved[(owner, attribute)] = getattr(owner, attribute)
        setattr(owner, attribute, value)
    try:
        platform._facts = None
        platform.facts()
    finally:
        for (owner, attribute), value in saved.items():
            setattr(owner, attribute, value)


def _no_confstr(name):
    raise ValueError("unrecognized configuration name")  # what musl's Python raises


def _musl() -> None:
    _platform_facts_with(**{"os.confstr": _no_confstr, "_musl_loader_present": lambda: True})


def _not_linux() -> None:
    _platform_facts_with(**{"sys.platform": "darwin"})


def _cpuinfo_unreadable() -> None:
    import builtins

    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if file == "/proc/cpuinfo":
            raise PermissionError(13, "Permission denied", file)
        return real_open(file, *args, **kwargs)

    builtins.open = guarded_open
    try:
        _platform_facts_with()
    finally:
        builtins.open = real_open


def _config_file() -> None:
    """The environment's default file is the one REL_CONF names (its content is the fault)."""
    from accel_agent import _boot

    path = os.environ["REL_CONF"]
    _boot.default_file_path = lambda: path


def _calibration_cache() -> None:
    """This machine's calibration cache holds what REL_CALIBRATION holds (a directory: "dir")."""
    import shutil

    from accel_agent import calibration

    path = calibration.cache_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    source = os.environ["REL_CALIBRATION"]
    if source == "dir":
        os.makedirs(path, exist_ok=True)
    else:
        shutil.copyfile(source, path)
    calibration.reset_cache()


INJECTIONS = {
    "openssl-too-old": _provider_unavailable,
    "provider-factory-crashes": _factory_crashes,
    "known-answer-fails": _known_answer_fails,
    "musl": _musl,
    "not-linux": _not_linux,
    "cpuinfo-unreadable": _cpuinfo_unreadable,
    "config-file": _config_file,
    "calibration-cache": _calibration_cache,
}


# ----------------------------------------------------------------------------- reporting


def agent_facts() -> dict:
    """What the agent did in this process; ``error`` when it cannot even be imported."""
    try:
        from accel_agent import activation, patching, registry
    except Exception as exc:  # noqa: BLE001 - a broken agent is one of the faults
        return {"error": type(exc).__name__, "active": False, "calls": {}}
    return {
        "active": activation.is_active(),
        "mode": activation.current_mode(),
        "calls": registry.calls(),
        "patched": sorted(patching.patched_names()),
    }


def run_workloads() -> dict:
    results = {}
    for family in families.FAMILIES:
        for pkg in families.installed_flavours():
            for label, value in family.workload(pkg).items():
                results["%s/%s/%s" % (family.name, pkg, label)] = value.hex()
    return results


def report(**facts) -> None:
    print("REL-REPORT " + json.dumps(facts, sort_keys=True), flush=True)


# ----------------------------------------------------------------------------- scenarios


def scenario_workload() -> None:
    """A user's program: fault, start-up (``-S``: ``import accel_agent.auto``), crypto calls."""
    fault = os.environ.get("REL_FAULT")
    if fault:
        INJECTIONS[fault]()
    if sys.flags.no_site:
        import accel_agent.auto  # noqa: F401 - activates (assert mode may end the process here)
    print(MARKER, flush=True)
    results = run_workloads()
    report(results=results, agent=agent_facts())


def _fork_child(write_end: int, work) -> None:
    """In a forked child: run ``work``, send its JSON down the pipe, leave without cleanup."""
    code = 0
    try:
        payload = json.dumps(work()).encode()
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
    except BaseException:  # noqa: BLE001 - the parent sees the exit code
        code = 1
    finally:
        os._exit(code)


def fork_and_collect(work, timeout: float = 30.0) -> dict:
    """Fork; the child runs ``work``; the parent waits (bounded) and returns what it sent."""
    import select
    import signal

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _fork_child(write_end, work)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"hung": True}
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return {"failed": status}
    return json.loads(b"".join(chunks))


def _child_work() -> dict:
    return {"results": run_workloads(), "agent": agent_facts(), "pid": os.getpid()}


def scenario_fork() -> None:
    """Forked children: before any primitive was decided, after, and mid-stream objects."""
    from accel_agent import registry

    pkg = families.installed_flavours()[0]
    aes = __import__(pkg + ".Cipher.AES", fromlist=["new"])
    before_decision = fork_and_collect(_child_work)
    parent = run_workloads()  # decides every AES primitive in the parent
    after_decision = fork_and_collect(_child_work)
    # An object half-way through a stream, continued on both sides of a fork.
    streams = {}
    for label, mode, kwargs in (
        ("ctr", aes.MODE_CTR, {"nonce": bytes(8)}),
        ("cbc", aes.MODE_CBC, {"iv": bytes(16)}),
        ("cfb8", aes.MODE_CFB, {"iv": bytes(16)}),
        ("ofb", aes.MODE_OFB, {"iv": bytes(16)}),
        ("gcm", aes.MODE_GCM, {"nonce": bytes(12)}),
    ):
        streams[label] = aes.new(bytes(range(16)), mode, **kwargs)
        streams[label].encrypt(bytes(48))

    def continue_streams() -> dict:
        return {
            label: (obj.encrypt(bytes(32)) + (obj.digest() if label == "gcm" else b"")).hex()
            for label, obj in streams.items()
        }

    in_child = fork_and_collect(continue_streams)
    in_parent = continue_streams()
    report(
        parent=parent,
        before_decision=before_decision,
        after_decision=after_decision,
        streams_child=in_child,
        streams_parent=in_parent,
        agent=agent_facts(),
        decided=[choice.primitive for choice in registry.decided()],
    )


def scenario_fork_during_decision() -> None:
    """Fork while another thread is still deciding a primitive (its self-check running)."""
    import threading
    import time

    from accel_agent.providers import aes as aes_providers

    real = aes_providers.gcm_provider
    entered = threading.Event()

    def slow_gcm_provider():
        entered.set()
        time.sleep(1.0)  # a slow self-check, or a slow first import of cryptography
        return real()

    aes_providers.gcm_provider = slow_gcm_provider
    pkg = families.installed_flavours()[0]
    aes = __import__(pkg + ".Cipher.AES", fromlist=["new"])
    thread = threading.Thread(target=lambda: aes.new(bytes(16), aes.MODE_GCM, nonce=bytes(12)))
    thread.start()
    entered.wait(10)
    child = fork_and_collect(_child_work, timeout=float(os.environ.get("REL_FORK_TIMEOUT", "5")))
    thread.join()
    report(child=child)


def _pool_work(_index: int) -> dict:
    return {"results": run_workloads(), "agent": agent_facts(), "pid": os.getpid()}


def scenario_pool(method: str) -> None:
    """A multiprocessing pool with ``method``; each worker runs the workloads."""
    import multiprocessing

    with multiprocessing.get_context(method).Pool(2) as pool:
        answers = pool.map(_pool_work, range(2))
    report(workers=answers, parent=agent_facts())


# AES-128 of the zero block under the zero key (FIPS 197's vectors give the same).
_AES_ZERO_BLOCK = bytes.fromhex("66e94bd4ef8a2c3b884cfa59ca342b2e")


def scenario_import_race(threads: str) -> None:
    """Many threads import the watched modules at once, for the first time in this process,
    and call them at once: the patch, which runs at the first call, runs once."""
    import importlib
    import threading

    from accel_agent import hooks, patching
    from accel_agent.targets import HOOKS

    watched = [name for name in HOOKS if name.endswith(".Cipher.AES")]
    executed: dict[str, int] = {}
    patched: dict[str, int] = {}

    class CountingFinder:
        """Counts executions of the watched modules; sits behind the agent's finder."""

        def find_spec(self, fullname, path=None, target=None):
            if fullname not in watched:
                return None
            for finder in sys.meta_path:
                if finder is self or isinstance(finder, hooks.PostImportFinder):
                    continue
                spec = getattr(finder, "find_spec", lambda *a: None)(fullname, path, target)
                if spec is not None:
                    loader = spec.loader
                    real_exec = loader.exec_module

                    def exec_module(module, real_exec=real_exec):
                        executed[module.__name__] = executed.get(module.__name__, 0) + 1
                        real_exec(module)

                    loader.exec_module = exec_module
                    return spec
            return None

    agent_finder = next(
        i for i, f in enumerate(sys.meta_path) if isinstance(f, hooks.PostImportFinder)
    )
    sys.meta_path.insert(agent_finder + 1, CountingFinder())  # asked by the agent's finder
    spec = HOOKS[watched[0]]
    module_name, _, attribute = spec.partition(":")
    target = importlib.import_module(module_name)
    real_patch = getattr(target, attribute)

    def counting_patch(module):
        patched[module.__name__] = patched.get(module.__name__, 0) + 1
        return real_patch(module)

    setattr(target, attribute, counting_patch)
    barrier = threading.Barrier(int(threads))
    seen: list = []
    errors: list = []

    def importer(index: int) -> None:
        try:
            barrier.wait()
            name = watched[index % len(watched)] if index % 3 else watched[0]
            module = importlib.import_module(name)
            # The first calls race too: the patch runs at the first (hooks.FirstCallPatch);
            # a call made while it installs may be served natively, never wrongly.
            block = module.new(bytes(16), module.MODE_ECB).encrypt(bytes(16))
            seen.append((name, id(module), block == _AES_ZERO_BLOCK))
        except BaseException as exc:  # noqa: BLE001 - reported
            errors.append(repr(exc))

    workers = [threading.Thread(target=importer, args=(i,)) for i in range(int(threads))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    modules = {name: sys.modules.get(name) for name in watched}
    report(
        watched=watched,
        executed=executed,
        patched=patched,
        errors=errors,
        seen_same_module=all(id(modules[name]) == module_id for name, module_id, _ in seen),
        seen_right=[ok for _, _, ok in seen],
        seen_patched=[
            modules[name].new is not patching.get_original(name, "new") for name, _, _ in seen
        ],
        originals=sorted(patching.patched_names()),
        wrapped_once=[
            getattr(modules[name].new, "__wrapped__", None) is patching.get_original(name, "new")
            and not hasattr(patching.get_original(name, "new"), "__wrapped__")
            for name in watched
            if modules[name] is not None and patching.is_patched(name, "new")
        ],
    )


def exception_texts(exc: BaseException) -> list[str]:
    """str and repr of an exception and of everything chained to it (cause, context, notes)."""
    texts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        texts += [str(exc), repr(exc)] + [str(note) for note in getattr(exc, "__notes__", ())]
        exc = exc.__cause__ or exc.__context__
    return texts


def scenario_secrets() -> None:
    """Every mode and error path with marked values; then status() and verify --json."""
    import logging

    logging.basicConfig(level=logging.DEBUG, format="LOG %(name)s %(message)s")
    import accel_agent
    from accel_agent import cli

    texts = []
    for family in families.FAMILIES:
        for pkg in families.installed_flavours():
            for exc in family.secret_paths(pkg, families.Secrets):
                texts += exception_texts(exc)
    print("EXCEPTIONS " + json.dumps(texts), flush=True)
    print("STATUS " + json.dumps(accel_agent.status(), sort_keys=True), flush=True)
    code = cli.main(["verify", "--json", "--no-cpuinfo"])
    report(exceptions=len(texts), verify_exit=code, agent=agent_facts())


SCENARIOS = {
    "workload": scenario_workload,
    "fork": scenario_fork,
    "fork-during-decision": scenario_fork_during_decision,
    "pool": scenario_pool,
    "import-race": scenario_import_race,
    "secrets": scenario_secrets,
}

if __name__ == "__main__":
    SCENARIOS[sys.argv[1]](*sys.argv[2:])
