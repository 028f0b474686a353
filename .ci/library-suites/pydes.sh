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
# The release commit of pyDes 2.0.1 (its PKG-INFO says 2.0.1; test_pydes.py is
# unchanged since).
COMMIT=54ff248485b9e0b89d29e632de2e10f56d77f551

rm -rf "$WORK" && mkdir -p "$WORK/source"
library_venv "$WORK" requirements/pyDes.txt

TESTS=${PYDES_TESTS:-}
if [[ -z $TESTS ]]; then
    TESTS=$WORK/source/test_pydes.py
    "$WORK/venv/bin/python" .ci/fetch_tests.py pyDes \
        "https://raw.githubusercontent.com/twhiteman/pyDes/$COMMIT/test_pydes.py" \
        "$TESTS" PYDES_TESTS
fi

"$WORK/venv/bin/python" tests/libraries/pydes/run_suite.py \
    --tests "$TESTS" --work-dir "$WORK/runs" --json-out "$WORK/verdict.json"
