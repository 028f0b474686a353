"""``accel-agent bench``: the command from an installed wheel, its files, A/B and exit codes.

The real runs use the session's wheel-installed venv (conftest's
``installed_venv``) from a temporary directory, so they prove the command
works without the source tree. Each measures one or two rows with tiny
samples (about a second per run): what is checked is the plumbing, not
the figures.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import threading
import time
import types
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from accel_agent import cli
from accel_agent.bench import command, crypto, families, report, targets, threads, timing
from accel_agent.bench.progress import ProgressBar
from helpers import (
    MASK_AES_NI,
    assert_no_traceback,
    clean_environment,
    requires_aes_acceleration,
    requires_aes_ni,
)

try:
    import matplotlib  # noqa: F401

    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

# One row, one size, the shortest samples: the plumbing, not the figures.
TINY = ("--reps", "2", "--loops", "1", "--sample-ms", "0.2", "--no-progress")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
WIDTH = 80


def bench(venv, cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(venv.command), "bench", *args],
        cwd=cwd,
        env=clean_environment() if env is None else env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_no_traceback(result.stderr)
    return result


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == report.CSV_FIELDS
        return list(reader)


def assert_fits_80_columns(text: str) -> None:
    """Tables and notes fit an 80-column terminal ("wrote PATH" lines are as long as PATH)."""
    lines = [line for line in text.splitlines() if not line.startswith("wrote ")]
    too_wide = [line for line in lines if len(line) > WIDTH]
    assert not too_wide, too_wide


# --------------------------------------------------------------------------- real runs


def test_quick_run_from_the_wheel_writes_table_csv_and_chart(installed_venv, tmp_path):
    result = bench(installed_venv, tmp_path, "--quick", "--family", "aes", "--rows", "gcm enc")
    assert result.returncode == cli.OK, result.stderr
    assert result.stderr == "" if HAVE_MATPLOTLIB else "accel-agent[chart]" in result.stderr
    assert "machine: " in result.stdout
    assert "gcm enc" in result.stdout and "agt/nat" in result.stdout
    assert_fits_80_columns(result.stdout)
    rows = read_csv(tmp_path / command.DEFAULT_CSV)
    # --quick: 64 B and 16 KiB; --rows matches substrings ("gcm-256 enc" does not contain it)
    assert [(r["row"], r["size"]) for r in rows] == [
        ("gcm enc", "64"), ("gcm enc", "16384"),
        ("gcm enc header", "64"), ("gcm enc header", "16384"),
        ("gcm enc into", "64"), ("gcm enc into", "16384"),
    ]  # fmt: skip
    for row in rows:
        assert row["family"] == "aes" and row["aesni"] == "as-is"
        assert float(row["native_ns"]) > 0 and float(row["speedup"]) > 0
        assert row["outputs_differ"] == ""
    if HAVE_MATPLOTLIB:
        assert (tmp_path / command.DEFAULT_CHART).read_bytes()[:8] == PNG_SIGNATURE


def test_threads_run_the_bulk_rows_on_each_count_and_judge_them(installed_venv, tmp_path):
    result = bench(
        installed_venv, tmp_path, "--quick", "--family", "aes", "--rows", "gcm enc",
        "--sizes", "64", "--threads", "1,2", "--check-goals",
    )  # fmt: skip
    assert result.returncode == cli.OK, result.stderr
    assert_fits_80_columns(result.stdout)
    assert "threaded rows" in result.stdout
    with open(tmp_path / "accel-agent-bench-threads.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == report.THREADS_CSV_FIELDS
        records = list(reader)
    # "gcm enc" matches "gcm enc", "gcm enc header" and "gcm enc into", message-size rows; at 1 MiB
    assert [(r["row"], r["threads"]) for r in records] == [
        ("gcm enc", "1"), ("gcm enc", "2"), ("gcm enc header", "1"), ("gcm enc header", "2"),
        ("gcm enc into", "1"), ("gcm enc into", "2"),
    ]  # fmt: skip
    for record in records:
        assert record["size"] == str(threads.SIZE) and record["outputs_differ"] == ""
        assert min(float(record[k]) for k in ("native_mbps", "agent_mbps", "direct_mbps")) > 0
    # every row of the per-call table carries both clocks
    for row in read_csv(tmp_path / command.DEFAULT_CSV):
        assert float(row["cpu_agent_ns"]) > 0 and float(row["wall_agent_ns"]) > 0


def test_aggregate_rate_scales_with_threads_only_where_the_gil_is_released():
    """Calls that release the GIL add up across threads; calls that hold a lock do not.

    A lock held across the call stands in for the GIL: CPU-bound Python code
    holding the real GIL measured this too, but on a loaded machine two
    spinning threads win more CPU from the other processes than one, and
    the test failed now and then. Sleeping is immune to that.
    """
    lock = threading.Lock()

    def sleeps():  # time.sleep releases the GIL
        time.sleep(0.005)

    def serialized():  # one thread at a time, as under a GIL that is never released
        with lock:
            time.sleep(0.005)

    one, two = (threads.aggregate_rate(sleeps, n, 0.2) for n in (1, 2))
    assert two > 1.5 * one
    one, two = (threads.aggregate_rate(serialized, n, 0.2) for n in (1, 2))
    assert two < 1.3 * one


class _StillSwitch:
    """An AgentSwitch stand-in for rows that need no agent."""

    def native(self) -> None:
        pass

    def agent(self) -> None:
        pass


def test_a_threaded_row_that_raises_is_listed_and_the_others_measured():
    def fine(size):
        data = bytes(size)
        return (lambda: data), (lambda: data)

    def broken(size):
        def direct():
            raise AttributeError("no encrypt_into here")

        return (lambda: b""), direct

    module = types.SimpleNamespace(
        NAME="fake",
        ROWS=(families.Row("broken", "aes-gcm", broken), families.Row("fine", "aes-gcm", fine)),
    )
    records, errors = threads.run([module], [1], _StillSwitch(), quick=True)
    assert [(r["row"], r["threads"], r["outputs_differ"]) for r in records] == [("fine", 1, [])]
    assert errors == [
        "fake broken on threads: direct raised AttributeError: no encrypt_into here"
    ]


def test_both_clocks_time_the_same_loops():
    variant = timing.Variant("sleep", lambda: time.sleep(0.001))
    measured = timing.measure_clocks([variant], 2, 1, 3e6, ("cpu", "wall"))
    assert measured["wall"]["sleep"].median >= 1e6  # asleep: on the wall clock only
    assert measured["cpu"]["sleep"].median < 0.5e6
    assert measured["wall"]["sleep"].number == measured["cpu"]["sleep"].number


def test_a_goal_holds_only_on_every_clock():
    goal = targets.Goal("gcm enc", 64, min_fraction=0.5)
    row = {
        "fraction_of_direct": 0.9,
        "speedup": 10.0,
        "by_clock": {
            "cpu": {"fraction_of_direct": 0.9, "speedup": 10.0},
            "wall": {"fraction_of_direct": 0.4, "speedup": 0.9},
        },
    }
    passed, measured, others = targets.judge_on_every_clock(goal, row)
    assert not passed and measured == "0.90x" and others == {"wall": "0.40x"}
    assert targets.slower_rows([row], "wall") == [row]
    assert targets.slower_rows([row], "cpu") == []


def test_threads_option_parses_counts_and_cores():
    assert cli._thread_counts("1, 2,cores") == [1, 2] + (
        [os.cpu_count()] if (os.cpu_count() or 1) > 2 else []
    )
    for bad in ("0", "two"):
        with pytest.raises(click.BadParameter):
            cli._thread_counts(bad)
    assert report.threads_csv_path("out/b.csv") == "out/b-threads.csv"


def test_without_matplotlib_the_csv_and_table_are_written_and_the_hint_given(
    installed_venv, tmp_path
):
    shadow = tmp_path / "shadow"
    (shadow / "matplotlib").mkdir(parents=True)
    (shadow / "matplotlib" / "__init__.py").write_text(
        "raise ImportError(\"No module named 'matplotlib'\", name='matplotlib')\n"
    )
    env = clean_environment(PYTHONPATH=str(shadow))
    result = bench(
        installed_venv, tmp_path, "--family", "aes", "--rows", "ecb 1 block", *TINY, env=env
    )
    assert result.returncode == cli.OK, result.stderr
    assert "ecb 1 block" in result.stdout
    assert (tmp_path / command.DEFAULT_CSV).exists()
    assert not (tmp_path / command.DEFAULT_CHART).exists()
    assert "matplotlib is not installed" in result.stderr
    assert "pip install 'accel-agent[chart]'" in result.stderr


@requires_aes_ni
@requires_aes_acceleration
def test_aesni_ab_repeats_the_aes_rows_in_a_masked_child(installed_venv, tmp_path):
    result = bench(
        installed_venv, tmp_path, "--aesni-ab", "--family", "aes", "--rows", "ecb 1 block",
        "--no-files", "--json", *TINY,
    )  # fmt: skip
    assert result.returncode == cli.OK, result.stderr
    doc = json.loads(result.stdout)
    masked = doc["aesni_ab"]["masked_run"]
    assert masked["machine"]["openssl_ia32cap"] == MASK_AES_NI
    assert doc["machine"]["openssl_ia32cap"] is None
    # Here the agent serves AES through OpenSSL; in the child its platform gate refuses.
    assert [r["via"] for r in doc["rows"]] == ["openssl"]
    assert [r["via"] for r in masked["rows"]] == ["native"]
    assert "masked by OPENSSL_ia32cap" in masked["agent"]["primitives"]["aes-ecb"]["reason"]
    (paired,) = doc["aesni_ab"]["rows"]
    assert paired["row"] == "ecb 1 block" and paired["aesni_gain"] > 0


@requires_aes_ni
@requires_aes_acceleration
def test_aesni_ab_table_and_csv(installed_venv, tmp_path):
    chart = tmp_path / "out" / "speedups.png"
    result = bench(
        installed_venv, tmp_path, "--aesni-ab", "--family", "aes", "--rows", "ecb 1 block",
        "--chart", str(chart), *TINY,
    )  # fmt: skip
    assert result.returncode == cli.OK, result.stderr
    assert "AES-NI A/B" in result.stdout and "NI gain" in result.stdout
    if HAVE_MATPLOTLIB:  # a chart where asked (its directory made), none at the default
        assert chart.read_bytes()[:8] == PNG_SIGNATURE
        assert "wrote %s" % chart in result.stdout
        assert not (tmp_path / command.DEFAULT_CHART).exists()
    assert_fits_80_columns(result.stdout)
    rows = read_csv(tmp_path / command.DEFAULT_CSV)
    assert [(r["row"], r["aesni"], r["served_by"]) for r in rows] == [
        ("ecb 1 block", "as-is", "openssl"),
        ("ecb 1 block", "masked", "native"),
    ]


def test_json_output_is_one_document(installed_venv, tmp_path):
    result = bench(
        installed_venv, tmp_path, "--family", "aes", "--rows", "ctr", "--sizes", "1K",
        "--json", "--no-files", "--check-goals", *TINY,
    )  # fmt: skip
    assert result.returncode == cli.OK, result.stderr
    doc = json.loads(result.stdout)
    rows = [(r["row"], r["size"]) for r in doc["rows"]]
    assert rows[0] == ("ctr", 1024) and ("ctr into", 1024) in rows
    assert all("ctr" in label for label, _size in rows)  # --rows: labels containing the text
    assert {"speedup", "direct_speedup", "fraction_of_direct"} <= set(doc["rows"][0])
    assert any(goal["goal"] == "aes ctr 1 KiB" for goal in doc["goals"])
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- exit codes


def test_unknown_family_is_a_usage_error(installed_venv, tmp_path):
    result = bench(installed_venv, tmp_path, "--family", "nonesuch", *TINY)
    assert result.returncode == cli.USAGE
    assert "unknown family nonesuch" in result.stderr


def test_bad_size_is_a_usage_error():
    result = CliRunner().invoke(cli.cli, ["bench", "--sizes", "12Q"])
    assert result.exit_code == cli.USAGE
    assert "is not a size like 64, 1K or 1M" in result.output


def test_nothing_measured(installed_venv, tmp_path):
    result = bench(installed_venv, tmp_path, "--family", "aes", "--rows", "no such row", *TINY)
    assert result.returncode == cli.NOTHING_MEASURED
    assert result.stderr.startswith("accel-agent: nothing measured")
    assert list(tmp_path.iterdir()) == []


def test_unwritable_csv(installed_venv, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = bench(
        installed_venv, tmp_path, "--family", "aes", "--rows", "ecb 1 block",
        "--csv", str(blocker / "rows.csv"), *TINY,
    )  # fmt: skip
    assert result.returncode == cli.CANNOT_WRITE
    assert result.stderr.startswith("accel-agent: cannot write ")


def test_outputs_that_differ_exit_1(agent_state, monkeypatch, tmp_path):
    """A row whose agent output differs from native's is a correctness bug: exit 1, flagged."""
    calls = {"n": 0}

    def build(size):
        def pycryptodome():  # differs between the native check and the agent check
            calls["n"] += 1
            return b"%d" % calls["n"]

        return pycryptodome, lambda: b"1"

    fake = type(
        "FakeFamily",
        (),
        {
            "NAME": "fake",
            "TITLE": "a family whose outputs differ",
            "ROWS": (families.Row("differs", "aes-ecb", build, sizes=(16,)),),
        },
    )
    monkeypatch.setattr(command, "FAMILIES", ("fake",))
    monkeypatch.setattr(crypto, "load", lambda name: fake)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        cli.cli, ["bench", "--family", "fake", "--no-files", *TINY], catch_exceptions=False
    )
    assert result.exit_code == cli.BROKEN_ROWS, result.output
    assert "OUTPUTS DIFFER" in result.output
    assert "differs !" in result.output


