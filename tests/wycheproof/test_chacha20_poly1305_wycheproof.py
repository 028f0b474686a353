"""Wycheproof ChaCha20-Poly1305 and XChaCha20-Poly1305 vectors through pycryptodome's API.

Every vector goes through ``ChaCha20_Poly1305.new(key=, nonce=)`` with the
agent active, on both package names: one-shot (``encrypt_and_digest``,
``decrypt_and_verify``) and streamed in pieces (``update``, ``encrypt``/
``decrypt`` in chunks, ``digest``/``verify``). Valid vectors must give their
ciphertext and tag and decrypt; invalid ones (modified tags, edge cases)
must be rejected with pycryptodome's ``ValueError("MAC check failed")``;
nonces of sizes pycryptodome does not take (neither 8, 12 nor 24 bytes) must
be refused by ``new`` exactly as natively. Each vector is also run natively
and the transcripts compared. Skips, with the reason, when the vector files
are absent.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: transparency_helpers

from wycheproof_vectors import has_vectors, read_document, vectors_dir  # noqa: E402

from transparency_helpers import (  # noqa: E402
    RAISED,
    both,
    call_counts,
    count_delta,
    import_from,
    installed_flavours,
    is_accelerated,
)

FILES = {
    "chacha20-poly1305": "chacha20_poly1305_test.json",
    "xchacha20-poly1305": "xchacha20_poly1305_test.json",
}
FLAVOURS = installed_flavours()


class Vector:
    __slots__ = ("tc_id", "comment", "key", "nonce", "aad", "msg", "ct", "tag", "result")

    def __init__(self, test: dict) -> None:
        self.tc_id = test["tcId"]
        self.comment = test["comment"]
        self.key = bytes.fromhex(test["key"])
        self.nonce = bytes.fromhex(test["iv"])
        self.aad = bytes.fromhex(test["aad"])
        self.msg = bytes.fromhex(test["msg"])
        self.ct = bytes.fromhex(test["ct"])
        self.tag = bytes.fromhex(test["tag"])
        self.result = test["result"]  # "valid" or "invalid"

    def __repr__(self) -> str:
        return "tc%d" % self.tc_id


def load(primitive: str) -> list[Vector]:
    if not has_vectors(FILES[primitive]):
        return []
    document = read_document(FILES[primitive])
    return [Vector(test) for group in document["testGroups"] for test in group["tests"]]


VECTORS = {primitive: load(primitive) for primitive in FILES}
CASES = [(p, v) for p, vectors in VECTORS.items() for v in vectors]

if not FLAVOURS:
    pytest.skip("neither pycryptodome nor pycryptodomex is installed", allow_module_level=True)
if not CASES:
    pytest.skip("Wycheproof vectors not found in %s" % vectors_dir(), allow_module_level=True)


def one_shot(rec, module, v):
    enc = rec.call("new", module.new, key=v.key, nonce=v.nonce)
    if enc is RAISED:
        return
    rec.call("update", enc.update, v.aad)
    rec.call("encrypt_and_digest", enc.encrypt_and_digest, v.msg)
    dec = module.new(key=v.key, nonce=v.nonce)
    rec.call("update", dec.update, v.aad)
    rec.call("decrypt_and_verify", dec.decrypt_and_verify, v.ct, v.tag)


def streamed(rec, module, v):
    enc = rec.call("new", module.new, key=v.key, nonce=v.nonce)
    if enc is RAISED:
        return
    half = len(v.aad) // 2
    rec.call("update", enc.update, v.aad[:half])
    rec.call("update", enc.update, v.aad[half:])
    third = len(v.msg) // 3
    for piece in (v.msg[:third], v.msg[third : 2 * third], v.msg[2 * third :]):
        rec.call("encrypt", enc.encrypt, piece)
    rec.call("digest", enc.digest)
    dec = module.new(key=v.key, nonce=v.nonce)
    rec.call("update", dec.update, v.aad)
    for piece in (v.ct[:third], v.ct[third:]):
        rec.call("decrypt", dec.decrypt, piece)
    rec.call("verify", dec.verify, v.tag)


def expected_transcript(v: Vector, steps: list[tuple]) -> None:
    """What Wycheproof says, checked on the agent's own transcript."""
    outcomes = {label: rest for label, *rest in steps}
    if len(v.nonce) not in (8, 12, 24):
        assert outcomes["new"][0] == "raised" and outcomes["new"][1] == "builtins.ValueError"
        return
    assert outcomes["new"][0] == "returned"
    if "encrypt_and_digest" in outcomes:
        result = outcomes["encrypt_and_digest"]
        if v.result == "valid":
            assert result == ["returned", ("tuple", ("bytes", v.ct), ("bytes", v.tag))]
        verdict = outcomes["decrypt_and_verify"]
    else:
        pieces = [rest for label, *rest in steps if label == "encrypt"]
        if v.result == "valid":
            assert b"".join(p[1][1] for p in pieces) == v.ct
            assert outcomes["digest"] == ["returned", ("bytes", v.tag)]
        verdict = outcomes["verify"]
    if v.result == "valid":
        assert verdict[0] == "returned"
    else:
        assert verdict == ["raised", "builtins.ValueError", "MAC check failed"]


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("scenario", [one_shot, streamed], ids=["one-shot", "streamed"])
@pytest.mark.parametrize("primitive", sorted(FILES))
def test_wycheproof(flavour, scenario, primitive):
    vectors = VECTORS[primitive]
    if not vectors:
        pytest.skip("%s not found in %s" % (FILES[primitive], vectors_dir()))
    module = import_from(flavour, "Cipher.ChaCha20_Poly1305")
    before = call_counts()
    for v in vectors:
        comparison = both(scenario, module, v)
        try:
            expected_transcript(v, comparison.agent.steps)
        except AssertionError:
            pytest.fail("%s %r (%s): wrong result under the agent" % (primitive, v, v.comment))
    if is_accelerated(primitive):
        assert count_delta(before, call_counts()).get(primitive, 0) > 0


def test_vector_files_cover_every_nonce_size():
    """The files hold valid 12- and 24-byte vectors and invalid sizes pycryptodome refuses."""
    sizes = {len(v.nonce) for _, v in CASES}
    assert {12, 24} <= sizes
    assert sizes - {8, 12, 24}
