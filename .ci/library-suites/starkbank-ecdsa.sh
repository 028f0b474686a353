#!/usr/bin/env bash
# starkbank-ecdsa's own test suite, natively and under the agent.
#
# A fresh venv with the accel-agent wheel and requirements/starkbank-ecdsa.txt
# (the pinned starkbank-ecdsa and pytest). Its tests are the tests/ folder of
# its repository at the release's tag (neither its wheel nor its sdist has
# them): from GitHub's archive of the tag, or from STARKBANK_ECDSA_TESTS (a
# tests/ folder already there, for machines without GitHub).
# tests/suite/pytest_suite.py runs them with pytest (its unittest cases, as
# its CI's `unittest discover` finds them: test*.py) with ACCEL_AGENT=off and
# with ACCEL_AGENT=quiet, compares them test by test and counts the
# accelerated calls of each ECDSA primitive; a test whose outcome differs, or
# a primitive the suite did not drive through the agent (it signs and
# verifies on both of its curves), fails the script.
set -euo pipefail

cd "$(dirname "$0")/../.."
source .ci/lib.sh

WORK=$PWD/build/library-suites/starkbank-ecdsa  # build/ is gitignored
if [[ -x .venv/bin/python ]]; then BUILD_PYTHON=.venv/bin/python; else BUILD_PYTHON=python3; fi
PIP=(-m pip --disable-pip-version-check)
PIN=$(sed -n 's/^starkbank-ecdsa==//p' requirements/starkbank-ecdsa.txt)

rm -rf "$WORK" && mkdir -p "$WORK/dist" "$WORK/source"
"$BUILD_PYTHON" "${PIP[@]}" wheel -q --no-deps -w "$WORK/dist" . 2>&1 | without_pip_noise
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/python" "${PIP[@]}" install -q "$WORK"/dist/accel_agent-*.whl \
    -r requirements/starkbank-ecdsa.txt 2>&1 | without_pip_noise

TESTS=${STARKBANK_ECDSA_TESTS:-}
if [[ -z $TESTS ]]; then
    fetched=0
    "$WORK/venv/bin/python" - "$PIN" "$WORK/source" <<'PY' || fetched=$?
import io, sys, tarfile, urllib.request
pin, target = sys.argv[1], sys.argv[2]
url = "https://github.com/starkbank/ecdsa-python/archive/refs/tags/v%s.tar.gz" % pin
try:
    with urllib.request.urlopen(url, timeout=30) as response:
        data = response.read()
except OSError as exc:
    print("starkbank-ecdsa: NOT RUN: its tests are in neither its wheel nor its sdist on "
          "PyPI, and %s cannot be read from here (%s). Set STARKBANK_ECDSA_TESTS to a "
          "copy of its tests/ folder to run them." % (url, exc))
    sys.exit(77)
with tarfile.open(fileobj=io.BytesIO(data)) as archive:
    members = [m for m in archive.getmembers() if "/tests/" in m.name and m.isfile()]
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    archive.extractall(target, members=members, **safe)
PY
    ((fetched == 0)) || exit "$fetched"
    TESTS=$(ls -d "$WORK"/source/*/tests)
fi

# The tests/ folder alone, in a directory of its own: the installed
# ellipticcurve is the one tested.
mkdir -p "$WORK/root" && cp -r "$TESTS" "$WORK/root/tests"
"$WORK/venv/bin/python" tests/suite/pytest_suite.py --name starkbank-ecdsa --root "$WORK/root" \
    --package ellipticcurve --require ecdsa-p256,ecdsa-secp256k1 --distribution starkbank-ecdsa \
    --work-dir "$WORK/runs" --json-out "$WORK/verdict.json" -- -o "python_files=test*.py" tests
