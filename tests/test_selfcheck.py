"""Known-answer tests: every primitive has them, real providers pass them, wrong answers fail."""

from __future__ import annotations

import pytest

from accel_agent import catalog, registry, selfcheck
from accel_agent.providers.base import SelfCheckFailed

PRIMITIVES = [spec.name for spec in catalog.PRIMITIVES]


def provider_of(primitive: str):
    """The first provider of a primitive, built through its factory as the registry does."""
    return registry._load(catalog.BY_NAME[primitive].providers[0].factory)


def flip_expected(vector: tuple) -> tuple:
    """A vector whose expected output (its last field) has one bit flipped."""
    *fields, expected = vector
    return (*fields, expected[:-1] + bytes([expected[-1] ^ 0x80]))


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_every_primitive_has_known_answers(primitive):
    checker, vectors = selfcheck.KNOWN_ANSWERS[primitive]
    assert callable(checker)
    assert vectors, "a primitive checked by no vector would be trusted unchecked"
    labels = [vector[0] for vector in vectors]
    assert all(isinstance(label, str) and label for label in labels)
    assert len(set(labels)) == len(labels)


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_real_provider_passes_its_known_answers(primitive):
    # The self-check exercises OpenSSL, not the CPU: it passes with or without AES-NI.
    selfcheck.run(primitive, provider_of(primitive))


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_each_wrong_answer_is_caught_and_named(primitive, monkeypatch):
    checker, vectors = selfcheck.KNOWN_ANSWERS[primitive]
    provider = provider_of(primitive)
    for index, vector in enumerate(vectors):
        broken = (*vectors[:index], flip_expected(vector), *vectors[index + 1 :])
        monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, primitive, (checker, broken))
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


def test_a_primitive_without_known_answers_is_not_trusted():
    with pytest.raises(SelfCheckFailed, match="no known-answer test for rot13"):
        selfcheck.run("rot13", object())
