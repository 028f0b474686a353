#!/usr/bin/env bash
# impacket's own offline tests (tests/misc and tests/dot11 of its sdist: Kerberos
# and DPAPI crypto, AES-CMAC, NTLM, ccache and PAC parsing, 802.11 frames),
# natively and under the agent. The rest of tests/ (SMB_RPC, dcerpc) talks
# to a Windows server configured in dcetests.cfg: not run.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
source .ci/app_suite_lib.sh
mapfile -t EXCLUDED < <(excluded "$0")
app_suite impacket Cryptodome aes-ecb,aes-cbc,sha1 -- tests/misc tests/dot11 "${EXCLUDED[@]}"
