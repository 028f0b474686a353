"""Key and signature objects as programs hold them, agent against native pycryptodome.

One RSA, DSA, ECC or EdDSA key (and one ``pss``/``pkcs1_15``/``DSS``/``eddsa``
signer over it) shared by 2-16 threads that sign and verify at once; keys and
signers copied, deep-copied, pickled, weakly referenced and type-checked; a
key made in a parent process used in a child forked from it. Deterministic
schemes (PKCS#1 v1.5, deterministic ECDSA, EdDSA) are compared output for
output; randomized ones (PSS, FIPS ECDSA and DSA) by what verification says.

A key object holds no mutable state its methods change, so natively threads
sharing one are safe; the agent's runs make the calls from all threads at
once and native's make them one thread after another (see
``shared_use.compare_threaded``), and the transcripts must be equal.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap
import weakref

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_use import compare_threaded, hammer

import transparency_helpers as th

FLAVOURS = th.flavours_or_skip()
EXAMPLES = th.env_int("ACCEL_OBJECT_EXAMPLES", 8)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Fixed key material (each side builds its own key objects from it).
ECC_SECRET = int.from_bytes(bytes(range(1, 33)), "big")
ED25519_SEED = bytes(range(32))


def _rsa_components(flavour):
    """(n, e, d, p, q) of an RSA-2048 key made once per flavour (any key will do)."""
    key = _RSA_KEYS.get(flavour)
    if key is None:
        rsa = th.import_from(flavour, "PublicKey.RSA")
        made = rsa.generate(2048)
        key = _RSA_KEYS[flavour] = (made.n, made.e, made.d, made.p, made.q)
    return key


_RSA_KEYS: dict = {}


def _dsa_components():
    """(y, g, p, q, x) of RFC 6979 A.2.2's DSA-2048 key."""
    from accel_agent import known_answers

    p, q, g, y, x = known_answers.dsa_key(known_answers.read("dsa")["vectors"][0]["key"])
    return y, g, p, q, x


def _key(flavour, kind, components):
    if kind == "rsa":
        return th.import_from(flavour, "PublicKey.RSA").construct(components)
    if kind == "dsa":
        return th.import_from(flavour, "PublicKey.DSA").construct(_dsa_components())
    ecc = th.import_from(flavour, "PublicKey.ECC")
    if kind == "p256":
        return ecc.construct(curve="P-256", d=ECC_SECRET)
    if kind == "p384":
        return ecc.construct(curve="P-384", d=ECC_SECRET)
    return ecc.construct(curve="Ed25519", seed=ED25519_SEED)


class Scheme:
    """A signature scheme over one key kind: how to make a signer, and whether it is random."""

    def __init__(self, name, kind, module, make, deterministic, digest=True) -> None:
        self.name = name
        self.kind = kind
        self.module = module
        self.make = make  # (scheme module, key) -> signer
        self.deterministic = deterministic
        self.digest = digest  # signs a hash object (else the message itself: EdDSA)

    def __repr__(self) -> str:
        return self.name


SCHEMES = [
    Scheme("pkcs1_15", "rsa", "Signature.pkcs1_15", lambda m, k: m.new(k), True),
    Scheme("pss", "rsa", "Signature.pss", lambda m, k: m.new(k), False),
    Scheme("dss-fips-p256", "p256", "Signature.DSS", lambda m, k: m.new(k, "fips-186-3"), False),
    Scheme("dss-fips-dsa", "dsa", "Signature.DSS", lambda m, k: m.new(k, "fips-186-3"), False),
    Scheme(
        "dss-rfc6979-p384",
        "p384",
        "Signature.DSS",
        lambda m, k: m.new(k, "deterministic-rfc6979"),
        True,
    ),
    Scheme(
        "eddsa-ed25519", "ed25519", "Signature.eddsa", lambda m, k: m.new(k, "rfc8032"), True, False
    ),
]


def _params(schemes):
    return [
        pytest.param(flavour, s, id="%s-%s" % (s.name, flavour))
        for s in schemes
        for flavour in FLAVOURS
    ]


def _subject(flavour, scheme, message):
    if not scheme.digest:
        return message
    return th.import_from(flavour, "Hash.SHA256").new(message)


def _components(flavour, scheme):
    return _rsa_components(flavour) if scheme.kind == "rsa" else None


# --------------------------------------------------------------------------- threads


