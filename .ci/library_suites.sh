#!/usr/bin/env bash
# The own test suites of the other libraries the agent patches (python-rsa,
# python-ecdsa, pyaes, pyDes...), natively and under the agent.
#
# Each library has one script in .ci/library-suites/NAME.sh; it builds what it
# needs (a venv, the pinned library and its tests from requirements/NAME*.txt),
# runs the suite natively and with ACCEL_AGENT=quiet, and exits non-zero when
# the results differ or no call went through the agent. Every script runs
# even when an earlier one failed; the step fails when any of them did. A
# script that exits 77 could not get its suite from anywhere this machine
# reaches: it is printed as NOT RUN, with the reason it gave, and does not
# fail the step.
#
#   bash .ci/library_suites.sh [DIR]   DIR: another folder of such scripts
#                                      (.ci/app-suites: the applications' suites)
set -euo pipefail

cd "$(dirname "$0")/.."
source .ci/lib.sh

failed=0
shopt -s nullglob
folder=${1:-.ci/library-suites}
kind=$([[ $folder == *app* ]] && echo "app suite" || echo "library suite")
scripts=("$folder"/*.sh)
if ((${#scripts[@]} == 0)); then
    echo "$kind: none defined in $folder"
    exit 0
fi
for script in "${scripts[@]}"; do
    section "$kind: $(basename "$script" .sh)"
    started=$SECONDS
    rc=0
    bash "$script" || rc=$?
    if ((rc == 0)); then
        echo "$kind $(basename "$script" .sh): PASSED in $((SECONDS - started))s"
    elif ((rc == 77)); then
        echo "$kind $(basename "$script" .sh): NOT RUN (its suite is out of reach, above)"
    else
        echo "$kind $(basename "$script" .sh): FAILED in $((SECONDS - started))s"
        failed=$((failed + 1))
    fi
done
exit $((failed > 0))
