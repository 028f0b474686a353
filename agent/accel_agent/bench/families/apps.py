"""Application rows: real work done through real applications' public APIs.

Each row is one unit of an application's work as its users run it (open a
keystore file, sign a service-account token, encrypt a Kerberos ticket),
timed natively and under the agent in the same process, on both clocks.
The applications are those whose own suites run under the agent in CI
(.ci/app-suites/, pins in requirements/apps/); install them with
``make bench-apps``. A row's "crypto share" is the measured part of its
native time spent inside the crypto library the agent intercepts
(:mod:`accel_agent.bench.amdahl`): the most the agent can gain there.

Rows have no "direct" variant: an application's code is the point, and no
pyca/cryptography rewrite of it is what its users run. Keys are made once
per row; every call returns the same bytes natively and under the agent
(RSA PKCS#1 v1.5 signatures are deterministic; the Kerberos confounder is
fixed), which the benchmark checks before timing.
"""

from __future__ import annotations

import ecdsa
import eth_keyfile
import impacket.krb5.crypto as krb5
from Crypto.PublicKey import RSA as CryptoRSA
from Cryptodome.PublicKey import RSA as CryptodomeRSA
from jwkest.jwk import RSAKey
from jwkest.jws import JWS
from oauth2client import crypt
from tlslite.utils.keyfactory import parsePEMKey

from accel_agent.bench.families import KIB, Row, random_bytes

NAME = "apps"
TITLE = (
    "applications: eth-keyfile 0.9.1, oauth2client 4.1.3, pyjwkest 1.4.4, impacket 0.13.1,"
    " tlslite-ng 0.8.2; one unit of work per call"
)
# A row measures one unit of work: its "size" is that count, not bytes.
ONE = (1,)
# Which package's time counts as crypto for the share, per row (file path parts).
# The rows: decrypt a v3 keystore (PBKDF2-SHA256, AES-128-CTR, keccak MAC);
# sign one RS256 service-account JWT with oauth2client's pycryptodome signer
# and with its python-rsa one; sign one JWS with pyjwkest; seal and open a
# 1 KiB Kerberos AES256-CTS-HMAC-SHA1 ticket; derive a Kerberos AES256 key
# from a password (string-to-key: PBKDF2-HMAC-SHA1, 4096 iterations); sign
# a TLS 1.3 CertificateVerify-sized message with a P-256 key in tlslite-ng.
CRYPTO_PACKAGES = {
    "eth-keyfile decrypt": ("Crypto",),
    "oauth2client JWT Crypto": ("Crypto",),
    "oauth2client JWT rsa": ("rsa",),
    "pyjwkest JWS RS256": ("Cryptodome",),
    "impacket krb5 seal": ("Cryptodome",),
    "impacket krb5 s2k": ("Cryptodome",),
    "tlslite-ng ECDSA sign": ("ecdsa",),
}

PASSWORD = b"correct horse battery staple"
PBKDF2_ITERATIONS = 4096  # a light keystore; eth-keyfile's default (1,000,000) takes ~1 s
CLAIMS = {
    "iss": "robot@project.iam.gserviceaccount.com",
    "scope": "https://www.googleapis.com/auth/devstorage.read_only",
    "aud": "https://oauth2.googleapis.com/token",
    "iat": 1767225600,
    "exp": 1767229200,
}

_keys: dict[str, object] = {}


def _crypto_rsa_pem() -> bytes:
    if "pem" not in _keys:
        _keys["pem"] = CryptoRSA.generate(2048).export_key()
    return _keys["pem"]


def _keyfile_decrypt(size: int):
    keyfile = eth_keyfile.create_keyfile_json(
        random_bytes(32), PASSWORD, kdf="pbkdf2", iterations=PBKDF2_ITERATIONS
    )

    def app():
        return eth_keyfile.decode_keyfile_json(keyfile, PASSWORD)

    return app, None


def _jwt_pycryptodome(size: int):
    signer = crypt.PyCryptoSigner.from_string(_crypto_rsa_pem())

    def app():
        return crypt.make_signed_jwt(signer, CLAIMS)

    return app, None


def _jwt_python_rsa(size: int):
    signer = crypt.RsaSigner.from_string(_crypto_rsa_pem())

    def app():
        return crypt.make_signed_jwt(signer, CLAIMS)

    return app, None


def _jws_rs256(size: int):
    key = RSAKey(key=CryptodomeRSA.import_key(_crypto_rsa_pem()), kid="bench")
    message = '{"sub": "alice", "iss": "https://op.example", "iat": 1767225600}'

    def app():
        return JWS(message, alg="RS256").sign_compact(keys=[key]).encode()

    return app, None


def _krb5_seal(size: int):
    key = krb5.Key(krb5.Enctype.AES256, random_bytes(32))
    ticket = random_bytes(KIB)
    confounder = random_bytes(16)

    def app():
        sealed = krb5.encrypt(key, 2, ticket, confounder)
        return sealed + krb5.decrypt(key, 2, sealed)

    return app, None


def _krb5_string_to_key(size: int):
    def app():
        return krb5.string_to_key(krb5.Enctype.AES256, "Passw0rd!", "EXAMPLE.COMalice").contents

    return app, None


def _tls_ecdsa_sign(size: int):
    pem = ecdsa.SigningKey.generate(curve=ecdsa.NIST256p).to_pem().decode()
    key = parsePEMKey(pem, private=True)
    transcript = random_bytes(130)  # 64 spaces, the context string, a SHA-256 hash

    def app():
        return key.hashAndSign(transcript, hAlg="sha256")

    return app, None


ROWS = (
    Row("eth-keyfile decrypt", "aes-ctr", _keyfile_decrypt, sizes=ONE),
    Row("oauth2client JWT Crypto", "rsa-pkcs1v15-sign", _jwt_pycryptodome, sizes=ONE),
    Row("oauth2client JWT rsa", "rsa-pkcs1v15-sign", _jwt_python_rsa, sizes=ONE),
    Row("pyjwkest JWS RS256", "rsa-pkcs1v15-sign", _jws_rs256, sizes=ONE),
    Row("impacket krb5 seal", "aes-cbc", _krb5_seal, sizes=ONE),
    Row("impacket krb5 s2k", "sha1", _krb5_string_to_key, sizes=ONE),
    Row("tlslite-ng ECDSA sign", "ecdsa-p256", _tls_ecdsa_sign, sizes=ONE),
)