def shared_signer_scenario(rec, module, flavour, scheme, components, messages, concurrent):
    key = _key(flavour, scheme.kind, components)
    signer = scheme.make(module, key)
    verifier = scheme.make(module, key.public_key())
    threads = len(messages)
    signatures: dict = {}

    def call(thread, i):
        message = messages[thread]
        subject = _subject(flavour, scheme, message)
        signature = signer.sign(subject)
        signatures[thread, i] = signature if scheme.deterministic else len(signature)
        verifier.verify(subject, signature)  # raises if it does not verify
        try:
            verifier.verify(subject, bytes(len(signature)))
        except ValueError:
            pass
        else:
            raise AssertionError("a zero signature verified")

    rec.note("exceptions", hammer(call, threads, 3, concurrent))
    rec.note("signatures", sorted(signatures.items()))


@pytest.mark.parametrize(("flavour", "scheme"), _params(SCHEMES))
@SETTINGS
@given(messages=st.lists(st.binary(min_size=16, max_size=1 << 14), min_size=2, max_size=16))
def test_threads_sharing_a_signer(flavour, scheme, messages):
    module = th.import_from(flavour, scheme.module)
    components = _components(flavour, scheme)
    compare_threaded(shared_signer_scenario, module, flavour, scheme, components, messages)


def shared_key_scenario(rec, module, flavour, scheme, components, threads, concurrent):
    key = _key(flavour, scheme.kind, components)
    seen: dict = {}

    def call(thread, i):
        signer = scheme.make(module, key)  # a new signer per call, one key for all
        subject = _subject(flavour, scheme, b"message %d" % thread)
        signature = signer.sign(subject)
        scheme.make(module, key.public_key()).verify(subject, signature)
        seen[thread, i] = (
            signature if scheme.deterministic else len(signature),
            key.has_private(),
            key.public_key() == key.public_key(),
            key.export_key(format="PEM") if scheme.kind != "rsa" else key.export_key(),
        )

    rec.note("exceptions", hammer(call, threads, 2, concurrent))
    rec.note("results", sorted(seen.items()))


@pytest.mark.parametrize(("flavour", "scheme"), _params(SCHEMES))
@SETTINGS
@given(threads=st.integers(2, 16))
def test_threads_sharing_a_key(flavour, scheme, threads):
    module = th.import_from(flavour, scheme.module)
    components = _components(flavour, scheme)
    compare_threaded(shared_key_scenario, module, flavour, scheme, components, threads)


# --------------------------------------------------------------------------- shape


def key_shape_scenario(rec, module, flavour, scheme, components, message):
    key = _key(flavour, scheme.kind, components)
    signer = scheme.make(module, key)
    subject = _subject(flavour, scheme, message)
    first = signer.sign(subject)
    key_module_name, key_class = {"rsa": ("RSA", "RsaKey"), "dsa": ("DSA", "DsaKey")}.get(
        scheme.kind, ("ECC", "EccKey")
    )
    public_class = getattr(th.import_from(flavour, "PublicKey." + key_module_name), key_class)
    rec.note("key isinstance", isinstance(key, public_class))
    rec.note("key class", (type(key).__module__, type(key).__qualname__))
    native_signer_class = {
        "pkcs1_15": "PKCS115_SigScheme",
        "pss": "PSS_SigScheme",
        "dss-fips-p256": "FipsEcDsaSigScheme",
        "dss-fips-dsa": "FipsDsaSigScheme",
        "dss-rfc6979-p384": "DeterministicDsaSigScheme",
        "eddsa-ed25519": "EdDSASigScheme",
    }[scheme.name]
    rec.note("signer isinstance", isinstance(signer, getattr(module, native_signer_class)))
    rec.note("signer class", (type(signer).__module__, type(signer).__qualname__))
    rec.note("weak references", (weakref.ref(key)() is key, weakref.ref(signer)() is signer))
    rec.call("set an attribute on the key", setattr, key, "label", "mine")
    for target, label in ((key, "key"), (signer, "signer")):
        shallow = rec.call("copy.copy " + label, copy.copy, target)
        if shallow is not th.RAISED:
            rec.note(label + " shallow copy: same class", type(shallow) is type(target))
        rec.call("deepcopy " + label, copy.deepcopy, target)
        for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
            rec.call("pickle %s %d" % (label, protocol), pickle.dumps, target, protocol)
    shallow = copy.copy(signer)
    second = shallow.sign(subject)
    rec.note("signed with the shallow copy", second if scheme.deterministic else th.Shape(second))
    if scheme.deterministic:
        rec.note("same signature", first == second)
    verifier = scheme.make(module, key.public_key())
    rec.call("verify the first", verifier.verify, subject, first)
    rec.call("verify the copy's", verifier.verify, subject, second)
    rec.note("label kept", getattr(key, "label", None))


