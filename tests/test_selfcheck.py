"""Known-answer tests: every primitive has them, real providers pass them, wrong answers fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import helpers
from accel_agent import catalog, known_answers, registry, selfcheck
from accel_agent.providers.base import SelfCheckFailed

PRIMITIVES = [spec.name for spec in catalog.PRIMITIVES]
# (primitive, known-answer set): every set a catalog row names
SETS = [(spec.name, name) for spec in catalog.PRIMITIVES for name in spec.known_answers]


def provider_of(primitive: str):
    """The first provider of a primitive, built through its factory as the registry does."""
    return registry._load(catalog.BY_NAME[primitive].providers[0].factory)


def flip_expected(vector: tuple) -> tuple:
    """A vector whose expected output (its last field) has one bit flipped."""
    *fields, expected = vector
    return (*fields, expected[:-1] + bytes([expected[-1] ^ 0x80]))


@pytest.mark.parametrize(("primitive", "name"), SETS)
def test_every_primitive_has_known_answers(primitive, name):
    checker, vectors = selfcheck.load(name)
    assert callable(checker)
    assert vectors, "a primitive checked by no vector would be trusted unchecked"
    labels = [vector[0] for vector in vectors]
    assert all(isinstance(label, str) and label for label in labels)
    assert len(set(labels)) == len(labels)


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_real_provider_passes_its_known_answers(primitive):
    # The self-check exercises OpenSSL, not the CPU: it passes with or without AES-NI.
    selfcheck.run(primitive, provider_of(primitive))


@pytest.mark.parametrize(("primitive", "name"), SETS)
def test_each_wrong_answer_is_caught_and_named(primitive, name, monkeypatch):
    checker, vectors = selfcheck.load(name)
    provider = provider_of(primitive)
    for index, vector in enumerate(vectors):
        broken = (*vectors[:index], flip_expected(vector), *vectors[index + 1 :])
        monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, name, (checker, broken))
        with pytest.raises(SelfCheckFailed) as caught:
            selfcheck.run(primitive, provider)
        message = str(caught.value)
        assert message.startswith(vector[0] + ": ")
        for field in vector[1:]:  # never key material, data, nonces or tags
            if isinstance(field, (bytes, bytearray)) and len(field) >= 4:
                assert field.hex() not in message
                assert repr(bytes(field)) not in message


class RaisingProvider:
    def encryptor(self, *args, **kwargs):
        raise ValueError("secret key 00112233 rejected")

    decryptor = encryptor


def test_a_provider_that_raises_fails_its_check_without_details():
    with pytest.raises(SelfCheckFailed) as caught:
        selfcheck.run("aes-ecb", RaisingProvider())
    assert str(caught.value) == "raised ValueError"  # the message could carry key bytes
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


class WrongDecryptProvider:
    def __init__(self, real) -> None:
        self._real = real

    def encryptor(self, *args, **kwargs):
        return self._real.encryptor(*args, **kwargs)

    def decryptor(self, *args, **kwargs):
        real = self._real.decryptor(*args, **kwargs)

        class Flipping:
            def update(self, data):
                out = real.update(data)
                return out[:-1] + bytes([out[-1] ^ 1])

        return Flipping()


def test_a_provider_that_decrypts_wrongly_fails():
    with pytest.raises(SelfCheckFailed, match="wrong plaintext"):
        selfcheck.run("aes-ecb", WrongDecryptProvider(provider_of("aes-ecb")))


@pytest.mark.parametrize(
    ("salt_used", "message"),
    [
        (lambda asked: 32, "wrong unsalted signature"),  # a salt where none was asked for
        (lambda asked: 0, "a new signature is wrong"),  # the salt length ignored
    ],
)
def test_a_pss_provider_that_signs_with_the_wrong_salt_fails(monkeypatch, salt_used, message):
    provider = provider_of("rsa-pss")
    sign = provider.sign_pss
    monkeypatch.setattr(
        provider, "sign_pss", lambda key, digest, oid, salt: sign(key, digest, oid, salt_used(salt))
    )
    with pytest.raises(SelfCheckFailed, match=message):
        selfcheck.run("rsa-pss", provider)


def test_a_primitive_without_known_answers_is_not_trusted():
    with pytest.raises(SelfCheckFailed, match="no known-answer test for rot13"):
        selfcheck.run("rot13", object())


# ----------------------------------------------------------------- the data files and their loader


def test_every_known_answer_file_is_named_by_a_catalog_row_and_says_its_source():
    named = {name for _primitive, name in SETS}
    folder = os.path.dirname(known_answers.path("x"))
    files = {entry[: -len(".json")] for entry in os.listdir(folder) if entry.endswith(".json")}
    assert [entry for entry in os.listdir(folder) if entry.endswith(".py")] == ["__init__.py"]
    assert files == named, "a file no row names is never checked; a name with no file fails"
    for name in sorted(files):
        document = known_answers.read(name)
        assert document["checker"] in selfcheck.CHECKER_MODULES, name
        assert isinstance(document["source"], str) and document["source"], name


@pytest.mark.parametrize("scanner", ["json's C scanner", "json.loads"])
def test_every_file_reads_as_json_reads_it(monkeypatch, scanner):
    """The loader calls json's scanner without json; without the scanner it is json.loads."""
    monkeypatch.setattr(known_answers, "_parse", None)
    if scanner == "json.loads":
        monkeypatch.setitem(sys.modules, "_json", None)  # as where CPython's accelerator is missing
    for name in sorted({name for _primitive, name in SETS}):
        with open(known_answers.path(name), encoding="utf-8") as file:
            as_json = json.load(file)
        assert known_answers.read(name) == as_json, name
    assert (known_answers._parse is json.loads) == (scanner == "json.loads")


