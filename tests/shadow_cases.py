"""Shadow mode's cases: one per family and call shape, run in a child process.

    python tests/shadow_cases.py GROUP [--corrupt]

GROUP is ``single`` (one data call on a fresh object, or a module-level
one-shot function), ``streaming`` (several calls on one object),
``randomized`` (signatures, ciphertexts and keys with a drawn salt, k, seed
or key: what the caller got is checked natively by the test), or ``pyaes and
pyDes`` (those libraries' objects, whose native is their own Python). Each
case names the primitive it exercises, and within a group every primitive
appears once: a mismatch turns its primitive native for the rest of the
process. With ``--corrupt`` the test-only hook flips one output bit of each
case's primitive while it runs (it refuses to, outside a pytest test).

Prints one JSON object: per case, the hex of what the caller got (or the
exception's type name), then the agent's view: each primitive's outcome and
reason, and status()'s shadow summary. Inputs are the secrets test's marked
values, so the test can look for them in everything the agent printed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "reliability"))

from families import Secrets  # noqa: E402

KEY16, KEY32, IV, NONCE = Secrets.key16, Secrets.key32, Secrets.iv, Secrets.nonce
DATA, AAD = Secrets.plaintext, Secrets.aad
RSA_PEM = (Path(__file__).resolve().parent / "fixtures" / "shadow_rsa_2048.pem").read_bytes()
P256_D = int.from_bytes(b"P256-SECRET-SCALAR-MARKER-0123", "big")
ED25519_SEED = b"ED25519-SECRET-SEED-MARKER-01234"
DSA_PEM = (Path(__file__).resolve().parent / "fixtures" / "shadow_dsa_1024.pem").read_bytes()


def _aes():
    from Crypto.Cipher import AES

    return AES


# --------------------------------------------------------------------------- single calls


def gcm_seal():
    AES = _aes()
    cipher = AES.new(KEY16, AES.MODE_GCM, nonce=NONCE)
    cipher.update(AAD)
    return b"".join(cipher.encrypt_and_digest(DATA))


def cbc_encrypt():
    AES = _aes()
    return AES.new(KEY16, AES.MODE_CBC, iv=IV).encrypt(DATA)


def ecb_encrypt():
    AES = _aes()
    return AES.new(KEY16, AES.MODE_ECB).encrypt(DATA)


def eax_seal():
    AES = _aes()
    return b"".join(AES.new(KEY16, AES.MODE_EAX, nonce=NONCE).encrypt_and_digest(DATA))


def siv_seal():
    AES = _aes()
    return b"".join(AES.new(KEY32, AES.MODE_SIV, nonce=NONCE).encrypt_and_digest(DATA))


def chacha_poly_seal():
    from Crypto.Cipher import ChaCha20_Poly1305

    cipher = ChaCha20_Poly1305.new(key=KEY32, nonce=NONCE)
    cipher.update(AAD)
    return b"".join(cipher.encrypt_and_digest(DATA))


def sha256_oneshot():
    from Crypto.Hash import SHA256

    return SHA256.digest(DATA)  # pycryptodome 4.x's module-level one-shot


def sha3_digest():
    from Crypto.Hash import SHA3_256

    return SHA3_256.new(DATA).digest()


def hmac_digest():
    from Crypto.Hash import HMAC, SHA256

    return HMAC.new(KEY16, DATA, SHA256).digest()


def cmac_tag():
    from Crypto.Cipher import AES
    from Crypto.Hash import CMAC

    PREPARED["cmac tag"] = CMAC.new(KEY16, DATA, ciphermod=AES).digest()


def cmac_verify():
    from Crypto.Cipher import AES
    from Crypto.Hash import CMAC

    return CMAC.new(KEY16, DATA, ciphermod=AES).verify(PREPARED["cmac tag"])  # None: right


def pbkdf2_derive():
    from Crypto.Hash import SHA256
    from Crypto.Protocol.KDF import PBKDF2

    return PBKDF2(KEY16, IV, 32, count=50, hmac_hash_module=SHA256)


def pkcs1_sign():
    from Crypto.Hash import SHA256
    from Crypto.PublicKey import RSA
    from Crypto.Signature import pkcs1_15

    return pkcs1_15.new(RSA.import_key(RSA_PEM)).sign(SHA256.new(DATA))


def ecdsa_sign():
    from Crypto.Hash import SHA256
    from Crypto.PublicKey import ECC
    from Crypto.Signature import DSS

    key = ECC.construct(curve="P-256", d=P256_D)
    return DSS.new(key, "deterministic-rfc6979").sign(SHA256.new(DATA))


# --------------------------------------------------------------------------- streaming


def gcm_stream_open():
    AES = _aes()
    sealer = AES.new(KEY16, AES.MODE_GCM, nonce=NONCE)
    ciphertext, tag = sealer.encrypt_and_digest(DATA)
    AES2 = _aes()
    cipher = AES2.new(KEY16, AES2.MODE_GCM, nonce=NONCE)
    cipher.update(AAD[:5])
    cipher.update(AAD[5:])
    plain = cipher.decrypt(ciphertext[:40]) + cipher.decrypt(ciphertext[40:])
    return plain + cipher.digest()


def ctr_stream():
    AES = _aes()
    cipher = AES.new(KEY16, AES.MODE_CTR, nonce=NONCE[:8])
    return cipher.encrypt(DATA[:33]) + cipher.encrypt(DATA[33:])


def cbc_stream_output():
    AES = _aes()
    cipher = AES.new(KEY16, AES.MODE_CBC, iv=IV)
    buffer = bytearray(DATA)  # encrypted in place: output= aliases the input
    cipher.encrypt(buffer[:48], output=memoryview(buffer)[:48])
    cipher.encrypt(bytes(buffer[48:]), output=memoryview(buffer)[48:])
    return bytes(buffer)


def chacha20_stream():
    from Crypto.Cipher import ChaCha20

    cipher = ChaCha20.new(key=KEY32, nonce=NONCE)
    return cipher.encrypt(DATA[:17]) + cipher.encrypt(DATA[17:])


def sha256_stream():
    from Crypto.Hash import SHA256

    h = SHA256.new()
    h.update(DATA[:10])
    copy = h.copy()
    h.update(DATA[10:])
    return h.digest() + copy.digest()


def shake_stream():
    from Crypto.Hash import SHAKE128

    h = SHAKE128.new(DATA)
    return h.read(20) + h.read(12)


def hmac_tag():
    from Crypto.Hash import HMAC, SHA512

    PREPARED["hmac tag"] = HMAC.new(KEY16, DATA, SHA512).digest()


def hmac_stream_verify():
    from Crypto.Hash import HMAC, SHA512

    mac = HMAC.new(KEY16, digestmod=SHA512)
    mac.update(DATA[:3])
    mac.update(DATA[3:])
    return mac.hexverify(PREPARED["hmac tag"].hex())


def poly1305_stream():
    from Crypto.Cipher import ChaCha20
    from Crypto.Hash import Poly1305

    mac = Poly1305.new(key=KEY32, cipher=ChaCha20, nonce=NONCE)
    mac.update(DATA[:7])
    mac.update(DATA[7:])
    return mac.digest()


def hkdf_derive():
    from Crypto.Hash import SHA256
    from Crypto.Protocol.KDF import HKDF

    return b"".join(HKDF(KEY16, 16, IV, SHA256, num_keys=2))


def pss_signature():
    from Crypto.Hash import SHA256
    from Crypto.PublicKey import RSA
    from Crypto.Signature import pss

    # PSS signatures are randomized (their salt): made before the hook is on.
    PREPARED["pss signature"] = pss.new(RSA.import_key(RSA_PEM)).sign(SHA256.new(DATA))


def pss_verify():
    from Crypto.Hash import SHA256
    from Crypto.PublicKey import RSA
    from Crypto.Signature import pss

    verifier = pss.new(RSA.import_key(RSA_PEM).public_key())
    return verifier.verify(SHA256.new(DATA), PREPARED["pss signature"])  # None: right


def ed25519_sign():
    from Crypto.PublicKey import ECC
    from Crypto.Signature import eddsa

    key = ECC.construct(curve="Ed25519", seed=ED25519_SEED)
    signer = eddsa.new(key, "rfc8032")
    return signer.sign(DATA) + signer.sign(DATA[:5])


# --------------------------------------------------------------------------- randomized outputs
# A drawn salt, k, seed or key: each returns what the caller got, which the
# test checks natively (verify_natively), as no two runs agree byte for byte.


def _rsa_key():
    from Crypto.PublicKey import RSA

    return RSA.import_key(RSA_PEM)


def pss_sign():
    from Crypto.Hash import SHA256
    from Crypto.Signature import pss

    return pss.new(_rsa_key()).sign(SHA256.new(DATA))


def oaep_encrypt():
    from Crypto.Cipher import PKCS1_OAEP

    return PKCS1_OAEP.new(_rsa_key()).encrypt(DATA)


def pkcs1_encrypt():
    from Crypto.Cipher import PKCS1_v1_5

    return PKCS1_v1_5.new(_rsa_key()).encrypt(DATA)


def ecdsa_random_k_sign():
    from Crypto.Hash import SHA384
    from Crypto.PublicKey import ECC
    from Crypto.Signature import DSS

    key = ECC.construct(curve="P-384", d=P256_D)
    return DSS.new(key, "fips-186-3").sign(SHA384.new(DATA))


def dsa_random_k_sign():
    from Crypto.Hash import SHA256
    from Crypto.Signature import DSS

    return DSS.new(_dsa_key(), "fips-186-3").sign(SHA256.new(DATA))


def _dsa_key():
    from Crypto.PublicKey import DSA

    return DSA.import_key(DSA_PEM)


def rsa_generate():
    from Crypto.PublicKey import RSA

    return RSA.generate(1024).export_key("DER")


def ecc_generate():
    from Crypto.PublicKey import ECC

    return ECC.generate(curve="P-521").export_key(format="DER")


def dsa_generate():
    from Crypto.PublicKey import DSA

    return DSA.generate(1024).export_key("DER")


def verify_natively(label: str, value: bytes) -> bool:
    """Whether native pycryptodome accepts what the caller got from a randomized case."""
    from Crypto.Cipher import PKCS1_OAEP, PKCS1_v1_5
    from Crypto.Hash import SHA256, SHA384
    from Crypto.PublicKey import DSA, ECC, RSA
    from Crypto.Signature import DSS, pss

    try:
        if label == "pss sign":
            pss.new(_rsa_key().public_key()).verify(SHA256.new(DATA), value)
        elif label == "oaep encrypt":
            return PKCS1_OAEP.new(_rsa_key()).decrypt(value) == DATA
        elif label == "pkcs1 v1.5 encrypt":
            return PKCS1_v1_5.new(_rsa_key()).decrypt(value, None) == DATA
        elif label == "ecdsa p-384 random-k sign":
            key = ECC.construct(curve="P-384", d=P256_D).public_key()
            DSS.new(key, "fips-186-3").verify(SHA384.new(DATA), value)
        elif label == "dsa random-k sign":
            DSS.new(_dsa_key().public_key(), "fips-186-3").verify(SHA256.new(DATA), value)
        elif label == "rsa generate":
            key = RSA.import_key(value)
            return key.size_in_bits() == 1024 and key.e == 65537 and key.has_private()
        elif label == "ecc generate":
            key = ECC.import_key(value)
            return key.curve == "NIST P-521" and key.has_private()
        elif label == "dsa generate":
            key = DSA.import_key(value)
            return int(key.p).bit_length() == 1024 and key.has_private()
        else:
            raise KeyError(label)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- pyaes and pyDes
# Their native is their own Python code: the agent's methods write pyaes's
# and pyDes's state back, and shadow mode compares it as well as the bytes.


def pyaes_cbc_stream():
    import pyaes

    mode = pyaes.AESModeOfOperationCBC(KEY16, iv=IV)
    return b"".join(mode.encrypt(DATA[i : i + 16]) for i in range(0, 48, 16))


def pyaes_ctr_stream():
    import pyaes

    mode = pyaes.AESModeOfOperationCTR(KEY32, counter=pyaes.Counter(2**64 - 1))
    return mode.encrypt(DATA[:33]) + mode.encrypt(DATA[33:])


def pyaes_ecb_feeder():
    import pyaes

    feeder = pyaes.Encrypter(pyaes.AESModeOfOperationECB(KEY16))
    return feeder.feed(DATA[:20]) + feeder.feed(DATA[20:]) + feeder.feed()


def pyaes_cfb_stream():
    import pyaes

    mode = pyaes.AESModeOfOperationCFB(KEY16, iv=IV, segment_size=1)
    return mode.encrypt(DATA[:5]) + mode.encrypt(DATA[5:])


def pyaes_ofb_stream():
    import pyaes

    mode = pyaes.AESModeOfOperationOFB(KEY16, iv=IV)
    return mode.encrypt(DATA[:17]) + mode.encrypt(DATA[17:])


def pydes_triple_cbc():
    import pyDes

    cipher = pyDes.triple_des(KEY16 + IV[:8], pyDes.CBC, IV[8:], padmode=pyDes.PAD_PKCS5)
    return cipher.encrypt(DATA[:40]) + cipher.encrypt(DATA[40:])


def pydes_des_ecb():
    import pyDes

    cipher = pyDes.des(KEY16[:8], pyDes.ECB)
    return cipher.encrypt(DATA[:48]) + cipher.decrypt(DATA[48:])


# What verification cases check, made before the hook is on (the hook would
# otherwise catch the making, and turn the primitive native before the check).
PREPARED: dict[str, bytes] = {}
PREPARE = {
    "cmac verify": cmac_tag,
    "hmac-sha512 stream verify": hmac_tag,
    "pss verify": pss_signature,
}

# group -> case -> (primitive, family, function)
CASES = {
    "single": {
        "gcm seal": ("aes-gcm", "aes", gcm_seal),
        "cbc encrypt": ("aes-cbc", "aes", cbc_encrypt),
        "ecb encrypt": ("aes-ecb", "aes", ecb_encrypt),
        "eax seal": ("aes-eax", "aes", eax_seal),
        "siv seal": ("aes-siv", "aes", siv_seal),
        "chacha20-poly1305 seal": ("chacha20-poly1305", "chacha", chacha_poly_seal),
        "sha256 one-shot digest()": ("sha256", "hash", sha256_oneshot),
        "sha3-256 digest": ("sha3-256", "hash", sha3_digest),
        "hmac digest": ("hmac", "mac", hmac_digest),
        "cmac verify": ("aes-cmac", "mac", cmac_verify),
        "pbkdf2 one-shot": ("pbkdf2", "kdf", pbkdf2_derive),
        "pkcs1 v1.5 sign": ("rsa-pkcs1v15-sign", "public key", pkcs1_sign),
        "ecdsa p-256 sign": ("ecdsa-p256", "public key", ecdsa_sign),
    },
    "streaming": {
        "gcm open in pieces": ("aes-gcm", "aes", gcm_stream_open),
        "ctr stream": ("aes-ctr", "aes", ctr_stream),
        "cbc stream, output= aliasing": ("aes-cbc", "aes", cbc_stream_output),
        "chacha20 stream": ("chacha20", "chacha", chacha20_stream),
        "sha256 stream and copy": ("sha256", "hash", sha256_stream),
        "shake128 reads": ("shake128", "hash", shake_stream),
        "hmac-sha512 stream verify": ("hmac", "mac", hmac_stream_verify),
        "poly1305 stream": ("poly1305", "mac", poly1305_stream),
        "hkdf one-shot": ("hkdf", "kdf", hkdf_derive),
        "pss verify": ("rsa-pss", "public key", pss_verify),
        "ed25519 signer": ("ed25519", "public key", ed25519_sign),
    },
    "randomized": {
        "pss sign": ("rsa-pss", "public key", pss_sign),
        "oaep encrypt": ("rsa-oaep", "public key", oaep_encrypt),
        "pkcs1 v1.5 encrypt": ("rsa-pkcs1v15-encrypt", "public key", pkcs1_encrypt),
        "ecdsa p-384 random-k sign": ("ecdsa-p384", "public key", ecdsa_random_k_sign),
        "dsa random-k sign": ("dsa", "public key", dsa_random_k_sign),
        "rsa generate": ("rsa-keygen", "public key", rsa_generate),
        "ecc generate": ("ecc-keygen", "public key", ecc_generate),
        "dsa generate": ("dsa-keygen", "public key", dsa_generate),
    },
    "pyaes and pyDes": {
        "pyaes cbc stream": ("aes-cbc", "aes", pyaes_cbc_stream),
        "pyaes ctr stream": ("aes-ctr", "aes", pyaes_ctr_stream),
        "pyaes ecb feeder": ("aes-ecb", "aes", pyaes_ecb_feeder),
        "pyaes cfb stream": ("aes-cfb", "aes", pyaes_cfb_stream),
        "pyaes ofb stream": ("aes-ofb", "aes", pyaes_ofb_stream),
        "pydes triple_des cbc": ("tdes-cbc", "des", pydes_triple_cbc),
        "pydes des ecb": ("tdes-ecb", "des", pydes_des_ecb),
    },
}
# The groups whose results are the same bytes in every run (randomized: checked natively).
DETERMINISTIC = ("single", "streaming", "pyaes and pyDes")


def run(group: str, corrupt: bool) -> dict:
    results = {}
    shadow = None
    if corrupt:
        from accel_agent import shadow
    for label, (primitive, _family, function) in CASES[group].items():
        if label in PREPARE:
            PREPARE[label]()
        if shadow is not None:
            shadow.corrupt_for_tests(primitive)
        try:
            value = function()
            results[label] = "none" if value is None else value.hex()
        except Exception as exc:  # noqa: BLE001 - the exception type is the result
            results[label] = "raised %s" % type(exc).__name__
        finally:
            if shadow is not None:
                shadow.corrupt_for_tests(None)
    agent = {}
    if "accel_agent.report" in sys.modules or "accel_agent.activation" in sys.modules:
        import accel_agent

        status = accel_agent.status(resolve=False)
        agent = {
            "primitives": {
                name: {"outcome": entry["outcome"], "reason": entry["reason"]}
                for name, entry in status["primitives"].items()
            },
            "shadow": status["shadow"],
            "healthy": status["healthy"],
        }
    return {"results": results, "agent": agent}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], "--corrupt" in sys.argv[2:])))
