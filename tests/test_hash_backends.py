"""hashlib without _hashlib, hmac with pycryptodome digestmods, and the calibration cache.

The hashlib checks run in a child interpreter whose ``_hashlib`` is blocked
(``sys.modules["_hashlib"] = None`` before hashlib is imported), with the
agent activated at start-up by its .pth (``ACCEL_AGENT=quiet``), the way a
Python built without OpenSSL runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from accel_agent import calibration, messages

BLOCKED = "import sys; sys.modules['_hashlib'] = None\n"


def run_child(
    code: str, mode: str = "quiet", extra_env: dict | None = None
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ACCEL_"))}
    env["ACCEL_AGENT"] = mode
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def child_json(code: str, extra_env: dict | None = None) -> dict:
    result = run_child(code, extra_env=extra_env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_quiet_start_up_imports_no_hashlib():
    facts = child_json(
        "import sys, json; print(json.dumps({m: m in sys.modules for m in "
        "('hashlib', 'hmac', '_hashlib', 'cryptography', 'accel_agent.activation')}))"
    )
    assert facts == {
        "hashlib": False,
        "hmac": False,
        "_hashlib": False,
        "cryptography": False,
        "accel_agent.activation": True,
    }


def test_blocked_hashlib_gets_openssl_constructors():
    code = BLOCKED + (
        "import hashlib, json\n"
        "from accel_agent.targets import hashlib_backend\n"
        "h = hashlib.sha256(); h.update(b'a' * 3000); c = h.copy(); c.update(b'b')\n"
        "small = hashlib.sha256(b'abc')\n"
        "out = {'report': hashlib_backend.report(),\n"
        " 'openssl': getattr(hashlib, '_hashlib', None) is None,\n"
        " 'name': h.name, 'sizes': [h.digest_size, h.block_size],\n"
        " 'big': h.hexdigest(), 'copy': c.hexdigest(), 'small': small.hexdigest(),\n"
        " 'new': hashlib.new('sha256', b'abc', usedforsecurity=False).hexdigest(),\n"
        " 'NEW': hashlib.new('SHA256', b'abc').hexdigest(),\n"
        " 'sha3': hashlib.sha3_256(b'x' * 5000).hexdigest(),\n"
        " 'blake2b': hashlib.blake2b(b'abc', digest_size=16).hexdigest(),\n"
        " 'str': None}\n"
        "try:\n    hashlib.sha256('text')\nexcept TypeError as exc:\n    out['str'] = str(exc)\n"
        "print(json.dumps(out))\n"
    )
    facts = child_json(code)
    import hashlib

    assert facts["openssl"] is True  # _hashlib really is missing there
    assert facts["report"]["sha256"].startswith("openssl (accel-agent")
    assert facts["report"]["blake2b"] == "builtin"
    assert facts["name"] == "sha256" and facts["sizes"] == [32, 64]
    assert facts["big"] == hashlib.sha256(b"a" * 3000).hexdigest()
    assert facts["copy"] == hashlib.sha256(b"a" * 3000 + b"b").hexdigest()
    assert facts["small"] == facts["new"] == facts["NEW"] == hashlib.sha256(b"abc").hexdigest()
    assert facts["sha3"] == hashlib.sha3_256(b"x" * 5000).hexdigest()
    assert facts["blake2b"] == hashlib.blake2b(b"abc", digest_size=16).hexdigest()
    assert facts["str"] == "Strings must be encoded before hashing"


# What a blocked hashlib serves: the report, the class's module, and the digests
# of a long (OpenSSL's, past the switch) and a short message.
GATED = BLOCKED + (
    "import hashlib, json\n"
    "from accel_agent.targets import hashlib_backend\n"
    "long = {n: getattr(hashlib, n)(b'a' * 3000) for n in ('sha256', 'sha1')}\n"
    "print(json.dumps({'report': {n: hashlib_backend.report()[n] for n in long},\n"
    " 'module': {n: type(h).__module__ for n, h in long.items()},\n"
    " 'digest': {n: h.hexdigest() for n, h in long.items()},\n"
    " 'new': hashlib.new('sha256', b'abc').hexdigest()}))\n"
)


def _expected_digests() -> dict:
    import hashlib

    return {n: hashlib.new(n, b"a" * 3000).hexdigest() for n in ("sha256", "sha1")}


def test_blocked_hashlib_excluded_primitive_stays_builtin():
    """ACCEL_AGENT_EXCLUDE (gate 4) reaches hashlib: an excluded family keeps the builtin code."""
    import hashlib

    facts = child_json(GATED, {"ACCEL_AGENT_EXCLUDE": "sha2"})
    assert facts["report"]["sha256"] == "builtin"
    assert facts["report"]["sha1"].startswith("openssl (accel-agent")
    assert facts["module"]["sha256"] in ("_sha2", "_sha256")  # CPython's builtin module
    assert facts["module"]["sha1"] != "_sha1"
    assert facts["digest"] == _expected_digests()
    assert facts["new"] == hashlib.sha256(b"abc").hexdigest()


def test_blocked_hashlib_failed_self_check_stays_builtin():
    """A self-check that fails (gate 2) leaves that hash to the builtin code, the others not."""
    breaking = (
        "from accel_agent import selfcheck\n"
        "from accel_agent.providers.base import SelfCheckFailed\n"
        "_run = selfcheck.run\n"
        "def run(primitive, provider):\n"
        "    if primitive == 'sha256':\n"
        "        raise SelfCheckFailed('broken on purpose')\n"
        "    return _run(primitive, provider)\n"
        "selfcheck.run = run\n"
    )
    result = run_child(breaking + GATED)
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout.strip().splitlines()[-1])
    assert facts["report"]["sha256"] == "builtin"
    assert facts["report"]["sha1"].startswith("openssl (accel-agent")
    assert facts["module"]["sha256"] in ("_sha2", "_sha256")
    assert facts["digest"] == _expected_digests()
    assert "self-check of sha256" in result.stderr  # said once, on stderr


def test_blocked_hashlib_pycryptodome_still_accelerated():
    pytest.importorskip("Crypto")
    code = BLOCKED + (
        "import json, accel_agent\n"
        "from Crypto.Hash import SHA256, HMAC, SHAKE128\n"
        "from Crypto.Protocol.KDF import PBKDF2, HKDF\n"
        "out = [SHA256.new(b'abc').hexdigest(), HMAC.new(b'k', b'm', SHA256).hexdigest(),\n"
        "       SHAKE128.new(b'abc').read(8).hex(),\n"
        "       PBKDF2(b'p', b's', 32, 10, hmac_hash_module=SHA256).hex(),\n"
        "       HKDF(b'k' * 20, 40, b's', SHA256).hex()]\n"
        "status = accel_agent.status()\n"
        "print(json.dumps({'out': out, 'healthy': status['healthy'], 'calls':\n"
        "  {k: v['calls'] for k, v in status['primitives'].items()}}))\n"
    )
    facts = child_json(code)
    from Crypto.Hash import HMAC, SHA256, SHAKE128
    from Crypto.Protocol.KDF import HKDF, PBKDF2

    expected = [
        SHA256.new(b"abc").hexdigest(),
        HMAC.new(b"k", b"m", SHA256).hexdigest(),
        SHAKE128.new(b"abc").read(8).hex(),
        PBKDF2(b"p", b"s", 32, 10, hmac_hash_module=SHA256).hex(),
        HKDF(b"k" * 20, 40, b"s", SHA256).hex(),
    ]
    assert facts["out"] == expected
    assert facts["healthy"]
    for primitive in ("sha256", "hmac", "shake128", "pbkdf2", "hkdf"):
        assert facts["calls"][primitive] > 0, primitive


def test_stdlib_hmac_with_pycryptodome_digestmod_goes_by_name():
    pytest.importorskip("Crypto")
    code = (
        "import hmac, json\n"
        "from Crypto.Hash import SHA256, SHA512\n"
        "a = hmac.new(b'k', b'm', SHA256)\n"
        "b = hmac.new(b'k', b'm', SHA512.new())\n"
        "print(json.dumps([getattr(a, 'name', None), getattr(b, 'name', None), a.hexdigest(),\n"
        "  hmac.digest(b'k', b'm', SHA512.new()).hex()]))\n"
    )
    name, name512, tag, tag512 = child_json(code)
    import hmac

    if sys.version_info >= (3, 10):  # 3.9 has no HMAC._init_old: its Python HMAC serves
        assert (name, name512) == ("hmac-sha256", "hmac-sha512")  # OpenSSL's HMAC by name
    assert tag == hmac.new(b"k", b"m", "sha256").hexdigest()
    assert tag512 == hmac.digest(b"k", b"m", "sha512").hex()


def test_stdlib_hmac_functions_are_the_standard_librarys_own():
    """``hmac.new``/``hmac.digest`` are not wrapped: a name or a hashlib constructor
    runs the standard library's code at its own cost; only ``HMAC._init_old``,
    which it calls for no other digestmod, is the agent's (3.10 and later)."""
    pytest.importorskip("Crypto")
    code = (
        "import hmac, json\n"
        "from Crypto.Hash import SHA256\n"
        "hmac.new(b'k', b'm', SHA256).digest()\n"
        "init_old = getattr(hmac.HMAC, '_init_old', None)\n"
        "print(json.dumps([f.__code__.co_filename == hmac.__file__\n"
        "  for f in (hmac.new, hmac.digest, hmac.HMAC.__init__, init_old or hmac.new)]))\n"
    )
    new, digest, init, init_old = child_json(code)
    assert new and digest and init
    # 3.10+: the agent's; 3.9 has no _init_old (the standard library's new stands in)
    assert init_old is (sys.version_info < (3, 10))


