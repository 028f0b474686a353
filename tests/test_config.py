"""Modes and options: parsing, aliases, precedence, and a damaged default file."""

from __future__ import annotations

import os

import pytest

from accel_agent import _boot, activation, catalog, config, registry
from helpers import conf_with

NO_CONF = config.ConfFile()


@pytest.mark.parametrize(
    ("raw", "mode"),
    [
        (True, "on"),  # bare -X accel
        ("on", "on"),
        ("quiet", "quiet"),
        ("assert", "assert"),
        ("off", "off"),
        (" Quiet\n", "quiet"),
        ("ASSERT", "assert"),
        ("1", "on"),
        ("true", "on"),
        ("yes", "on"),
        ("0", "off"),
        ("false", "off"),
        ("no", "off"),
        ("", "off"),
    ],
)
def test_parse_mode_accepts_modes_and_aliases(raw, mode):
    assert config.parse_mode(raw) == mode


@pytest.mark.parametrize("raw", ["bogus", "???", "enable", "on off", "2"])
def test_parse_mode_rejects_unknown_values(raw):
    with pytest.raises(config.ConfigError, match="unknown mode"):
        config.parse_mode(raw)


@pytest.mark.parametrize("raw", [None, 1, b"on"])
def test_parse_mode_rejects_non_strings(raw):
    with pytest.raises(config.ConfigError, match="mode must be a string"):
        config.parse_mode(raw)


@pytest.mark.parametrize(
    "raw", ["asert", "assrt", "asserts", "Assert!", "assret", " ASERT ", "assertion"]
)
def test_assert_typos_are_recognised(raw):
    assert config.looks_like_assert(raw)


@pytest.mark.parametrize("raw", ["bogus", "???", "quiett", "onn", "of", True])
def test_other_mistakes_are_not_taken_for_assert(raw):
    assert not config.looks_like_assert(raw)


@pytest.mark.parametrize("raw", ["pass", "bypass", "passthrough"])
def test_words_that_merely_contain_ass_are_not_taken_for_assert(raw):
    # ACCEL_AGENT=bypass means "leave my program alone"; refusing to run it
    # (exit 2) is the opposite. Only near-misses of "assert" are fatal.
    assert not config.looks_like_assert(raw)


# (-X accel, ACCEL_AGENT, default file) -> (mode, source)
PRECEDENCE = [
    ((None, None, None), ("off", "built-in default")),
    ((None, None, "quiet"), ("quiet", "default file")),
    ((None, "assert", "quiet"), ("assert", "ACCEL_AGENT")),
    ((None, "off", "on"), ("off", "ACCEL_AGENT")),
    ((True, "off", "quiet"), ("on", "-X accel")),
    (("quiet", "on", "assert"), ("quiet", "-X accel")),
    (("off", "on", "on"), ("off", "-X accel")),
    (("yes", None, None), ("on", "-X accel")),
    ((None, "", "on"), ("off", "ACCEL_AGENT")),  # ACCEL_AGENT= (empty) is set, and means off
]


@pytest.mark.parametrize(("sources", "expected"), PRECEDENCE)
def test_choose_mode_precedence(sources, expected):
    xoption, env_value, conf_mode = sources
    conf = conf_with(mode=conf_mode) if conf_mode is not None else NO_CONF
    chosen = config.choose_mode(xoption, env_value, conf)
    assert (chosen.mode, chosen.source) == expected
    assert chosen.problem is None and not chosen.fatal


@pytest.mark.parametrize(
    ("xoption", "env_value", "conf_mode", "source"),
    [
        ("bogus", "on", None, "-X accel"),
        (None, "???", "on", "ACCEL_AGENT"),
        (None, None, "garbage", "default file"),
    ],
)
def test_unknown_mode_runs_unpatched_with_one_problem(xoption, env_value, conf_mode, source):
    conf = conf_with(mode=conf_mode) if conf_mode else NO_CONF
    chosen = config.choose_mode(xoption, env_value, conf)
    assert chosen.mode == "off"
    assert chosen.source == source
    assert not chosen.fatal
    assert chosen.problem.startswith(source + ": unknown mode")
    assert chosen.problem.endswith("running without the agent")
    assert "\n" not in chosen.problem


@pytest.mark.parametrize(("xoption", "env_value"), [("asert", None), (None, "assrt")])
def test_assert_typo_is_fatal(xoption, env_value):
    chosen = config.choose_mode(xoption, env_value, NO_CONF)
    assert chosen.fatal
    assert chosen.mode == "off"
    assert chosen.problem.endswith("refusing to run")


def test_mode_choice_repr_names_everything():
    text = repr(config.choose_mode("asert", None, NO_CONF))
    assert "off" in text and "-X accel" in text and "fatal=True" in text


@pytest.mark.parametrize(
    ("raw_values", "expected"),
    [
        (("aes",), {"aes"}),
        (("AES, rsa ,,", None), {"aes", "rsa"}),
        (("aes-gcm", "openssl,ecc"), {"aes-gcm", "openssl", "ecc"}),
        ((None, ""), set()),
    ],
)
def test_parse_exclusions(raw_values, expected):
    assert config.parse_exclusions(*raw_values) == frozenset(expected)


