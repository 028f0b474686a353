#!/usr/bin/env bash
# pyaes's own tests, natively and under the agent.
#
# A fresh venv with the accel-agent wheel and requirements/pyaes.txt (pyaes
# 1.6.1 and the pycryptodome its tests compare against); the tests come from
# pyaes 1.6.1's sdist on PyPI (the wheel has none). tests/libraries/pyaes/
# run_suite.py runs each test script with ACCEL_AGENT=off and =quiet, compares
# the outcomes and prints the accelerated-call count of each AES mode; it
# exits non-zero on any difference or when an accelerated mode served no call.
set -euo pipefail

cd "$(dirname "$0")/../.."
source .ci/lib.sh

WORK=$PWD/build/library-suites/pyaes  # build/ is gitignored
PIP=(-m pip --disable-pip-version-check)
PIN=$(sed -n 's/^pyaes==//p' requirements/pyaes.txt)

rm -rf "$WORK" && mkdir -p "$WORK/sdist"
library_venv "$WORK" requirements/pyaes.txt
"$WORK/venv/bin/python" "${PIP[@]}" download -q --no-binary :all: --no-deps \
    -d "$WORK/sdist" "pyaes==$PIN" 2>&1 | without_pip_noise
tar -xzf "$WORK/sdist/pyaes-$PIN.tar.gz" -C "$WORK/sdist"

"$WORK/venv/bin/python" tests/libraries/pyaes/run_suite.py \
    --tests "$WORK/sdist/pyaes-$PIN/tests" --json-out "$WORK/verdict.json"
