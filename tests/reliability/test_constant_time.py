"""Tag and signature checks are constant-time: a code review, as tests.

Two kinds of evidence:

* spies: on every verification path of an accelerated AEAD, what decides is
  OpenSSL (``finalize_with_tag``, the one-shot AEAD ``decrypt``) or
  ``hmac.compare_digest`` as the target module imported it; the table
  :data:`VERIFY_CASES` has one line per AEAD;
* a static scan: no ``==``, ``!=``, ``in`` or ``not in`` anywhere under
  ``agent/`` has an operand named like a tag, MAC, digest or signature
  (lengths, sizes, types and method-name constants aside), except where the
  compared values are public (:data:`PUBLIC_COMPARISONS`, each with its reason).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from families import installed_flavours

import accel_agent
from accel_agent import registry
from helpers import agent_source_dir, requires_aes_acceleration

PKGS = installed_flavours()
KEY = bytes(range(32))
AAD = b"header"
MESSAGE = bytes(range(200))


class Recorder:
    """Which constant-time decider ran, in order: "compare_digest" or "openssl"."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def take(self) -> list[str]:
        events, self.events = self.events, []
        return events


class _Proxy:
    def __init__(self, inner, record: Recorder, methods: tuple) -> None:
        self._inner, self._record, self._methods = inner, record, methods

    def __getattr__(self, name):
        value = getattr(self._inner, name)
        if name not in self._methods:
            return value

        def recorded(*args, **kwargs):
            self._record.events.append("openssl")
            return value(*args, **kwargs)

        return recorded


def spy_compare_digest(monkeypatch, module_name: str, record: Recorder) -> None:
    module = importlib.import_module(module_name)
    real = module.compare_digest

    def compare_digest(a, b):
        record.events.append("compare_digest")
        return real(a, b)

    monkeypatch.setattr(module, "compare_digest", compare_digest)


# ------------------------------------------------------------------ one line per AEAD


def _gcm_spies(monkeypatch, record: Recorder) -> None:
    from accel_agent.providers import aes

    real_decryptor = aes.GcmProvider.decryptor
    monkeypatch.setattr(
        aes.GcmProvider,
        "decryptor",
        lambda self, *a: _Proxy(real_decryptor(self, *a), record, ("finalize_with_tag",)),
    )
    provider = registry.choice("aes-gcm").provider
    real_one_shot = provider.one_shot
    monkeypatch.setattr(
        provider, "one_shot", lambda key: _Proxy(real_one_shot(key), record, ("decrypt",))
    )


def _chacha_spies(monkeypatch, record: Recorder) -> None:
    # The target's fast path calls the provider's one_shot class directly
    # (provider.aead(key) is the same call one Python frame later).
    provider = registry.choice("chacha20-poly1305").provider
    real_one_shot = provider.one_shot
    monkeypatch.setattr(
        provider, "one_shot", lambda key: _Proxy(real_one_shot(key), record, ("decrypt",))
    )


class VerifyCase:
    def __init__(self, name, primitive, module, new, target, spies) -> None:
        self.name = name
        self.primitive = primitive
        self.module = module  # the pycryptodome module, under Crypto/Cryptodome
        self.new = new  # (module) -> a fresh object of this AEAD, same key and nonce
        self.target = target  # the agent module that imported compare_digest
        self.spies = spies  # installs spies recording OpenSSL's own tag checks

    def __repr__(self) -> str:
        return self.name


VERIFY_CASES = (
    VerifyCase(
        "aes-gcm",
        "aes-gcm",
        "Cipher.AES",
        lambda m: m.new(KEY[:16], m.MODE_GCM, nonce=bytes(12)),
        "accel_agent.targets.pycryptodome._aes_gcm",
        _gcm_spies,
    ),
    VerifyCase(
        "aes-gcm-mac_len-12",
        "aes-gcm",
        "Cipher.AES",
        lambda m: m.new(KEY[:16], m.MODE_GCM, nonce=bytes(12), mac_len=12),
        "accel_agent.targets.pycryptodome._aes_gcm",
        _gcm_spies,
    ),
    VerifyCase(
        "chacha20-poly1305",
        "chacha20-poly1305",
        "Cipher.ChaCha20_Poly1305",
        lambda m: m.new(key=KEY, nonce=bytes(12)),
        "accel_agent.targets.pycryptodome._chacha_aead",
        _chacha_spies,
    ),
)


@pytest.fixture
def spied(request, agent_state, monkeypatch):
    case = request.param
    accel_agent.activate("quiet")
    if registry.choice(case.primitive).outcome != registry.ACCELERATED:
        pytest.skip("%s is not accelerated here" % case.primitive)
    record = Recorder()
    spy_compare_digest(monkeypatch, case.target, record)
    case.spies(monkeypatch, record)
    return case, record


