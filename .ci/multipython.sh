#!/usr/bin/env bash
# Every supported Python, proven.
#
# For each Python 3.9-3.13 under pyenv: a fresh venv, an accel-agent wheel
# built by that Python (the compiled fast path, accel_agent._speedups, is
# built per interpreter), the wheel with its [test] extra and pycryptodome 4.x
# (requirements/pycryptodome-4.txt), the start-up tests (tests/test_startup.py),
# then pycryptodomex too and the differential tests (tests/differential, the
# one differential harness, with few examples per property: ACCEL_DIFF_EXAMPLES)
# through both package names. That run fails unless every primitive the agent
# accelerates on that Python made an accelerated call
# (ACCEL_REQUIRE_EVERY_PRIMITIVE, tests/transparency_helpers.py).
# Two versions run at a time (the machine has two cores); each one's log is
# printed whole, in version order, once all are done.
#
# The oldest Python that runs gets the oldest cryptography the pyproject
# allows (its `cryptography>=X` floor, pinned ==X), the others the newest: the
# floor is tested, not only declared.
#
# A Python that is not installed is reported as SKIPPED, by name. The script
# fails when any version fails, or when none could run.
#
# Environment: ACCEL_PYTHONS="3.9 3.10 ..." picks versions, ACCEL_JOBS the
# parallelism, ACCEL_JOB_TIMEOUT the seconds one version may take,
# ACCEL_DIFF_EXAMPLES the Hypothesis examples per differential property.
# ACCEL_COVERED_PYTHON=3.X names a version whose start-up and differential
# tests have run already, with more examples (CI sets it to the Python of
# `make test`): it is reported as COVERED instead of being run again.
set -euo pipefail

cd "$(dirname "$0")/.."
source .ci/lib.sh

VERSIONS=${ACCEL_PYTHONS:-"3.9 3.10 3.11 3.12 3.13"}
JOBS=${ACCEL_JOBS:-2}
JOB_TIMEOUT=${ACCEL_JOB_TIMEOUT:-900}
LOGS=build/multipython  # build/ is gitignored
START_TESTS=tests/test_startup.py
DIFF_TESTS=tests/differential
DIFF_EXAMPLES=${ACCEL_DIFF_EXAMPLES:-10}
COVERED=${ACCEL_COVERED_PYTHON:-}

PYCRYPTODOME=$(grep -E '^pycryptodome==' requirements/pycryptodome-4.txt)
PYCRYPTODOMEX=$(grep -E '^pycryptodomex==' requirements/pycryptodomex.txt)
CRYPTOGRAPHY_FLOOR=$(sed -nE 's/^ *"cryptography>=([0-9.]+)".*/\1/p' pyproject.toml | head -1)
if [[ -z $CRYPTOGRAPHY_FLOOR ]]; then
    echo "multipython: FAILED: no cryptography>=X floor found in pyproject.toml"
    exit 1
fi
OLDEST_RUN=""  # the first version that runs: it gets cryptography==$CRYPTOGRAPHY_FLOOR

section "multi-Python: setup"
if [[ ! -f $START_TESTS ]]; then
    echo "multipython: FAILED: $START_TESTS is missing (it runs on every Python)"
    exit 1
fi
rm -rf "$LOGS"
mkdir -p "$LOGS"
echo "each Python gets: its own accel-agent wheel[test], $PYCRYPTODOME"
echo "(pycryptodome 4.x declares Requires-Python >=3.9: the same 4.x runs on every version)"

