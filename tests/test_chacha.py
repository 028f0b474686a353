"""The ChaCha20 family's provider and target: OpenSSL mappings proved on vectors and native.

* HChaCha20 derived from one OpenSSL block (minus the input state) gives the
  subkeys of draft-irtf-cfrg-xchacha-03 and of pycryptodome's own HChaCha20;
* the original construction (8-byte nonce, 64-bit counter) maps onto
  OpenSSL's 16-byte IV as counter (8 bytes, little-endian) || nonce, across
  the 2**32-block boundary too;
* RFC 8439's AEAD composed from ChaCha20 and Poly1305 equals the one-shot
  AEAD class for any chunking;
* the registry accelerates the three primitives (no CPU requirement), the
  self-checks pass, and exclusion by family keeps them native;
* pycryptodome's private ``_state`` / ``_cipher`` hand the object to a twin.
"""

from __future__ import annotations

import random

import pytest

from accel_agent import catalog, registry, selfcheck
from accel_agent.providers import chacha as provider_module
from transparency_helpers import ensure_agent, import_from, installed_flavours

FLAVOURS = installed_flavours()
PRIMITIVES = ("chacha20", "chacha20-poly1305", "xchacha20-poly1305")


@pytest.fixture(scope="module")
def stream_provider():
    return provider_module.chacha20_provider()


@pytest.fixture(scope="module")
def aead_provider():
    return provider_module.chacha20_poly1305_provider()


def native(flavour: str, name: str):
    """The module's original ``new`` (the agent may have patched it)."""
    from accel_agent import patching

    module = import_from(flavour, "Cipher." + name)
    try:
        return patching.get_original(module.__name__, "new")
    except KeyError:
        return module.new


# ----------------------------------------------------------------- HChaCha20 and XChaCha20


def test_hchacha20_draft_vector(stream_provider):
    # draft-irtf-cfrg-xchacha-03, 2.2.1
    key = bytes(range(32))
    nonce = bytes.fromhex("000000090000004a0000000031415927")
    expected = "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"
    assert stream_provider.hchacha20(key, nonce).hex() == expected


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_hchacha20_matches_pycryptodome(stream_provider, flavour):
    chacha = import_from(flavour, "Cipher.ChaCha20")
    rng = random.Random(1)
    for _ in range(50):
        key, nonce = rng.randbytes(32), rng.randbytes(16)
        assert stream_provider.hchacha20(key, nonce) == bytes(chacha._HChaCha20(key, nonce))


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("module_name", ["Cipher.ChaCha20", "Cipher.ChaCha20_Poly1305"])
def test_xchacha20_subkey_from_native_equals_openssls(stream_provider, flavour, module_name):
    """The target derives XChaCha20's subkey with pycryptodome's own HChaCha20 where the
    module has it; it must equal what the provider's OpenSSL block gives, its fallback."""
    from types import ModuleType

    from accel_agent.targets.pycryptodome import chacha as target

    extended = target.native_extension(import_from(flavour, module_name))
    assert extended is not None
    rng = random.Random(2)
    for _ in range(50):
        key, nonce = rng.randbytes(32), rng.randbytes(24)
        assert extended(key, nonce) == stream_provider.extended(key, nonce)
    assert target.native_extension(ModuleType("without_hchacha20")) is None


def test_xchacha20_poly1305_draft_vector(aead_provider):
    label, key, nonce, aad, plaintext, ciphertext, tag = selfcheck.load("xchacha20-poly1305")[1][0]
    subkey, nonce12 = aead_provider.extended(key, nonce)
    assert nonce12 == bytes(4) + nonce[16:]
    assert aead_provider.one_shot(subkey).encrypt(nonce12, plaintext, aad) == ciphertext + tag


