"""The start-up hook in real interpreters: each mode, precedence, children, and the known traps.

Every test here starts this venv's python (the agent is installed in it as
an editable install, with accel_agent.pth) with a clean environment, and
reads what the user would see: stderr, stdout and the exit code.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
import textwrap

import pytest

from accel_agent import _boot, activation, hooks, patching
from helpers import (
    MASK_AES_NI,
    REPORT_CODE,
    STATUS_LINE_1,
    STATUS_LINE_2,
    TEMPLATE_DIR,
    agent_source_dir,
    assert_no_traceback,
    assert_status_lines,
    crypto_dir,
    parse_report,
    purelib,
    requires_aes_acceleration,
    requires_aes_ni,
    requires_supported_platform,
    run_python,
    stderr_lines,
)

MARKER = "USER-CODE-RAN"
PRINT_MARKER = "print(%r)" % MARKER
PRINT_MODE = "from accel_agent import activation; print(activation.current_mode())"


def env_with(clean_env: dict, **values: str) -> dict:
    return {**clean_env, **values}


# ------------------------------------------------------------------------ each mode


@requires_aes_acceleration
@pytest.mark.parametrize(
    ("args", "variables"),
    [(["-X", "accel"], {}), (["-X", "accel=on"], {}), ([], {"ACCEL_AGENT": "on"})],
    ids=["-X accel", "-X accel=on", "ACCEL_AGENT=on"],
)
def test_on_prints_exactly_the_two_status_lines(clean_env, args, variables):
    result = run_python(*args, "-c", "pass", env=env_with(clean_env, **variables))
    assert result.returncode == 0
    first, second = assert_status_lines(stderr_lines(result))
    assert "aes" in first["cpu"].split()
    assert int(second["accelerated"]) >= 1
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "variables"),
    [([], {}), (["-X", "accel=off"], {}), ([], {"ACCEL_AGENT": "off"})],
    ids=["nothing asked", "-X accel=off", "ACCEL_AGENT=off"],
)
def test_off_prints_nothing_and_patches_nothing(clean_env, args, variables):
    code = "import sys\n" + REPORT_CODE + "print('agent' in sys.modules)"
    result = run_python(*args, "-c", code, env=env_with(clean_env, **variables))
    assert result.returncode == 0
    assert result.stderr == ""
    report = parse_report(result.stdout)
    assert (report["mode"], report["active"], report["patched"]) == ("off", "False", "False")


def test_idle_start_up_loads_nothing_of_the_agent(clean_env):
    # Idle, the .pth line decides by itself (two dict lookups and a stat) and
    # imports no module of the agent at all.
    code = "import sys; print(sorted(m for m in sys.modules if m.startswith('accel_agent')))"
    result = run_python("-c", code, env=clean_env)
    assert result.stdout.strip() == "[]"


def test_an_active_start_up_loads_the_boot_module(clean_env):
    code = "import sys; print('accel_agent._boot' in sys.modules)"
    result = run_python("-c", code, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.stdout.strip() == "True"


def test_known_answers_are_read_at_first_use_not_at_start_up(clean_env):
    # The vectors are data files: nothing reads them (or imports their loader)
    # until a primitive is used and its self-check runs.
    code = textwrap.dedent(
        """\
        import sys
        loaded = lambda: [m for m in ("accel_agent.selfcheck", "accel_agent.known_answers")
                          if m in sys.modules]
        print(loaded())
        import Crypto.Hash.SHA256 as SHA256
        print(loaded())
        SHA256.new(b"abc").digest()
        print(loaded())
        from accel_agent import selfcheck
        print(sorted(selfcheck.KNOWN_ANSWERS))
        """
    )
    result = run_python("-c", code, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.stdout.splitlines() == [
        "[]",
        "[]",
        "['accel_agent.selfcheck', 'accel_agent.known_answers']",
        "['sha256']",
    ], result.stderr


# ------------------------------------------------------------------ what an import loads

# The child: the modules that importing one module (and then running one
# statement) added to sys.modules, split into the agent's and the others.
LOADED_BY = """\
import json, sys
before = set(sys.modules)
import {module}
after_import = set(sys.modules)
{then}
after_call = set(sys.modules)
def split(names):
    return {{"agent": sorted(n for n in names if n.startswith("accel_agent")),
            "other": sorted(n for n in names if not n.startswith("accel_agent"))}}
print(json.dumps({{"start": split(before), "import": split(after_import - before),
                  "call": split(after_call - after_import)}}))
