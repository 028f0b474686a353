#!/usr/bin/env bash
# pyDes's own tests, natively and under the agent.
#
# A fresh venv with the accel-agent wheel and requirements/pyDes.txt. pyDes's
# tests are test_pydes.py of its repository (neither its sdist nor PyPI has
# them): from GitHub at the commit of the 2.0.1 release, or from PYDES_TESTS
# (a copy of that file, for machines without GitHub).
# tests/libraries/pydes/run_suite.py calls its four test functions with
# ACCEL_AGENT=off and with ACCEL_AGENT=quiet, compares what they print (the
# timings masked) and the files they write, and counts the accelerated calls
# of tdes-ecb and tdes-cbc; any difference, or a primitive the tests did not
# drive through the agent, fails the script.
set -euo pipefail

cd "$(dirname "$0")/../.."
source .ci/lib.sh

WORK=$PWD/build/library-suites/pydes  # build/ is gitignored
if [[ -x .venv/bin/python ]]; then BUILD_PYTHON=.venv/bin/python; else BUILD_PYTHON=python3; fi
PIP=(-m pip --disable-pip-version-check)
# The release commit of pyDes 2.0.1 (its PKG-INFO says 2.0.1; test_pydes.py is
# unchanged since).
COMMIT=54ff248485b9e0b89d29e632de2e10f56d77f551

rm -rf "$WORK" && mkdir -p "$WORK/dist" "$WORK/source"
"$BUILD_PYTHON" "${PIP[@]}" wheel -q --no-deps -w "$WORK/dist" . 2>&1 | without_pip_noise
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/python" "${PIP[@]}" install -q "$WORK"/dist/accel_agent-*.whl \
    -r requirements/pyDes.txt 2>&1 | without_pip_noise

TESTS=${PYDES_TESTS:-}
if [[ -z $TESTS ]]; then
    TESTS=$WORK/source/test_pydes.py
    fetched=0
    "$WORK/venv/bin/python" - "$COMMIT" "$TESTS" <<'PY' || fetched=$?
import sys, urllib.request
commit, target = sys.argv[1], sys.argv[2]
url = "https://raw.githubusercontent.com/twhiteman/pyDes/%s/test_pydes.py" % commit
try:
    with urllib.request.urlopen(url, timeout=30) as response:
        data = response.read()
except OSError as exc:
    print("pyDes: NOT RUN: its tests are in neither its sdist nor anywhere on PyPI, and %s "
          "cannot be read from here (%s). Set PYDES_TESTS to a copy of test_pydes.py to run "
          "them." % (url, exc))
    sys.exit(77)
open(target, "wb").write(data)
PY
    ((fetched == 0)) || exit "$fetched"
fi

"$WORK/venv/bin/python" tests/libraries/pydes/run_suite.py \
    --tests "$TESTS" --work-dir "$WORK/runs" --json-out "$WORK/verdict.json"
