"""The savings report: one JSON file per process, merged by ``accel-agent report``.

Real processes write the files (a parent, a forked pool and a spawned
subprocess), and the merged totals are checked against the calls they made;
the merge's arithmetic and labels are checked on hand-made reports.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

import accel_agent
from accel_agent import cli, savings, savings_merge
from helpers import clean_environment, run_python

# The parent makes PARENT calls, each of two pool workers WORKER_TASKS tasks of
# TASK calls, the subprocess CHILD calls: SHA-256 of 100 bytes, AES-GCM of 64.
PARENT, WORKER_TASKS, TASK, CHILD = 30, 4, 5, 7
SCRIPT = textwrap.dedent(
    """
    import multiprocessing, subprocess, sys
    from Crypto.Cipher import AES
    from Crypto.Hash import SHA256

    def work(count):
        for _ in range(count):
            SHA256.new(b"d" * 100).digest()
            AES.new(b"k" * 16, AES.MODE_GCM, nonce=b"n" * 12).encrypt_and_digest(b"p" * 64)
        return count

    if __name__ == "__main__":
        work(int(sys.argv[1]))
        pool = multiprocessing.get_context("fork").Pool(2)
        assert sum(pool.map(work, [int(sys.argv[3])] * int(sys.argv[2]), chunksize=1)) > 0
        pool.close()
        pool.join()
        code = "import sys; sys.path.insert(0, %r); import work_script; work_script.work(%s)"
        subprocess.run([sys.executable, "-c", code % (sys.path[0], sys.argv[4])], check=True)
    """
)


@pytest.mark.parametrize("mode", ["shadow", "quiet"])
def test_reports_from_a_pool_and_a_subprocess_add_up(mode, tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    script = tmp_path / "work_script.py"
    script.write_text(SCRIPT)
    env = clean_environment(
        ACCEL_AGENT=mode, ACCEL_AGENT_SHADOW_RATE="1", ACCEL_AGENT_REPORT=str(reports)
    )
    result = run_python(script, PARENT, WORKER_TASKS, TASK, CHILD, env=env)
    assert result.returncode == 0, result.stderr
    files = sorted(reports.glob("accel-agent-*-*.json"))
    assert len(files) == 4, files  # parent, two workers, subprocess
    merged = CliRunner().invoke(cli.cli, ["report", "--json", str(reports)])
    assert merged.exit_code == 0, merged.output
    account = json.loads(merged.output)
    calls = PARENT + WORKER_TASKS * TASK + CHILD
    assert account["processes"] == 4
    assert sum(account["hosts"].values()) == 4
    assert account["primitives"]["sha256"]["calls"] == calls
    assert account["primitives"]["aes-gcm"]["calls"] == calls
    assert account["totals"]["mismatches"] == 0
    if mode == "shadow":  # every call sampled: bytes and time measured
        sha = account["primitives"]["sha256"]
        assert sha["bytes"] == 100 * calls and sha["bytes_basis"] == "measured"
        gcm = account["primitives"]["aes-gcm"]
        assert gcm["bytes"] == 64 * calls and gcm["time_basis"] == "measured"
        # Both sides timed. Which is faster is the benchmarks' business: with
        # 77 calls over four processes, one first call on a loaded machine
        # (its provider's import) can outweigh the rest.
        assert gcm["native_cpu_s"] > 0 and gcm["agent_cpu_s"] > 0
        assert account["totals"]["comparisons"] >= 2 * calls
    table = CliRunner().invoke(cli.cli, ["report", str(reports)])
    assert table.exit_code == 0
    assert "4 processes on 1 hosts" in table.output
    assert table.output.splitlines()[0].split()[:3] == ["primitive", "calls", "bytes"]


def test_report_alone_samples_without_a_wrapper_per_call(tmp_path):
    target = tmp_path / "one.json"
    code = textwrap.dedent(
        """
        import time
        from Crypto.Hash import SHA256
        from accel_agent import instrument
        from Crypto.Hash import SHA256 as again
        bare = 0
        kept = []
        for i in range(20000):
            SHA256.new(b"x" * 200).digest()
            bare += not getattr(SHA256.new, "__accel_instrumented__", False)
            kept.append([i])  # what programs allocate and keep meanwhile
            if i % 2000 == 0:
                time.sleep(0.01)  # the sampling clock ticks: a few samples
        print(bare)
        """
    )
    env = clean_environment(ACCEL_AGENT="quiet", ACCEL_AGENT_REPORT=str(target))
    result = run_python("-c", code, env=env)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 19000  # most calls met the bare replacement
    report = json.loads(target.read_text())
    row = report["primitives"]["sha256"]
    assert row["calls"] == 20000
    assert 0 < row["samples"] < 1000
    assert row["sampled_bytes"] == 200 * row["samples"]
    assert report["shadow_rate"] is None
    account = savings_merge.merge([report])
    assert account["primitives"]["sha256"]["bytes"] == 200 * 20000
    assert account["primitives"]["sha256"]["bytes_basis"] == "estimated"


def test_report_alone_samples_with_the_collector_off_and_nothing_kept(tmp_path):
    """The sampling clock is not the garbage collector's: a loop that keeps nothing, with the
    collector off, is sampled too (it once got calls but no samples)."""
    target = tmp_path / "one.json"
    code = textwrap.dedent(
        """
        import gc, time
        gc.disable()
        from Crypto.Hash import SHA256
        collections = sum(s["collections"] for s in gc.get_stats())
        ends = time.monotonic() + 0.5
        calls = 0
        while time.monotonic() < ends:
            SHA256.new(b"x" * 200).digest()
            calls += 1
        print(calls, sum(s["collections"] for s in gc.get_stats()) - collections)
        """
    )
    env = clean_environment(ACCEL_AGENT="quiet", ACCEL_AGENT_REPORT=str(target))
    result = run_python("-c", code, env=env)
    assert result.returncode == 0, result.stderr
    calls, collections = map(int, result.stdout.split())
    assert collections == 0
    row = json.loads(target.read_text())["primitives"]["sha256"]
    assert row["calls"] == calls
    assert 0 < row["samples"] < calls / 10
    assert row["sampled_bytes"] == 200 * row["samples"]


def test_write_report_writes_now_and_needs_a_path(agent_state, tmp_path, monkeypatch):
    monkeypatch.delenv("ACCEL_AGENT_REPORT", raising=False)
    assert accel_agent.write_report() is None
    written = accel_agent.write_report(str(tmp_path))
    assert written.startswith(str(tmp_path / "accel-agent-"))
    with open(written) as handle:
        document = json.load(handle)
    assert document["kind"] == savings.REPORT_KIND and document["pid"] > 0
    assert savings_merge.load(written) == document


def _document(host: str, pid: int, shadow_rate, **rows) -> dict:
    return {
        "kind": savings.REPORT_KIND,
        "schema": savings.REPORT_SCHEMA,
        "host": host,
        "pid": pid,
        "shadow_rate": shadow_rate,
        "primitives": rows,
        "entry_points": {},
    }


def _row(calls, samples, sampled_bytes, agent_ns, native_ns=0, **extra):
    row = {
        "calls": calls,
        "samples": samples,
        "sampled_bytes": sampled_bytes,
        "sampled_agent_ns": agent_ns,
        "sampled_native_ns": native_ns,
        "comparisons": samples if native_ns else 0,
        "uncomparable": 0,
        "size_classes": {"<=1KiB": samples},
        "mismatches": [],
        "provider": "openssl",
        "native_reason": None,
    }
    row.update(extra)
    return row


def test_merge_adds_up_and_labels_measured_and_estimated():
    shadowed = _document(
        "a", 1, 0.5, **{"aes-gcm": _row(10, 5, 5000, 5_000, 50_000)}
    )  # 1 us agent, 10 us native per call
    reported = _document("b", 2, None, **{"aes-gcm": _row(30, 3, 3000, 3_000), "sha256": _row(
        8, 2, 200, 2_000)})  # fmt: skip
    broken = _document(
        "b",
        3,
        0.01,
        **{
            "sha256": _row(
                4,
                1,
                10,
                1_000,
                9_000,
                mismatches=[{"method": "digest", "size_class": "<=64B"}],
                native_reason="shadow mismatch (digest <=64B)",
                provider="native",
            )
        },
    )
    merged = savings_merge.merge([shadowed, reported, broken], {"sha256": {"1024": 3.0}})
    assert merged["processes"] == 3 and merged["hosts"] == {"a": 1, "b": 2}
    gcm = merged["primitives"]["aes-gcm"]
    assert gcm["calls"] == 40 and gcm["bytes"] == 40 * 1000 and gcm["bytes_basis"] == "estimated"
    assert gcm["time_basis"] == "measured"  # shadow samples exist: their per-call times rule
    assert gcm["agent_cpu_s"] == pytest.approx(40 * 1e-6)
    assert gcm["native_cpu_s"] == pytest.approx(40 * 10e-6)
    assert gcm["saved_cpu_s"] == pytest.approx(40 * 9e-6)
    sha = merged["primitives"]["sha256"]
    assert sha["calls"] == 12 and sha["mismatches"] == {"digest <=64B": 1}
    assert sha["native_reasons"] == {"shadow mismatch (digest <=64B)": 1}
    assert sha["time_basis"] == "measured"
    merged_without_shadow = savings_merge.merge([reported], {"sha256": {"1024": 3.0}})
    estimated = merged_without_shadow["primitives"]["sha256"]
    assert estimated["time_basis"] == "estimated"
    assert estimated["native_cpu_s"] == pytest.approx(3 * estimated["agent_cpu_s"])
    unknown = savings_merge.merge([reported], {})["primitives"]["sha256"]
    assert unknown["time_basis"] == "unknown" and unknown["saved_cpu_s"] is None
    assert merged["totals"]["mismatches"] == 1
    lines = savings_merge.table(merged)
    assert any(line.startswith("mismatch: sha256 digest <=64B (1)") for line in lines)
    assert any("~" in line and line.startswith("aes-gcm") for line in lines)


def test_report_refuses_what_is_not_a_report(tmp_path):
    stray = tmp_path / "other.json"
    stray.write_text('{"hello": 1}')
    result = CliRunner().invoke(cli.cli, ["report", str(stray)])
    assert result.exit_code == cli.BAD_REPORT
    assert "not an accel-agent savings report" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli.cli, ["report", str(empty)])
    assert result.exit_code == cli.BAD_REPORT
