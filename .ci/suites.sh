#!/usr/bin/env bash
# pycryptodome's own test suite, natively and under the agent, for every
# pinned pycryptodome.
#
# For each requirements file below: a fresh venv with the accel-agent wheel,
# that pin (and the pinned test vectors), then tests/suite/run_selftest.py,
# which runs the suite in fresh interpreters natively (ACCEL_AGENT=off) and
# under the agent (ACCEL_AGENT=quiet), compares the results test by test, and
# prints the accelerated-call count of every primitive. A test that fails only
# under the agent, or an accelerated primitive that served no call, fails the
# step.
#
# Native's outcomes for each pin are recorded in tests/suite/native-outcomes/
# (SUITE_NATIVE=record bash .ci/suites.sh runs both and records them anew).
# A record made from the same pin, test vectors, Python, machine and CPU
# features stands in for the native run when the agent's outcomes hash the
# same; on any difference, or with no record that fits, native runs there and
# then and the two are compared test by test. SUITE_NATIVE=live always runs
# native.
#
#   requirements/pycryptodome-4.txt   Crypto      (pytest-based suite), slow tests included
#   requirements/pycryptodome-3.txt   Crypto      (unittest-based suite), --skip-slow
#   requirements/pycryptodomex.txt    Cryptodome  (the same 3.x code), --skip-slow
#
# The newest release runs whole. The two 3.x runs leave out what pycryptodome
# marks slow: mostly its Wycheproof vector sets and big key generations
# (about 40% of their time). `make test` runs the Wycheproof vectors
# (tests/wycheproof/) through both package names, and so through 3.x's code
# (pycryptodomex 3.24.2) as well as 4.x's; SUITE_SLOW=1 runs them whole.
#
# The three pins run at the same time, each into its own log (printed in
# order at the end): six suite processes on two cores keep both busy, where
# one pin at a time left a core idle whenever its agent run finished first.
#
# `make test` leaves these runs out (pytest -m "not suite"): they take
# minutes each and CI runs them here, once per pin.
set -euo pipefail

cd "$(dirname "$0")/.."
source .ci/lib.sh

RUNNER=tests/suite/run_selftest.py
WORK=$PWD/build/suites  # build/ is gitignored; absolute: the runner's children run elsewhere
if [[ -x .venv/bin/python ]]; then BUILD_PYTHON=.venv/bin/python; else BUILD_PYTHON=python3; fi

rm -rf "$WORK" && mkdir -p "$WORK/dist"
"$BUILD_PYTHON" -m pip --disable-pip-version-check wheel -q --no-deps -w "$WORK/dist" . 2>&1 \
    | without_pip_noise
WHEEL=$(ls "$WORK"/dist/accel_agent-*.whl)

PINS=(requirements/pycryptodome-4.txt requirements/pycryptodome-3.txt requirements/pycryptodomex.txt)

# run_pin PIN: a venv for PIN, then both runs of its suite, compared; its
# output goes to $WORK/NAME.log, its exit status to $WORK/NAME.rc.
run_pin() {
    local pin=$1 flavour name venv rc=0 started=$SECONDS
    local -a slow=()
    case $pin in
        *pycryptodomex.txt) flavour=Cryptodome ;;
        *) flavour=Crypto ;;
    esac
    [[ $pin == *-4.txt || ${SUITE_SLOW:-0} == 1 ]] || slow=(--skip-slow)
    name=$(basename "$pin" .txt)
    venv=$WORK/venv-$name
    {
        set +e
        python3 -m venv "$venv" || rc=2
        if ((rc == 0)); then
            "$venv/bin/python" -m pip --disable-pip-version-check install -q "$WHEEL" \
                -r "$pin" pytest 2>&1 | without_pip_noise
            ((PIPESTATUS[0] == 0)) || rc=2
        fi
        if ((rc == 0)); then
            "$venv/bin/python" "$RUNNER" --flavour "$flavour" --parallel "${slow[@]}" \
                --native "${SUITE_NATIVE:-recorded}" --work-dir "$WORK/$name" --json-out "$WORK/$name.json"
            rc=$?
        fi
        echo "($((SECONDS - started)) s)"
    } >"$WORK/$name.log" 2>&1
    echo "$rc" >"$WORK/$name.rc"
}

for pin in "${PINS[@]}"; do
    run_pin "$pin" &
done
wait

failed=0
for pin in "${PINS[@]}"; do
    name=$(basename "$pin" .txt)
    flavour=Crypto
    [[ $pin == *pycryptodomex.txt ]] && flavour=Cryptodome
    slow=""
    [[ $pin == *-4.txt || ${SUITE_SLOW:-0} == 1 ]] || slow=", pycryptodome's slow tests left out"
    section "suite: $name ($flavour$slow)"
    cat "$WORK/$name.log"
    rc=$(cat "$WORK/$name.rc" 2>/dev/null || echo 2)
    if ((rc == 0)); then
        echo "suite $name: PASSED (same results as native)"
    else
        echo "suite $name: FAILED (exit $rc; details in the verdict above)"
        failed=$((failed + 1))
    fi
done

if ((failed > 0)); then
    echo "suites: FAILED ($failed of ${#PINS[@]})"
    exit 1
fi
echo "suites: PASSED"
