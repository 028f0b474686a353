"""python-rsa under the agent against python-rsa without it, on generated inputs.

Every comparison runs a scenario twice through :func:`transparency_helpers.both`:
with the agent, then with every patched attribute set back to python-rsa's
own function. Deterministic results (signatures, hash names from
``verify``, every exception with its message) must be identical; randomized
ones (``encrypt``'s padding, generated keys) are compared by type and size,
and checked across: what the agent makes, native python-rsa decrypts,
verifies or uses.
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import subprocess
import sys
from functools import cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from transparency_helpers import Recorder, Shape, both, call_counts, count_delta, natively

pytest.importorskip("rsa", reason="python-rsa is not installed")
import rsa  # noqa: E402
import rsa.key  # noqa: E402
import rsa.pkcs1  # noqa: E402

from accel_agent import patching, selfcheck  # noqa: E402
from accel_agent.targets.python_rsa import _keys  # noqa: E402

RAISED = Recorder.RAISED
SETTINGS = settings(
    max_examples=int(os.environ.get("ACCEL_DIFF_EXAMPLES", "40")),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HASH_NAMES = ("MD5", "SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512")
HASH_NAMES += ("SHA3-256", "SHA3-384", "SHA3-512")
BAD_HASH_NAMES = ("SHA-255", "sha-256", "", None, b"SHA-256", "SHA3-224")
SIGN = "rsa-pkcs1v15-sign"
ENCRYPT = "rsa-pkcs1v15-encrypt"
KEYGEN = "rsa-keygen"


# ----------------------------------------------------------------- keys, made once


@cache
def keys() -> dict:
    """(PublicKey, PrivateKey) by name: native ones, the agent's, and a key from numbers."""
    made = {}
    with natively():
        made["native-384"] = rsa.newkeys(384)  # too small for OpenSSL's probe: native
        made["native-512"] = rsa.newkeys(512)
        made["native-768"] = rsa.newkeys(768)
    made["agent-1024"] = rsa.newkeys(1024)
    made["agent-2048"] = rsa.newkeys(2048)
    made["agent-1024-e3"] = rsa.newkeys(1024, exponent=3)
    # Wycheproof's key (the known answers' RSA-2048 key), d mod lcm(p-1, q-1), p > q
    n, e, d, p, q = selfcheck.load(SIGN)[1][0][1]
    made["wycheproof-2048"] = (rsa.PublicKey(n, e), rsa.PrivateKey(n, e, d, p, q))
    # python-rsa keeps p > q; a key read from elsewhere may not.
    made["wycheproof-2048-p<q"] = (rsa.PublicKey(n, e), rsa.PrivateKey(n, e, d, q, p))
    return made


KEY_NAMES = (
    "native-384",
    "native-512",
    "native-768",
    "agent-1024",
    "agent-2048",
    "agent-1024-e3",
    "wycheproof-2048",
    "wycheproof-2048-p<q",
)
key_names = st.sampled_from(KEY_NAMES)
messages = st.binary(max_size=300)


def _raw_private(private: rsa.PrivateKey, block: bytes) -> bytes:
    """``block`` raised to d, in Python: a crafted signature whatever its padding."""
    k = (private.n.bit_length() + 7) // 8
    return pow(int.from_bytes(block, "big"), private.d, private.n).to_bytes(k, "big")


# ----------------------------------------------------------------- signing


def _sign_scenario(rec, module, message, private, hash_method, hash_value):
    rec.call("sign", module.sign, message, private, hash_method)
    rec.call("sign_hash", module.sign_hash, hash_value, private, hash_method)
    rec.call("rsa.sign_hash", rsa.sign_hash, hash_value, private, hash_method)


def test_the_hash_table_names_the_providers_md5():
    """python-rsa's MD5 is the one hash the RSA provider signs only by its own OID."""
    from accel_agent.providers.rsa import MD5_OID
    from accel_agent.targets.python_rsa.patches import HASHES

    assert HASHES["MD5"][0] == MD5_OID


