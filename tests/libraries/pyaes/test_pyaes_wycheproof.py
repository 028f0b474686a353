"""Wycheproof's AES-CBC-PKCS5 vectors through pyaes's Encrypter/Decrypter, under the agent.

Each vector runs under the agent and natively (any difference fails, as in
the other differential tests); then valid vectors must encrypt to the
vector's ciphertext and decrypt to its message. pyaes's unpadding is lax by
design (``strip_PKCS7_padding`` checks the last byte only), so for invalid
vectors only the comparison with native pyaes counts: the agent neither
tightens nor loosens it. Skips, saying so, without the vectors or pyaes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "wycheproof"))

from wycheproof_vectors import has_vectors, load, vectors_dir  # noqa: E402

from transparency_helpers import both, ensure_agent, is_accelerated  # noqa: E402

pyaes = pytest.importorskip("pyaes", reason="pyaes is not installed (requirements/pyaes.txt)")

FILE = "aes_cbc_pkcs5_test.json"
if not has_vectors(FILE):
    pytest.skip("Wycheproof vectors not found in %s" % vectors_dir(), allow_module_level=True)


def scenario(rec, module, vector):
    encrypter = pyaes.Encrypter(pyaes.AESModeOfOperationCBC(vector.key, iv=vector.iv))
    rec.call("encrypt", lambda: encrypter.feed(vector.msg) + encrypter.feed())
    decrypter = pyaes.Decrypter(pyaes.AESModeOfOperationCBC(vector.key, iv=vector.iv))
    rec.call("decrypt", lambda: decrypter.feed(vector.ct) + decrypter.feed())


def test_aes_cbc_pkcs5_through_the_feeders():
    ensure_agent()
    _, vectors = load(FILE)
    wrong = []
    calls = 0
    for vector in vectors:
        comparison = both(scenario, pyaes, vector)
        calls += comparison.accelerated("aes-cbc")
        if vector.valid:
            steps = {step[0]: step[1:] for step in comparison.agent.steps}
            if steps["encrypt"] != ("returned", ("bytes", vector.ct)):
                wrong.append("%s: encryption gave %r" % (vector.describe(), steps["encrypt"]))
            if steps["decrypt"] != ("returned", ("bytes", vector.msg)):
                wrong.append("%s: decryption gave %r" % (vector.describe(), steps["decrypt"]))
    assert not wrong, wrong[:5]
    assert len(vectors) > 100
    if is_accelerated("aes-cbc"):
        assert calls >= len(vectors)
