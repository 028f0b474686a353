#!/usr/bin/env bash
# tlslite-ng's own unit tests (unit_tests/ of its sdist), natively and under the
# agent: handshakes, record layer, key exchange, and ECDSA signatures and keys
# on python-ecdsa (P-256, P-384, P-521), the part the agent serves.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
source .ci/app_suite_lib.sh
mapfile -t EXCLUDED < <(excluded "$0")
app_suite tlslite-ng ecdsa ecdsa-p256,ecc-keygen -- unit_tests "${EXCLUDED[@]}"