# ----------------------------------------------------------------- counter layouts


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("block", [0, 1, 7, 2**32 - 2, 2**32 - 1, 2**32, 2**33 + 5, 2**63])
def test_eight_byte_nonce_layout(stream_provider, flavour, block):
    """counter (8 bytes LE) || nonce (8 bytes) is the original construction, as natively."""
    key, nonce = bytes(range(32)), bytes(range(100, 108))
    reference = native(flavour, "ChaCha20")(key=key, nonce=nonce)
    reference.seek(64 * block)
    expected = reference.encrypt(bytes(64))
    assert stream_provider.keystream_context(key, nonce, block).update(bytes(64)) == expected


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("block", [0, 1, 1000, 2**32 - 2])
def test_twelve_byte_nonce_layout(stream_provider, flavour, block):
    key, nonce = bytes(range(32)), bytes(range(100, 112))
    reference = native(flavour, "ChaCha20")(key=key, nonce=nonce)
    reference.seek(64 * block)
    expected = reference.encrypt(bytes(64))  # pycryptodome 3.x refuses the last block
    assert stream_provider.keystream_context(key, nonce, block).update(bytes(64)) == expected


def test_openssl_will_not_cross_its_counter_word(stream_provider):
    """Why the target re-opens a context every 2**32 blocks with an 8-byte nonce."""
    context = stream_provider.keystream_context(bytes(32), bytes(8), 2**32 - 1)
    context.update(bytes(64))
    with pytest.raises(ValueError):
        context.update(bytes(1))


# ----------------------------------------------------------------- the AEAD composition


@pytest.mark.parametrize("length", [0, 1, 15, 16, 17, 64, 65, 1000])
@pytest.mark.parametrize("aad_length", [0, 1, 16, 33])
def test_streamed_aead_equals_one_shot(aead_provider, length, aad_length):
    rng = random.Random(length * 100 + aad_length)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    plaintext, aad = rng.randbytes(length), rng.randbytes(aad_length)
    sealed = aead_provider.one_shot(key).encrypt(nonce, plaintext, aad)
    for _ in range(5):
        stream = aead_provider.stream(key, nonce)
        cut = rng.randint(0, aad_length)
        stream.authenticate(aad[:cut])
        stream.authenticate(aad[cut:])
        cuts = sorted(rng.randint(0, length) for _ in range(3))
        bounds = [0, *cuts, length]
        ciphertext = b"".join(stream.encrypt(plaintext[a:b]) for a, b in zip(bounds, bounds[1:]))
        assert ciphertext + stream.tag() == sealed
        assert stream.tag() == sealed[-16:]  # computed once, returned again
        opener = aead_provider.stream(key, nonce)
        opener.authenticate(aad)
        assert opener.decrypt(ciphertext) == plaintext
        assert opener.tag() == sealed[-16:]


# ----------------------------------------------------------------- registry and self-checks


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_catalog_entry(primitive):
    spec = catalog.BY_NAME[primitive]
    assert spec.family == "chacha"
    assert spec.requires == ()
    assert all(selfcheck.load(name)[1] for name in spec.known_answers)


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_registry_accelerates(primitive):
    ensure_agent()
    chosen = registry.choice(primitive)
    assert chosen.outcome == registry.ACCELERATED, chosen.reason
    assert chosen.provider_name == "openssl"


def test_hchacha20_check_catches_a_wrong_subkey(stream_provider, monkeypatch):
    checker, vectors = selfcheck.load("hchacha20")
    label, key, nonce, subkey = vectors[0]
    wrong = (label, key, nonce, bytes([subkey[0] ^ 1]) + subkey[1:])
    monkeypatch.setitem(selfcheck.KNOWN_ANSWERS, "hchacha20", (checker, (wrong,)))
    with pytest.raises(selfcheck.SelfCheckFailed, match="wrong subkey"):
        selfcheck.run("chacha20", stream_provider)