"""


def loaded_by(clean_env: dict, mode: str, module: str, then: str = "pass") -> dict:
    code = LOADED_BY.format(module=module, then=then)
    result = run_python("-c", code, env=env_with(clean_env, ACCEL_AGENT=mode))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return json.loads(result.stdout)


def test_off_loads_only_what_decides_the_mode(clean_env):
    loaded = loaded_by(clean_env, "off", "sys")
    assert loaded["start"]["agent"] == [
        "accel_agent",
        "accel_agent._boot",
        "accel_agent.activation",
        "accel_agent.config",
        "accel_agent.messages",
    ]


@requires_supported_platform
def test_quiet_start_up_loads_the_hooks_but_no_registry_and_no_provider(clean_env):
    started = loaded_by(clean_env, "quiet", "sys")["start"]
    assert "accel_agent.hooks" in started["agent"]
    unwanted = ("registry", "catalog", "calibration", "providers", "selfcheck", "speedups")
    assert [name for name in started["agent"] if name.partition(".")[2].startswith(unwanted)] == []
    assert {"hashlib", "_hashlib", "hmac", "cryptography"}.isdisjoint(started["other"])


@requires_supported_platform
def test_quiet_start_up_reads_no_cpu_features_until_a_primitive_is_decided(clean_env):
    code = textwrap.dedent(
        """\
        import sys
        platform = sys.modules["accel_agent.platform"]
        print(platform._facts is None)
        import Crypto.Hash.SHA256 as SHA256
        print(platform._facts is None)
        SHA256.new(b"abc").digest()
        print(platform._facts is None, sorted(platform._facts.cpu_features) != [])
        """
    )
    result = run_python("-c", code, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.stdout.splitlines() == ["True", "True", "False True"], result.stderr


# module -> (its first call, what its patch must not load: other targets' code,
# cryptography, hashlib and _hashlib (their providers load at a primitive's first use))
UNRELATED = {
    "Crypto.Hash.SHA256": (
        "Crypto.Hash.SHA256.new(b'x')",
        ("accel_agent.targets.pycryptodome.aes", "_block_modes", "providers.aes", "providers.ecc"),
    ),
    "Crypto.Cipher.AES": (
        "Crypto.Cipher.AES.new(bytes(16), Crypto.Cipher.AES.MODE_ECB)",
        ("accel_agent.targets.pycryptodome.hashes", "accel_agent.targets.hashlib"),
    ),
    "Crypto.PublicKey.ECC": (
        "Crypto.PublicKey.ECC.generate",  # a name, not a call: nothing of the agent loads
        ("accel_agent.targets.pycryptodome", "accel_agent.providers."),
    ),
    # python-rsa's import loads its target's package (which points the package's
    # re-exports at the stand-ins), nothing else; its first call, its patch.
    "rsa": (
        "rsa.newkeys(512)",  # a size OpenSSL does not make: native, after the patch
        ("targets.pycryptodome.", "targets.pyaes", "targets.python_ecdsa", "providers.aes"),
    ),
    # The patches made at a library's import load no catalog (the registry reads
    # it at a slot's first use) and no provider.
    "pyaes": (
        "pass",
        ("accel_agent.targets.pycryptodome.", "accel_agent.providers.", "accel_agent.catalog"),
    ),
    "ecdsa": (
        "pass",
        ("accel_agent.targets.pycryptodome.", "accel_agent.targets.pyaes", "accel_agent.catalog"),
    ),
}
# The modules whose patch waits for the first call of a function it replaces
# (python-rsa's package hook loads the target's package at the import, and
# rsa.pkcs1 imports hashlib, whose hook patches at the import).
FIRST_CALL = ("Crypto.Hash.SHA256", "Crypto.Cipher.AES", "Crypto.PublicKey.ECC")
LOADED_AT_IMPORT = {
    "rsa": ["accel_agent.targets.hashlib_backend", "accel_agent.targets.python_rsa"],
}


@requires_supported_platform
@pytest.mark.parametrize("module", sorted(UNRELATED))
def test_importing_a_patched_module_loads_only_its_own_patch(clean_env, module):
    call, unrelated = UNRELATED[module]
    native = loaded_by(clean_env, "off", module)
    agent = loaded_by(clean_env, "quiet", module, call)
    if module in FIRST_CALL or module in LOADED_AT_IMPORT:
        # The import puts stand-ins in and loads nothing of the agent (ECC's
        # import of five hashes included); the first call loads its own patch.
        assert agent["import"]["agent"] == LOADED_AT_IMPORT.get(module, [])
        loaded = agent["call"]["agent"]
        assert any(name.startswith("accel_agent.targets.") for name in loaded) == (
            call.endswith(")")
        )
    else:
        loaded = agent["import"]["agent"]
        assert any(name.startswith("accel_agent.targets.") for name in loaded)
    assert [name for name in loaded if any(part in name for part in unrelated)] == []
    # Nothing outside the agent that the native import does not load itself:
    # no cryptography, no hashlib/_hashlib/hmac, no pickle.
    extra = set(agent["import"]["other"]) - set(native["import"]["other"])
    extra -= set(native["start"]["other"]) - set(agent["start"]["other"])
    assert sorted(extra) == []


# module -> (a first call, what it must not load: code of another primitive, or a
# part of cryptography the primitive does not use; each cost milliseconds there)
NOT_IN_FIRST_CALL = {
    "Crypto.Cipher.ChaCha20_Poly1305": (
        "Crypto.Cipher.ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12)).encrypt(b'x')",
        ("accel_agent.targets.pycryptodome._block_modes", "accel_agent.providers.block_ciphers"),
    ),
    # ec.ECDSA's constructor imports the OpenSSL backend (bindings, RSA, ciphers).
    "ecdsa": (
        "ecdsa.SigningKey.generate(curve=ecdsa.NIST256p).sign(b'm')",
        ("cryptography.hazmat.backends", "cryptography.hazmat.primitives.ciphers"),
    ),
}


@requires_supported_platform
@pytest.mark.parametrize("module", sorted(NOT_IN_FIRST_CALL))
def test_a_first_call_loads_nothing_its_primitive_does_not_use(clean_env, module):
    call, unneeded = NOT_IN_FIRST_CALL[module]
    loaded = loaded_by(clean_env, "quiet", module, call)["call"]
    names = loaded["agent"] + loaded["other"]
    assert [name for name in names if name.startswith(unneeded)] == []


FIRST_CALL_NAMES = """\
import importlib, json
from accel_agent import hooks, patching
from accel_agent.targets import FIRST_CALL
for name in FIRST_CALL:
    if name.startswith("Crypto."):
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # Cipher.oaep: pycryptodome 4.x only
def patched():
    return {m: n for m, n in patching.patched_names().items() if m.startswith("Crypto.")}
