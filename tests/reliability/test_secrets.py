"""Secrets never leave: no key, IV, nonce, data or tag in anything the agent or its errors say.

Every family's ``secret_paths`` drives every mode and error path with the
marked values of :class:`families.Secrets`. Then nothing the user can see
may contain one of them, raw, hex (either case) or base64 (any alignment),
nor the tags and ciphertexts they produced:

* stderr (status lines, problems), in-process and in a real child (``-X dev``,
  logging at DEBUG to stderr);
* the str and repr of every exception raised, and of everything chained to it
  (``__cause__``, ``__context__``, notes);
* ``accel_agent.status()`` and ``accel-agent verify --json``;
* log records of every logger, and warnings.

Each runs healthy and with the agent degraded (a failed self-check, AES-NI
masked), since problems are when the agent talks most.
"""

from __future__ import annotations

import base64
import json
import logging

import pytest
from click.testing import CliRunner
from families import FAMILIES, Secrets, installed_flavours
from reliability_helpers import CHILD, Child

import accel_agent
import helpers
from accel_agent import activation, cli, selfcheck
from helpers import MASK_AES_NI, requires_aes_acceleration

PKGS = installed_flavours()
WINDOW = 8  # a leak of any 8 consecutive bytes of a secret counts


def derived_secrets() -> dict[str, bytes]:
    """The tags and ciphertexts of the marked values (computed natively, unpatched or not)."""
    derived = {}
    for pkg in PKGS:
        AES = __import__(pkg + ".Cipher.AES", fromlist=["new"])
        cipher = AES.new(Secrets.key16, AES.MODE_GCM, nonce=Secrets.nonce)
        cipher.update(Secrets.aad)
        ciphertext, tag = cipher.encrypt_and_digest(Secrets.plaintext)
        derived["gcm tag (%s)" % pkg] = tag
        derived["gcm ciphertext (%s)" % pkg] = ciphertext
        AEAD = __import__(pkg + ".Cipher.ChaCha20_Poly1305", fromlist=["new"])
        cipher = AEAD.new(key=Secrets.key32, nonce=Secrets.nonce)
        cipher.update(Secrets.aad)
        ciphertext, tag = cipher.encrypt_and_digest(Secrets.plaintext)
        derived["chacha20-poly1305 tag (%s)" % pkg] = tag
        derived["chacha20-poly1305 ciphertext (%s)" % pkg] = ciphertext
    return derived


def _base64_cores(secret: bytes) -> set[str]:
    """The base64 characters that depend on ``secret`` alone, for its three alignments."""
    cores = set()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + secret).decode()
        first = -(-8 * offset // 6)  # the first 6-bit group starting inside the secret
        last = (8 * (offset + len(secret))) // 6  # groups ending inside it
        core = encoded[first:last]
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return {core for core in cores if len(core) >= WINDOW}


def leak_forms(secret: bytes) -> set[str]:
    """Every way ``secret`` (or an 8-byte window of it) could show up in text."""
    forms = set()
    for start in range(0, max(1, len(secret) - WINDOW + 1)):
        window = secret[start : start + WINDOW]
        forms |= {window.hex(), window.hex().upper(), repr(window)[2:-1]}
        if window.isascii() and window.decode().isprintable():
            forms.add(window.decode())
    return forms | _base64_cores(secret)


SECRETS = {**Secrets.values(), **derived_secrets()}
FORMS = {name: leak_forms(value) for name, value in SECRETS.items()}


def find_leaks(where: str, text: str) -> list[str]:
    found = []
    for name, forms in FORMS.items():
        for form in forms:
            if form in text:
                found.append("%s: %s appears as %r" % (where, name, form))
                break
    return found


def exception_texts(exc: BaseException) -> list[str]:
    texts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        texts += [str(exc), repr(exc), repr(exc.args)]
        texts += [str(note) for note in getattr(exc, "__notes__", ())]
        exc = exc.__cause__ or exc.__context__
    return texts


def test_the_detector_finds_each_form():
    """The leak search itself: raw, hex, upper hex, repr, base64 at every alignment."""
    key = Secrets.key16
    samples = [
        "key=%r" % key,
        key.hex(),
        key.hex().upper(),
        base64.b64encode(b"x" + key).decode(),
        base64.b64encode(b"xy" + key + b"z").decode(),
        repr(SECRETS["gcm tag (%s)" % PKGS[0]]),
    ]
    for sample in samples:
        assert find_leaks("sample", sample), sample
    assert not find_leaks("clean", "MAC check failed; Incorrect AES key length (15 bytes)")


DEGRADATIONS = ["healthy", "self-check fails", "AES-NI masked"]


@pytest.fixture
def degraded(request, agent_state, monkeypatch, capsys):
    """The agent active in ``on`` mode (it prints the most), healthy or degraded."""
    how = request.param
    if how == "self-check fails":
        checker, vectors = selfcheck.load("aes-gcm")
        label, key, nonce, aad, plaintext, ciphertext, tag = vectors[0]
        wrong = (label, key, nonce, aad, plaintext, ciphertext, bytes(len(tag)))
        monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, "aes-gcm", (checker, (wrong,)))
    elif how == "AES-NI masked":
        monkeypatch.setenv("OPENSSL_ia32cap", MASK_AES_NI)
    activation.activate("on", exit_function=lambda code: None)
    return how


@requires_aes_acceleration
@pytest.mark.parametrize("degraded", DEGRADATIONS, indirect=True)
@pytest.mark.parametrize("family", FAMILIES, ids=repr)
def test_nothing_secret_in_errors_stderr_logs_status_or_verify(
    degraded, family, capsys, caplog, recwarn
):
    caplog.set_level(logging.DEBUG)
    raised = []
    for pkg in PKGS:
        raised += family.secret_paths(pkg, Secrets)
    assert len(raised) > 50, "the error paths were not reached"
    leaks = []
    for exc in raised:
        for text in exception_texts(exc):
            leaks += find_leaks("exception %s" % type(exc).__name__, text)
    leaks += find_leaks("status()", json.dumps(accel_agent.status(), sort_keys=True))
    verify = CliRunner().invoke(cli.cli, ["verify", "--json", "--no-cpuinfo"])
    assert verify.exit_code in (cli.OK, cli.UNHEALTHY), verify.output
    leaks += find_leaks("verify --json", verify.output)
    captured = capsys.readouterr()
    leaks += find_leaks("stderr", captured.err)
    leaks += find_leaks("stdout", captured.out)
    for record in caplog.records:
        leaks += find_leaks("log %s" % record.name, record.getMessage())
    for warning in recwarn:
        leaks += find_leaks("warning", str(warning.message))
    assert not leaks, "\n".join(leaks)
    if degraded != "healthy":
        assert "accel-agent" in captured.err, "the degraded agent said nothing: nothing was tested"


@requires_aes_acceleration
@pytest.mark.parametrize("env", [{}, {"OPENSSL_ia32cap": MASK_AES_NI}], ids=["healthy", "masked"])
def test_nothing_secret_in_a_real_process(env):
    """A real program (``-X dev``, logging at DEBUG to stderr, on mode): all its output is clean."""
    variables = helpers.clean_environment(**env)
    result = helpers.run_python("-X", "dev", "-X", "accel=on", CHILD, "secrets", env=variables)
    child = Child(result)
    assert child.returncode == 0, child.describe()
    assert child.report["exceptions"] > 50
    assert child.stderr.startswith("accel-agent "), child.stderr[:500]
    leaks = find_leaks("stdout", child.stdout) + find_leaks("stderr", child.stderr)
    assert not leaks, "\n".join(leaks)
