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
PIN=$(sed -n 's/^starkbank-ecdsa==//p' requirements/starkbank-ecdsa.txt)

rm -rf "$WORK" && mkdir -p "$WORK/source"
library_venv "$WORK" requirements/starkbank-ecdsa.txt

TESTS=${STARKBANK_ECDSA_TESTS:-}
if [[ -z $TESTS ]]; then
    "$WORK/venv/bin/python" .ci/fetch_tests.py starkbank-ecdsa \
        "https://github.com/starkbank/ecdsa-python/archive/refs/tags/v$PIN.tar.gz" \
        "$WORK/source" STARKBANK_ECDSA_TESTS --members /tests/
    TESTS=$(ls -d "$WORK"/source/*/tests)
fi

# The tests/ folder alone, in a directory of its own: the installed
# ellipticcurve is the one tested.
mkdir -p "$WORK/root" && cp -r "$TESTS" "$WORK/root/tests"
"$WORK/venv/bin/python" tests/suite/pytest_suite.py --name starkbank-ecdsa --root "$WORK/root" \
    --package ellipticcurve --require ecdsa-p256,ecdsa-secp256k1 --distribution starkbank-ecdsa \
    --work-dir "$WORK/runs" --json-out "$WORK/verdict.json" -- -o "python_files=test*.py" tests
