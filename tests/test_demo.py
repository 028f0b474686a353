"""examples/demo.py, the driver of `make run`: passes when the modes interoperate, fails if not.

The driver runs examples/seal_files.py natively and under the agent as real
processes of this interpreter (where the agent is installed). Its failure
paths are shown with stand-in programs that misbehave in one mode only.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from helpers import clean_environment, requires_aes_acceleration, run_python

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DEMO = EXAMPLES / "demo.py"
SMALL = ("--files", "12", "--reps", "1")

sys.path.insert(0, str(EXAMPLES))
import demo  # noqa: E402


def run_demo(tmp_path: Path, *extra: str):
    return run_python(
        DEMO, *SMALL, "--workdir", tmp_path / "work", *extra, env=clean_environment(), timeout=300
    )


@requires_aes_acceleration
def test_the_demo_passes_and_the_agent_served_its_calls(tmp_path):
    result = run_demo(tmp_path)
    assert result.returncode == demo.OK, result.stdout + result.stderr
    out = result.stdout
    assert "sealed under the agent, opened natively: every file identical" in out
    assert "sealed natively, opened under the agent: every file identical" in out
    assert "a flipped ciphertext bit: dir00/file0000.bin: MAC check failed" in out
    assert "a flipped manifest byte: the manifest's signature is not valid" in out
    served = out[out.index("served by the agent: ") :]
    for primitive in ("aes-gcm", "ecdsa-p256", "sha256", "ecc-keygen"):
        assert primitive in served, out
    # The keys were made with ACCEL_AGENT=on: its status lines reach the user.
    assert "accel-agent self-check PASSED" in result.stderr
    assert out.rstrip().endswith("demo: PASSED")
    work = str(tmp_path / "work")
    assert all(len(line) <= 80 for line in out.splitlines() if work not in line), out


# A stand-in for seal_files.py that runs the real one, then damages what it
# sealed, but only under the agent: the driver must catch it on opening natively.
CORRUPT_UNDER_AGENT = """
import os, sys
sys.path.insert(0, %(examples)r)
import seal_files
code = seal_files.main()
if sys.argv[1] == "seal" and os.environ.get("ACCEL_AGENT") != "off":
    target = os.path.join(sys.argv[3], "dir00", "file0000.bin.enc")
    with open(target, "r+b") as handle:
        handle.seek(13)
        byte = handle.read(1)
        handle.seek(13)
        handle.write(bytes([byte[0] ^ 1]))
sys.exit(code)
"""

# Refuses tampering with other words under the agent than natively.
OTHER_WORDS_UNDER_AGENT = """
import os, sys
sys.path.insert(0, %(examples)r)
import seal_files
code = seal_files.main()
if code == 1 and os.environ.get("ACCEL_AGENT") != "off":
    print("seal_files: refused: something else", file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize(
    "program, expected",
    [
        (CORRUPT_UNDER_AGENT, "sealed under the agent, opened natively: exit 1"),
        (OTHER_WORDS_UNDER_AGENT, "a flipped ciphertext bit: the agent answered"),
    ],
    ids=["corrupt-output", "different-refusal"],
)
def test_the_demo_fails_on_a_mismatch(tmp_path, program, expected):
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(textwrap.dedent(program % {"examples": str(EXAMPLES)}))
    result = run_demo(tmp_path, "--program", str(stand_in))
    assert result.returncode == demo.MISMATCH, result.stdout + result.stderr
    assert "demo: MISMATCH: " + expected in result.stderr
    assert result.stderr.rstrip().endswith("demo: FAILED")
    assert "demo: PASSED" not in result.stdout


def test_a_program_that_cannot_run_is_not_a_pass(tmp_path):
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text("import sys\nsys.exit('no crypto here')\n")
    result = run_demo(tmp_path, "--program", str(stand_in))
    assert result.returncode == demo.BROKEN, result.stdout + result.stderr


def test_tree_differences_names_what_differs(tmp_path):
    left, right = tmp_path / "left", tmp_path / "right"
    for root in (left, right):
        (root / "sub").mkdir(parents=True)
        (root / "sub" / "same").write_bytes(b"x" * 10)
    (left / "gone").write_bytes(b"1")
    (right / "new").write_bytes(b"2")
    (left / "sub" / "changed").write_bytes(b"abc")
    (right / "sub" / "changed").write_bytes(b"abd")
    assert demo.tree_differences(str(left), str(right)) == [
        "missing gone",
        "unexpected new",
        "different %s" % str(Path("sub") / "changed"),
    ]
    assert demo.tree_differences(str(left), str(left)) == []