def test_exclusions_come_from_the_variable_and_the_default_file(monkeypatch):
    monkeypatch.setenv(config.ENV_EXCLUDE, "rsa")
    assert config.exclusions_from_environment(conf_with(exclude="aes")) == {"rsa", "aes"}
    monkeypatch.delenv(config.ENV_EXCLUDE)
    assert config.exclusions_from_environment() == frozenset()


def test_every_setting_is_declared_once_with_its_sources():
    names = [setting.name for setting in config.SETTINGS]
    assert len(names) == len(set(names))
    by_name = {setting.name: setting for setting in config.SETTINGS}
    assert by_name["mode"].xoption == config.XOPTION == _boot.XOPTION
    assert by_name["mode"].env == config.ENV_MODE == _boot.ENV_MODE
    assert by_name["mode"].default == config.DEFAULT_MODE
    assert by_name["exclude"].env == config.ENV_EXCLUDE
    for setting in config.SETTINGS:
        assert setting.help and setting.accepted


# ------------------------------------------------------------------ the default file


def test_default_file_round_trip(tmp_path):
    path = str(tmp_path / "accel_agent.conf")
    config.write_conf_file(path, {"mode": "quiet", "exclude": "aes,rsa"})
    conf = config.read_conf_file(path)
    assert conf.values == {"mode": "quiet", "exclude": "aes,rsa"}
    assert conf.warnings == []
    assert os.listdir(tmp_path) == ["accel_agent.conf"]  # no temporary file left behind


def test_missing_default_file_is_silent(tmp_path):
    conf = config.read_conf_file(str(tmp_path / "absent.conf"))
    assert conf.values == {} and conf.warnings == []


def test_comments_and_blank_lines_are_ignored(tmp_path):
    path = tmp_path / "accel_agent.conf"
    path.write_text("# comment\n\n   \n  mode =  on  \n")
    conf = config.read_conf_file(str(path))
    assert conf.values == {"mode": "on"} and conf.warnings == []


DAMAGED_FILES = {
    "garbage bytes": b"\xff\xfe\x00\x81garbage\x00\xc3\x28",
    "unknown keys": b"mode = quiet\ncolour = blue\nnot a setting line\n",
    "binary noise": bytes(range(256)),
    "empty key": b"= on\nmode = quiet\n",
}


@pytest.mark.parametrize("content", DAMAGED_FILES.values(), ids=list(DAMAGED_FILES))
def test_damaged_default_file_gives_warnings_never_an_exception(tmp_path, content):
    path = tmp_path / "accel_agent.conf"
    path.write_bytes(content)
    conf = config.read_conf_file(str(path))
    assert conf.warnings
    assert all(str(path) in warning and "\n" not in warning for warning in conf.warnings)
    assert set(conf.values) <= {"mode", "exclude"}


def test_unknown_keys_are_named_by_line_and_known_ones_kept(tmp_path):
    path = tmp_path / "accel_agent.conf"
    path.write_bytes(DAMAGED_FILES["unknown keys"])
    conf = config.read_conf_file(str(path))
    assert conf.values == {"mode": "quiet"}
    assert [w.split(" line ")[1].split()[0] for w in conf.warnings] == ["2", "3"]


def test_unreadable_default_file_is_a_warning(tmp_path):
    conf = config.read_conf_file(str(tmp_path))  # a directory: IsADirectoryError
    assert conf.values == {}
    assert conf.warnings == ["cannot read %s (IsADirectoryError); ignoring it" % tmp_path]


@pytest.mark.parametrize("content", DAMAGED_FILES.values(), ids=list(DAMAGED_FILES))
def test_startup_with_a_damaged_default_file_warns_and_goes_on(
    agent_state, monkeypatch, tmp_path, capsys, content
):
    path = tmp_path / "accel_agent.conf"
    path.write_bytes(content)
    monkeypatch.setattr(_boot, "default_file_path", lambda: str(path))
    exits = []
    activation.activate_at_startup(None, None, exit_function=exits.append)
    err = capsys.readouterr().err
    assert exits == []
    assert err and all(line.startswith("accel-agent: ") for line in err.splitlines())
    assert "Traceback" not in err


def test_startup_with_a_bad_mode_in_the_default_file_runs_unpatched(
    agent_state, monkeypatch, tmp_path, capsys
):
    path = tmp_path / "accel_agent.conf"
    path.write_text("mode = turbo\n")
    monkeypatch.setattr(_boot, "default_file_path", lambda: str(path))
    exits = []
    activation.activate_at_startup(None, None, exit_function=exits.append)
    assert exits == []
    assert not activation.is_active()
    assert capsys.readouterr().err == (
        "accel-agent: default file: unknown mode 'turbo' (expected one of: on, quiet, assert, "
        "shadow, off); running without the agent\n"
    )


def test_startup_takes_exclusions_from_the_default_file(agent_state, monkeypatch, tmp_path):
    path = tmp_path / "accel_agent.conf"
    path.write_text("exclude = AES\n")
    monkeypatch.setattr(_boot, "default_file_path", lambda: str(path))
    activation.activate_at_startup("off", None)
    assert config.exclusions() == {"aes"}
    assert registry._excluded(catalog.BY_NAME["aes-gcm"], "openssl")