@pytest.mark.accelerates(SIGN)
@SETTINGS
@given(
    message=messages,
    key=key_names,
    hash_method=st.sampled_from(HASH_NAMES),
    digest_change=st.sampled_from(("exact", "exact", "exact", "short", "long", "bytearray")),
)
@example(message=b"", key="agent-1024", hash_method="SHA-256", digest_change="exact")
@example(message=b"x", key="native-512", hash_method="SHA-512", digest_change="exact")
def test_sign_identical(message, key, hash_method, digest_change):
    """Byte-identical signatures; OverflowError (key too small) and odd digests as native."""
    _public, private = keys()[key]
    digest = rsa.compute_hash(message, hash_method)
    if digest_change == "short":
        digest = digest[:-1]
    elif digest_change == "long":
        digest += b"\x00"
    elif digest_change == "bytearray":
        digest = bytearray(digest)
    both(_sign_scenario, rsa.pkcs1, message, private, hash_method, digest)
    if key == "agent-1024" and digest_change == "exact":  # the marker wants one served call
        before = call_counts()
        rsa.sign_hash(rsa.compute_hash(b"m", "SHA-256"), private, "SHA-256")
        assert count_delta(before, call_counts()).get(SIGN) == 1


@SETTINGS
@given(key=key_names, hash_method=st.sampled_from(BAD_HASH_NAMES), message=messages)
def test_sign_bad_hash_names(key, hash_method, message):
    """Unknown names raise python-rsa's ValueError (or TypeError) with its message."""
    _public, private = keys()[key]
    both(_sign_scenario, rsa.pkcs1, message, private, hash_method, b"\x00" * 32)


def test_sign_with_a_changed_hash_table(monkeypatch):
    """A DigestInfo the application changed in HASH_ASN1 is honoured: native signs."""
    _public, private = keys()["agent-1024"]
    changed = dict(rsa.pkcs1.HASH_ASN1)
    changed["SHA-256"] = changed["SHA-256"][:-1] + b"\x21"  # a wrong length byte, on purpose
    changed["MY-HASH"] = rsa.pkcs1.HASH_ASN1["SHA-256"]
    monkeypatch.setattr(rsa.pkcs1, "HASH_ASN1", changed)
    digest = hashlib.sha256(b"m").digest()
    before = call_counts()
    comparison = both(
        lambda rec, module: [
            rec.call("sha256", module.sign_hash, digest, private, "SHA-256"),
            rec.call("mine", module.sign_hash, digest, private, "MY-HASH"),
        ],
        rsa.pkcs1,
    )
    assert comparison.agent.steps[0][1] == "returned"
    assert not count_delta(before, call_counts()).get(SIGN)


@SETTINGS
@given(key=st.sampled_from(("agent-1024", "wycheproof-2048")), change=st.sampled_from(range(5)))
def test_sign_after_the_key_changed(key, change):
    """A key whose numbers are changed after use signs as python-rsa would with the new ones."""
    _public, original = keys()[key]
    private = rsa.PrivateKey(original.n, original.e, original.d, original.p, original.q)
    rsa.sign(b"first", private, "SHA-256")  # the twin of the original numbers is cached
    if change == 0:
        private.d = private.d + (private.p - 1) * (private.q - 1)  # another valid d
    elif change == 1:
        private.d = private.d ^ 2  # an inconsistent d: native arithmetic, as python-rsa's
    elif change == 2:
        private.p, private.q = private.q, private.p
    elif change == 3:
        private.n = private.n + 2  # no longer p*q
    else:
        private.e = 3  # inconsistent with d
    digest = hashlib.sha256(b"x").digest()
    if change in (0, 2):
        both(_sign_scenario, rsa.pkcs1, b"second", private, "SHA-256", digest)
        return
    # An inconsistent key: python-rsa's blinding no longer cancels out, so its
    # own result is random (two native calls differ). The agent leaves it native.
    before = call_counts()
    rsa.sign_hash(digest, private, "SHA-256")
    assert not count_delta(before, call_counts()).get(SIGN)


def test_sign_with_odd_key_objects():
    """Subclasses, duck-typed keys and non-int numbers go to native code."""
    _public, private = keys()["agent-1024"]

    class MyKey(rsa.PrivateKey):
        pass

    sub = MyKey(private.n, private.e, private.d, private.p, private.q)
    floaty = rsa.PrivateKey(private.n, private.e, private.d, private.p, private.q)
    floaty.d = float(3)
    for key in (sub, floaty, object(), None):
        before = call_counts()
        both(_sign_scenario, rsa.pkcs1, b"m", key, "SHA-256", hashlib.sha256(b"m").digest())
        assert not count_delta(before, call_counts()).get(SIGN)


