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
if [[ -x .venv/bin/python ]]; then BUILD_PYTHON=.venv/bin/python; else BUILD_PYTHON=python3; fi
PIP=(-m pip --disable-pip-version-check)
PIN=$(sed -n 's/^pyaes==//p' requirements/pyaes.txt)

rm -rf "$WORK" && mkdir -p "$WORK/dist" "$WORK/sdist"
"$BUILD_PYTHON" "${PIP[@]}" wheel -q --no-deps -w "$WORK/dist" . 2>&1 | without_pip_noise
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/python" "${PIP[@]}" install -q "$WORK"/dist/accel_agent-*.whl \
    -r requirements/pyaes.txt 2>&1 | without_pip_noise
"$WORK/venv/bin/python" "${PIP[@]}" download -q --no-binary :all: --no-deps \
    -d "$WORK/sdist" "pyaes==$PIN" 2>&1 | without_pip_noise
tar -xzf "$WORK/sdist/pyaes-$PIN.tar.gz" -C "$WORK/sdist"

"$WORK/venv/bin/python" tests/libraries/pyaes/run_suite.py \
    --tests "$WORK/sdist/pyaes-$PIN/tests" --json-out "$WORK/verdict.json"
