"""Recorded native transcripts stand in for native only when they fit, and still catch differences.

The scenarios that stream 2 GiB compare the agent with native's transcript
recorded once (tests/vectors/native-transcripts.json), through
:func:`transparency_helpers.against_native_transcript`. These tests use a
small scenario and a transcript file of their own.
"""

from __future__ import annotations

import json

import pytest

import transparency_helpers as th

FLAVOUR = th.flavours_or_skip()[0]


def _sha256_scenario(rec, module, data):
    h = rec.call("new", module.new, data)
    rec.call("digest", h.digest)
    rec.call("bad update", h.update, 7)


@pytest.fixture
def transcripts(tmp_path, monkeypatch):
    path = tmp_path / "transcripts.json"
    monkeypatch.setattr(th, "NATIVE_TRANSCRIPTS", path)
    return path


def _module():
    return th.import_from(FLAVOUR, "Hash.SHA256")


def test_recorded_then_compared(transcripts, monkeypatch):
    monkeypatch.setenv(th.TRANSCRIPTS_MODE, "record")
    th.against_native_transcript("k", _sha256_scenario, _module(), b"abc")
    recorded = th.recorded_transcript("k", _module())
    native = th.Recorder()
    with th.natively():
        _sha256_scenario(native, _module(), b"abc")
    assert recorded == native.steps, "the file holds native's steps, bytes and exceptions alike"
    monkeypatch.delenv(th.TRANSCRIPTS_MODE)
    comparison = th.against_native_transcript("k", _sha256_scenario, _module(), b"abc")
    assert comparison.native.steps == native.steps
    assert comparison.accelerated("sha256") > 0, "the agent's side ran through the agent"


def test_a_difference_from_the_transcript_fails(transcripts, monkeypatch):
    monkeypatch.setenv(th.TRANSCRIPTS_MODE, "record")
    th.against_native_transcript("k", _sha256_scenario, _module(), b"abc")
    data = json.loads(transcripts.read_text())
    digest_step = data["transcripts"]["k"]["steps"][1]
    digest_step[2][1]["hex"] = "00" * 32  # as if native had returned another digest
    transcripts.write_text(json.dumps(data))
    monkeypatch.delenv(th.TRANSCRIPTS_MODE)
    monkeypatch.setattr(th.TALLY, "compared", lambda **counts: None)  # a mismatch on purpose
    with pytest.raises(th.Mismatch, match="recorded transcript k"):
        th.against_native_transcript("k", _sha256_scenario, _module(), b"abc")


def test_a_transcript_of_another_version_is_not_used(transcripts, monkeypatch):
    monkeypatch.setenv(th.TRANSCRIPTS_MODE, "record")
    th.against_native_transcript("k", _sha256_scenario, _module(), b"abc")
    data = json.loads(transcripts.read_text())
    data["transcripts"]["k"]["facts"]["version"] = "0.0.1"
    data["transcripts"]["k"]["steps"] = []  # wrong, but never read: native runs instead
    transcripts.write_text(json.dumps(data))
    monkeypatch.delenv(th.TRANSCRIPTS_MODE)
    assert th.recorded_transcript("k", _module()) is None
    comparison = th.against_native_transcript("k", _sha256_scenario, _module(), b"abc")
    assert len(comparison.native.steps) == 3, "native ran"


def test_a_missing_transcript_fails_with_the_way_to_record_it(transcripts):
    with pytest.raises(pytest.fail.Exception, match="=record"):
        th.against_native_transcript("absent", _sha256_scenario, _module(), b"abc")


def test_the_xdist_group_is_not_part_of_the_key(transcripts, monkeypatch):
    monkeypatch.setenv(th.TRANSCRIPTS_MODE, "record")
    th.against_native_transcript("t.py::k@gigabyte-inputs", _sha256_scenario, _module(), b"a")
    assert th.has_transcript("t.py::k")
    monkeypatch.delenv(th.TRANSCRIPTS_MODE)
    th.against_native_transcript("t.py::k@other-group", _sha256_scenario, _module(), b"a")


def test_live_mode_runs_native(transcripts, monkeypatch):
    monkeypatch.setenv(th.TRANSCRIPTS_MODE, "live")
    comparison = th.against_native_transcript("absent", _sha256_scenario, _module(), b"abc")
    assert len(comparison.native.steps) == 3
    assert not transcripts.exists(), "live mode records nothing"
