#!/usr/bin/env bash
# python-ecdsa's own test suite, natively and under the agent.
#
# A fresh venv with the accel-agent wheel and requirements/python-ecdsa.txt
# (the pinned python-ecdsa, pytest, Hypothesis), then
# tests/libraries/python_ecdsa/run_suite.py: the whole suite (ecdsa/test_*.py,
# nothing deselected, the suite's own Hypothesis settings) with
# ACCEL_AGENT=off and with ACCEL_AGENT=quiet, the same Hypothesis seed in
# both, compared test by test, with the accelerated-call count of every
# ECDSA primitive. A test whose outcome differs, or a primitive the suite
# did not drive through the agent, fails the script.
set -euo pipefail

cd "$(dirname "$0")/../.."
source .ci/lib.sh

WORK=$PWD/build/library-suites/python-ecdsa  # build/ is gitignored; absolute for the children
if [[ -x .venv/bin/python ]]; then BUILD_PYTHON=.venv/bin/python; else BUILD_PYTHON=python3; fi

rm -rf "$WORK" && mkdir -p "$WORK/dist"
"$BUILD_PYTHON" -m pip --disable-pip-version-check wheel -q --no-deps -w "$WORK/dist" . 2>&1 \
    | without_pip_noise
WHEEL=$(ls "$WORK"/dist/accel_agent-*.whl)

python3 -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip --disable-pip-version-check install -q "$WHEEL" \
    -r requirements/python-ecdsa.txt 2>&1 | without_pip_noise

"$WORK/venv/bin/python" tests/libraries/python_ecdsa/run_suite.py \
    --work-dir "$WORK/runs" --json-out "$WORK/verdict.json"