# ----------------------------------------------------------------- verifying


def _verify_scenario(rec, module, message, signature, public, file_like):
    data = io.BytesIO(message) if file_like else message
    rec.call("verify", module.verify, data, signature, public)
    if file_like:
        rec.note("unread", data.read())
    rec.call("find_signature_hash", module.find_signature_hash, signature, public)


@pytest.mark.accelerates(SIGN)
@SETTINGS
@given(
    message=messages,
    key=key_names,
    hash_method=st.sampled_from(HASH_NAMES),
    tamper=st.sampled_from(("none", "none", "bit", "message", "length", "plus-n", "other-key")),
    position=st.integers(min_value=0, max_value=10_000),
    file_like=st.booleans(),
)
@example(
    message=b"m", key="agent-2048", hash_method="SHA-256", tamper="none", position=0,
    file_like=False,
)  # fmt: skip
def test_verify_identical(message, key, hash_method, tamper, position, file_like):
    """The hash name, or VerificationError('Verification failed'), exactly as native."""
    public, private = keys()[key]
    with natively():
        try:
            signature = rsa.sign(message, private, hash_method)
        except OverflowError:
            signature = b"\x00" * ((private.n.bit_length() + 7) // 8)
    if tamper == "bit":
        index = position % len(signature)
        signature = signature[:index] + bytes([signature[index] ^ 1]) + signature[index + 1 :]
    elif tamper == "message":
        message += b"!"
    elif tamper == "length":
        signature = b"\x00" + signature if position % 2 else signature[1:]
    elif tamper == "plus-n":  # not reduced modulo n: python-rsa accepts it where it fits
        value = int.from_bytes(signature, "big") + public.n
        if value.bit_length() <= len(signature) * 8:
            signature = value.to_bytes(len(signature), "big")
    elif tamper == "other-key":
        public = keys()["agent-1024" if key != "agent-1024" else "agent-2048"][0]
    both(_verify_scenario, rsa.pkcs1, message, signature, public, file_like)
    if tamper == "none" and key == "agent-2048":
        before = call_counts()
        assert rsa.verify(message, signature, public) == hash_method
        assert count_delta(before, call_counts()).get(SIGN) == 1


# Encoded blocks: what a forger would try, raised to d so that e undoes it.
def _blocks(k: int, digest_info: bytes, rng: random.Random) -> dict[str, bytes]:
    def block(prefix: bytes, body: bytes) -> bytes:
        return prefix + b"\xff" * (k - len(prefix) - len(body) - 1) + b"\x00" + body

    random_tail = bytes(rng.randrange(256) for _ in range(len(digest_info)))
    return {
        "valid": block(b"\x00\x01", digest_info),
        "garbage after the separator": block(b"\x00\x01", random_tail),
        "only seven FF": b"\x00\x01" + b"\xff" * 7 + b"\x00" + b"\x01" * (k - 10),
        "a zero inside the padding": block(b"\x00\x01\xff\x00", digest_info),
        "block type 2": block(b"\x00\x02", digest_info),
        "no separator": b"\x00\x01" + b"\xff" * (k - 2),
        "empty DigestInfo": b"\x00\x01" + b"\xff" * (k - 3) + b"\x00",
        "DigestInfo with trailing byte": block(b"\x00\x01", digest_info + b"\x00"),
        "hash prefix in the middle": block(b"\x00\x01", b"\x01" + digest_info),
        "MD5 prefix inside a SHA-256 digest": block(
            b"\x00\x01",
            rsa.pkcs1.HASH_ASN1["SHA-256"][:-1]
            + b"\x32"
            + rsa.pkcs1.HASH_ASN1["MD5"]
            + b"\x00" * 32,
        ),
    }


@pytest.mark.parametrize("key", ["native-512", "agent-1024", "wycheproof-2048"])
def test_verify_crafted_blocks(key):
    """Blocks with every kind of wrong padding: python-rsa's verdict and message, each time."""
    public, private = keys()[key]
    k = (public.n.bit_length() + 7) // 8
    message = b"crafted"
    digest_info = rsa.pkcs1.HASH_ASN1["SHA-256"] + hashlib.sha256(message).digest()
    for label, block in _blocks(k, digest_info, random.Random(k)).items():
        signature = _raw_private(private, block)
        comparison = both(_verify_scenario, rsa.pkcs1, message, signature, public, False)
        outcome = comparison.agent.steps[0]
        if label == "valid":
            assert outcome == ("verify", "returned", "SHA-256"), outcome
        else:
            assert outcome[1] == "raised", (label, outcome)


def test_verify_argument_types():
    """Signatures and keys of other types: python-rsa's own TypeError/AttributeError."""
    public, private = keys()["agent-1024"]
    signature = rsa.sign(b"m", private, "SHA-256")
    for sig in (bytearray(signature), memoryview(signature), signature.hex(), None, 5):
        both(_verify_scenario, rsa.pkcs1, b"m", sig, public, False)
    for key in (private, None, object(), (public.n, public.e)):
        both(_verify_scenario, rsa.pkcs1, b"m", signature, key, False)
    for message in ("m", bytearray(b"m"), None):
        both(_verify_scenario, rsa.pkcs1, message, signature, public, False)


# ----------------------------------------------------------------- encrypting


def _encrypt_scenario(rec, module, message, public, private):
    ciphertext = rec.call("encrypt", module.encrypt, message, public)
    if ciphertext is not RAISED:
        rec.note("ciphertext", Shape(ciphertext))
        with natively():  # what the agent made, native python-rsa decrypts
            rec.call("decrypt", rsa.decrypt, ciphertext, private)
        rec.steps.pop(-3)  # the ciphertext itself is random: only its shape is compared


@pytest.mark.accelerates(ENCRYPT)
@SETTINGS
@given(
    size=st.integers(min_value=0, max_value=300),
    key=key_names,
    kind=st.sampled_from(("bytes", "bytes", "bytearray", "memoryview", "str")),
)
@example(size=5, key="agent-2048", kind="bytes")
def test_encrypt_interoperable(size, key, kind):
    """Ciphertexts native decrypts; OverflowError for k-10 bytes and more, as native."""
    public, private = keys()[key]
    message = bytes(random.Random(size).randrange(256) for _ in range(size))
    k = (public.n.bit_length() + 7) // 8
    message = {"bytes": bytes, "bytearray": bytearray, "memoryview": memoryview}.get(
        kind, lambda m: m.decode("latin-1")
    )(message)
    both(_encrypt_scenario, rsa.pkcs1, message, public, private)
    if key == "agent-2048" and kind == "bytes" and size <= k - 11:
        before = call_counts()
        ciphertext = rsa.encrypt(bytes(message), public)
        assert count_delta(before, call_counts()).get(ENCRYPT) == 1
        with natively():
            assert rsa.decrypt(ciphertext, private) == message


def test_encrypt_boundaries():
    """k-11 bytes fit, k-10 raise python-rsa's OverflowError message; with a private key too."""
    for key in ("native-512", "agent-1024", "agent-2048"):
        public, private = keys()[key]
        k = (public.n.bit_length() + 7) // 8
        for size in (0, 1, k - 12, k - 11, k - 10, k, k + 1):
            both(_encrypt_scenario, rsa.pkcs1, b"\x00" * size, public, private)
            both(_encrypt_scenario, rsa.pkcs1, b"\x00" * size, private, private)


@pytest.mark.native_only(ENCRYPT)
def test_encrypt_with_a_replaced_urandom(monkeypatch):
    """A test that fixes os.urandom gets python-rsa's own padding: byte-identical ciphertexts."""
    public, _private = keys()["agent-1024"]

    def scenario(rec, module):
        stream = random.Random(7)
        monkeypatch.setattr(os, "urandom", lambda n: bytes(stream.randrange(256) for _ in range(n)))
        try:
            rec.call("encrypt", module.encrypt, b"fixed", public)
        finally:
            monkeypatch.undo()

    both(scenario, rsa.pkcs1)


# ----------------------------------------------------------------- decrypting: native


def test_decrypt_is_never_patched():
    """OpenSSL 3.2+'s implicit rejection cannot give DecryptionError: decrypt stays python-rsa's."""
    assert not patching.is_patched("rsa.pkcs1", "decrypt")
    assert not patching.is_patched("rsa", "decrypt")
    assert rsa.decrypt is rsa.pkcs1.decrypt
    assert rsa.decrypt.__module__ == "rsa.pkcs1" and "accel_agent" not in repr(rsa.decrypt.__code__)
    public, private = keys()["agent-1024"]
    ciphertext = rsa.encrypt(b"secret", public)
    assert rsa.decrypt(ciphertext, private) == b"secret"
    bad = ciphertext[:5] + bytes([ciphertext[5] ^ 0x40]) + ciphertext[6:]
    with pytest.raises(rsa.DecryptionError, match="^Decryption failed$"):
        rsa.decrypt(bad, private)


# ----------------------------------------------------------------- key generation


def _check_key_pair(public, private, nbits, exponent, accurate=True):
    assert type(public) is rsa.PublicKey and type(private) is rsa.PrivateKey
    n, e, d, p, q = private.n, private.e, private.d, private.p, private.q
    assert (public.n, public.e) == (n, e) and e == exponent
    assert n == p * q and p > q
    assert n.bit_length() == nbits if accurate else nbits - 16 < n.bit_length() <= nbits
    phi = (p - 1) * (q - 1)
    assert d == pow(e, -1, phi)  # python-rsa's d: modulo phi, not lcm
    assert private == rsa.PrivateKey(n, e, d, p, q)  # exp1, exp2, coef as python-rsa computes
    with natively():  # the key works with python-rsa's own code
        signature = rsa.sign(b"m", private, "SHA-256")
        assert rsa.verify(b"m", signature, public) == "SHA-256"
        assert rsa.decrypt(rsa.encrypt(b"x", public), private) == b"x"
        assert rsa.PrivateKey.load_pkcs1(private.save_pkcs1()) == private
    assert rsa.sign(b"m", private, "SHA-256") == signature  # the cached twin signs the same


@pytest.mark.accelerates(KEYGEN)
@pytest.mark.parametrize(
    "args, kwargs, nbits, exponent, accurate",
    [
        ((1024,), {}, 1024, 65537, True),
        ((2048,), {"accurate": False}, 2048, 65537, False),
        ((1024, True, 2), {}, 1024, 65537, True),  # poolsize: a speed knob, OpenSSL is faster
        ((), {"nbits": 1536, "exponent": 3}, 1536, 3, True),
        ((2048,), {"poolsize": 1, "exponent": 65537}, 2048, 65537, True),
    ],
)
def test_newkeys_through_openssl(args, kwargs, nbits, exponent, accurate):
    before = call_counts()
    public, private = rsa.newkeys(*args, **kwargs)
    assert count_delta(before, call_counts()).get(KEYGEN) == 1
    _check_key_pair(public, private, nbits, exponent, accurate)
    public2, private2 = rsa.key.newkeys(*args, **kwargs)
    assert private2 != private


@pytest.mark.native_only(KEYGEN)
@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((512,), {}),  # below OpenSSL's 1024 bits
        ((1025,), {}),  # odd: python-rsa makes 1024 bits from it
        ((1024.0,), {}),
        ((15,), {}),  # "Key too small"
        ((1024,), {"poolsize": 0}),  # "Pool size (0) should be >= 1"
        ((1024,), {"poolsize": "2"}),
        ((1024,), {"colour": "red"}),
        ((1024, True, 1, 65537, None), {}),
        ((1024,), {"nbits": 1024}),
        ((), {}),
    ],
)
def test_newkeys_native_shapes(args, kwargs):
    """Every other shape is python-rsa's own, errors and messages included."""

    def scenario(rec, module):
        result = rec.call("newkeys", module.newkeys, *args, **kwargs)
        if result is not RAISED:
            rec.steps[-1] = ("newkeys", "returned", "pair")
            rec.note("bits", result[0].n.bit_length())

    both(scenario, rsa.key)


