"""Wycheproof vectors as data, and the test factory that runs them under the agent.

The vectors ship with the repository, gzip-compressed, in
``tests/vectors/wycheproof/`` (its README names the upstream revision and
licence). ``ACCEL_WYCHEPROOF_DIR`` points the tests at another folder of
Wycheproof files instead (plain ``.json`` or ``.json.gz``), a newer upstream
checkout, say. A file missing from that folder skips the tests that need it,
with the reason.

A Wycheproof test module is a call to :func:`wycheproof_test` with

* a file name (``"aes_gcm_test.json"``) and a pycryptodome module
  (``"Cipher.AES"``, imported for each installed flavour);
* a *scenario* ``scenario(rec, module, vector)`` that drives the module for
  one vector and records each step (see :mod:`transparency_helpers`);
* a *judge* ``judge(vector, steps) -> str | None`` that reads the agent's
  transcript and says what is wrong with it against the vector's expected
  result (``None``: nothing).

For each vector and flavour the factory's test runs the scenario under the
agent and natively (any difference fails), then asks the judge. A vector
that native pycryptodome itself gets "wrong" (say, a GCM nonce length it
rejects on purpose where Wycheproof's result is ``valid``) cannot be the
agent's fault: it is reported as an expected failure with the judge's words.
Optionally, vectors of common shapes must have gone through the accelerated
path (``accelerated(vector)`` names the primitive).
"""

from __future__ import annotations

import gzip
import json
import os
from functools import cache
from pathlib import Path

import pytest

from transparency_helpers import (
    REPO_ROOT,
    acceleration,
    both,
    import_from,
    installed_flavours,
)

ENV_DIR = "ACCEL_WYCHEPROOF_DIR"
DEFAULT_DIR = REPO_ROOT / "tests" / "vectors" / "wycheproof"

# Fields that hold hex; everything else is kept as it is in the file.
HEX_FIELDS = frozenset(
    {"key", "iv", "aad", "msg", "ct", "tag", "ikm", "salt", "info", "okm", "nonce", "sig",
     "public", "private", "shared", "label", "password", "dk", "seed"}
)  # fmt: skip


def vectors_dir() -> Path:
    return Path(os.environ.get(ENV_DIR) or DEFAULT_DIR)