# ----------------------------------------------------------------- pycryptodome internals


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_private_state_hands_over_to_a_twin(flavour):
    ensure_agent()
    chacha = import_from(flavour, "Cipher.ChaCha20")
    key, nonce = bytes(range(32)), bytes(12)
    cipher = chacha.new(key=key, nonce=nonce)
    first = cipher.encrypt(bytes(10))
    assert cipher._state is not None  # a native twin's C state, at position 10
    rest = cipher.encrypt(bytes(100))
    assert first + rest == native(flavour, "ChaCha20")(key=key, nonce=nonce).encrypt(bytes(110))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_private_cipher_before_data_hands_over_to_a_twin(flavour):
    ensure_agent()
    aead = import_from(flavour, "Cipher.ChaCha20_Poly1305")
    key, nonce = bytes(range(32)), bytes(12)
    cipher = aead.new(key=key, nonce=nonce)
    cipher.update(b"header")
    cipher._cipher.seek(64)  # what the twin's own __init__ did: nothing changes
    reference = native(flavour, "ChaCha20_Poly1305")(key=key, nonce=nonce)
    reference.update(b"header")
    assert cipher.encrypt_and_digest(b"data") == reference.encrypt_and_digest(b"data")
    late = aead.new(key=key, nonce=nonce)
    late.encrypt(b"data")
    with pytest.raises(AttributeError):
        late._cipher  # noqa: B018 - after data there is no inner cipher to give


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("method", ["encrypt", "decrypt"])
@pytest.mark.parametrize("extra", [0, 1, 64, 65, 200])
def test_aead_message_limit_is_judged_as_natively(flavour, method, extra):
    """Past 2**32 - 2 blocks of message, a native object with the same count decides.

    The agent's object is put at the limit through its own stream; the native
    one through pycryptodome's inner cipher (as its own test_max_plaintext does).
    """
    from accel_agent.targets.pycryptodome._chacha_aead import MESSAGE_LIMIT

    ensure_agent()
    aead = import_from(flavour, "Cipher.ChaCha20_Poly1305")
    key, nonce = bytes(range(32)), bytes(12)
    outcomes = []
    for make in (aead.new, native(flavour, "ChaCha20_Poly1305")):
        cipher = make(key=key, nonce=nonce)
        getattr(cipher, method)(b"")
        if make is aead.new:
            stream = cipher._stream
            stream.ct_len = MESSAGE_LIMIT
            stream._context = cipher._provider.keystream_context(
                cipher._aead_key, cipher._aead_nonce, 1 + MESSAGE_LIMIT // 64
            )
        else:
            cipher._cipher.seek(MESSAGE_LIMIT)
            getattr(cipher._cipher, method)(bytes(64))
            cipher._len_ct = MESSAGE_LIMIT
        try:
            outcomes.append(("returned", getattr(cipher, method)(bytes(extra))))
        except Exception as exc:  # noqa: BLE001 - the exception is the outcome
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_xchacha20_poly1305_new_takes_the_flat_path_with_natives_results(flavour):
    """new(key=..., nonce=24 bytes) builds the object in new()'s flat path (subkey there too)."""
    ensure_agent()
    from accel_agent.targets.pycryptodome._chacha_aead import ChaCha20Poly1305Cipher

    module = import_from(flavour, "Cipher.ChaCha20_Poly1305")
    native_new = native(flavour, "ChaCha20_Poly1305")
    rng = random.Random(24)
    module.new(key=bytes(32), nonce=bytes(24))  # the first call resolves the slot
    if not registry.slot("xchacha20-poly1305").provider:
        pytest.skip("xchacha20-poly1305 is not accelerated here")
    before = registry.calls()["xchacha20-poly1305"]
    for size in (0, 1, 64, 1000):
        key, nonce, aad, data = (rng.randbytes(n) for n in (32, 24, rng.randrange(40), size))
        ours, theirs = module.new(key=key, nonce=nonce), native_new(key=key, nonce=nonce)
        assert type(ours) is ChaCha20Poly1305Cipher and ours.nonce == nonce
        ours.update(aad)
        theirs.update(aad)
        sealed = ours.encrypt_and_digest(data)
        assert sealed == theirs.encrypt_and_digest(data)
        opener = module.new(nonce=nonce, key=key)  # either keyword order
        opener.update(aad)
        assert opener.decrypt_and_verify(*sealed) == data
    assert registry.calls()["xchacha20-poly1305"] - before == 8
