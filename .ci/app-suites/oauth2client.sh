#!/usr/bin/env bash
# oauth2client's own suite (tests/ of its sdist), natively and under the agent:
# RS256 service-account JWTs signed and verified with pycryptodome
# (PyCryptoSigner) and python-rsa (RsaSigner).
#
# tests/contrib is left out: Django, Flask, App Engine, SQLAlchemy, keyring
# and fasteners storage adapters (not installed; no crypto of their own).
# pyOpenSSL is left out on purpose (with it oauth2client signs with OpenSSL, not
# pycryptodome), so its OpenSSL-only tests fail natively and are excluded:
# exclude: tests/test_crypt.py::Test_pkcs12_key_as_pem  PKCS#12 needs pyOpenSSL
# exclude: tests/test_jwt.py::CryptTests  crypt.OpenSSLVerifier, None without pyOpenSSL
# exclude: tests/test_jwt.py::PEMCryptTestsOpenSSL  crypt.OpenSSLVerifier, None without pyOpenSSL
# exclude: tests/test_jwt.py::PEMSignedJwtAssertionCredentialsOpenSSLTests  needs pyOpenSSL
# exclude: tests/test_jwt.py::SignedJwtAssertionCredentialsTests  PKCS#12 keys, need pyOpenSSL
# exclude: tests/test_jwt.py::TestHasOpenSSLFlag::test_true  asserts pyOpenSSL is installed
# exclude: tests/test_service_account.py::ServiceAccountCredentialsTests::test_from_p12_keyfile_defaults  PKCS#12 needs pyOpenSSL
# exclude: tests/test_service_account.py::ServiceAccountCredentialsTests::test_from_p12_keyfile_explicit  PKCS#12 needs pyOpenSSL
# And one that fails natively on Python 3 (no crypto):
# exclude: tests/test__helpers.py::PositionalTests::test_usage  expects a TypeError this Python no longer raises
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/lib.sh
source .ci/app_suite_lib.sh
mapfile -t EXCLUDED < <(excluded "$0")
app_suite oauth2client Crypto rsa-pkcs1v15-sign,sha256 -- tests --ignore=tests/contrib "${EXCLUDED[@]}"
