"""The public-key target's own rules: key twins, declines, randfunc, exclusions, native looks.

The comparisons with native pycryptodome on generated inputs are in
tests/differential/test_pubkey.py; here each test checks one promise of
docs/compatibility-pubkey.md, with the agent activated inside the test.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys

import pytest

import accel_agent
from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _pubkey_twins
from accel_agent.targets.pycryptodome._pubkey_common import CANONICAL_CURVES

FLAVOURS = []
for _name in ("Crypto", "Cryptodome"):
    try:
        importlib.import_module(_name)
    except ImportError:
        continue
    FLAVOURS.append(_name)
if not FLAVOURS:
    pytest.skip("neither pycryptodome nor pycryptodomex is installed", allow_module_level=True)


class Flavour:
    """The modules of one flavour, imported after the agent is active."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, dotted: str):
        return importlib.import_module("%s.%s" % (self.name, dotted.replace("__", ".")))


@pytest.fixture(params=FLAVOURS)
def lib(request, agent_state):
    accel_agent.activate("quiet")
    return Flavour(request.param)


class CountingRandom:
    """A user's randfunc: it must be called, the agent must not replace it."""

    def __init__(self, source=None) -> None:
        self.calls = 0
        self._source = source

    def __call__(self, n: int) -> bytes:
        self.calls += 1
        if self._source is not None:
            return self._source(n)
        return bytes((self.calls + i) % 255 + 1 for i in range(n))


def served(primitive: str, action) -> int:
    slot = registry.slot(primitive)
    before = slot.calls
    action()
    return slot.calls - before


def sha256(lib, data: bytes = b"message"):
    return lib.Hash__SHA256.new(data)


@pytest.fixture
def rsa_key(lib):
    return lib.PublicKey__RSA.generate(2048)


# ----------------------------------------------------------------- keys stay pycryptodome's


def test_generated_keys_are_pycryptodome_objects(lib, rsa_key):
    rsa, ecc = lib.PublicKey__RSA, lib.PublicKey__ECC
    assert type(rsa_key) is rsa.RsaKey
    assert rsa_key.size_in_bits() == 2048 and rsa_key.has_private()
    assert rsa_key.p < rsa_key.q and rsa_key.p * rsa_key.q == rsa_key.n
    assert rsa.import_key(rsa_key.export_key("DER")) == rsa_key
    ecc_key = ecc.generate(curve="P-256")
    assert type(ecc_key) is ecc.EccKey
    assert CANONICAL_CURVES[ecc_key.curve] == "NIST P-256"
    assert ecc_key._point is None  # computed on first use, as native's
    assert ecc.import_key(ecc_key.export_key(format="PEM")) == ecc_key


def test_twins_live_on_the_key_and_are_made_once(lib, rsa_key, monkeypatch):
    key = lib.PublicKey__RSA.import_key(rsa_key.export_key())  # no twin attached yet
    provider = registry.slot("rsa-pkcs1v15-sign").get()
    made = []
    original = provider.load_private
    monkeypatch.setattr(
        provider, "load_private", lambda *a: made.append(1) or original(*a), raising=False
    )
    signer = lib.Signature__pkcs1_15.new(key)
    first, second = signer.sign(sha256(lib)), signer.sign(sha256(lib))
    assert first == second and made == [1]
    assert isinstance(vars(key)[_pubkey_twins.ATTRIBUTE], _pubkey_twins.Twins)
    with pytest.raises(pickle.PicklingError):  # still native's refusal
        pickle.dumps(key)


def test_generated_nist_keys_are_built_as_natives_are(lib):
    """From the second key of a curve on, the key copies the first one's curve state."""
    ecc = lib.PublicKey__ECC
    keys = [ecc.generate(curve="secp384r1") for _ in range(3)]
    accel_agent.uninstall()
    native = ecc.generate(curve="secp384r1")
    for key in keys:
        assert vars(key).keys() - {_pubkey_twins.ATTRIBUTE} == vars(native).keys()
        assert type(key._d) is type(native._d) and key._curve is native._curve
        assert key.curve == native.curve and key._point is None and key._seed is None
        assert 0 < key.d < int(key._curve.order)
        assert key.public_key() == ecc.construct(curve="P-384", d=key.d).public_key()
    assert len({int(key.d) for key in keys}) == 3


def test_generated_keys_carry_their_twins(lib, rsa_key):
    twins = vars(rsa_key)[_pubkey_twins.ATTRIBUTE]
    assert twins.private and twins.public
    ecc_key = lib.PublicKey__ECC.generate(curve="P-384")
    assert vars(ecc_key)[_pubkey_twins.ATTRIBUTE].private