@pytest.mark.native_only(KEYGEN)
def test_newkeys_other_exponents_are_native():
    """OpenSSL generates with e = 3 or 65537 only: another exponent is python-rsa's own work."""
    public, private = rsa.newkeys(1024, exponent=17)
    assert public.e == private.e == 17
    assert private.n == private.p * private.q and private.n.bit_length() == 1024


# ----------------------------------------------------------------- wiring


def test_reexports_are_patched_and_restored():
    """``rsa.X`` and ``rsa.pkcs1.X``: one patched function; natively both are python-rsa's."""
    for name, submodule in (("sign_hash", rsa.pkcs1), ("verify", rsa.pkcs1)):
        assert getattr(rsa, name) is getattr(submodule, name)
        assert patching.is_patched("rsa", name) and patching.is_patched(submodule.__name__, name)
        assert patching.get_original("rsa", name) is patching.get_original(submodule.__name__, name)
    assert rsa.newkeys is rsa.key.newkeys and patching.is_patched("rsa", "newkeys")
    assert rsa.encrypt is rsa.pkcs1.encrypt and patching.is_patched("rsa", "encrypt")
    assert rsa.sign is rsa.pkcs1.sign and not patching.is_patched("rsa", "sign")  # via sign_hash
    with natively():
        assert rsa.verify.__code__.co_filename == rsa.pkcs1.__file__
        assert rsa.newkeys.__code__.co_filename == rsa.key.__file__