def _sealed(case, module):
    enc = case.new(module)
    enc.update(AAD)
    ciphertext, tag = enc.encrypt_and_digest(MESSAGE)
    forged = bytes([tag[0] ^ 1]) + tag[1:]
    return ciphertext, tag, forged


def _decrypting(case, module, ciphertext):
    dec = case.new(module)
    dec.update(AAD)
    dec.decrypt(ciphertext[:50])
    dec.decrypt(ciphertext[50:])
    return dec


def _verdict(call, *args) -> bool:
    try:
        call(*args)
    except ValueError:
        return False
    return True


@requires_aes_acceleration
@pytest.mark.parametrize("pkg", PKGS)
@pytest.mark.parametrize("spied", VERIFY_CASES, indirect=True, ids=repr)
def test_every_verification_is_decided_in_constant_time(spied, pkg):
    case, record = spied
    module = importlib.import_module("%s.%s" % (pkg, case.module))
    ciphertext, tag, forged = _sealed(case, module)
    record.take()

    # streamed, the right tag first, then again, then a forged one
    dec = _decrypting(case, module, ciphertext)
    record.take()
    for candidate, expected in ((tag, True), (tag, True), (forged, False), (tag, True)):
        assert _verdict(dec.verify, candidate) is expected
        assert record.take() in (["openssl"], ["compare_digest"]), "who decided?"

    # streamed, a forged tag first: the real one must then be rebuilt and compared
    dec = _decrypting(case, module, ciphertext)
    record.take()
    assert _verdict(dec.verify, forged) is False
    assert record.take() in (["openssl"], ["compare_digest"])
    assert _verdict(dec.hexverify, tag.hex()) is True
    assert record.take() == ["compare_digest"]

    # a whole message at once, then verify() again
    for first, expected in ((tag, True), (forged, False)):
        dec = case.new(module)
        dec.update(AAD)
        assert _verdict(dec.decrypt_and_verify, ciphertext, first) is expected
        assert record.take() in (["openssl"], ["compare_digest"])
        assert _verdict(dec.verify, tag) is True
        assert record.take() == ["compare_digest"]


@requires_aes_acceleration
@pytest.mark.parametrize("spied", VERIFY_CASES[:1], indirect=True, ids=repr)
def test_gcm_first_verify_is_openssls_and_repeats_use_compare_digest(spied):
    """The design's split for GCM, exactly: OpenSSL checks a tag once; later checks compare."""
    case, record = spied
    module = importlib.import_module("%s.%s" % (PKGS[0], case.module))
    ciphertext, tag, forged = _sealed(case, module)
    dec = _decrypting(case, module, ciphertext)
    record.take()
    dec.verify(tag)
    assert record.take() == ["openssl"]
    dec.verify(tag)
    assert record.take() == ["compare_digest"]
    dec = case.new(module)
    dec.update(AAD)
    dec.decrypt_and_verify(ciphertext, tag)
    assert record.take() == ["openssl"]


# ------------------------------------------------------------------ static scan

SECRET_NAME = re.compile(r"tag|mac|digest|signature|(^|_)sig($|_)", re.IGNORECASE)
PUBLIC_NAME = re.compile(
    r"(len|length|size|sizes|count|limit|kind|type|name|names|bits|oid|mode|_next)$",
    re.IGNORECASE,
)
HARMLESS_CALLS = {"len", "type", "isinstance", "id", "hasattr", "getattr", "callable"}

# (file under agent/accel_agent, enclosing function or "*") -> why the values are public
PUBLIC_COMPARISONS = {
    **{
        (checkers, "*"): "known-answer vectors: published constants, nothing secret to time"
        for checkers in ("selfcheck_ciphers.py", "selfcheck_digests.py", "selfcheck_public_keys.py")
    },
    ("targets/pycryptodome/_hash_common.py", "_reads_whole_buffer"): (
        "digests of a fixed probe, deciding how pycryptodome reads buffers"
    ),
    ("providers/rsa.py", "_probe"): (
        "a key probe: the signature of a fixed public digest against its public encoding"
    ),
}


def _operand_names(node) -> list[str]:
    if isinstance(node, ast.Name):
        return [] if node.id.isupper() else [node.id]  # ALL_CAPS: constants (method names)
    if isinstance(node, ast.Attribute):
        return [] if node.attr.isupper() else [node.attr]
    if isinstance(node, ast.Subscript):
        return _operand_names(node.value)
    if isinstance(node, ast.Call):
        function = node.func
        name = getattr(function, "id", None) or getattr(function, "attr", "")
        if name in HARMLESS_CALLS:
            return []
        inner = _operand_names(function.value) if isinstance(function, ast.Attribute) else []
        return [name, *inner] + [n for arg in node.args for n in _operand_names(arg)]
    if isinstance(node, ast.BinOp):
        return _operand_names(node.left) + _operand_names(node.right)
    return []


