#!/usr/bin/env bash
# pyjwkest's own suite (tests/ of its sdist), natively and under the agent:
# JWS HMAC and RSA signatures, JWK handling, on pycryptodomex.
#
# The sdist ships test_*.py without their key files (tests/cert.pem,
# rsa.key, server.key...): test_0_jwkest.py and test_4_jwe.py cannot be
# collected, and these tests fail natively with FileNotFoundError:
# exclude: tests/test_2_jwk.py::test_cmp_rsa  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_cmp_rsa_ec  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_dump_jwk  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_dumps  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_extract_rsa_from_cert_2  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_import_rsa_key  opens a key file (not in the sdist)
# exclude: tests/test_2_jwk.py::test_kspec  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_load_jwk  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_loads_0  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_pem_cert2rsa  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_2_jwk.py::test_private_key_from_jwk  opens a key file (not in the sdist)
# exclude: tests/test_2_jwk.py::test_serialize_rsa_priv_key  opens a key file (not in the sdist)
# exclude: tests/test_2_jwk.py::test_serialize_rsa_pub_key  opens a key file (not in the sdist)
# exclude: tests/test_2_jwk.py::test_verify_2  opens tests/cert.pem (not in the sdist)
# exclude: tests/test_3_jws.py::test_dj_usage  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_pick_alg_dont_get_alg_from_single_key_if_already_specified  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_rs256  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_rs256_rm_signature  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_rs384  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_rs512  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_signer_ps256  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_signer_ps256_fail  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_signer_ps384  opens a key file (not in the sdist)
# exclude: tests/test_3_jws.py::test_signer_ps512  opens a key file (not in the sdist)
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
source .ci/app_suite_lib.sh
mapfile -t EXCLUDED < <(excluded "$0")
app_suite pyjwkest Cryptodome hmac,sha256 -- tests --ignore=tests/test_0_jwkest.py \
    --ignore=tests/test_4_jwe.py "${EXCLUDED[@]}"
