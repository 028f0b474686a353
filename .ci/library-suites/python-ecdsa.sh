#!/usr/bin/env bash
# python-ecdsa's own test suite, natively and under the agent.
#
# A fresh venv with the accel-agent wheel and requirements/python-ecdsa.txt
# (the pinned python-ecdsa, pytest, Hypothesis), then tests/suite/pytest_suite.py:
# the whole suite, which python-ecdsa ships inside its package (ecdsa/test_*.py,
# run with --pyargs from an empty directory; nothing deselected, the suite's
# own Hypothesis settings) with ACCEL_AGENT=off and with ACCEL_AGENT=quiet, the
# same Hypothesis seed in both, compared test by test, with the
# accelerated-call count of every primitive. A test whose outcome differs, or
# a primitive below the suite did not drive through the agent (its tests sign,
# verify and generate keys on each of these curves), fails the script.
set -euo pipefail

cd "$(dirname "$0")/../.."
source .ci/lib.sh

WORK=$PWD/build/library-suites/python-ecdsa  # build/ is gitignored; absolute for the children

rm -rf "$WORK"
library_venv "$WORK" requirements/python-ecdsa.txt

REQUIRED=ecdsa-p192,ecdsa-p224,ecdsa-p256,ecdsa-p384,ecdsa-p521,ecdsa-secp256k1,ecc-keygen
mkdir -p "$WORK/empty"
"$WORK/venv/bin/python" tests/suite/pytest_suite.py --name python-ecdsa --root "$WORK/empty" \
    --package ecdsa --require "$REQUIRED" --distribution ecdsa \
    --work-dir "$WORK/runs" --json-out "$WORK/verdict.json" -- --pyargs ecdsa