def _numeric(node) -> bool:
    """An operand that makes the comparison one of numbers: an int, len(...), a size name."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", None) == "len"
    name = getattr(node, "id", None) or getattr(node, "attr", None)
    return bool(name) and bool(PUBLIC_NAME.search(name))


def secret_comparisons(source: str) -> list[tuple[int, str, str]]:
    """(line, enclosing function, code) of each ==/!=/in whose operands look secret
    (comparisons with a number, a ``len()`` or a size are lengths, public)."""
    tree = ast.parse(source)
    found = []

    def visit(node, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops
        ):
            parts = (node.left, *node.comparators)
            names = [n for part in parts for n in _operand_names(part)]
            if any(_numeric(part) for part in parts):
                names = []
            if any(SECRET_NAME.search(n) and not PUBLIC_NAME.search(n) for n in names):
                found.append((node.lineno, function, ast.unparse(node)))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "<module>")
    return found


def test_the_scan_catches_a_tag_compared_with_equals():
    bad = "def verify(self, received_mac_tag):\n    return self._tag == received_mac_tag\n"
    assert secret_comparisons(bad) == [(2, "verify", "self._tag == received_mac_tag")]
    bad = "def check(sig):\n    if expected_signature != sig: raise ValueError\n"
    assert len(secret_comparisons(bad)) == 1
    fine = (
        "def f(tag, mac_len, digest_bytes, size):\n"
        "    return len(tag) == 16 or mac_len == 4 or type(tag) is bytes or DIGEST in next\n"
        "def g(digest_bytes, size):\n"
        "    return digest_bytes == size or digest_bytes != 20\n"
    )
    assert secret_comparisons(fine) == []


def test_no_tag_mac_or_signature_is_compared_with_equals_in_the_agent():
    root = Path(agent_source_dir()) / "accel_agent"
    offenders = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for line, function, code in secret_comparisons(path.read_text()):
            if (relative, "*") in PUBLIC_COMPARISONS or (relative, function) in PUBLIC_COMPARISONS:
                continue
            offenders.append("%s:%d in %s(): %s" % (relative, line, function, code))
    assert not offenders, "use hmac.compare_digest or OpenSSL's own check:\n" + "\n".join(offenders)


def test_public_comparisons_still_exist():
    """An entry of the allow-list whose code is gone must go too (it would hide a new one)."""
    root = Path(agent_source_dir()) / "accel_agent"
    for (relative, function), _why in PUBLIC_COMPARISONS.items():
        path = root / relative
        if not path.exists():
            continue  # a family still being written
        found = secret_comparisons(path.read_text())
        assert any(function in ("*", f) for _, f, _ in found), (relative, function)


# ------------------------------------------------------------------ MACs: compare_digest decides


class MacCase:
    """One MAC whose ``verify``/``hexverify`` the agent serves: who compares the tags."""

    def __init__(self, name, primitive, target, new) -> None:
        self.name = name
        self.primitive = primitive
        self.target = target  # the agent module that imported compare_digest
        self.new = new  # (pkg) -> a fresh MAC object over MESSAGE

    def __repr__(self) -> str:
        return self.name


def _module(pkg: str, dotted: str):
    return importlib.import_module("%s.%s" % (pkg, dotted))


MAC_CASES = (
    MacCase(
        "hmac-sha256",
        "hmac",
        "accel_agent.targets.pycryptodome.hmac",
        lambda pkg: _module(pkg, "Hash.HMAC").new(
            KEY, MESSAGE, digestmod=_module(pkg, "Hash.SHA256")
        ),
    ),
    MacCase(
        "aes-cmac",
        "aes-cmac",
        "accel_agent.targets.pycryptodome._hash_common",  # CheckedTag.verify, shared with Poly1305
        lambda pkg: _module(pkg, "Hash.CMAC").new(
            KEY[:16], MESSAGE, ciphermod=_module(pkg, "Cipher.AES")
        ),
    ),
    MacCase(
        "poly1305-aes",
        "poly1305",
        "accel_agent.targets.pycryptodome._hash_common",
        lambda pkg: _module(pkg, "Hash.Poly1305").new(
            key=KEY, cipher=_module(pkg, "Cipher.AES"), nonce=bytes(16), data=MESSAGE
        ),
    ),
)


@requires_aes_acceleration
@pytest.mark.parametrize("pkg", PKGS)
@pytest.mark.parametrize("case", MAC_CASES, ids=repr)
def test_every_mac_check_is_compare_digest(agent_state, monkeypatch, case, pkg):
    accel_agent.activate("quiet")
    if registry.choice(case.primitive).outcome != registry.ACCELERATED:
        pytest.skip("%s is not accelerated here" % case.primitive)
    record = Recorder()
    spy_compare_digest(monkeypatch, case.target, record)
    tag = case.new(pkg).digest()
    forged = bytes([tag[0] ^ 1]) + tag[1:]
    for candidate, expected in ((tag, True), (forged, False), (tag[:-1], False)):
        mac = case.new(pkg)
        assert _verdict(mac.verify, candidate) is expected
        assert record.take() == ["compare_digest"], "who decided %s?" % case
        assert _verdict(mac.hexverify, candidate.hex()) is expected
        # pycryptodome's hexverify goes through verify: one comparison, the agent's
        assert record.take() == ["compare_digest"]


# ------------------------------------------------------------------ signatures: OpenSSL decides


class SignatureCase:
    """One signature scheme: the provider methods that judge a signature in OpenSSL.

    The agent's rule (signature.py): OpenSSL's verify accepts, or native
    pycryptodome judges the signature again and raises its own error. So a
    valid signature must be accepted by OpenSSL alone, and a forged one must
    be seen by OpenSSL and then rejected natively, with native's exception.
    """

    def __init__(self, name, primitive, provider, methods, scheme) -> None:
        self.name = name
        self.primitive = primitive
        self.provider = provider  # "module:Class" of the provider whose methods decide
        self.methods = methods
        self.scheme = scheme  # (pkg) -> (signer, verifier, message hash or message)

    def __repr__(self) -> str:
        return self.name


def _rsa_scheme(scheme_module: str):
    def make(pkg: str):
        key = _module(pkg, "PublicKey.RSA").generate(2048)
        scheme = _module(pkg, "Signature." + scheme_module)
        digest = _module(pkg, "Hash.SHA256").new(MESSAGE)
        return scheme.new(key), scheme.new(key.public_key()), digest

    return make


def _dss_scheme(pkg: str):
    key = _module(pkg, "PublicKey.ECC").generate(curve="P-256")
    dss = _module(pkg, "Signature.DSS")
    digest = _module(pkg, "Hash.SHA256").new(MESSAGE)
    return dss.new(key, "fips-186-3"), dss.new(key.public_key(), "fips-186-3"), digest


def _eddsa_scheme(pkg: str):
    key = _module(pkg, "PublicKey.ECC").generate(curve="Ed25519")
    eddsa = _module(pkg, "Signature.eddsa")
    return eddsa.new(key, "rfc8032"), eddsa.new(key.public_key(), "rfc8032"), MESSAGE


SIGNATURE_CASES = (
    SignatureCase(
        "pkcs1_15",
        "rsa-pkcs1v15-sign",
        "accel_agent.providers.rsa:RsaProvider",
        ("verify_pkcs1v15",),
        _rsa_scheme("pkcs1_15"),
    ),
    SignatureCase(
        "pss",
        "rsa-pss",
        "accel_agent.providers.rsa:RsaProvider",
        ("verify_pss",),
        _rsa_scheme("pss"),
    ),
    SignatureCase(
        "dss-p256",
        "ecdsa-p256",
        "accel_agent.providers.ecc:EcdsaProvider",
        ("verify",),
        _dss_scheme,
    ),
    SignatureCase(
        "ed25519",
        "ed25519",
        "accel_agent.providers.eddsa:EddsaProvider",
        ("verify",),
        _eddsa_scheme,
    ),
)


def _spy_provider_methods(monkeypatch, spec: str, methods: tuple, record: Recorder) -> None:
    module_name, class_name = spec.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    for name in methods:
        real = getattr(cls, name)

        def judged(self, *args, _real=real, **kwargs):
            verdict = _real(self, *args, **kwargs)
            record.events.append("openssl:%s" % ("valid" if verdict else "invalid"))
            return verdict

        monkeypatch.setattr(cls, name, judged)


@pytest.mark.parametrize("pkg", PKGS)
@pytest.mark.parametrize("case", SIGNATURE_CASES, ids=repr)
def test_signatures_are_judged_by_openssl_first(agent_state, monkeypatch, case, pkg):
    accel_agent.activate("quiet")
    if registry.choice(case.primitive).outcome != registry.ACCELERATED:
        pytest.skip("%s is not accelerated here" % case.primitive)
    record = Recorder()
    _spy_provider_methods(monkeypatch, case.provider, case.methods, record)
    signer, verifier, message = case.scheme(pkg)
    signature = signer.sign(message)
    record.take()

    verifier.verify(message, signature)  # raises when not accepted
    assert record.take() == ["openssl:valid"], "OpenSSL alone accepts a valid signature"

    forged = bytes([signature[0] ^ 1]) + signature[1:]
    with pytest.raises(ValueError):
        verifier.verify(message, forged)
    assert record.take() == ["openssl:invalid"], "OpenSSL saw it, native raised its own error"
