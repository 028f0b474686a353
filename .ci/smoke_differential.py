"""Differential smoke test: under the agent, pycryptodome gives what it gives natively.

Run with the agent active, as .ci/multipython.sh does on every Python:

    python -X accel=quiet .ci/smoke_differential.py [--seed N] [--rounds N]

For each primitive the agent knows (``accel_agent.status()["primitives"]``)
that has a check below, the check runs a seeded random transcript of calls
(outputs, attributes, errors with their messages) through ``Crypto`` and,
when installed, ``Cryptodome``: first with the agent's patches in, then after
``accel_agent.uninstall()`` has restored pycryptodome's own functions. The two
transcripts must be identical; every checked primitive the agent reports
``accelerated`` must show, by its call counter, that the agent served calls;
and what is randomised by design (RSA-PSS and ECDSA signatures, OAEP and
PKCS#1 v1.5 ciphertexts, generated keys) is checked across: what the agent
produced, native pycryptodome verifies or decrypts.

It is a smoke test, seconds long; tests/differential/ goes deeper. A
primitive without a check here is listed, not failed, so adding a primitive
never breaks CI by itself. Nothing secret is printed: only operation labels.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys

KEY_SIZES = (16, 24, 32)
RSA_BITS = 2048
MESSAGE = b"accel-agent smoke test message"


class Unavailable(Exception):
    """This pycryptodome lacks an API the check needs (an older 3.x, say)."""


class Context:
    """What a check gets: the package prefix, a seeded RNG, and where to record."""

    def __init__(self, prefix: str, rng: random.Random, phase: str, shared: dict) -> None:
        self.prefix = prefix  # "Crypto" or "Cryptodome"
        self.rng = rng
        self.phase = phase  # "agent" or "native"
        self.shared = shared  # survives from the agent phase into the native one
        self.entries: list[tuple[str, object]] = []
        self.cross_failures: list[str] = []

    def mod(self, name: str):
        """``prefix.name``, imported; Unavailable when this pycryptodome lacks it."""
        try:
            return importlib.import_module("%s.%s" % (self.prefix, name))
        except ImportError as exc:
            raise Unavailable("%s.%s: %s" % (self.prefix, name, exc)) from None

    def record(self, label: str, outcome: object) -> None:
        self.entries.append((label, outcome))

    def call(self, label: str, function, *args, **kwargs):
        """Record the outcome of a call and return its value (None if it raised)."""
        outcome = _outcome(function, *args, **kwargs)
        self.record(label, outcome)
        return outcome[1] if outcome[0] == "returned" else None

    def cross(self, label: str, check) -> None:
        """Native phase only: ``check()`` must be true for what the agent produced."""
        if self.phase != "native":
            return
        outcome = _outcome(check)
        if outcome != ("returned", True):
            self.cross_failures.append("%s: %r" % (label, outcome[:2]))


def _outcome(function, *args, **kwargs):
    """The result of a call, or its exception as (type name, message)."""
    try:
        value = function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(exc).__name__, str(exc))
    if isinstance(value, (bytearray, memoryview)):
        value = bytes(value)
    return ("returned", value)


def _accepts(verify, *args) -> bool:
    """True when ``verify(*args)`` returns at all.

    pycryptodome's verifiers raise ValueError on a bad signature, and return
    None (3.x) or False (DSS in 4.x) on a good one.
    """
    verify(*args)
    return True


def _lengths(rng: random.Random, block: int | None) -> list[int]:
    """Message lengths: empty, small, odd, large; whole blocks only when ``block`` is set."""
    lengths = [0, 1, 15, 16, 17, 31, 32, 64, 100, 1000, 4096, rng.randrange(1, 20000)]
    if block:
        lengths = sorted({(n // block) * block for n in lengths})
    return lengths


# ---------------------------------------------------------------------------- AES


def check_aes_ecb(ctx: Context) -> None:
    aes, rng = ctx.mod("Cipher.AES"), ctx.rng
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, 16):
            data = rng.randbytes(length)
            label = "ECB-%d len %d" % (key_size * 8, length)
            cipher = aes.new(key, aes.MODE_ECB)
            ctx.call(label + " encrypt", cipher.encrypt, data)
            ctx.call(label + " decrypt", cipher.decrypt, data)
            ctx.record(label + " attrs", (cipher.block_size, getattr(cipher, "mode", None)))
            out = bytearray(length)
            ctx.record(
                label + " encrypt output=", (_outcome(cipher.encrypt, data, output=out), out)
            )
            ctx.call(label + " decrypt memoryview", cipher.decrypt, memoryview(data))
    key = rng.randbytes(16)
    ctx.call("ECB bad length", aes.new(key, aes.MODE_ECB).encrypt, b"x" * 15)
    ctx.call("ECB bad key", aes.new, b"k" * 17, aes.MODE_ECB)
    ctx.call("ECB str input", aes.new(key, aes.MODE_ECB).encrypt, "sixteen chars!!!")
    out = bytearray(15)
    ctx.call("ECB short output", aes.new(key, aes.MODE_ECB).encrypt, b"y" * 16, output=out)


def check_aes_cbc(ctx: Context) -> None:
    aes, rng = ctx.mod("Cipher.AES"), ctx.rng
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, 16):
            iv = rng.randbytes(16)
            data = rng.randbytes(length)
            label = "CBC-%d len %d" % (key_size * 8, length)
            encryptor = aes.new(key, aes.MODE_CBC, iv=iv)
            ctx.record(label + " iv", encryptor.iv)
            ctx.call(label + " encrypt", encryptor.encrypt, data)
            ctx.call(label + " encrypt again", encryptor.encrypt, data)
            ctx.call(label + " decrypt after encrypt", encryptor.decrypt, data)
            ctx.call(label + " decrypt", aes.new(key, aes.MODE_CBC, iv).decrypt, data)
    key = rng.randbytes(16)
    ctx.call("CBC bad length", aes.new(key, aes.MODE_CBC, iv=bytes(16)).encrypt, b"x" * 17)
    ctx.call("CBC bad iv", aes.new, key, aes.MODE_CBC, iv=b"short")


def _aes_stream_mode(name: str, mode_attribute: str, nonce_argument: str, nonce_size: int, **extra):
    def check(ctx: Context) -> None:
        aes, rng = ctx.mod("Cipher.AES"), ctx.rng
        mode = getattr(aes, mode_attribute)
        for key_size in KEY_SIZES:
            key = rng.randbytes(key_size)
            for length in _lengths(rng, None):
                nonce = rng.randbytes(nonce_size)
                data = rng.randbytes(length)
                label = "%s-%d len %d" % (name, key_size * 8, length)
                encryptor = aes.new(key, mode, **{nonce_argument: nonce}, **extra)
                ctx.record(label + " " + nonce_argument, getattr(encryptor, nonce_argument))
                split = length // 3
                ctx.call(label + " encrypt 1/2", encryptor.encrypt, data[:split])
                ctx.call(label + " encrypt 2/2", encryptor.encrypt, data[split:])
                ctx.call(label + " decrypt after encrypt", encryptor.decrypt, data)
                decryptor = aes.new(key, mode, **{nonce_argument: nonce}, **extra)
                ctx.call(label + " decrypt", decryptor.decrypt, data)

    check.__name__ = "check_aes_" + name.lower()
    return check


def _aead_round_trip(ctx: Context, label: str, new, aad: bytes, data: bytes) -> None:
    """encrypt_and_digest, the nonce, decrypt_and_verify, a forged tag, misuse after use."""
    encryptor = new()
    encryptor.update(aad)
    sealed = ctx.call(label + " encrypt_and_digest", encryptor.encrypt_and_digest, data)
    ctx.record(label + " nonce", encryptor.nonce)
    ctx.call(label + " update after encrypt", encryptor.update, b"late")
    if sealed is None:
        return
    ciphertext, tag = sealed
    decryptor = new()
    decryptor.update(aad)
    ctx.call(label + " decrypt_and_verify", decryptor.decrypt_and_verify, ciphertext, tag)
    forged = new()
    forged.update(aad)
    bad_tag = bytes([tag[0] ^ 1]) + tag[1:]
    ctx.call(label + " forged tag", forged.decrypt_and_verify, ciphertext, bad_tag)


def check_aes_gcm(ctx: Context) -> None:
    aes, rng = ctx.mod("Cipher.AES"), ctx.rng
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, None):
            nonce = rng.randbytes(rng.choice((12, 12, 16, 8)))
            aad = rng.randbytes(rng.choice((0, 13, 32)))
            label = "GCM-%d len %d" % (key_size * 8, length)
            _aead_round_trip(
                ctx,
                label,
                lambda key=key, nonce=nonce: aes.new(key, aes.MODE_GCM, nonce=nonce),
                aad,
                rng.randbytes(length),
            )


def check_aes_ocb(ctx: Context) -> None:
    aes, rng = ctx.mod("Cipher.AES"), ctx.rng
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, None):
            nonce = rng.randbytes(rng.choice((12, 15, 8)))  # 8 bytes: native by design
            _aead_round_trip(
                ctx,
                "OCB-%d len %d" % (key_size * 8, length),
                lambda key=key, nonce=nonce: aes.new(key, aes.MODE_OCB, nonce=nonce),
                rng.randbytes(rng.choice((0, 13, 32))),
                rng.randbytes(length),
            )


def check_aes_siv(ctx: Context) -> None:
    aes, rng = ctx.mod("Cipher.AES"), ctx.rng
    for key_size in (32, 48, 64):
        key = rng.randbytes(key_size)
        for length in _lengths(rng, None):
            nonce = rng.randbytes(rng.choice((12, 16)))
            _aead_round_trip(
                ctx,
                "SIV-%d len %d" % (key_size * 4, length),
                lambda key=key, nonce=nonce: aes.new(key, aes.MODE_SIV, nonce=nonce),
                rng.randbytes(rng.choice((0, 13, 32))),
                rng.randbytes(length),
            )


def _aes_key_wrap(mode_attribute: str):
    def check(ctx: Context) -> None:
        aes, rng = ctx.mod("Cipher.AES"), ctx.rng
        mode = getattr(aes, mode_attribute, None)
        if mode is None:
            raise Unavailable("%s.Cipher.AES has no %s (4.x)" % (ctx.prefix, mode_attribute))
        for key_size in KEY_SIZES:
            key = rng.randbytes(key_size)
            for length in (rng.randrange(1, 80), 8 * rng.randrange(2, 10), 7):
                label = "%s-%d len %d" % (mode_attribute, key_size * 8, length)
                wrapped = ctx.call(label + " seal", aes.new(key, mode).seal, rng.randbytes(length))
                if wrapped is None:
                    continue
                ctx.call(label + " unseal", aes.new(key, mode).unseal, wrapped)
                forged = wrapped[:-1] + bytes([wrapped[-1] ^ 1])
                ctx.call(label + " forged", aes.new(key, mode).unseal, forged)

    check.__name__ = "check_aes_" + mode_attribute[5:].lower()
    return check


# ---------------------------------------------------------------------------- ChaCha20


def _check_chacha20(ctx: Context) -> None:
    chacha, rng = ctx.mod("Cipher.ChaCha20"), ctx.rng
    for nonce_size in (8, 12, 24):
        key = rng.randbytes(32)
        for length in _lengths(rng, None):
            nonce = rng.randbytes(nonce_size)
            data = rng.randbytes(length)
            label = "ChaCha20 nonce %d len %d" % (nonce_size, length)
            encryptor = chacha.new(key=key, nonce=nonce)
            ctx.record(label + " nonce", encryptor.nonce)
            split = length // 2
            ctx.call(label + " encrypt 1/2", encryptor.encrypt, data[:split])
            ctx.call(label + " encrypt 2/2", encryptor.encrypt, data[split:])
            ctx.call(label + " decrypt after encrypt", encryptor.decrypt, data)
            seeker = chacha.new(key=key, nonce=nonce)
            ctx.call(label + " seek", seeker.seek, 64 * (length % 7))
            ctx.call(label + " after seek", seeker.encrypt, data)
    ctx.call("ChaCha20 bad nonce", chacha.new, key=bytes(32), nonce=bytes(10))
    ctx.call("ChaCha20 bad key", chacha.new, key=bytes(31), nonce=bytes(12))


def _chacha_poly(nonce_size: int):
    def check(ctx: Context) -> None:
        module, rng = ctx.mod("Cipher.ChaCha20_Poly1305"), ctx.rng
        for length in _lengths(rng, None):
            key, nonce = rng.randbytes(32), rng.randbytes(nonce_size)
            aad = rng.randbytes(rng.choice((0, 12, 40)))
            label = "ChaCha20-Poly1305 nonce %d len %d" % (nonce_size, length)
            _aead_round_trip(
                ctx,
                label,
                lambda key=key, nonce=nonce: module.new(key=key, nonce=nonce),
                aad,
                rng.randbytes(length),
            )

    check.__name__ = "check_chacha20_poly1305_%d" % nonce_size
    return check


# ---------------------------------------------------------------------------- hashes, MACs, KDFs


def _hash(module_name: str, **extra):
    def check(ctx: Context) -> None:
        module, rng = ctx.mod("Hash." + module_name), ctx.rng
        for length in _lengths(rng, None):
            data = rng.randbytes(length)
            label = "%s%s len %d" % (module_name, extra or "", length)
            split = length // 3
            h = module.new(data[:split], **extra)
            h.update(data[split:])
            ctx.record(label + " attrs", (h.digest_size, getattr(h, "block_size", None), h.oid))
            copied = _outcome(lambda h=h: h.copy())  # the object itself is not comparable
            ctx.record(label + " copy", copied if copied[0] == "raised" else "copied")
            clone = copied[1] if copied[0] == "returned" else None
            ctx.call(label + " digest", h.digest)
            ctx.call(label + " hexdigest", h.hexdigest)
            ctx.call(label + " update after digest", h.update, b"more")
            if clone is not None:
                clone.update(b"more")
                ctx.call(label + " copy digest", clone.digest)
            ctx.call(label + " one shot", lambda data=data: module.new(data, **extra).digest())

    check.__name__ = "check_" + module_name.lower()
    return check


def _shake(module_name: str):
    def check(ctx: Context) -> None:
        module, rng = ctx.mod("Hash." + module_name), ctx.rng
        for length in _lengths(rng, None):
            data = rng.randbytes(length)
            label = "%s len %d" % (module_name, length)
            xof = module.new(data)
            ctx.call(label + " read 1", xof.read, 1 + length % 50)
            ctx.call(label + " read 2", xof.read, 200)
            ctx.call(label + " update after read", xof.update, b"late")
            ctx.call(label + " oid", lambda xof=xof: xof.oid)

    check.__name__ = "check_" + module_name.lower()
    return check


def check_hmac(ctx: Context) -> None:
    hmac, rng = ctx.mod("Hash.HMAC"), ctx.rng
    for digest_name in ("SHA256", "SHA1", "SHA512", "SHA3_256", "MD5"):
        digestmod = ctx.mod("Hash." + digest_name)
        for key_length in (0, 16, 64, 200):
            key = rng.randbytes(key_length)
            for length in (0, 64, 1000):
                data = rng.randbytes(length)
                label = "HMAC-%s key %d len %d" % (digest_name, key_length, length)
                mac = hmac.new(key, data[:7], digestmod=digestmod)
                mac.update(data[7:])
                ctx.record(label + " digest_size", mac.digest_size)
                tag = ctx.call(label + " digest", mac.copy().digest)
                ctx.call(label + " hexdigest", mac.copy().hexdigest)
                ctx.call(label + " verify", mac.copy().verify, tag)
                ctx.call(label + " verify forged", mac.copy().verify, bytes(len(tag or b"x")))


def check_aes_cmac(ctx: Context) -> None:
    cmac, aes, rng = ctx.mod("Hash.CMAC"), ctx.mod("Cipher.AES"), ctx.rng
    for key_size in KEY_SIZES:
        key = rng.randbytes(key_size)
        for length in _lengths(rng, None):
            data = rng.randbytes(length)
            label = "CMAC-AES-%d len %d" % (key_size * 8, length)
            mac = cmac.new(key, data[:5], ciphermod=aes)
            mac.update(data[5:])
            tag = ctx.call(label + " digest", mac.copy().digest)
            ctx.call(label + " verify", mac.copy().verify, tag)
            ctx.call(label + " verify forged", mac.copy().verify, bytes(16))


def check_poly1305(ctx: Context) -> None:
    poly, rng = ctx.mod("Hash.Poly1305"), ctx.rng
    ciphers = ((ctx.mod("Cipher.AES"), 16), (ctx.mod("Cipher.ChaCha20"), 12))
    for cipher, nonce_size in ciphers:
        for length in _lengths(rng, None):
            key, nonce, data = rng.randbytes(32), rng.randbytes(nonce_size), rng.randbytes(length)
            label = "Poly1305-%s len %d" % (cipher.__name__.rsplit(".", 1)[-1], length)
            mac = poly.new(key=key, cipher=cipher, nonce=nonce, data=data)
            ctx.record(label + " nonce", mac.nonce)
            tag = ctx.call(label + " digest", mac.digest)
            ctx.call(label + " verify", mac.verify, tag)
            ctx.call(label + " verify forged", mac.verify, bytes(16))


def check_pbkdf2(ctx: Context) -> None:
    kdf, rng = ctx.mod("Protocol.KDF"), ctx.rng
    for digest_name in ("SHA256", "SHA1", "SHA512"):
        hash_module = ctx.mod("Hash." + digest_name)
        # Few iterations: the agent serves PBKDF2 below calibration's thresholds.
        for count in (1, 2, 50, 200):
            password, salt = rng.randbytes(rng.choice((0, 8, 70))), rng.randbytes(16)
            label = "PBKDF2-%s count %d" % (digest_name, count)
            ctx.call(
                label,
                kdf.PBKDF2,
                password,
                salt,
                dkLen=rng.choice((16, 32, 65)),
                count=count,
                hmac_hash_module=hash_module,
            )
    sha256 = ctx.mod("Hash.SHA256")
    ctx.call("PBKDF2 str", kdf.PBKDF2, "password", b"salt", 20, count=2, hmac_hash_module=sha256)


def check_hkdf(ctx: Context) -> None:
    kdf, rng = ctx.mod("Protocol.KDF"), ctx.rng
    for digest_name in ("SHA256", "SHA512", "SHA1"):
        hash_module = ctx.mod("Hash." + digest_name)
        for num_keys in (1, 3):
            master = rng.randbytes(rng.choice((16, 32, 80)))
            salt = rng.choice((None, rng.randbytes(16)))
            label = "HKDF-%s keys %d" % (digest_name, num_keys)
            ctx.call(
                label,
                kdf.HKDF,
                master,
                rng.choice((16, 32, 42)),
                salt,
                hash_module,
                num_keys=num_keys,
                context=rng.choice((None, b"context")),
            )
    ctx.call("HKDF too long", kdf.HKDF, b"m" * 16, 255 * 32 + 1, None, ctx.mod("Hash.SHA256"))


def check_scrypt(ctx: Context) -> None:
    kdf, rng = ctx.mod("Protocol.KDF"), ctx.rng
    for n in (2**4, 2**6):
        password, salt = rng.randbytes(12), rng.randbytes(16)
        ctx.call("scrypt N %d" % n, kdf.scrypt, password, salt, key_len=32, N=n, r=8, p=1)


# ---------------------------------------------------------------------------- RSA


def _rsa_key(ctx: Context):
    """One 2048-bit key, generated under the agent (rsa-keygen), imported by both phases."""
    rsa = ctx.mod("PublicKey.RSA")
    slot = ctx.shared.setdefault("rsa", {})
    if ctx.phase == "agent" and "der" not in slot:
        key = rsa.generate(RSA_BITS)
        slot["der"] = key.export_key(format="DER")
    return rsa.import_key(slot["der"])


def check_rsa_keygen(ctx: Context) -> None:
    key = _rsa_key(ctx)
    ctx.record("RSA key facts", (key.size_in_bits(), key.e, key.has_private()))
    ctx.cross(
        "RSA key made under the agent works natively",
        lambda: key.n == key.p * key.q and pow(pow(2, key.e, key.n), key.d, key.n) == 2,
    )


def check_rsa_pkcs1v15_sign(ctx: Context) -> None:
    pkcs1_15, sha256 = ctx.mod("Signature.pkcs1_15"), ctx.mod("Hash.SHA256")
    key = _rsa_key(ctx)
    for length in (0, 100, 5000):
        digest = sha256.new(ctx.rng.randbytes(length))
        signature = ctx.call("PKCS1v15 sign len %d" % length, pkcs1_15.new(key).sign, digest)
        verifier = pkcs1_15.new(key.public_key())
        ctx.call("PKCS1v15 verify len %d" % length, verifier.verify, digest, signature)
        forged = bytes(len(signature or b"x"))
        ctx.call("PKCS1v15 verify forged len %d" % length, verifier.verify, digest, forged)


def check_rsa_pss(ctx: Context) -> None:
    pss, sha256 = ctx.mod("Signature.pss"), ctx.mod("Hash.SHA256")
    key = _rsa_key(ctx)
    saved = ctx.shared.setdefault("pss", [])
    for index, length in enumerate((0, 100, 5000)):
        digest = sha256.new(ctx.rng.randbytes(length))
        signature = pss.new(key).sign(digest)  # random salt: only verification compares
        verifier = pss.new(key.public_key())
        ctx.call("PSS verify own len %d" % length, verifier.verify, digest, signature)
        ctx.call("PSS verify forged len %d" % length, verifier.verify, digest, bytes(256))
        if ctx.phase == "agent":
            saved.append(signature)
        elif index < len(saved):
            agent_signature = saved[index]
            ctx.cross(
                "PSS signature made under the agent, verified natively",
                lambda d=digest, s=agent_signature, v=verifier: _accepts(v.verify, d, s),
            )


def check_rsa_oaep(ctx: Context) -> None:
    oaep = ctx.mod("Cipher.PKCS1_OAEP")
    key = _rsa_key(ctx)
    saved = ctx.shared.setdefault("oaep", [])
    for index, length in enumerate((0, 32, 190)):
        message = ctx.rng.randbytes(length)
        ciphertext = oaep.new(key.public_key()).encrypt(message)  # random seed
        ctx.call("OAEP round trip len %d" % length, oaep.new(key).decrypt, ciphertext)
        ctx.call("OAEP too long", oaep.new(key.public_key()).encrypt, bytes(300))
        ctx.call("OAEP decrypt garbage", oaep.new(key).decrypt, bytes(256))
        if ctx.phase == "agent":
            saved.append(ciphertext)
        elif index < len(saved):
            agent_ciphertext = saved[index]
            ctx.cross(
                "OAEP ciphertext made under the agent, decrypted natively",
                lambda c=agent_ciphertext, m=message: oaep.new(key).decrypt(c) == m,
            )


def check_rsa_pkcs1v15_encrypt(ctx: Context) -> None:
    v1_5 = ctx.mod("Cipher.PKCS1_v1_5")
    key = _rsa_key(ctx)
    saved = ctx.shared.setdefault("v1_5", [])
    sentinel = b"\x00" * 16
    for index, length in enumerate((0, 32, 200)):
        message = ctx.rng.randbytes(length)
        ciphertext = v1_5.new(key.public_key()).encrypt(message)  # random padding
        ctx.call("PKCS1v15 round trip len %d" % length, v1_5.new(key).decrypt, ciphertext, sentinel)
        ctx.call("PKCS1v15 decrypt garbage", v1_5.new(key).decrypt, bytes(256), sentinel)
        if ctx.phase == "agent":
            saved.append(ciphertext)
        elif index < len(saved):
            agent_ciphertext = saved[index]
            ctx.cross(
                "PKCS1v15 ciphertext made under the agent, decrypted natively",
                lambda c=agent_ciphertext, m=message: v1_5.new(key).decrypt(c, sentinel) == m,
            )


# ---------------------------------------------------------------------------- ECC

HASH_FOR_CURVE = {"P-256": "SHA256", "P-384": "SHA384", "P-521": "SHA512"}


def _ecc_key(ctx: Context, curve: str, which: int = 0):
    """A key generated under the agent (ecc-keygen for NIST curves), imported by both phases."""
    ecc = ctx.mod("PublicKey.ECC")
    slot = ctx.shared.setdefault("ecc", {})
    name = "%s/%d" % (curve, which)
    if ctx.phase == "agent" and name not in slot:
        slot[name] = ecc.generate(curve=curve).export_key(format="DER")
    return ecc.import_key(slot[name])


def check_ecc_keygen(ctx: Context) -> None:
    dss = ctx.mod("Signature.DSS")
    for curve, hash_name in HASH_FOR_CURVE.items():
        key = _ecc_key(ctx, curve)
        digest = ctx.mod("Hash." + hash_name).new(MESSAGE)
        ctx.record("ECC %s key facts" % curve, (key.curve, key.has_private()))
        ctx.cross(
            "ECC %s key made under the agent signs and verifies natively" % curve,
            lambda key=key, digest=digest: _accepts(
                dss.new(key.public_key(), "fips-186-3").verify,
                digest,
                dss.new(key, "fips-186-3").sign(digest),
            ),
        )


def _ecdsa(curve: str):
    def check(ctx: Context) -> None:
        dss, hash_module = ctx.mod("Signature.DSS"), ctx.mod("Hash." + HASH_FOR_CURVE[curve])
        key = _ecc_key(ctx, curve)
        saved = ctx.shared.setdefault("ecdsa " + curve, [])
        for index, length in enumerate((0, 100, 3000)):
            digest = hash_module.new(ctx.rng.randbytes(length))
            label = "ECDSA %s len %d" % (curve, length)
            for encoding in ("binary", "der"):
                signer = dss.new(key, "deterministic-rfc6979", encoding)
                signature = ctx.call(label + " rfc6979 " + encoding, signer.sign, digest)
                verifier = dss.new(key.public_key(), "fips-186-3", encoding)
                ctx.call(label + " verify " + encoding, verifier.verify, digest, signature)
            verifier = dss.new(key.public_key(), "fips-186-3")
            forged = bytes(len(signature or b"x"))
            ctx.call(label + " verify forged", verifier.verify, digest, forged)
            randomised = dss.new(key, "fips-186-3").sign(digest)
            ctx.call(label + " verify own random", verifier.verify, digest, randomised)
            if ctx.phase == "agent":
                saved.append(randomised)
            elif index < len(saved):
                ctx.cross(
                    "ECDSA %s signature made under the agent, verified natively" % curve,
                    lambda d=digest, s=saved[index], v=verifier: _accepts(v.verify, d, s),
                )

    check.__name__ = "check_ecdsa_" + curve.lower()
    return check


def _eddsa(curve: str):
    def check(ctx: Context) -> None:
        eddsa = ctx.mod("Signature.eddsa")
        key = _ecc_key(ctx, curve)
        for length in (0, 100, 3000):
            message = ctx.rng.randbytes(length)
            label = "%s len %d" % (curve, length)
            signature = ctx.call(label + " sign", eddsa.new(key, "rfc8032").sign, message)
            verifier = eddsa.new(key.public_key(), "rfc8032")
            ctx.call(label + " verify", verifier.verify, message, signature)
            forged = bytes(len(signature or b"x"))
            ctx.call(label + " verify forged", verifier.verify, message, forged)

    check.__name__ = "check_" + curve.lower()
    return check


def _ecdh(curve: str):
    def check(ctx: Context) -> None:
        dh = ctx.mod("Protocol.DH")
        ours, theirs = _ecc_key(ctx, curve, 0), _ecc_key(ctx, curve, 1)
        ctx.call(
            "ECDH %s shared secret" % curve,
            dh.key_agreement,
            static_priv=ours,
            static_pub=theirs.public_key(),
            kdf=lambda secret: secret,
        )
        ctx.call(
            "ECDH %s both sides agree" % curve,
            lambda: (
                dh.key_agreement(static_priv=ours, static_pub=theirs.public_key(), kdf=lambda s: s)
                == dh.key_agreement(
                    static_priv=theirs, static_pub=ours.public_key(), kdf=lambda s: s
                )
            ),
        )

    check.__name__ = "check_ecdh_" + curve.lower()
    return check


# primitive -> check; a check runs only when the agent's catalog has the primitive.
CHECKS = {
    "aes-ecb": check_aes_ecb,
    "aes-cbc": check_aes_cbc,
    "aes-ctr": _aes_stream_mode("CTR", "MODE_CTR", "nonce", 8),
    "aes-cfb": _aes_stream_mode("CFB", "MODE_CFB", "iv", 16, segment_size=128),
    "aes-ofb": _aes_stream_mode("OFB", "MODE_OFB", "iv", 16),
    "aes-gcm": check_aes_gcm,
    "aes-ocb": check_aes_ocb,
    "aes-siv": check_aes_siv,
    "aes-kw": _aes_key_wrap("MODE_KW"),
    "aes-kwp": _aes_key_wrap("MODE_KWP"),
    "chacha20": _check_chacha20,
    "chacha20-poly1305": _chacha_poly(12),
    "xchacha20-poly1305": _chacha_poly(24),
    "md5": _hash("MD5"),
    "sha1": _hash("SHA1"),
    "sha224": _hash("SHA224"),
    "sha256": _hash("SHA256"),
    "sha384": _hash("SHA384"),
    "sha512": _hash("SHA512"),
    "sha512-224": _hash("SHA512", truncate="224"),
    "sha512-256": _hash("SHA512", truncate="256"),
    "sha3-224": _hash("SHA3_224"),
    "sha3-256": _hash("SHA3_256"),
    "sha3-384": _hash("SHA3_384"),
    "sha3-512": _hash("SHA3_512"),
    "shake128": _shake("SHAKE128"),
    "shake256": _shake("SHAKE256"),
    "hmac": check_hmac,
    "aes-cmac": check_aes_cmac,
    "poly1305": check_poly1305,
    "pbkdf2": check_pbkdf2,
    "hkdf": check_hkdf,
    "scrypt": check_scrypt,
    "rsa-keygen": check_rsa_keygen,
    "rsa-pkcs1v15-sign": check_rsa_pkcs1v15_sign,
    "rsa-pss": check_rsa_pss,
    "rsa-oaep": check_rsa_oaep,
    "rsa-pkcs1v15-encrypt": check_rsa_pkcs1v15_encrypt,
    "ecc-keygen": check_ecc_keygen,
    "ecdsa-p256": _ecdsa("P-256"),
    "ecdsa-p384": _ecdsa("P-384"),
    "ecdsa-p521": _ecdsa("P-521"),
    "ed25519": _eddsa("Ed25519"),
    "ed448": _eddsa("Ed448"),
    "ecdh-p256": _ecdh("P-256"),
    "ecdh-p384": _ecdh("P-384"),
    "ecdh-p521": _ecdh("P-521"),
    "x25519": _ecdh("Curve25519"),
    "x448": _ecdh("Curve448"),
}
# Public-key checks: keys are drawn by the agent, not the seed, so more rounds add time only.
ONE_ROUND = {
    name
    for name in CHECKS
    if name.startswith(("rsa-", "ecc-", "ecdsa-", "ecdh-"))
    or name in ("ed25519", "ed448")
    or name in ("x25519", "x448")
}


def installed_prefixes() -> list[str]:
    prefixes = []
    for prefix in ("Crypto", "Cryptodome"):
        try:
            importlib.import_module(prefix)
        except ImportError:
            continue
        prefixes.append(prefix)
    return prefixes


def run_phase(names, prefixes, seed: int, rounds: int, phase: str, shared: dict) -> dict:
    """primitive -> (entries, failures of cross checks and crashes, unavailable reason or None)."""
    result = {}
    for name in names:
        entries: list[tuple[str, object]] = []
        cross_failures: list[str] = []
        unavailable = None
        for prefix in prefixes:
            for round_number in range(1 if name in ONE_ROUND else rounds):
                rng = random.Random("%d/%s/%d" % (seed, name, round_number))
                store = shared.setdefault((name, prefix, round_number), {})
                ctx = Context(prefix, rng, phase, store)
                try:
                    CHECKS[name](ctx)
                except Unavailable as exc:
                    unavailable = str(exc)
                except Exception as exc:  # noqa: BLE001 - a broken check is a failure, not a crash
                    ctx.record("check raised", ("raised", type(exc).__name__, str(exc)))
                    ctx.cross_failures.append(
                        "the check itself raised %s in the %s phase" % (type(exc).__name__, phase)
                    )
                tag = "%s round %d " % (prefix, round_number)
                entries += [(tag + label, outcome) for label, outcome in ctx.entries]
                cross_failures += [tag + failure for failure in ctx.cross_failures]
        result[name] = (entries, cross_failures, unavailable)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    parser.add_argument("--rounds", type=int, default=3, help="transcripts per primitive")
    parser.add_argument("--only", default="", help="comma-separated primitives to check")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")

    import accel_agent

    if not accel_agent.status(resolve=False)["active"]:
        print("smoke: the agent is not active; run me as python -X accel=quiet %s" % sys.argv[0])
        return 2
    prefixes = installed_prefixes()
    if not prefixes:
        print("smoke: neither pycryptodome nor pycryptodomex is installed")
        return 2
    facts = accel_agent.status()
    versions = ", ".join(
        "%s %s" % (dist, facts["libraries"].get(dist))
        for dist in ("pycryptodome", "pycryptodomex")
        if facts["libraries"].get(dist)
    )
    print(
        "smoke: Python %s, accel-agent %s, %s; seed %d"
        % (sys.version.split()[0], facts["agent_version"], versions, seed)
    )
    known = facts["primitives"]
    wanted = {part.strip() for part in args.only.split(",") if part.strip()}
    names = sorted(name for name in known if name in CHECKS and (not wanted or name in wanted))

    failures = []
    shared: dict = {}
    with_agent = run_phase(names, prefixes, seed, args.rounds, "agent", shared)
    served = {name: entry["calls"] for name, entry in accel_agent.status()["primitives"].items()}

    accel_agent.uninstall()
    leftover = accel_agent.status(resolve=False)["patched"]
    if leftover:
        failures.append("uninstall left patches in place: %s" % leftover)
    native = run_phase(names, prefixes, seed, args.rounds, "native", shared)

    for name in names:
        ours, agent_crashes, unavailable = with_agent[name]
        theirs, cross_failures, _ = native[name]
        cross_failures = agent_crashes + cross_failures
        accelerated = known[name]["accelerated"]
        differing = [label for (label, mine), (_, other) in zip(ours, theirs) if mine != other]
        if len(ours) != len(theirs):
            differing.append("transcript lengths %d vs %d" % (len(ours), len(theirs)))
        problems = []
        if differing:
            problems.append(
                "%d of %d outcomes differ from native, first: %s"
                % (len(differing), len(ours), "; ".join(differing[:3]))
            )
        problems += cross_failures[:3]
        if accelerated and not served.get(name) and not unavailable:
            problems.append("accelerated, but no call reached the agent's provider")
        failures += ["%s: %s" % (name, problem) for problem in problems]
        if problems:
            verdict = "FAIL"
        elif unavailable:
            verdict = "ok where available; n/a: %s" % unavailable
        else:
            verdict = "ok" if accelerated else "ok (native: %s)" % known[name]["reason"]
        print(
            "smoke: %-20s %5d outcomes, %5d served by the agent: %s"
            % (name, len(ours), served.get(name, 0), verdict)
        )
    unchecked = sorted(set(known) - set(CHECKS))
    if unchecked:
        print("smoke: no differential check here yet for: %s" % ", ".join(unchecked))
    if not names:
        failures.append("no primitive was checked")
    for failure in failures:
        print("smoke: FAILED: %s" % failure)
    print("smoke: %s" % ("FAILED" if failures else "PASSED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