stand_ins = patched()
hooks.run_waiting()
print(json.dumps([stand_ins, patched()]))
"""


@requires_aes_acceleration
def test_the_stand_ins_are_the_names_each_patch_replaces(clean_env):
    result = run_python("-c", FIRST_CALL_NAMES, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    stand_ins, patched = json.loads(result.stdout)
    assert len(stand_ins) >= 30
    assert stand_ins == patched


@requires_aes_acceleration
def test_a_hash_call_loads_hashlibs_openssl_and_not_cryptography(clean_env):
    loaded = loaded_by(
        clean_env, "quiet", "Crypto.Hash.SHA256", "Crypto.Hash.SHA256.new(b'x').digest()"
    )
    assert "_hashlib" in loaded["call"]["other"]
    assert not any(name.startswith("cryptography") for name in loaded["call"]["other"])
    assert "accel_agent.targets.pycryptodome.aes" not in loaded["call"]["agent"]


@requires_aes_acceleration
def test_an_aes_call_loads_cryptographys_ciphers_and_not_hashlib(clean_env):
    call = (
        "AES = Crypto.Cipher.AES\nAES.new(bytes(16), AES.MODE_CBC, iv=bytes(16)).encrypt(bytes(16))"
    )
    loaded = loaded_by(clean_env, "quiet", "Crypto.Cipher.AES", call)
    assert "cryptography.hazmat.primitives.ciphers" in loaded["call"]["other"]
    assert {"hashlib", "_hashlib", "hmac"}.isdisjoint(loaded["call"]["other"])


@requires_aes_acceleration
@pytest.mark.parametrize("how", ["-X", "env"])
def test_quiet_prints_nothing_and_imports_nothing_heavy(clean_env, how):
    code = "import sys; print('cryptography' in sys.modules, 'Crypto' in sys.modules)\n"
    code += REPORT_CODE
    if how == "-X":
        result = run_python("-X", "accel=quiet", "-c", code, env=clean_env)
    else:
        result = run_python("-c", code, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.returncode == 0
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == "False False"
    report = parse_report(result.stdout)
    assert (report["mode"], report["active"], report["patched"]) == ("quiet", "True", "True")


@requires_aes_acceleration
def test_assert_passes_here_and_runs_the_program(clean_env):
    result = run_python("-X", "accel=assert", "-c", PRINT_MARKER, env=clean_env)
    assert result.returncode == 0
    assert result.stdout.strip() == MARKER
    assert_status_lines(stderr_lines(result))


@requires_aes_ni
@pytest.mark.parametrize("how", ["-X", "env"])
def test_assert_with_aes_ni_masked_stops_before_the_program(clean_env, how):
    env = env_with(clean_env, OPENSSL_ia32cap=MASK_AES_NI)
    if how == "-X":
        result = run_python("-X", "accel=assert", "-c", PRINT_MARKER, env=env)
    else:
        env["ACCEL_AGENT"] = "assert"
        result = run_python("-c", PRINT_MARKER, env=env)
    assert result.returncode != 0
    assert MARKER not in result.stdout
    assert "AES-NI" in result.stderr
    assert_no_traceback(result.stderr)
    assert any(line.startswith("accel-agent: assert: ") for line in stderr_lines(result))


@requires_aes_acceleration
def test_assert_with_aes_excluded_by_the_user_runs(clean_env):
    env = env_with(clean_env, ACCEL_AGENT_EXCLUDE="aes")
    result = run_python("-X", "accel=assert", "-c", PRINT_MARKER, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == MARKER
    first, second = assert_status_lines(stderr_lines(result))
    assert re.search(r"aes-ecb[^:;]*: excluded by the user", second["notes"])


# ------------------------------------------------------------------ precedence, aliases


@pytest.mark.parametrize(
    ("args", "variables", "mode"),
    [
        (["-X", "accel=quiet"], {"ACCEL_AGENT": "off"}, "quiet"),
        (["-X", "accel=off"], {"ACCEL_AGENT": "quiet"}, "off"),
        ([], {"ACCEL_AGENT": "quiet"}, "quiet"),
        (["-X", "accel=QUIET"], {}, "quiet"),
        ([], {"ACCEL_AGENT": "0"}, "off"),
        ([], {"ACCEL_AGENT": "no"}, "off"),
        ([], {"ACCEL_AGENT": ""}, "off"),
    ],
)
def test_xoption_beats_the_variable(clean_env, args, variables, mode):
    result = run_python(*args, "-c", PRINT_MODE, env=env_with(clean_env, **variables))
    assert result.returncode == 0
    assert result.stderr == ""
    assert result.stdout.strip() == mode


@requires_aes_acceleration
@pytest.mark.parametrize("value", ["1", "true", "yes", " On "])
def test_aliases_of_on_print_the_status_lines(clean_env, value):
    result = run_python("-c", PRINT_MODE, env=env_with(clean_env, ACCEL_AGENT=value))
    assert result.stdout.strip() == "on"
    assert_status_lines(stderr_lines(result))


@pytest.mark.parametrize(
    ("args", "variables"),
    [
        (["-X", "accel=bogus"], {}),
        (["-X", "accel=???"], {}),
        ([], {"ACCEL_AGENT": "turbo"}),
        ([], {"ACCEL_AGENT": "bypass"}),  # not an assert typo: must not stop the program
        (["-X", "accel=onn"], {"ACCEL_AGENT": "on"}),  # a bad -X is not rescued by the variable
    ],
    ids=["-X bogus", "-X ???", "env turbo", "env bypass", "bad -X, good env"],
)
def test_unknown_mode_is_one_line_and_the_program_runs_unpatched(clean_env, args, variables):
    code = PRINT_MARKER + "\n" + REPORT_CODE
    result = run_python(*args, "-c", code, env=env_with(clean_env, **variables))
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == MARKER
    assert parse_report(result.stdout)["patched"] == "False"
    lines = stderr_lines(result)
    assert len(lines) == 1, lines
    assert lines[0].startswith("accel-agent: ") and "unknown mode" in lines[0]
    assert_no_traceback(result.stderr)


@pytest.mark.parametrize(
    ("args", "variables"),
    [(["-X", "accel=asert"], {}), ([], {"ACCEL_AGENT": "assrt"}), (["-X", "accel=Asserts"], {})],
)
def test_assert_typo_stops_before_the_program_without_traceback(clean_env, args, variables):
    result = run_python(*args, "-c", PRINT_MARKER, env=env_with(clean_env, **variables))
    assert result.returncode == activation.EXIT_BAD_MODE
    assert MARKER not in result.stdout
    lines = stderr_lines(result)
    assert len(lines) == 1, lines
    assert "unknown mode" in lines[0] and lines[0].endswith("refusing to run")


# ------------------------------------------------------------------ children inherit the mode

SPAWN_PARENT = """\
import multiprocessing, subprocess, sys