@pytest.mark.parametrize(("flavour", "scheme"), _params(SCHEMES))
@SETTINGS
@given(message=st.binary(max_size=300))
def test_keys_and_signers_are_shaped_as_native_ones(flavour, scheme, message):
    module = th.import_from(flavour, scheme.module)
    components = _components(flavour, scheme)
    th.both(key_shape_scenario, module, flavour, scheme, components, message)


# --------------------------------------------------------------------------- fork

_FORK_PROGRAM = textwrap.dedent(
    """
    import json, os, sys
    flavour, n, e, d, p, q = sys.argv[1], *map(int, sys.argv[2:7])
    RSA = __import__(flavour + ".PublicKey.RSA", fromlist=["x"])
    ECC = __import__(flavour + ".PublicKey.ECC", fromlist=["x"])
    SHA256 = __import__(flavour + ".Hash.SHA256", fromlist=["x"])
    HMAC = __import__(flavour + ".Hash.HMAC", fromlist=["x"])
    pkcs1_15 = __import__(flavour + ".Signature.pkcs1_15", fromlist=["x"])
    pss = __import__(flavour + ".Signature.pss", fromlist=["x"])
    DSS = __import__(flavour + ".Signature.DSS", fromlist=["x"])
    eddsa = __import__(flavour + ".Signature.eddsa", fromlist=["x"])

    rsa = RSA.construct((n, e, d, p, q))
    p256 = ECC.construct(curve="P-256", d=int.from_bytes(bytes(range(1, 33)), "big"))
    ed = ECC.construct(curve="Ed25519", seed=bytes(range(32)))
    signers = {
        "pkcs1_15": pkcs1_15.new(rsa),
        "rfc6979": DSS.new(p256, "deterministic-rfc6979"),
        "eddsa": eddsa.new(ed, "rfc8032"),
    }
    mac = HMAC.new(b"key", b"half a message", SHA256)
    hashed = SHA256.new(b"half a message")

    def work():
        out = {}
        for name, signer in signers.items():
            subject = b"fork" if name == "eddsa" else SHA256.new(b"fork")
            out[name] = signer.sign(subject).hex()
        signature = pss.new(rsa).sign(SHA256.new(b"fork"))
        try:
            pss.new(rsa.public_key()).verify(SHA256.new(b"fork"), signature)
            out["pss"] = "verified"
        except ValueError:
            out["pss"] = "refused"
        signature = DSS.new(p256, "fips-186-3").sign(SHA256.new(b"fork"))
        DSS.new(p256.public_key(), "fips-186-3").verify(SHA256.new(b"fork"), signature)
        out["mac mid-stream"] = mac.copy().update(b" and the rest").hexdigest()
        clone = hashed.copy()
        clone.update(b" and the rest")
        out["hash mid-stream"] = clone.hexdigest()
        return out

    def calls():
        try:
            from accel_agent import registry
        except ImportError:
            return {}
        return {name: count for name, count in registry.calls().items() if count}

    parent_first = work()  # the keys' OpenSSL twins exist before the fork
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            with os.fdopen(write_end, "w") as pipe:
                results = work()
                json.dump({"results": results, "calls": calls()}, pipe)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        child = pipe.read()
    _, status = os.waitpid(pid, 0)
    child = json.loads(child or "null")
    print(json.dumps({"parent": parent_first, "child": child["results"],
                      "child_calls": child["calls"], "parent_after": work(), "status": status}))
    """
)


def _run_fork_program(flavour, mode):
    env = dict(os.environ, ACCEL_AGENT=mode)
    components = [str(v) for v in _rsa_components(flavour)]
    done = subprocess.run(
        [sys.executable, "-c", _FORK_PROGRAM, flavour, *components],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX only")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_keys_made_before_a_fork_serve_the_child_as_natively(flavour):
    agent = _run_fork_program(flavour, "quiet")
    native = _run_fork_program(flavour, "off")
    assert agent["status"] == native["status"] == 0
    assert agent["child"] == native["child"] == native["parent"]
    assert agent["parent"] == agent["parent_after"] == native["parent"]
    th.TALLY.compared(mismatch=False)
    for primitive in ("rsa-pkcs1v15-sign", "ecdsa-p256", "ed25519", "hmac", "sha256"):
        if th.is_accelerated(primitive):
            assert agent["child_calls"].get(primitive), (primitive, agent["child_calls"])
    assert not native["child_calls"]
