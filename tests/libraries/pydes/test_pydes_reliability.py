"""pyDes under the agent when things go wrong, in threads and in a forked child.

* Faults (in real children, the agent started by its .pth): the Triple DES
  family excluded, pyca/cryptography unimportable. pyDes must give native
  results and make no accelerated call.
* Threads: objects used in many threads at once give native results (one
  object per thread: pyDes's own rounds keep scratch state in the object).
* fork: a child forked after the agent served calls goes on correctly.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

import helpers
from transparency_helpers import ensure_agent, is_accelerated, natively

pyDes = pytest.importorskip("pyDes", reason="pyDes is not installed (requirements/pyDes.txt)")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pydes_workload  # noqa: E402

PRIMITIVES = ("tdes-ecb", "tdes-cbc")


def run_child(tmp_path: Path, agent: str, **env: str) -> dict:
    variables = helpers.clean_environment(ACCEL_AGENT=agent, **env)
    result = helpers.run_python(HERE / "pydes_workload.py", "3", env=variables, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1]) | {"stderr": result.stderr}


@pytest.fixture(scope="module")
def native(tmp_path_factory) -> dict:
    return run_child(tmp_path_factory.mktemp("native"), "off")["results"]


def test_healthy_child_is_accelerated_and_native_exact(tmp_path, native):
    child = run_child(tmp_path, "quiet")
    assert child["results"] == native
    if is_accelerated("tdes-cbc"):
        assert all(child["calls"].get(name) for name in PRIMITIVES), child["calls"]


@pytest.mark.parametrize("fault", ["exclude", "no-cryptography"])
def test_faults_leave_pydes_native(tmp_path, native, fault):
    env = {}
    if fault == "exclude":
        env["ACCEL_AGENT_EXCLUDE"] = "tdes"
    else:
        shadow = tmp_path / "shadow" / "cryptography"
        shadow.mkdir(parents=True)
        (shadow / "__init__.py").write_text("raise ImportError('cryptography is broken here')\n")
        env["PYTHONPATH"] = str(shadow.parent)
    child = run_child(tmp_path, "quiet", **env)
    assert child["results"] == native
    assert not any(child["calls"].get(name) for name in PRIMITIVES), child["calls"]
    assert "Traceback" not in child["stderr"]


def test_threads_each_with_their_objects():
    ensure_agent()
    with natively():
        expected = {seed: pydes_workload.workload(seed) for seed in range(4)}
    results: dict[int, list] = {seed: [] for seed in range(4)}

    def worker(seed: int) -> None:
        for _ in range(3):
            results[seed].append(pydes_workload.workload(seed))

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for seed in range(4):
        assert results[seed] == [expected[seed]] * 3


def test_threads_with_new_objects_of_one_key():
    """Eight threads, each making a new object per message of one key: the schedule and the
    single-DES contexts kept for that key serve them all, and each result (and state) is
    native's."""
    ensure_agent()
    key, iv = bytes(range(24)), bytes(range(8))
    messages = [bytes([index]) * (8 * (index + 1)) for index in range(6)]

    def run() -> list:
        out = []
        for message in messages:
            for cls, size in ((pyDes.triple_des, 24), (pyDes.triple_des, 16), (pyDes.des, 8)):
                obj = cls(key[:size], pyDes.CBC, iv)
                sealed = obj.encrypt(message)
                out.append((sealed, obj.decrypt(sealed), obj.getIV()))
        return out

    with natively():
        expected = run()
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(run())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 8


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_forked_child_goes_on_with_checked_objects():
    ensure_agent()
    key, iv = bytes(range(24)), bytes(8)
    cipher = pyDes.triple_des(key, pyDes.CBC, iv)
    first = cipher.encrypt(b"a" * 24)  # its parts' round keys checked in the parent
    with natively():
        reference = pyDes.triple_des(key, pyDes.CBC, iv)
        expected = reference.encrypt(b"a" * 24) + reference.encrypt(b"b" * 48)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: continue the same object, report, leave at once
        try:
            os.write(write, cipher.encrypt(b"b" * 48))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        in_child = pipe.read()
    os.waitpid(pid, 0)
    assert first + in_child == expected
    assert first + cipher.encrypt(b"b" * 48) == expected