def _run(code: str, mode: str = "off") -> subprocess.CompletedProcess:
    env = dict(os.environ, ACCEL_AGENT=mode)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def test_early_references_are_named():
    """python-rsa imported before the agent: patched at once, earlier references named."""
    code = (
        "from rsa import verify as early_verify\n"
        "import accel_agent\n"
        "accel_agent.activate('quiet')\n"
        "import rsa\n"
        "print(rsa.verify is early_verify)\n"
    )
    result = _run(code)
    assert result.stdout.strip() == "False", result.stderr
    assert "imported before the agent started; patched now" in result.stderr
    assert "__main__.early_verify" in result.stderr


def test_uninstall_restores_every_name():
    code = (
        "import rsa, accel_agent\n"
        "before = {n: getattr(rsa, n) for n in ('verify', 'sign_hash', 'encrypt', 'newkeys')}\n"
        "restored = accel_agent.uninstall()\n"
        "import rsa.pkcs1, rsa.key\n"
        "print(sorted(n for n in restored if n.startswith('rsa')))\n"
        # The agent's package directory, not the word "accel": a clone may sit in
        # a folder named accel-agent.
        "agent_dir = accel_agent.__file__.rpartition('/')[0] + '/'\n"
        "print(all(getattr(rsa, n).__module__.startswith('rsa') and not\n"
        "    getattr(rsa, n).__code__.co_filename.startswith(agent_dir) for n in before))\n"
        "print(rsa.verify is rsa.pkcs1.verify, rsa.newkeys is rsa.key.newkeys)\n"
    )
    result = _run(code, "quiet")
    lines = result.stdout.splitlines()
    assert lines[0] == str(
        sorted(
            ["rsa.encrypt", "rsa.newkeys", "rsa.sign_hash", "rsa.verify"]
            + ["rsa.key.newkeys", "rsa.pkcs1.encrypt", "rsa.pkcs1.sign_hash", "rsa.pkcs1.verify"]
        )
    ), result.stderr
    assert lines[1:] == ["True", "True True"], result.stderr