# One version's job; everything it prints goes to its log, its verdict to a file.
run_version() {
    local minor=$1 python=$2 venv=".venv-py$1" log="$LOGS/$1.log" started=$SECONDS rc=0
    # set -e is void inside an `if` or `&&` test, so the subshell runs bare and
    # its status is read afterwards.
    set +e
    (
        set -e
        echo "interpreter: $python ($("$python" --version 2>&1))"
        rm -rf "$venv" "$LOGS/wheel-$minor"
        "$python" -m venv "$venv"
        "$venv/bin/python" -m pip --disable-pip-version-check wheel -q --no-deps \
            -w "$LOGS/wheel-$minor" . 2>&1 | without_pip_noise
        wheel=$(ls "$LOGS/wheel-$minor"/accel_agent-*.whl)
        echo "wheel: $wheel"
        local -a floor=()
        [[ $minor == "$OLDEST_RUN" ]] && floor=("cryptography==$CRYPTOGRAPHY_FLOOR")
        "$venv/bin/python" -m pip --disable-pip-version-check install -q \
            "$wheel[test]" "$PYCRYPTODOME" "${floor[@]}" 2>&1 | without_pip_noise
        echo "cryptography: $("$venv/bin/python" -c 'import cryptography; print(cryptography.__version__)')"
        "$venv/bin/python" -c 'import accel_agent.speedups as s; print("speedups:", s.describe())'
        # No cache provider and no xdist: two versions run at once in the same tree.
        echo "--- pytest -q $START_TESTS"
        tests_rc=0
        timeout "$JOB_TIMEOUT" "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:xdist \
            "$START_TESTS" 2>&1 | tee "$LOGS/$minor.start-up" || tests_rc=$?
        # The differential tests cover both package names: Crypto and Cryptodome.
        "$venv/bin/python" -m pip --disable-pip-version-check install -q "$PYCRYPTODOMEX" 2>&1 \
            | without_pip_noise
        echo "--- pytest -q $DIFF_TESTS (with $PYCRYPTODOMEX, $DIFF_EXAMPLES examples per property)"
        ACCEL_DIFF_EXAMPLES=$DIFF_EXAMPLES ACCEL_REQUIRE_EVERY_PRIMITIVE=1 \
            timeout "$JOB_TIMEOUT" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
            -p no:xdist "$DIFF_TESTS" 2>&1 | tee "$LOGS/$minor.differential" || tests_rc=$?
        exit "$tests_rc"
    ) >"$log" 2>&1
    rc=$?
    set -e
    if ((rc == 0)); then status=PASSED; else status=FAILED; fi
    echo "$status $((SECONDS - started))" >"$LOGS/$minor.result"
}

# pytest's closing line in FILE ("2 failed, 47 passed in 3.96s"), or "not run".
closing_line() {
    local line=""
    [[ -f $1 ]] && line=$(sed -nE 's/^=* *(([0-9]+ [a-z]+,? )+in [0-9.]+s.*|no tests ran.*)$/\1/p' \
        "$1" | tail -1 | sed 's/ *=*$//')
    echo "${line:-not run}"
}

section "multi-Python: $VERSIONS ($JOBS at a time)"
declare -A PYTHONS=()
for minor in $VERSIONS; do
    if [[ $minor == "$COVERED" ]]; then
        echo "python$minor: COVERED (make test ran its start-up and differential tests)"
        continue
    fi
    python=$(find_python "$minor")
    if [[ -z $python ]]; then
        echo "python$minor: SKIPPED (no interpreter under $(pyenv_root)/versions)"
        continue
    fi
    PYTHONS[$minor]=$python
    [[ -n $OLDEST_RUN ]] || OLDEST_RUN=$minor
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    echo "python$minor: started ($python)"
    run_version "$minor" "$python" &
done
wait

failed=0
ran=0
for minor in $VERSIONS; do
    [[ -n ${PYTHONS[$minor]:-} ]] || continue
    section "multi-Python: Python $minor log"
    cat "$LOGS/$minor.log"
done

section "multi-Python: summary"
for minor in $VERSIONS; do
    if [[ $minor == "$COVERED" ]]; then
        printf '%-12s COVERED: make test ran its start-up and differential tests\n' "python$minor"
        continue
    fi
    if [[ -z ${PYTHONS[$minor]:-} ]]; then
        printf '%-12s SKIPPED: no interpreter under %s/versions\n' "python$minor" "$(pyenv_root)"
        continue
    fi
    read -r status seconds <"$LOGS/$minor.result"
    ran=$((ran + 1))
    [[ $status == PASSED ]] || failed=$((failed + 1))
    printf '%-12s %-7s %4ss  start-up tests: %s; differential: %s\n' "python$minor" \
        "$status" "$seconds" "$(closing_line "$LOGS/$minor.start-up")" \
        "$(closing_line "$LOGS/$minor.differential")"
done

if ((ran == 0)); then
    echo "multipython: FAILED: no supported Python was found, nothing was proven"
    exit 1
fi
if ((failed > 0)); then
    echo "multipython: FAILED on $failed of $ran Pythons"
    exit 1
fi
echo "multipython: PASSED on $ran Pythons"