def test_a_twin_never_outlives_a_change_of_its_key(lib):
    """A NIST key whose scalar or point object is replaced after its twin was made is
    served with the new one: signatures and verdicts are native's for the changed key."""
    ecc, dss = lib.PublicKey__ECC, lib.Signature__DSS
    key, other = ecc.generate(curve="P-256"), ecc.generate(curve="P-256")  # twins from OpenSSL
    public = ecc.construct(curve="P-256", point_x=key.pointQ.x, point_y=key.pointQ.y)
    old_signature = dss.new(key, "deterministic-rfc6979").sign(sha256(lib))
    dss.new(public, "fips-186-3").verify(sha256(lib), old_signature)  # the public twin made
    key._d = other._d
    public._point = other.public_key()._point
    signed = []
    sign = lambda: signed.append(dss.new(key, "deterministic-rfc6979").sign(sha256(lib)))  # noqa: E731
    assert served("ecdsa-p256", sign) == 1
    with pytest.raises(ValueError) as agent_error:
        dss.new(public, "fips-186-3").verify(sha256(lib), old_signature)
    accel_agent.uninstall()
    native_key = ecc.construct(curve="P-256", d=int(other.d))
    assert signed[0] == dss.new(native_key, "deterministic-rfc6979").sign(sha256(lib))
    assert signed[0] != old_signature
    with pytest.raises(ValueError) as native_error:
        dss.new(other.public_key(), "fips-186-3").verify(sha256(lib), old_signature)
    assert str(agent_error.value) == str(native_error.value)


def test_a_key_openssl_would_misuse_stays_native(lib, rsa_key):
    """Inconsistent components (no check at construct time): native signs, and reports it."""
    rsa = lib.PublicKey__RSA
    k = rsa_key
    bad = rsa.construct((k.n, k.e, k.d, k.p, k.q, (k.u + 1) % k.q), consistency_check=False)
    signer = lib.Signature__pkcs1_15.new(bad)
    outcome = served(
        "rsa-pkcs1v15-sign", lambda: pytest.raises(ValueError, signer.sign, sha256(lib))
    )
    assert outcome == 0
    assert vars(bad)[_pubkey_twins.ATTRIBUTE].private is False  # remembered as refused


def test_a_key_too_small_for_the_hash_raises_natives_error(lib):
    number, rsa = lib.Util__number, lib.PublicKey__RSA
    p, q = number.getPrime(256), number.getPrime(256)
    key = rsa.construct((p * q, 65537, pow(65537, -1, (p - 1) * (q - 1)), p, q))
    with pytest.raises(TypeError):  # "DigestInfo is too long" (3.15: a len() of its own)
        lib.Signature__pkcs1_15.new(key).sign(lib.Hash__SHA512.new(b"x"))


# ----------------------------------------------------------------- randfunc is honoured


def test_a_users_randfunc_is_honoured_everywhere(lib, rsa_key):
    checks = {
        "rsa-pss": lambda rng: lib.Signature__pss.new(rsa_key, rand_func=rng).sign(sha256(lib)),
        "ecdsa-p256": lambda rng: lib.Signature__DSS.new(
            lib.PublicKey__ECC.generate(curve="P-256"), "fips-186-3", randfunc=rng
        ).sign(sha256(lib)),
        "rsa-oaep": lambda rng: lib.Cipher__PKCS1_OAEP.new(rsa_key, randfunc=rng).encrypt(b"m"),
        "rsa-pkcs1v15-encrypt": lambda rng: lib.Cipher__PKCS1_v1_5.new(
            rsa_key, randfunc=rng
        ).encrypt(b"m"),
        "rsa-keygen": lambda rng: lib.PublicKey__RSA.generate(1024, randfunc=rng),
        "ecc-keygen": lambda rng: lib.PublicKey__ECC.generate(curve="P-256", randfunc=rng),
    }
    for primitive, action in checks.items():
        # A prime search needs real randomness; the others take any bytes.
        rng = CountingRandom(os.urandom if primitive == "rsa-keygen" else None)
        assert served(primitive, lambda action=action, rng=rng: action(rng)) == 0, primitive
        assert rng.calls > 0, primitive


