#!/usr/bin/env bash
# python-rsa's own tests, natively and under the agent, for the
# pinned release (requirements/python-rsa.txt, 4.9.1) and the oldest supported
# one (requirements/oldest/python-rsa.txt, 4.7.2; in a folder of its own so that
# make bench's requirements/python-*.txt does not install both pins at once).
#
# Where the tests come from: python-rsa's sdists from 4.8 on (Poetry builds)
# ship no tests; 4.7.2's sdist is the newest one on PyPI that does. Its
# tests/ and its rsa/_compat.py (two helpers those tests import, dropped from
# python-rsa in 4.8) are taken from it; the doctests of the installed release
# run as well. tests/libraries/python_rsa/run_suite.py runs everything twice
# (ACCEL_AGENT=off, ACCEL_AGENT=quiet), compares test by test, prints the
# accelerated-call counts, and fails on any difference or an accelerated
# primitive that served no call.
set -euo pipefail

cd "$(dirname "$0")/../.."
source .ci/lib.sh

RUNNER=tests/libraries/python_rsa/run_suite.py
SUITE_SDIST=rsa==4.7.2
WORK=$PWD/build/library-suites/python-rsa  # build/ is gitignored; absolute for the children
if [[ -x .venv/bin/python ]]; then BUILD_PYTHON=.venv/bin/python; else BUILD_PYTHON=python3; fi
PIP=(-m pip --disable-pip-version-check)

rm -rf "$WORK" && mkdir -p "$WORK/dist" "$WORK/sdist" "$WORK/suite"
"$BUILD_PYTHON" "${PIP[@]}" wheel -q --no-deps -w "$WORK/dist" . 2>&1 | without_pip_noise
WHEEL=$(ls "$WORK"/dist/accel_agent-*.whl)

"$BUILD_PYTHON" "${PIP[@]}" download -q --no-binary :all: --no-deps -d "$WORK/sdist" \
    "$SUITE_SDIST" 2>&1 | without_pip_noise
tar -xzf "$WORK"/sdist/rsa-*.tar.gz -C "$WORK/sdist"
SDIST_ROOT=$(ls -d "$WORK"/sdist/rsa-*/)
cp -r "$SDIST_ROOT/tests" "$WORK/suite/tests"  # tests/ only: "rsa" is the installed release
cp "$SDIST_ROOT/rsa/_compat.py" "$WORK/suite/_compat.py"
echo "suite: tests/ of $(basename "$SDIST_ROOT") ($(ls "$WORK"/suite/tests/test_*.py | wc -l) modules)"

# One venv for both pins: the second install only swaps python-rsa.
venv=$WORK/venv
python3 -m venv "$venv"
"$venv/bin/python" "${PIP[@]}" install -q "$WHEEL" 2>&1 | without_pip_noise

failed=0
for run in python-rsa:requirements/python-rsa.txt python-rsa-oldest:requirements/oldest/python-rsa.txt; do
    name=${run%%:*} pin=${run#*:}
    section "python-rsa suite: $name"
    "$venv/bin/python" "${PIP[@]}" install -q -r "$pin" 2>&1 | without_pip_noise
    rc=0
    "$venv/bin/python" "$RUNNER" --tests "$WORK/suite/tests" --compat "$WORK/suite/_compat.py" \
        --work-dir "$WORK/$name" --json-out "$WORK/$name.json" || rc=$?
    if ((rc == 0)); then
        echo "python-rsa suite $name: PASSED (same results as native)"
    else
        echo "python-rsa suite $name: FAILED (exit $rc; details in the verdict above)"
        failed=$((failed + 1))
    fi
done
exit $((failed > 0))