def test_the_same_checker_decodes_every_field_it_unpacks():
    for name in sorted({name for _primitive, name in SETS}):
        document = known_answers.read(name)
        _checker, fields = selfcheck.checker_of(document["checker"])
        assert list(fields)[0] == "label"
        for vector in known_answers.vectors(document, fields):
            assert len(vector) == len(fields)
            assert isinstance(vector[-1], bytes), "the expected output is the last field"


CHECKER_MODULE_REGISTERS = """\
import importlib, json, sys
from accel_agent import selfcheck
registered = {}
for module in sorted(set(selfcheck.CHECKER_MODULES.values())):
    before = set(selfcheck.CHECKERS)
    importlib.import_module(module)
    registered[module] = sorted(set(selfcheck.CHECKERS) - before)
print(json.dumps(registered))
"""


def test_each_checker_module_registers_the_kinds_named_for_it():
    """A fresh process loads each family's checkers in turn: each registers exactly
    the kinds CHECKER_MODULES sends to it, none of another's."""
    result = subprocess.run(
        [sys.executable, "-c", CHECKER_MODULE_REGISTERS], capture_output=True, text=True,
        env=helpers.clean_environment(), timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    expected: dict[str, list[str]] = {}
    for kind, module in selfcheck.CHECKER_MODULES.items():
        expected.setdefault(module, []).append(kind)
    assert json.loads(result.stdout) == {name: sorted(kinds) for name, kinds in expected.items()}


def test_a_first_use_loads_only_its_familys_checkers():
    """A cipher's self-check loads no checker of hashes or public keys, and the reverse."""
    code = (
        "import sys\n"
        "from accel_agent import selfcheck\n"
        "selfcheck.load('aes-cbc')\n"
        "print(sorted(m for m in sys.modules if m.startswith('accel_agent.selfcheck_')))\n"
        "selfcheck.load('sha256')\n"
        "print(sorted(m for m in sys.modules if m.startswith('accel_agent.selfcheck_')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env=helpers.clean_environment(), timeout=120,
    )  # fmt: skip
    assert result.stdout.splitlines() == [
        "['accel_agent.selfcheck_ciphers']",
        "['accel_agent.selfcheck_ciphers', 'accel_agent.selfcheck_digests']",
    ], result.stderr


def write_set(folder, name, text):
    (folder / (name + ".json")).write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("{not json", "JSONDecodeError"),
        ("open('/etc/passwd').read()", "ValueError"),  # data, never code
        ('{"checker": "hash", "vectors": [{}]} []', "ValueError"),  # one value only
        ('{"checker": "hash", "vectors": [NaN]}', "ValueError"),
        ('["a list"]', "ValueError"),
        ('{"checker": "block-mode", "vectors": []}', "ValueError"),
        ('{"checker": "no-such-kind", "vectors": [{}]}', "KeyError"),
        ('{"checker": "hash", "vectors": [{"label": "x", "message": "616263"}]}', "ValueError"),
        (
            '{"checker": "hash", "vectors": '
            '[{"label": "x", "message": "616263", "digest": "zz00112233"}]}',
            "ValueError",
        ),
    ],
)
def test_a_broken_file_fails_the_check_naming_the_set_not_its_bytes(
    tmp_path, monkeypatch, text, kind
):
    write_set(tmp_path, "sha256", text)
    monkeypatch.setattr(known_answers, "path", lambda name: str(tmp_path / (name + ".json")))
    monkeypatch.delitem(selfcheck.KNOWN_ANSWERS, "sha256", raising=False)
    with pytest.raises(SelfCheckFailed) as caught:
        selfcheck.run("sha256", provider_of("sha256"))
    assert str(caught.value) == "known answers sha256 unreadable (%s)" % kind
    assert "616263" not in str(caught.value) and "zz00" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert "sha256" not in selfcheck.KNOWN_ANSWERS  # not cached: nothing was read


def test_a_set_name_is_not_a_path():
    for name in ("../catalog", "/etc/passwd", ".hidden"):
        with pytest.raises(SelfCheckFailed, match="no known-answer test for"):
            selfcheck.load(name)


def test_bytes_may_be_written_as_text_and_big_numbers_in_hex():
    assert known_answers.octets({"ascii": "Jefe"}) == b"Jefe"
    assert known_answers.octets("4a656665") == b"Jefe"
    assert known_answers.big_integer("1" + "0" * 40) == 16**40  # past a JSON double's precision
    with pytest.raises(ValueError):
        known_answers.integer(True)
    with pytest.raises(ValueError):
        known_answers.octets(7)