def test_unsalted_pss_and_rfc6979_are_accelerated_and_exact(lib, rsa_key):
    """No randomness needed: OpenSSL serves them, and the bytes are native's."""
    pss, dss = lib.Signature__pss, lib.Signature__DSS
    ecc_key = lib.PublicKey__ECC.generate(curve="P-521")
    results = {}
    for state in ("agent", "native"):
        if state == "native":
            accel_agent.uninstall()
        results[state] = (
            pss.new(rsa_key, salt_bytes=0).sign(sha256(lib)),
            dss.new(ecc_key, "deterministic-rfc6979", "der").sign(lib.Hash__SHA512.new(b"m")),
        )
    assert results["agent"] == results["native"]


# ----------------------------------------------------------------- what stays native


def test_pkcs1_v1_5_decryption_is_never_accelerated(lib, rsa_key):
    cipher = lib.Cipher__PKCS1_v1_5.new(rsa_key)
    ciphertext = cipher.encrypt(b"secret")
    before = registry.calls()
    assert cipher.decrypt(ciphertext, None) == b"secret"
    assert cipher.decrypt(bytes(rsa_key.size_in_bytes()), b"sentinel") in (b"sentinel", b"")
    assert registry.calls() == before


def test_eddsa_context_and_prehash_stay_native(lib):
    key = lib.PublicKey__ECC.generate(curve="Ed25519")
    eddsa = lib.Signature__eddsa
    assert served("ed25519", lambda: eddsa.new(key, "rfc8032", context=b"c").sign(b"m")) == 0
    assert (
        served("ed25519", lambda: eddsa.new(key, "rfc8032").sign(lib.Hash__SHA512.new(b"m"))) == 0
    )
    assert served("ed25519", lambda: eddsa.new(key, "rfc8032").sign(b"m")) == 1


def test_a_custom_mask_function_stays_native(lib, rsa_key):
    mgf1, sha1 = lib.Signature__pss.MGF1, lib.Hash__SHA1
    mask = lambda x, y: mgf1(x, y, sha1)  # noqa: E731 - the documented idiom
    oaep = lib.Cipher__PKCS1_OAEP.new(rsa_key, mgfunc=mask)
    assert served("rsa-oaep", lambda: oaep.decrypt(oaep.encrypt(b"m"))) == 0
    signer = lib.Signature__pss.new(rsa_key, mask_func=mask)
    assert served("rsa-pss", lambda: signer.verify(sha256(lib), signer.sign(sha256(lib)))) == 0


def test_excluding_a_family_keeps_it_native(agent_state):
    registry.set_exclusions(frozenset({"rsa"}))
    accel_agent.activate("quiet")
    lib = Flavour(FLAVOURS[0])
    key = lib.PublicKey__RSA.generate(1024)
    assert (
        served("rsa-pkcs1v15-sign", lambda: lib.Signature__pkcs1_15.new(key).sign(sha256(lib))) == 0
    )
    assert registry.choice("rsa-pkcs1v15-sign").provider_name == "native"
    ecc_key = lib.PublicKey__ECC.generate(curve="P-256")
    assert (
        served(
            "ecdsa-p256", lambda: lib.Signature__DSS.new(ecc_key, "fips-186-3").sign(sha256(lib))
        )
        == 1
    )


# ----------------------------------------------------------------- native looks


def test_scheme_objects_look_native(lib, rsa_key):
    pkcs1_15, dss = lib.Signature__pkcs1_15, lib.Signature__DSS
    scheme = pkcs1_15.new(rsa_key)
    assert isinstance(scheme, pkcs1_15.PKCS115_SigScheme)
    assert type(scheme).__name__ == "PKCS115_SigScheme"
    assert type(scheme).__module__ == pkcs1_15.__name__
    ecc_key = lib.PublicKey__ECC.generate(curve="P-256")
    for mode in ("fips-186-3", "deterministic-rfc6979"):
        for _ in range(2):  # the second fips-186-3 scheme comes from the template
            signer = dss.new(ecc_key, mode)
            assert type(signer).__qualname__ in ("FipsEcDsaSigScheme", "DeterministicDsaSigScheme")
            assert isinstance(signer, dss.DssSigScheme)
            assert signer.can_sign()
    legacy = lib.Signature__PKCS1_v1_5.new(rsa_key)
    signature = legacy.sign(sha256(lib))
    assert legacy.verify(sha256(lib), signature) is True
    assert legacy.verify(sha256(lib), bytes(len(signature))) is False
    patched = [(pkcs1_15, "new"), (dss, "new"), (lib.Signature__eddsa, "new")]
    try:
        patched.append((lib.Protocol__DH, "_compute_ecdh"))
    except ImportError:  # before pycryptodome 3.21
        pass
    for module, name in patched:
        replacement = getattr(module, name)
        assert replacement.__wrapped__ is patching.get_original(module.__name__, name)
        assert replacement.__name__ == name