# --------------------------------------------------------------------------- pieces


def test_progress_bar_draws_on_a_terminal_and_erases_itself():
    stream = io.StringIO()
    bar = ProgressBar(stream, enabled=True)
    bar.waiting("loading the families")
    bar.start(3)
    for label in ("aes ctr 64 B", "aes ctr 1 KiB", "aes ctr 16 KiB"):
        bar.step(label)
    bar.finish()
    drawn = stream.getvalue()
    assert drawn.startswith("\r\x1b[Kloading the families\r")
    assert "[" + "." * 20 + "] 1/3  aes ctr 64 B" in drawn
    assert "3/3" in drawn and "left  aes ctr 16 KiB" in drawn
    assert drawn.endswith("\r\x1b[K")


def test_progress_bar_is_silent_off_a_terminal():
    stream = io.StringIO()  # isatty() is False
    bar = ProgressBar(stream)
    bar.waiting("loading the families")
    bar.start(1)
    bar.step("aes ctr 64 B")
    bar.finish()
    assert stream.getvalue() == ""


def test_quick_settings_and_the_slow_row_rule():
    quick = crypto.Settings(quick=True)
    assert quick.sizes == list(crypto.QUICK_SIZES) and quick.max_call_ns == crypto.QUICK_MAX_CALL_NS
    full = crypto.Settings()
    assert full.sizes == list(families.STANDARD_SIZES) and full.max_call_ns is None
    with pytest.raises(ValueError, match="unknown clock"):
        crypto.Settings(clock="sundial")