def test_the_patch_loads_at_the_first_call_and_leaves_no_stand_in():
    """``import rsa`` gives stand-ins and loads no patch code; the first call patches,
    the package's re-exports included, and what the replacements read when called
    comes from python-rsa's module, not the copy the patch ran on."""
    code = (
        "import sys, rsa\n"
        "from accel_agent import hooks\n"
        "print('accel_agent.targets.python_rsa.patches' in sys.modules,\n"
        "      rsa.sign_hash is rsa.pkcs1.sign_hash, rsa.sign_hash.__name__)\n"
        "stand_in = rsa.verify\n"
        "pub, priv = rsa.newkeys(1024)\n"
        "signature = rsa.sign(b'm', priv, 'SHA-256')\n"
        "print('accel_agent.targets.python_rsa.patches' in sys.modules, hooks._waiting == [])\n"
        "print(rsa.verify is rsa.pkcs1.verify is not stand_in, stand_in(b'm', signature, pub))\n"
        "rsa.pkcs1.compute_hash = lambda message, method: bytes(32)\n"
        "try:\n"
        "    rsa.verify(b'm', signature, pub)\n"
        "except rsa.VerificationError as exc:\n"
        "    print('refused', exc)\n"
        "import accel_agent\n"
        "print(accel_agent.status(resolve=False)['primitives']['rsa-pkcs1v15-sign']['calls'])\n"
    )
    result = _run(code, "quiet")
    assert result.stdout.splitlines() == [
        "False True sign_hash",
        "True True",
        "True SHA-256",
        "refused Verification failed",
        "3",  # sign, verify, the refused verify (OpenSSL recovered the block)
    ], result.stderr