def test_uninstall_restores_and_objects_made_before_keep_working(lib, rsa_key):
    pkcs1_15 = lib.Signature__pkcs1_15
    signer = pkcs1_15.new(rsa_key)
    expected = signer.sign(sha256(lib))
    accel_agent.uninstall()
    assert not patching.is_patched(pkcs1_15.__name__)
    assert type(pkcs1_15.new(rsa_key)) is pkcs1_15.PKCS115_SigScheme
    assert signer.sign(sha256(lib)) == expected  # the slot is still there
    assert pkcs1_15.new(rsa_key).sign(sha256(lib)) == expected


def test_key_agreement_secrets_have_natives_types(lib):
    """bytes for the NIST curves, bytearray for X25519/X448 (key_agreement concatenates them)."""
    ecc = lib.PublicKey__ECC
    try:
        dh = lib.Protocol__DH
    except ImportError:
        pytest.skip("Crypto.Protocol.DH came in pycryptodome 3.21")
    for curve, kind in (("P-256", bytes), ("Curve25519", bytearray), ("Curve448", bytearray)):
        a, b = ecc.generate(curve=curve), ecc.generate(curve=curve)
        primitive = {"P-256": "ecdh-p256", "Curve25519": "x25519", "Curve448": "x448"}[curve]
        shared = []
        compute = lambda a=a, b=b, out=shared: out.append(dh._compute_ecdh(a, b.public_key()))  # noqa: E731
        assert served(primitive, compute) == 1
        assert type(shared[0]) is kind
        assert shared[0] == dh.key_agreement(
            static_priv=b, static_pub=a.public_key(), kdf=lambda z: z
        )


def test_dsa_prints_no_warning_of_pycas(lib):
    """pyca/cryptography 51 deprecates DSA and warns when its names are read and a DSA key
    is loaded; native pycryptodome warns of nothing, so the agent may not either."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        generated = {}
        assert served("dsa-keygen", lambda: generated.update(key=lib.PublicKey__DSA.generate(1024)))
        key = generated["key"]
        digest = sha256(lib)
        signature = {}
        signer = lib.Signature__DSS.new(key, "fips-186-3")
        assert served("dsa", lambda: signature.update(value=signer.sign(digest))) == 1
        verifier = lib.Signature__DSS.new(key.publickey(), "fips-186-3")
        assert served("dsa", lambda: verifier.verify(digest, signature["value"])) == 1
    assert [str(warning.message) for warning in caught] == []


FIRST_CALL_THEN_REBOUND = """\
from unittest import mock
from Crypto.PublicKey import RSA, DSA
from Crypto.Cipher import PKCS1_v1_5
from Crypto.Signature import pss
from Crypto.Hash import SHA256
RSA.generate(1024)  # the first call: the patch runs on a copy of the module
class MyKey(RSA.RsaKey):
    pass
RSA.RsaKey = MyKey  # the application rebinds the module's class
print(type(RSA.generate(2048)).__name__)
DSA.generate(1024)
class MyDsa(DSA.DsaKey):
    pass
DSA.DsaKey = MyDsa
print(type(DSA.generate(1024)).__name__)
key = RSA.generate(2048)
with mock.patch("Crypto.Random.get_random_bytes", lambda n: b"B" * n):
    # the first calls of PKCS1_v1_5 and pss come while a test replaces the randomness
    print(PKCS1_v1_5.new(key).encrypt(b"hi") == PKCS1_v1_5.new(key).encrypt(b"hi"))
    h = SHA256.new(b"m")
    print(pss.new(key).sign(h) == pss.new(key).sign(h))
"""


@pytest.mark.parametrize("mode", ["quiet", "off"])
def test_what_a_first_call_patch_reads_is_the_modules_at_each_call(mode):
    """Module attributes native reads at each call (the key class, the random function)
    are read from the module by the agent too, not from the copy its patch ran on or
    as they were at the first call."""
    result = subprocess.run(
        [sys.executable, "-c", FIRST_CALL_THEN_REBOUND], capture_output=True, text=True,
        env=dict(os.environ, ACCEL_AGENT=mode), timeout=300,
    )  # fmt: skip
    assert result.stdout.split() == ["MyKey", "MyDsa", "True", "True"], result.stderr