def test_stdlib_hmac_by_name_only_through_the_gates():
    """With the hmac primitive excluded, hmac keeps the pycryptodome digestmod it was given."""
    pytest.importorskip("Crypto")
    code = (
        "import hmac, json\n"
        "from Crypto.Hash import SHA256\n"
        "a = hmac.new(b'k', b'm', SHA256)\n"
        "print(json.dumps([hasattr(a, '_inner'), a.hexdigest(),\n"
        "  hmac.digest(b'k', b'm', SHA256).hex()]))\n"
    )
    pure, tag, oneshot = child_json(code, {"ACCEL_AGENT_EXCLUDE": "hmac"})
    import hmac

    assert pure  # the standard library's Python HMAC over pycryptodome's SHA-256
    assert tag == oneshot == hmac.new(b"k", b"m", "sha256").hexdigest()


def test_status_reports_hashlib_backends():
    import accel_agent

    facts = accel_agent.status(resolve=False)
    assert facts["hashlib"]["sha256"] in ("openssl", "builtin") or facts["hashlib"][
        "sha256"
    ].startswith("openssl (accel-agent")
    assert facts["hashlib"]["blake2b"] == "builtin"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calibration.reset_cache()
    messages.reset()
    yield tmp_path
    calibration.reset_cache()
    messages.reset()