def test_a_replaced_urandom_at_the_first_call_is_honoured_and_then_not_kept():
    """The first rsa.pkcs1 call of the process comes while a test replaces
    os.urandom: native's padding from it (deterministic), and OpenSSL's again once
    the interpreter's own is back."""
    code = (
        "import os\n"
        "from unittest import mock\n"
        "import rsa\n"
        "from accel_agent import registry\n"
        "pub, priv = rsa.newkeys(1024)\n"
        "with mock.patch('os.urandom', lambda n: b'B' * n):\n"
        "    print(rsa.encrypt(b'hi', pub) == rsa.encrypt(b'hi', pub))\n"
        "print(registry.slot('rsa-pkcs1v15-encrypt').calls)\n"
        "print(rsa.decrypt(rsa.encrypt(b'hi', pub), priv))\n"
        "print(registry.slot('rsa-pkcs1v15-encrypt').calls)\n"
    )
    result = _run(code, "quiet")
    assert result.stdout.splitlines() == ["True", "0", "b'hi'", "1"], result.stderr


def test_excluded_rsa_stays_native():
    code = (
        "import rsa, accel_agent\n"
        "pub, priv = rsa.newkeys(1024)\n"
        "rsa.verify(b'm', rsa.sign(b'm', priv, 'SHA-256'), pub)\n"
        "print(accel_agent.status(resolve=False)['primitives'].get('rsa-pkcs1v15-sign'))\n"
        "from accel_agent.targets.python_rsa import _keys\n"
        "print(len(_keys.private_twins), len(_keys.public_twins))\n"
    )
    env_code = "import os; os.environ['ACCEL_AGENT_EXCLUDE'] = 'rsa'\n"
    result = subprocess.run(
        [sys.executable, "-c", env_code + code],
        capture_output=True,
        text=True,
        env=dict(os.environ, ACCEL_AGENT="quiet", ACCEL_AGENT_EXCLUDE="rsa"),
        timeout=300,
    )
    lines = result.stdout.splitlines()
    assert "'accelerated': False" in lines[0] and "'calls': 0" in lines[0], result.stderr
    assert lines[1] == "0 0", result.stderr


def test_the_key_caches_are_bounded():
    """At most PRIVATE_ENTRIES private twins stay, whatever the number of keys used."""
    _public, template = keys()["native-512"]
    for i in range(_keys.PRIVATE_ENTRIES + 5):
        # Another valid d of the same key: a distinct cache entry each time.
        d = template.d + i * (template.p - 1) * (template.q - 1)
        private = rsa.PrivateKey(template.n, template.e, d, template.p, template.q)
        rsa.sign(b"m", private, "SHA-256")
    assert len(_keys.private_twins) <= _keys.PRIVATE_ENTRIES
    assert len(_keys.public_twins) <= _keys.PUBLIC_ENTRIES


def test_wrong_arity_and_keywords():
    """Missing, extra and keyword arguments: python-rsa's own TypeError messages."""
    public, private = keys()["agent-1024"]
    signature = rsa.sign(b"m", private, "SHA-256")
    digest = hashlib.sha256(b"m").digest()
    calls = {
        "sign_hash": [(digest,), (digest, private, "SHA-256", 1), ()],
        "verify": [(b"m",), (b"m", signature, public, 1)],
        "encrypt": [(), (b"m", public, 1)],
    }
    keywords = {
        "sign_hash": {"hash_value": digest, "priv_key": private, "hash_method": "SHA-256"},
        "verify": {"message": b"m", "signature": signature, "pub_key": public},
        "encrypt": {"message": b"m", "pub_key": public, "other": 1},
    }

    def scenario(rec, module):
        for name, argument_lists in calls.items():
            for args in argument_lists:
                rec.call(name, getattr(module, name), *args)
            result = rec.call(name + " keywords", getattr(module, name), **keywords[name])
            if result is not RAISED:
                rec.steps.pop()  # the keyword call worked; only its errors are compared
        rec.call("newkeys", rsa.key.newkeys, 1024, nbits=1024)

    both(scenario, rsa.pkcs1)