def test_sizes_option_parses_units():
    assert cli._sizes(None, None, "64, 1K,16KiB,1M") == [64, 1024, 16384, 1024 * 1024]
    assert cli._sizes(None, None, None) == []


def test_child_options_follow_the_parent():
    options = command.Options(
        families=["hashes"], quick=True, rows=["gcm"], sizes=[64], reps=3, aesni_ab=True
    )
    assert options.families == ["hashes", "aes"]  # --aesni-ab needs the AES rows
    assert options.timing_arguments() == [
        "--clock", "cpu", "--quick", "--reps", "3", "--sizes", "64", "--rows", "gcm",
    ]  # fmt: skip


def test_a_family_whose_library_is_missing_is_left_out_with_the_reason(monkeypatch):
    def load(name):
        if name == "aes":
            raise ModuleNotFoundError("No module named 'Crypto'", name="Crypto")
        return type("Family", (), {"NAME": name})

    monkeypatch.setattr(crypto, "load", load)
    modules, skipped = crypto.load_families(["aes", "hashes"])
    assert [m.NAME for m in modules] == ["hashes"]
    assert skipped == {"aes": "pycryptodome (Crypto) is not installed"}


def test_a_long_chart_splits_into_two_columns_between_families():
    from accel_agent.bench import chart

    rows = [{"family": "a"}] * 30 + [{"family": "b"}] * 20 + [{"family": "c"}] * 40
    assert chart.split_columns(rows[:60]) == [rows[:60]]  # short enough: one column
    left, right = chart.split_columns(rows)
    assert (len(left), len(right)) == (50, 40)  # the family boundary nearest the middle
    assert chart.split_columns([{"family": "a"}] * 90) == [[{"family": "a"}] * 90]