def test_calibration_cache_is_read(cache_home):
    path = calibration.cache_path()
    assert path.startswith(str(cache_home / "accel-agent"))
    os.makedirs(os.path.dirname(path))
    document = {
        "version": calibration.CACHE_VERSION,
        "preferred": {"scrypt": calibration.ANY_PROVIDER, "sha1": "native"},
        "thresholds": {"pbkdf2": {"sha256": 1234}},
    }
    with open(path, "w") as handle:
        json.dump(document, handle)
    assert calibration.preferred("scrypt") is None  # measured: the providers' order decides
    assert calibration.preferred("sha1") == "native"
    assert calibration.preferred("sha256") is None  # built-in: no opinion, hashlib first
    assert calibration.preferred("aes-cmac") == "openssl"  # built-in default
    assert calibration.thresholds("pbkdf2")["sha256"] == 1234
    assert (
        calibration.thresholds("pbkdf2")["sha1"] == calibration.BUILTIN_THRESHOLDS["pbkdf2"]["sha1"]
    )


@pytest.mark.parametrize(
    "content",
    ['{"version": 1, "preferred": [1,', '{"version": 99}', '{"version": 1, "preferred": {"a": 3}}'],
)
def test_a_broken_calibration_cache_is_one_warning(cache_home, content, capsys):
    path = calibration.cache_path()
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as handle:
        handle.write(content)
    assert calibration.preferred("scrypt") == calibration.builtin_default("scrypt")
    assert calibration.thresholds("pbkdf2") == calibration.BUILTIN_THRESHOLDS["pbkdf2"]
    warnings = [line for line in messages.history if "calibration cache" in line]
    assert len(warnings) == 1
    assert "using built-in defaults" in warnings[0]


def test_hash_selfchecks_reject_a_wrong_provider():
    from accel_agent import selfcheck
    from accel_agent.providers.base import SelfCheckFailed

    class Wrong:
        digest_size = 32

        @staticmethod
        def new(data=b""):
            import hashlib

            return hashlib.new("sha512_256", data)

    with pytest.raises(SelfCheckFailed, match="sha256"):
        selfcheck.run("sha256", Wrong())


# --------------------------------------------------------------------------- MAC verification


@pytest.mark.parametrize(
    ("comparing", "make"),
    [
        # the module whose verify compares: HMAC's own; CMAC's and Poly1305's shared one
        (
            "hmac",
            lambda pkg: _module(pkg, "Hash.HMAC").new(b"k" * 16, b"m", _module(pkg, "Hash.SHA256")),
        ),
        (
            "_hash_common",
            lambda pkg: _module(pkg, "Hash.CMAC").new(
                b"k" * 16, b"m", ciphermod=_module(pkg, "Cipher.AES")
            ),
        ),
        (
            "_hash_common",
            lambda pkg: _module(pkg, "Hash.Poly1305").new(
                key=b"k" * 32, cipher=_module(pkg, "Cipher.AES"), nonce=bytes(16), data=b"m"
            ),
        ),
    ],
    ids=["hmac", "cmac", "poly1305"],
)
def test_mac_verification_is_compare_digest(agent_state, monkeypatch, comparing, make):
    """verify/hexverify decide with hmac.compare_digest, right tag or wrong, with native's words."""
    pytest.importorskip("Crypto")
    import importlib

    import accel_agent

    accel_agent.activate("quiet")
    module = importlib.import_module("accel_agent.targets.pycryptodome." + comparing)
    calls = []
    real = module.compare_digest
    monkeypatch.setattr(module, "compare_digest", lambda a, b: calls.append(1) or real(a, b))
    mac = make("Crypto")
    assert type(mac).__module__.startswith("Crypto.Hash.")  # the agent's object
    tag = mac.digest()
    mac.verify(tag)
    mac.hexverify(tag.hex())
    with pytest.raises(ValueError, match="^MAC check failed$"):
        mac.verify(bytes([tag[0] ^ 1]) + tag[1:])
    with pytest.raises(ValueError, match="^MAC check failed$"):
        mac.verify(tag[:-1])
    assert len(calls) == 4


def _module(pkg: str, name: str):
    import importlib

    return importlib.import_module("%s.%s" % (pkg, name))