REPORT = {report!r}


def report():
    import io, contextlib
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(REPORT, {{}})
    return out.getvalue()


if __name__ == "__main__":
    method = sys.argv[1]
    if method == "subprocess":
        child = subprocess.run([sys.executable, "-c", REPORT], capture_output=True, text=True)
        print(child.stdout, end="")
        sys.stderr.write(child.stderr)
    else:
        with multiprocessing.get_context(method).Pool(1) as pool:
            print(pool.apply(report), end="")
"""


@pytest.fixture(scope="module")
def spawn_parent(tmp_path_factory):
    path = tmp_path_factory.mktemp("children") / "parent.py"
    path.write_text(SPAWN_PARENT.format(report=REPORT_CODE))
    return path


def _start_methods() -> list:
    available = multiprocessing.get_all_start_methods()
    params = []
    for method in ("spawn", "forkserver"):
        marks = ()
        if method not in available:
            marks = pytest.mark.skip(reason="%s is not available on %s" % (method, sys.platform))
        params.append(pytest.param(method, marks=marks))
    return [*params, "subprocess"]


@requires_aes_acceleration
@pytest.mark.parametrize(("xoption", "mode"), [("accel", "on"), ("accel=quiet", "quiet")])
@pytest.mark.parametrize("method", _start_methods())
def test_xoption_reaches_children(clean_env, spawn_parent, method, xoption, mode):
    result = run_python("-X", xoption, spawn_parent, method, env=clean_env)
    assert result.returncode == 0, result.stderr
    report = parse_report(result.stdout)
    assert report == {
        "mode": mode,
        "active": "True",
        "patched": "True",
        "env": mode,  # how the mode got there: CPython does not pass -X accel on
        "xoption": "False",
    }
    if mode == "quiet":
        assert result.stderr == ""
    else:
        assert all(
            STATUS_LINE_1.match(line) or STATUS_LINE_2.match(line) for line in stderr_lines(result)
        )


@requires_aes_acceleration
def test_on_mode_child_prints_its_own_status_lines(clean_env, spawn_parent):
    result = run_python("-X", "accel", spawn_parent, "subprocess", env=clean_env)
    assert parse_report(result.stdout)["mode"] == "on"
    lines = stderr_lines(result)
    assert len(lines) == 4  # parent's two, then the child's two
    assert_status_lines(lines[:2])
    assert_status_lines(lines[2:])


# ------------------------------------------------------------------ -I, -S, early imports


@requires_aes_acceleration
def test_isolated_mode_still_activates_through_the_variable(clean_env):
    result = run_python("-I", "-c", REPORT_CODE, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.returncode == 0, result.stderr
    report = parse_report(result.stdout)
    assert (report["mode"], report["patched"]) == ("quiet", "True")


def _no_site_code(body: str) -> str:
    """Code for ``python -S``: put the agent and pycryptodome on sys.path by hand."""
    paths = [str(agent_source_dir()), str(crypto_dir())]
    return "import sys\nsys.path[:0] = %r\n%s" % (paths, textwrap.dedent(body))


@requires_aes_acceleration
@pytest.mark.parametrize(
    ("args", "variables", "mode"),
    [([], {}, "quiet"), (["-X", "accel=quiet"], {}, "quiet"), ([], {"ACCEL_AGENT": "off"}, "off")],
    ids=["nothing set: quiet", "-X accel=quiet", "ACCEL_AGENT=off"],
)
def test_no_site_activates_through_accel_agent_auto(clean_env, args, variables, mode):
    code = _no_site_code("print('site', sys.flags.no_site)\nimport accel_agent.auto\n")
    result = run_python("-S", *args, "-c", code + REPORT_CODE, env=env_with(clean_env, **variables))
    assert result.returncode == 0, result.stderr
    assert "site 1" in result.stdout
    report = parse_report(result.stdout)
    assert report["mode"] == mode
    assert report["patched"] == str(mode != "off")
    assert result.stderr == ""


@requires_aes_acceleration
def test_pycryptodome_imported_early_is_patched_with_a_warning(clean_env):
    code = _no_site_code(
        """
        from Crypto.Cipher.AES import new as early
        import accel_agent.auto
        import Crypto.Cipher.AES as AES
        from accel_agent import patching
        print("patched", AES.new is not early, patching.get_original(AES.__name__, "new") is early)
        """
    )
    result = run_python("-S", "-c", code, env=clean_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["patched", "True", "True"]
    lines = stderr_lines(result)
    assert len(lines) == 1, lines
    assert lines[0].startswith("accel-agent: Crypto.Cipher.AES was imported before the agent")
    assert lines[0].endswith("stay native: __main__.early")


@requires_aes_acceleration
def test_early_import_without_bound_references_warns_without_naming_any(clean_env):
    code = _no_site_code("import Crypto.Cipher.AES\nimport accel_agent.auto\n")
    result = run_python("-S", "-c", code, env=clean_env)
    lines = stderr_lines(result)
    assert lines == [
        "accel-agent: Crypto.Cipher.AES was imported before the agent started; patched now"
    ]


@requires_aes_acceleration
def test_auto_after_the_hook_activated_does_not_repeat_the_status_lines(clean_env):
    # `import accel_agent.auto` in an app that is also started with -X accel
    # (or under a PYTHONSTARTUP file) must not report a second time.
    result = run_python("-X", "accel", "-c", "import accel_agent.auto", env=clean_env)
    assert result.returncode == 0
    assert_status_lines(stderr_lines(result))


# ------------------------------------------------------------------ boot is idempotent


def _pth_line() -> str:
    return (purelib() / "accel_agent.pth").read_text()


def test_the_pth_line_is_installed_and_calls_boot():
    line = _pth_line()
    assert line.startswith("import ") and line.count("\n") <= 1  # site.py executes one line
    assert "accel_agent._boot" in line and "start()" in line
    assert (purelib() / "accel_agent.start").read_text().strip() == "accel_agent._boot:start"


@requires_aes_acceleration
def test_the_pth_line_run_again_in_the_same_process_changes_nothing(clean_env):
    code = REPORT_CODE + textwrap.dedent(
        """
        from accel_agent import hooks
        before = (AES.new, list(sys.meta_path), dict(hooks._hooks))
        for _ in range(2):
            exec(open(%r).read())
        after = (AES.new, list(sys.meta_path), dict(hooks._hooks))
        print("same", before[0] is after[0], before[1] == after[1], before[2] == after[2])
        """
        % str(purelib() / "accel_agent.pth")
    )
    result = run_python("-c", code, env=env_with(clean_env, ACCEL_AGENT="quiet"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "same True True True"
    assert result.stderr == ""


@requires_aes_acceleration
@pytest.mark.parametrize("entry", ["start", "pth line"])
def test_boot_run_twice_patches_once(agent_state, monkeypatch, entry):
    import Crypto.Cipher.AES as AES

    original = AES.new
    monkeypatch.setenv("ACCEL_AGENT", "quiet")
    monkeypatch.setattr(_boot, "_started", False)
    calls = []
    real_activate = activation.activate
    monkeypatch.setattr(
        activation, "activate", lambda *a, **k: calls.append(a) or real_activate(*a, **k)
    )
    for _ in range(2):
        if entry == "start":
            _boot.start()
        else:
            exec(_pth_line(), {})
    assert len(calls) == 1
    assert AES.new is not original
    assert patching.get_original(AES.__name__, "new") is original
    assert AES.new.__wrapped__ is original  # wrapped once, not a wrapper of a wrapper
    assert sum(isinstance(f, hooks.PostImportFinder) for f in sys.meta_path) == 1


@requires_supported_platform
def test_activate_twice_patches_once(agent_state):
    import Crypto.Cipher.AES as AES

    original = AES.new
    activation.activate("quiet")
    patched = AES.new
    activation.activate("quiet")
    assert AES.new is patched
    assert patching.get_original(AES.__name__, "new") is original
    assert sum(isinstance(f, hooks.PostImportFinder) for f in sys.meta_path) == 1


def test_boot_never_raises(agent_state, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setenv("ACCEL_AGENT", "quiet")
    monkeypatch.setattr(_boot, "_started", False)
    monkeypatch.setattr(activation, "activate_at_startup", broken)
    _boot.start()
    assert capsys.readouterr().err == (
        "accel-agent: start-up failed (RuntimeError: disk on fire); running without the agent\n"
    )


def test_pth_line_survives_a_missing_agent(tmp_path, clean_env):
    # The .pth of an uninstalled-but-not-removed agent must not break Python.
    code = "import sys\nsys.modules['accel_agent'] = sys.modules['accel_agent._boot'] = None\n"
    code += "exec(open(%r).read())\nprint('ok')" % str(purelib() / "accel_agent.pth")
    result = run_python("-c", code, env=clean_env)
    assert result.returncode == 0
    assert result.stdout.strip() == "ok"
    assert result.stderr == (
        "accel-agent: start-up hook not loaded (ModuleNotFoundError); running without it\n"
    )


def test_no_traceback_for_a_nonsense_xoption(clean_env):
    result = run_python("-X", "accel=???", "-c", "pass", env=clean_env)
    assert result.returncode == 0
    assert_no_traceback(result.stderr)


# ------------------------------------------------------------------ sitecustomize_template

USER_SITECUSTOMIZE = """\
import os
USER_SITECUSTOMIZE_RAN = True
with open(os.environ["MARKER_FILE"], "a") as handle:
    handle.write("user sitecustomize ran\\n")