def vector_path(filename: str) -> Path:
    """The path of ``filename`` (``aes_gcm_test.json``), plain or gzipped.

    FileNotFoundError when the folder has neither.
    """
    folder = vectors_dir()
    for candidate in (folder / filename, folder / (filename + ".gz")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("%s (nor %s.gz)" % (folder / filename, filename))


def has_vectors(filename: str) -> bool:
    try:
        vector_path(filename)
    except FileNotFoundError:
        return False
    return True


def read_document(filename: str) -> dict:
    """A Wycheproof file's JSON document, read with the standard library."""
    path = vector_path(filename)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


class Vector:
    """One Wycheproof test, with its group's parameters: ``v.key``, ``v.tcId``, ``v.group``."""

    def __init__(self, filename: str, group: dict, test: dict) -> None:
        self.file = filename
        self.group = {k: v for k, v in group.items() if k != "tests"}
        self.fields = dict(test)
        for name, value in test.items():
            if name in HEX_FIELDS and isinstance(value, str):
                value = bytes.fromhex(value)
            setattr(self, name, value)
        self.tcId: int = test["tcId"]
        self.result: str = test["result"]  # valid, invalid or acceptable
        self.flags: list[str] = list(test.get("flags", ()))
        self.comment: str = test.get("comment", "")

    @property
    def valid(self) -> bool:
        return self.result == "valid"

    @property
    def invalid(self) -> bool:
        return self.result == "invalid"

    def describe(self) -> str:
        return "%s tcId %d (%s; %s; flags %s)" % (
            self.file,
            self.tcId,
            self.result,
            self.comment or "no comment",
            ",".join(self.flags) or "-",
        )

    def __repr__(self) -> str:
        return "Vector(%s#%d)" % (self.file, self.tcId)


@cache
def load(filename: str) -> tuple[dict, tuple[Vector, ...]]:
    """(the file's header, its vectors); FileNotFoundError when absent."""
    content = read_document(filename)
    header = {k: v for k, v in content.items() if k != "testGroups"}
    vectors = tuple(
        Vector(filename, group, test) for group in content["testGroups"] for test in group["tests"]
    )
    if len(vectors) != content.get("numberOfTests", len(vectors)):
        raise ValueError(
            "%s: %d tests, header says %d" % (filename, len(vectors), content["numberOfTests"])
        )
    return header, vectors


def vector_params(filename: str) -> list:
    """pytest parameters, one per vector; a single skipped one when the file is absent."""
    try:
        _, vectors = load(filename)
    except FileNotFoundError:
        reason = "Wycheproof vectors not found: %s (set %s to the folder holding %s)" % (
            vectors_dir() / filename,
            ENV_DIR,
            filename,
        )
        return [pytest.param(None, id="absent", marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(v, id="tc%d" % v.tcId) for v in vectors]


def wycheproof_test(filename: str, module: str, scenario, judge, accelerated=None):
    """A pytest test over every vector of ``filename`` and every installed flavour."""
    flavours = installed_flavours() or [
        pytest.param(None, marks=pytest.mark.skip(reason="pycryptodome is not installed"))
    ]

    @pytest.mark.parametrize("vector", vector_params(filename))
    @pytest.mark.parametrize("flavour", flavours)
    def test(flavour, vector):
        target = import_from(flavour, module)
        comparison = both(scenario, target, vector)
        primitive = accelerated(vector) if accelerated else None
        if primitive and acceleration(primitive)[0] and not comparison.accelerated(primitive):
            pytest.fail(
                "%s is accelerated but %s did not go through it" % (primitive, vector.describe())
            )
        problem = judge(vector, comparison.agent.steps)
        if problem:
            # The agent's transcript equals native's: this is pycryptodome's own verdict.
            pytest.xfail("native pycryptodome too: %s: %s" % (vector.describe(), problem))

    test.__doc__ = "Wycheproof %s through %s, under the agent and natively." % (filename, module)
    return test


# --------------------------------------------------------------------------- reading transcripts


def step(steps, label: str):
    """The recorded step called ``label`` (None if the scenario never got there)."""
    for recorded in steps:
        if recorded[0] == label:
            return recorded
    return None


def returned(steps, label: str):
    """The value a step returned, as :func:`transparency_helpers.describe` put it, else None."""
    found = step(steps, label)
    return found[2] if found and found[1] == "returned" else None


def raised(steps, label: str):
    """(exception name, message) if the step raised, else None."""
    found = step(steps, label)
    return found[2:4] if found and found[1] == "raised" else None


# ----------------------------------------------------------------- judging AEAD transcripts


def judge_aead(v: Vector, steps, ct=None, tag=None, streamed: bool = True) -> str | None:
    """What is wrong with an AEAD scenario's transcript against the vector (None: nothing).

    The scenario records ``encrypt_and_digest`` (sealing ``v.msg``), then
    ``new(dec)`` and ``decrypt_and_verify`` (opening ``ct`` and ``tag``, by
    default ``v.ct`` and ``v.tag``) and, with ``streamed``, the same check in
    pieces ending in ``verify`` on a second object made by ``new(dec2)``. A
    valid vector must seal to (ct, tag) and open to ``v.msg`` every way; an
    invalid one must be refused with ``ValueError`` every way.
    """
    ct = v.ct if ct is None else ct
    tag = v.tag if tag is None else tag
    opened = returned(steps, "decrypt_and_verify")
    verified = returned(steps, "verify") is None and raised(steps, "verify") is None
    if v.valid:
        sealed = returned(steps, "encrypt_and_digest")
        if sealed != ("tuple", ("bytes", ct), ("bytes", tag)):
            return "encryption gave %r" % (sealed or raised(steps, "encrypt_and_digest"),)
        if opened != ("bytes", v.msg):
            return "decrypt_and_verify gave %r" % (opened or raised(steps, "decrypt_and_verify"),)
        if streamed and not verified:
            return "streaming verify: %r" % (raised(steps, "verify"),)
        return None
    if v.invalid:
        if opened is not None:
            return "an invalid vector was accepted by decrypt_and_verify"
        error = raised(steps, "decrypt_and_verify") or raised(steps, "new(dec)")
        if error is None or error[0] != "builtins.ValueError":
            return "rejected with %r, not ValueError" % (error,)
        if streamed and raised(steps, "verify") is None and raised(steps, "new(dec2)") is None:
            return "an invalid vector was accepted by decrypt()+verify()"
    return None  # acceptable: either way
