"""The accel-agent command, through click's CliRunner and as a real process.

``enable``/``disable`` change an environment-wide default; as real processes
they run only in the session's throwaway venv (conftest's ``installed_venv``),
in-process only against a default file redirected into a temporary directory.
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import accel_agent
from accel_agent import _boot, calibration, catalog, cli, config, registry, verify_report
from helpers import (
    MASK_AES_NI,
    REPORT_CODE,
    assert_no_traceback,
    assert_status_lines,
    clean_environment,
    parse_report,
    requires_aes_acceleration,
    requires_aes_ni,
    stderr_lines,
)

SCRIPT = Path(sys.executable).with_name("accel-agent")

TOP_LEVEL_KEYS = {
    "schema", "agent_version", "mode", "active", "platform", "libraries", "primitives",
    "counts", "healthy", "unhealthy_reasons", "cpu", "environment",
}  # fmt: skip
PLATFORM_KEYS = {
    "os", "arch", "libc", "libc_version", "cpu_features", "masked_features", "supported",
    "unsupported_reason",
}  # fmt: skip
PRIMITIVE_KEYS = {"provider", "accelerated", "outcome", "reason", "calls"}
OUTCOMES = {registry.ACCELERATED, registry.NATIVE_BY_CHOICE, registry.NOT_ACCELERATED}
ENVIRONMENT_KEYS = {
    "pth_path", "pth_installed", "default_file", "default_mode", "default_exclude",
    "default_key_reuse", "env_mode", "env_exclude", "env_key_reuse", "conf_warnings",
}  # fmt: skip


def invoke(*args: str):
    """Run the command in-process; unexpected exceptions fail the test with their traceback."""
    return CliRunner().invoke(cli.cli, list(args), catch_exceptions=False)


def run_command(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SCRIPT), *args],
        env=clean_environment() if env is None else env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_verify_schema(facts: dict) -> None:
    assert set(facts) >= TOP_LEVEL_KEYS, TOP_LEVEL_KEYS - set(facts)
    assert facts["schema"] == 1
    assert facts["agent_version"] == accel_agent.__version__
    assert set(facts["platform"]) >= PLATFORM_KEYS
    assert isinstance(facts["platform"]["cpu_features"], list)
    assert facts["primitives"], "every primitive of the catalog is listed"
    for name, entry in facts["primitives"].items():
        assert set(entry) >= PRIMITIVE_KEYS, (name, entry)
        assert entry["outcome"] in OUTCOMES
        assert entry["accelerated"] is (entry["outcome"] == registry.ACCELERATED)
        assert isinstance(entry["calls"], int) and isinstance(entry["reason"], str)
    counts = facts["counts"]
    assert counts["accelerated"] + counts["native"] == len(facts["primitives"])
    assert isinstance(facts["healthy"], bool)
    assert facts["healthy"] is (facts["unhealthy_reasons"] == [])
    assert set(facts["cpu"]) >= {"brand", "cpuinfo_flags_agree"}
    assert set(facts["environment"]) >= ENVIRONMENT_KEYS


# ------------------------------------------------------------------ verify


@requires_aes_acceleration
def test_verify_json_is_healthy_here(agent_state):
    result = invoke("verify", "--json", "--no-cpuinfo")
    assert result.exit_code == cli.OK, result.output
    facts = json.loads(result.stdout)
    assert_verify_schema(facts)
    assert facts["healthy"] is True
    assert facts["active"] is True and facts["mode"] == "quiet"
    assert facts["primitives"]["aes-ecb"]["provider"] == "openssl"
    assert facts["cpu"]["brand"] is None  # --no-cpuinfo skips py-cpuinfo


@requires_aes_ni
def test_verify_json_with_aes_ni_masked_exits_1(agent_state, monkeypatch):
    monkeypatch.setenv("OPENSSL_ia32cap", MASK_AES_NI)
    result = invoke("verify", "--json", "--no-cpuinfo")
    assert result.exit_code == cli.UNHEALTHY
    facts = json.loads(result.stdout)
    assert_verify_schema(facts)
    assert facts["healthy"] is False
    assert "aes" in facts["platform"]["masked_features"]
    assert (
        "aes-ecb not accelerated: AES-NI masked by OPENSSL_ia32cap" in (facts["unhealthy_reasons"])
    )


@requires_aes_acceleration
def test_verify_prints_a_table_for_people(agent_state):
    result = invoke("verify", "--no-cpuinfo")
    assert result.exit_code == cli.OK
    out = result.stdout
    assert out.startswith("accel-agent %s verify\n" % accel_agent.__version__)
    assert "(supported)" in out
    assert any(line.split()[:2] == ["aes-ecb", "openssl"] for line in out.splitlines()), out
    assert "\nHEALTHY: " in out
    assert all(len(line) <= 80 for line in out.splitlines())


@requires_aes_ni
def test_verify_table_marks_what_is_not_accelerated(agent_state, monkeypatch):
    monkeypatch.setenv("OPENSSL_ia32cap", MASK_AES_NI)
    result = invoke("verify", "--no-cpuinfo")
    assert result.exit_code == cli.UNHEALTHY
    assert "!! AES-NI masked by OPENSSL_ia32cap" in result.stdout
    assert "\nUNHEALTHY: " in result.stdout
    assert "(OPENSSL_ia32cap)" in result.stdout
    rows = [line.split() for line in result.stdout.splitlines()]
    assert ["aes-gcm", "native", "not", "run", "!!"] in [row[:5] for row in rows]
    # One line per reason under the verdict, naming every primitive it holds back.
    verdict = result.stdout[result.stdout.index("\nUNHEALTHY: ") :]
    assert verdict.count("AES-NI masked by OPENSSL_ia32cap") == 1, verdict
    assert "(exit 1)" in verdict
    # The table says it all: no per-primitive fallback line on stderr besides.
    assert "using native pycryptodome" not in result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines())


def _facts_for_render(**changes) -> dict:
    """Synthetic verify facts: one accelerated, one native by choice, one not accelerated."""
    facts = {
        "agent_version": accel_agent.__version__,
        "platform": {
            "os": "Linux", "arch": "x86_64", "libc": "glibc", "libc_version": "2.36",
            "cpu_features": ["aes", "pclmulqdq"], "masked_features": [], "cpuinfo_problem": None,
            "supported": True, "unsupported_reason": None,
        },
        "libraries": {
            "cryptography": "50.0.2", "pycryptodome": "4.4.0", "pycryptodomex": None,
            "openssl_cryptography": "4.0.3", "openssl_python": "3.0.19",
        },
        "cpu": {"brand": "AMD EPYC", "cpuinfo_flags_agree": True},
        "environment": {
            "pth_path": "/very/long/" + "nested-directory/" * 8 + "site-packages/accel_agent.pth",
            "pth_installed": True, "default_mode": "off", "default_exclude": "",
            "env_mode": None, "env_exclude": None,
        },
        "primitives": {
            "aes-gcm": {"provider": "openssl", "outcome": registry.ACCELERATED,
                        "reason": "self-check passed", "refused": {}, "calls": 0},
            "rsa-pkcs1v15-encrypt": {"provider": "native", "outcome": registry.NATIVE_BY_CHOICE,
                                     "reason": "excluded by the user", "refused": {}, "calls": 0},
            "sha256": {"provider": "native", "outcome": registry.NOT_ACCELERATED,
                       "reason": "self-check failed: a long explanation that cannot fit in the "
                                 "column it is given, so it is folded under it",
                       "refused": {"hashlib": "self-check failed: ..."}, "calls": 0},
        },
        "healthy": False,
        "unhealthy_reasons": ["sha256 not accelerated: self-check failed: a long explanation "
                              "that cannot fit in the column it is given, so it is folded under "
                              "it", "patching Crypto.Hash.SHA256 failed: TypeError"],
    }  # fmt: skip
    facts.update(changes)
    return facts


def test_verify_report_fits_80_columns_and_folds_paths_at_slashes():
    facts = _facts_for_render()
    text = verify_report.render(facts)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), text
    start = next(i for i, line in enumerate(lines) if line.startswith("start-up hook"))
    pieces = []
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 17):
            break
        pieces.append(line.strip())
    assert "".join(pieces) == facts["environment"]["pth_path"]
    assert all(piece.endswith("/") for piece in pieces[:-1])
    rows = {line.split()[0]: line.split() for line in lines if line[:1].isalpha()}
    assert rows["aes-gcm"][1:3] == ["openssl", "passed"]
    assert rows["rsa-pkcs1v15-encrypt"][1:5] == ["native", "not", "run", "excluded"]
    assert rows["sha256"][1:4] == ["native", "FAILED", "!!"]
    assert "UNHEALTHY: 1 accelerated, 1 native by choice, 1 not accelerated (exit 1)" in text
    assert "  - patching Crypto.Hash.SHA256 failed: TypeError" in text
    assert "\x1b[" not in text


def test_verify_report_styles_only_when_asked():
    styled = verify_report.render(_facts_for_render(), styled=True)
    assert "\x1b[" in styled
    assert click.unstyle(styled) == verify_report.render(_facts_for_render())


@requires_aes_acceleration
def test_verify_names_the_version_of_every_library_a_target_patches(agent_state):
    facts = json.loads(invoke("verify", "--json", "--no-cpuinfo").stdout)
    from importlib import metadata

    from accel_agent import targets

    packages = {name.split(".")[0] for name in targets.HOOKS}
    for package in packages - {"Crypto", "Cryptodome", "hashlib", "hmac"}:
        try:
            expected = metadata.version(package)
        except metadata.PackageNotFoundError:
            expected = None
        assert facts["libraries"][package] == expected, package


def test_verify_report_lists_every_library_the_facts_name():
    libraries = dict(_facts_for_render()["libraries"], rsa="4.9", pyaes=None)
    text = verify_report.render(_facts_for_render(libraries=libraries))
    assert "\nrsa              4.9\n" in text
    assert "\npyaes            not installed\n" in text
    assert "\ncryptography " not in text  # on the OpenSSL line instead


@requires_aes_acceleration
def test_verify_as_a_real_process(clean_env):
    result = run_command("verify", "--json", env=clean_env)  # with py-cpuinfo, as users run it
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)
    assert_verify_schema(facts)
    assert facts["healthy"] is True
    assert isinstance(facts["cpu"]["brand"], str) and facts["cpu"]["brand"]
    assert facts["environment"]["pth_installed"] is True


@requires_aes_ni
def test_verify_as_a_real_process_with_aes_ni_masked(clean_env):
    env = {**clean_env, "OPENSSL_ia32cap": MASK_AES_NI}
    result = run_command("verify", "--json", "--no-cpuinfo", env=env)
    assert result.returncode == cli.UNHEALTHY
    assert json.loads(result.stdout)["healthy"] is False
    assert_no_traceback(result.stderr)


def test_python_m_accel_agent_is_the_command(clean_env):
    result = subprocess.run(
        [sys.executable, "-m", "accel_agent", "--version"],
        env=clean_env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0
    assert result.stdout.strip() == "accel-agent, version %s" % accel_agent.__version__


def test_calibrate_says_what_each_choice_means(monkeypatch, tmp_path):
    from accel_agent import calibrate as calibrate_module

    document = {
        "preferred": {"sha256": "any", "scrypt": "native"},
        "thresholds": {"pbkdf2": {"sha256": 300}},
    }
    monkeypatch.setattr(calibrate_module, "measure", lambda budget_s, progress: document)
    monkeypatch.setattr(calibrate_module, "write", lambda doc: str(tmp_path / "cache.json"))
    result = invoke("calibrate", "--quick")
    assert result.exit_code == cli.OK
    assert result.stdout.splitlines() == [
        "scrypt           native (faster than OpenSSL here)",
        "sha256           OpenSSL (faster than native here)",
        "pbkdf2           OpenSSL below 300 iterations of sha256, native from there",
        "cached in %s" % (tmp_path / "cache.json"),
    ]


# ------------------------------------------------------------------ bad flags


@pytest.mark.parametrize(
    "args",
    [["verify", "--bogus"], ["no-such-subcommand"], ["enable", "--mode", "loud"], ["run"]],
)
def test_bad_arguments_are_a_usage_error_without_traceback(args):
    result = invoke(*args)
    assert result.exit_code == cli.USAGE
    assert "Error: " in result.stderr
    assert_no_traceback(result.output)


def test_main_returns_the_exit_code(capsys):
    assert cli.main(["verify", "--bogus"]) == cli.USAGE
    assert "Error: No such option" in capsys.readouterr().err


def test_bad_flag_as_a_real_process(clean_env):
    result = run_command("verify", "--bogus", env=clean_env)
    assert result.returncode == cli.USAGE
    assert "Error: No such option" in result.stderr and "--bogus" in result.stderr
    assert_no_traceback(result.stderr)


# ------------------------------------------------------------------ status


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    """A site-packages directory with the .pth, where the default file is redirected."""
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "accel_agent.pth").write_text("import sys\n")
    conf = site / _boot.DEFAULT_FILE_NAME
    monkeypatch.setattr(_boot, "default_file_path", lambda: str(conf))
    for name in ("ACCEL_AGENT", "ACCEL_AGENT_EXCLUDE"):
        monkeypatch.delenv(name, raising=False)
    return site


def test_status_shows_the_hook_and_the_default(fake_site):
    result = invoke("status")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "start-up hook:  %s (installed)" % (fake_site / "accel_agent.pth")
    assert lines[1] == "default mode:   off (%s)" % (fake_site / "accel_agent.conf")
    assert lines[2] == "ACCEL_AGENT:    (unset)"


def test_status_json(fake_site, monkeypatch):
    monkeypatch.setenv("ACCEL_AGENT", "quiet")
    (fake_site / "accel_agent.conf").write_text("mode = assert\nexclude = rsa\n")
    facts = json.loads(invoke("status", "--json").stdout)
    assert set(facts) == ENVIRONMENT_KEYS
    assert (facts["default_mode"], facts["default_exclude"], facts["env_mode"]) == (
        "assert",
        "rsa",
        "quiet",
    )
    assert facts["pth_installed"] is True


def test_status_warns_about_a_damaged_default_file(fake_site):
    (fake_site / "accel_agent.conf").write_bytes(b"\xff\xfe garbage")
    result = invoke("status")
    assert result.exit_code == 0
    assert result.stderr.startswith("accel-agent: cannot read ")
    assert_no_traceback(result.output)


def test_status_as_a_real_process(clean_env):
    result = run_command("status", env=clean_env)
    assert result.returncode == 0
    assert "(installed)" in result.stdout
    assert "default mode:   off" in result.stdout


# ------------------------------------------------------------------ enable / disable in-process


def test_enable_writes_the_default(fake_site):
    result = invoke("enable", "--mode", "assert", "--exclude", "RSA, ecc")
    assert result.exit_code == cli.OK
    assert result.stdout == "accel-agent: default mode for %s is now assert\n" % fake_site
    conf = config.read_conf_file(str(fake_site / "accel_agent.conf"))
    assert conf.values == {"mode": "assert", "exclude": "ecc,rsa"}


def test_enable_keeps_an_earlier_exclusion(fake_site):
    invoke("enable", "--exclude", "aes")
    invoke("enable", "--mode", "on")
    conf = config.read_conf_file(str(fake_site / "accel_agent.conf"))
    assert conf.values == {"mode": "on", "exclude": "aes"}


def test_enable_stores_key_reuse_and_keeps_it(fake_site):
    invoke("enable", "--key-reuse", "off")
    invoke("enable", "--mode", "on")
    conf = config.read_conf_file(str(fake_site / "accel_agent.conf"))
    assert conf.values == {"mode": "on", "key_reuse": "off"}
    assert config.key_reuse_choice(conf) == (False, None)
    assert "default key_reuse: off" in invoke("status").stdout
    assert invoke("enable", "--key-reuse", "maybe").exit_code != cli.OK


def test_disable_removes_the_default_and_is_idempotent(fake_site):
    invoke("enable")
    for _ in range(2):
        result = invoke("disable")
        assert result.exit_code == cli.OK
        assert not (fake_site / "accel_agent.conf").exists()
    assert "off unless asked" in result.stdout


def test_enable_on_a_read_only_site_packages_is_one_line_and_code_3(fake_site, monkeypatch):
    # Tests run as root, for whom chmod does not make a directory read-only.
    def refuse(path, values):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(config, "write_conf_file", refuse)
    result = invoke("enable", "--mode", "quiet")
    assert result.exit_code == cli.CANNOT_WRITE
    assert result.stdout == ""
    assert result.stderr == "accel-agent: cannot write %s (Permission denied)\n" % (
        fake_site / "accel_agent.conf"
    )


def test_disable_on_a_read_only_site_packages_is_one_line_and_code_3(fake_site, monkeypatch):
    (fake_site / "accel_agent.conf").write_text("mode = on\n")

    def refuse(path):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(os, "remove", refuse)
    result = invoke("disable")
    assert result.exit_code == cli.CANNOT_WRITE
    assert len(result.stderr.splitlines()) == 1
    assert "Permission denied" in result.stderr


def test_enable_without_the_hook_installed_is_code_4(fake_site):
    (fake_site / "accel_agent.pth").unlink()
    result = invoke("enable")
    assert result.exit_code == cli.NOT_INSTALLED
    assert len(result.stderr.splitlines()) == 1
    assert not (fake_site / "accel_agent.conf").exists()


# ------------------------------------------------------------------ run


def test_run_sets_the_mode_for_the_command(monkeypatch):
    executed = []

    def fake_execvpe(file, args, env):
        executed.append((file, args, env))
        raise SystemExit(0)

    monkeypatch.setattr(os, "execvpe", fake_execvpe)
    monkeypatch.setenv("ACCEL_AGENT", "off")
    invoke("run", "--mode", "quiet", "--", "tool", "--flag", "x")
    ((file, args, env),) = executed
    assert (file, args, env["ACCEL_AGENT"]) == ("tool", ["tool", "--flag", "x"], "quiet")
    assert os.environ["ACCEL_AGENT"] == "off"  # the caller's environment is untouched


def test_run_of_a_missing_command_is_127_in_process():
    result = invoke("run", "--", "accel-agent-test-no-such-command")
    assert result.exit_code == cli.COMMAND_NOT_FOUND
    assert result.stderr == "accel-agent: command not found: accel-agent-test-no-such-command\n"


def test_run_of_a_missing_command_as_a_real_process(clean_env):
    result = run_command("run", "--", "no-such-command", env=clean_env)
    assert result.returncode == cli.COMMAND_NOT_FOUND
    assert stderr_lines(result) == ["accel-agent: command not found: no-such-command"]


@requires_aes_acceleration
def test_run_activates_the_agent_in_the_child(clean_env):
    result = run_command("run", "--", sys.executable, "-c", REPORT_CODE, env=clean_env)
    assert result.returncode == 0, result.stderr
    report = parse_report(result.stdout)
    assert (report["mode"], report["patched"], report["env"]) == ("on", "True", "on")
    assert_status_lines(stderr_lines(result))


@requires_aes_acceleration
def test_run_quiet_reaches_grandchildren(clean_env):
    grandchild = "import subprocess, sys; subprocess.run([sys.executable, '-c', %r])" % REPORT_CODE
    result = run_command(
        "run", "--mode", "quiet", "--", sys.executable, "-c", grandchild, env=clean_env
    )
    assert result.returncode == 0
    assert parse_report(result.stdout)["mode"] == "quiet"
    assert result.stderr == ""


def test_run_passes_the_exit_code_through(clean_env):
    result = run_command("run", "--", sys.executable, "-c", "raise SystemExit(7)", env=clean_env)
    assert result.returncode == 7


# ------------------------------------------------------------------ enable / disable for real


def venv_report(venv, *args: str, env: dict | None = None) -> tuple:
    result = venv.run(*args, "-c", REPORT_CODE, env=env)
    assert result.returncode == 0, result.stderr
    return parse_report(result.stdout), result


@requires_aes_acceleration
def test_enable_then_disable_in_a_fresh_venv(venv):
    report, result = venv_report(venv)
    assert (report["mode"], report["active"]) == ("off", "False")

    enabled = venv.cli("enable", "--mode", "quiet")
    assert enabled.returncode == 0, enabled.stderr
    assert enabled.stdout.strip().endswith("is now quiet")
    assert venv.default_file.exists()
    report, result = venv_report(venv)
    assert (report["mode"], report["active"], report["patched"]) == ("quiet", "True", "True")
    assert result.stderr == ""
    assert "default mode:   quiet" in venv.cli("status").stdout

    disabled = venv.cli("disable")
    assert disabled.returncode == 0
    assert not venv.default_file.exists()
    report, result = venv_report(venv)
    assert (report["mode"], report["active"], report["patched"]) == ("off", "False", "False")
    assert result.stderr == ""


@requires_aes_acceleration
def test_enable_on_prints_the_status_lines_in_every_python(venv):
    assert venv.cli("enable", "--mode", "on").returncode == 0
    report, result = venv_report(venv)
    assert report["mode"] == "on"
    assert_status_lines(stderr_lines(result))


@requires_aes_acceleration
@pytest.mark.parametrize(
    ("args", "variables", "mode"),
    [
        ([], {}, "quiet"),
        ([], {"ACCEL_AGENT": "off"}, "off"),
        (["-X", "accel=off"], {}, "off"),
        (["-X", "accel=quiet"], {"ACCEL_AGENT": "off"}, "quiet"),
    ],
    ids=["default file", "variable beats file", "-X beats file", "-X beats variable"],
)
def test_the_default_file_has_the_lowest_precedence(venv, args, variables, mode):
    venv.default_file.write_text("mode = quiet\n")
    report, result = venv_report(venv, *args, env=clean_environment(**variables))
    assert report["mode"] == mode
    assert result.stderr == ""


@requires_aes_acceleration
def test_enable_exclude_keeps_the_family_native(venv):
    assert venv.cli("enable", "--mode", "assert", "--exclude", "aes").returncode == 0
    result = venv.run("-c", "print('ran')")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ran"
    first, second = assert_status_lines(stderr_lines(result))
    # Every AES primitive is native; other families (ChaCha, hashes) are not excluded.
    aes = [spec.name for spec in catalog.PRIMITIVES if spec.family == "aes"]
    by_calibration = [
        spec.name for spec in catalog.PRIMITIVES if spec.default == calibration.NATIVE
    ]
    assert int(second["native"]) == len(aes) + len(by_calibration)
    assert re.search(r"aes-ecb[^:;]*: excluded by the user", second["notes"])


@pytest.mark.parametrize(
    ("content", "mode"),
    [
        (b"\xff\xfe\x00garbage\x81", "off"),
        (b"mode = quiet\ncolour = blue\n", "quiet"),
        (b"mode = turbo\n", "off"),
        (b"\x00" * 64, "off"),
    ],
    ids=["garbage bytes", "unknown key", "unknown mode", "zeros"],
)
def test_a_damaged_default_file_warns_and_python_still_runs(venv, content, mode):
    venv.default_file.write_bytes(content)
    report, result = venv_report(venv)
    assert report["mode"] == mode
    lines = stderr_lines(result)
    assert lines and all(line.startswith("accel-agent: ") for line in lines)
    assert_no_traceback(result.stderr)


def test_enable_in_a_venv_writes_next_to_its_own_hook(venv):
    result = venv.cli("enable")
    assert result.returncode == 0
    assert venv.default_file.read_text().splitlines()[1:] == ["mode = quiet"]
    assert venv.pth.exists()