"""

SHOW_SITECUSTOMIZE = """
import sitecustomize
print("SITECUSTOMIZE", getattr(sitecustomize, "USER_SITECUSTOMIZE_RAN", False))
"""


@pytest.fixture(scope="module")
def bare_python() -> str:
    """An interpreter that does not run accel_agent.pth: the base of this venv.

    It stands for the interpreters the template is for; the agent and its
    dependencies reach it through PYTHONPATH, which does not run .pth files.
    """
    # Before 3.11 sys._base_executable is the venv's own python; the base
    # interpreter lives under sys.base_prefix.
    python = os.path.join(sys.base_prefix, "bin", "python%d.%d" % sys.version_info[:2])
    if not os.path.exists(python):
        python = getattr(sys, "_base_executable", None) or sys.executable
    probe = run_python("-c", "import accel_agent", python=python)
    if probe.returncode == 0:
        pytest.skip("the base interpreter %s has the agent installed itself" % python)
    return python


@pytest.fixture
def site_dirs(tmp_path):
    """(directory with the template's sitecustomize, directory with the user's, marker file)."""
    agent_site, user_site = tmp_path / "agent-site", tmp_path / "user-site"
    agent_site.mkdir()
    user_site.mkdir()
    (agent_site / "sitecustomize.py").write_text((TEMPLATE_DIR / "sitecustomize.py").read_text())
    (user_site / "sitecustomize.py").write_text(USER_SITECUSTOMIZE)
    return agent_site, user_site, tmp_path / "marker.txt"


def template_env(clean_env: dict, agent_site, user_site, marker, **variables) -> dict:
    path = [agent_site, user_site, agent_source_dir(), crypto_dir()]
    return {
        **clean_env,
        "PYTHONPATH": ":".join(map(str, path)),
        "MARKER_FILE": str(marker),
        **variables,
    }


@requires_aes_acceleration
@pytest.mark.parametrize(
    ("args", "variables", "mode"),
    [
        ([], {"ACCEL_AGENT": "quiet"}, "quiet"),
        (["-X", "accel=quiet"], {}, "quiet"),
        ([], {}, "off"),
    ],
    ids=["ACCEL_AGENT=quiet", "-X accel=quiet", "nothing asked"],
)
def test_template_activates_and_chains_to_the_users_sitecustomize(
    clean_env, bare_python, site_dirs, args, variables, mode
):
    agent_site, user_site, marker = site_dirs
    env = template_env(clean_env, *site_dirs, **variables)
    result = run_python(*args, "-c", REPORT_CODE + SHOW_SITECUSTOMIZE, env=env, python=bare_python)
    assert result.returncode == 0, result.stderr
    report = parse_report(result.stdout)
    assert (report["mode"], report["patched"]) == (mode, str(mode != "off"))
    assert marker.read_text() == "user sitecustomize ran\n"  # ran once, not hidden
    assert "SITECUSTOMIZE True" in result.stdout  # `import sitecustomize` is the user's
    assert result.stderr == ""


@requires_aes_acceleration
def test_template_in_on_mode_prints_the_status_lines(clean_env, bare_python, site_dirs):
    env = template_env(clean_env, *site_dirs)
    result = run_python("-X", "accel", "-c", "pass", env=env, python=bare_python)
    assert_status_lines(stderr_lines(result))
    assert site_dirs[2].exists()


@requires_aes_ni
def test_template_in_assert_mode_stops_an_unaccelerated_program(clean_env, bare_python, site_dirs):
    env = template_env(clean_env, *site_dirs, ACCEL_AGENT="assert", OPENSSL_ia32cap=MASK_AES_NI)
    result = run_python("-c", PRINT_MARKER, env=env, python=bare_python)
    assert result.returncode != 0
    assert MARKER not in result.stdout
    assert "AES-NI" in result.stderr


@requires_aes_acceleration
def test_template_alone_activates_without_complaint(clean_env, bare_python, site_dirs):
    agent_site, user_site, marker = site_dirs
    (user_site / "sitecustomize.py").unlink()
    env = template_env(clean_env, *site_dirs, ACCEL_AGENT="quiet")
    result = run_python("-c", REPORT_CODE + SHOW_SITECUSTOMIZE, env=env, python=bare_python)
    assert result.returncode == 0, result.stderr
    assert parse_report(result.stdout)["patched"] == "True"
    assert "SITECUSTOMIZE False" in result.stdout
    assert result.stderr == ""


@requires_aes_acceleration
def test_a_failing_user_sitecustomize_is_reported_as_python_would(
    clean_env, bare_python, site_dirs
):
    agent_site, user_site, marker = site_dirs
    (user_site / "sitecustomize.py").write_text("raise RuntimeError('user sitecustomize failed')\n")
    env = template_env(clean_env, *site_dirs, ACCEL_AGENT="quiet")
    result = run_python("-c", REPORT_CODE, env=env, python=bare_python)
    assert result.returncode == 0
    assert parse_report(result.stdout)["patched"] == "True"  # the agent started first
    assert stderr_lines(result) == [
        "Error in sitecustomize; set PYTHONVERBOSE for traceback:",
        "RuntimeError: user sitecustomize failed",
    ]


def test_template_without_the_agent_is_one_line(clean_env, bare_python, site_dirs):
    agent_site, user_site, marker = site_dirs
    env = {**clean_env, "PYTHONPATH": "%s:%s" % (agent_site, user_site), "MARKER_FILE": str(marker)}
    result = run_python("-c", PRINT_MARKER, env=env, python=bare_python)
    assert result.returncode == 0
    assert result.stdout.strip() == MARKER
    assert stderr_lines(result) == [
        "accel-agent: start-up hook not loaded (ModuleNotFoundError); running without it"
    ]
    assert marker.exists()


@requires_aes_acceleration
def test_template_beside_the_pth_starts_the_agent_once(clean_env, site_dirs):
    agent_site, user_site, marker = site_dirs
    env = {**clean_env, "PYTHONPATH": "%s:%s" % (agent_site, user_site), "MARKER_FILE": str(marker)}
    result = run_python("-X", "accel", "-c", "pass", env=env)
    assert_status_lines(stderr_lines(result))
    assert marker.read_text() == "user sitecustomize ran\n"


def interactive(code: str, env: dict) -> subprocess.CompletedProcess:
    """An interactive session (python -i, stdin piped) that runs ``code`` as one line."""
    return run_python("-q", "-i", stdin="exec(%r)\n" % code, env=env)


def agent_lines(result: subprocess.CompletedProcess) -> list:
    return [line for line in stderr_lines(result) if "accel-agent" in line]


@requires_aes_acceleration
@pytest.mark.parametrize(
    ("variables", "mode"), [({}, "quiet"), ({"ACCEL_AGENT": "off"}, "off")], ids=["unset", "off"]
)
def test_startup_file_activates_interactive_sessions(clean_env, variables, mode):
    env = {**clean_env, "PYTHONSTARTUP": str(TEMPLATE_DIR / "accel_startup.py"), **variables}
    code = REPORT_CODE + "print('NAMES', sorted(n for n in globals() if not n.startswith('__')))"
    result = interactive(code, env)
    report = parse_report(result.stdout)
    assert (report["mode"], report["patched"]) == (mode, str(mode != "off"))
    names = next(line for line in result.stdout.splitlines() if line.startswith("NAMES"))
    assert "_accel_agent_startup" not in names
    assert agent_lines(result) == []


@requires_aes_acceleration
def test_startup_file_after_the_hook_does_not_report_twice(clean_env):
    env = {**clean_env, "PYTHONSTARTUP": str(TEMPLATE_DIR / "accel_startup.py")}
    result = run_python("-X", "accel", "-q", "-i", stdin="pass\n", env=env)
    assert_status_lines(agent_lines(result))


def test_startup_file_without_the_agent_is_one_line(clean_env, bare_python):
    env = {**clean_env, "PYTHONSTARTUP": str(TEMPLATE_DIR / "accel_startup.py")}
    result = run_python("-q", "-i", stdin="print('session ran')\n", env=env, python=bare_python)
    assert "session ran" in result.stdout
    assert agent_lines(result) == [
        "accel-agent: not started (ModuleNotFoundError: No module named 'accel_agent'); "
        "running without it"
    ]