def test_a_shortened_label_keeps_its_marks():
    from accel_agent.bench.table import Table

    table = Table(["row", "speed-up"], width=20)
    table.add("pbkdf2-sha256 600k it", "1.00x", suffix="*~")
    table.add("md5", "7.20x")
    assert table.render().splitlines() == [
        "row         speed-up",
        "-" * 20,
        "pbkdf2~ *~     1.00x",
        "md5            7.20x",
    ]


def test_every_family_module_follows_the_api():
    """Each name in FAMILIES imports (or names the library it lacks) and has NAME, TITLE, ROWS.

    Catches a family moved from the old bench/families/ with its import line
    left as ``from bench.families import``.
    """
    modules, skipped = crypto.load_families(families.FAMILIES)
    assert all(reason.endswith(" is not installed") for reason in skipped.values()), skipped
    # "bench is not installed": the old package name, a family whose import line was not moved
    assert not any(reason.startswith("bench ") for reason in skipped.values()), skipped
    for module in modules:
        assert module.NAME in families.FAMILIES and module.TITLE
        assert module.ROWS and all(isinstance(row, families.Row) for row in module.ROWS)
        labels = [row.label for row in module.ROWS]
        assert len(labels) == len(set(labels)), module.NAME


def test_every_target_names_a_row_its_family_measures_at_that_size():
    """A target for a row or size that no family measures would SKIP forever, unnoticed."""
    assert set(targets.TARGETS) <= set(families.FAMILIES)
    modules, skipped = crypto.load_families(list(targets.TARGETS))
    assert not skipped, skipped  # the test extra installs every family's library
    for module in modules:
        sizes = {
            row.label: set(row.sizes_for(families.STANDARD_SIZES)) for row in module.ROWS
        }
        for goal in targets.for_family(module.NAME):
            assert goal.row in sizes, (module.NAME, goal)
            assert goal.size in sizes[goal.row], (module.NAME, goal)


def test_the_documented_targets_are_the_code_s():
    text = (Path(__file__).resolve().parents[1] / "docs" / "performance.md").read_text()
    assert targets.markdown_table() in text
