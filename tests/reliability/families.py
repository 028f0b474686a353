"""The crypto families the reliability tests drive, as data: one :class:`Family` line each.

Every test in this folder is a factory over :data:`FAMILIES`. A family says
which pycryptodome module it lives in, which catalog primitives its calls
reach, and three functions:

* ``workload(pkg)``: a fixed, deterministic series of calls through every
  patched entry point of the family, returning ``{label: bytes}``. Run under
  a fault, in a thread, a forked or a spawned child, it must return what
  native pycryptodome returns; run healthy, it must reach every primitive;
* ``shared(pkg)``: :class:`SharedCase` objects that many threads may call at
  once (identical inputs, so the multiset of outputs does not depend on the
  interleaving, only on each call being atomic, as native's calls are); a
  ``finish`` (a tag, a digest) only where native makes it independent of the
  interleaving;
* ``secret_paths(pkg, secrets)``: every mode and error path driven with the
  marked values of :class:`Secrets`; returns the exceptions raised, which must
  not carry any of them.

This module imports only the standard library at top level: the children of
the subprocess tests import it by path, with or without ``site``.

Adding a family (hashes, HMAC, KDFs, public key) is one ``Family(...)`` line
in :data:`FAMILIES` plus its three functions; every test picks it up.
"""

from __future__ import annotations

import importlib

FLAVOURS = ("Crypto", "Cryptodome")


class Secrets:
    """Marked values: printable, so a leak through ``repr`` shows them as text too."""

    key16 = b"K3Y-SECRET-MARK!"
    key24 = b"K3Y-SECRET-MARK!K3Y-2ND!"
    key32 = b"K3Y-SECRET-MARK!K3Y-SECRET-2ND!!"
    iv = b"IV-SECRET-MARK!!"
    nonce = b"N0NCE-SECRET"  # 12 bytes: GCM's usual size; CTR takes its first 8
    plaintext = b"PLAINTEXT-SECRET-MARKER-" * 4  # 96 bytes, six blocks
    aad = b"AAD-SECRET-MARKER"

    @classmethod
    def values(cls) -> dict[str, bytes]:
        return {
            name: getattr(cls, name)
            for name in ("key16", "key24", "key32", "iv", "nonce", "plaintext", "aad")
        }


# Calls per thread on a shared object. A cipher or hash call costs microseconds,
# so 150 calls from each of 16 threads keep them overlapping for long. A
# public-key call costs a millisecond or more natively (the reference runs all
# of them natively too): 25 calls per thread already overlap, at a sixth of the time.
CALLS_PER_THREAD = 150
PUBLIC_KEY_CALLS_PER_THREAD = 25


class SharedCase:
    """One object many threads call at once: ``step`` per call, ``finish`` at the end."""

    def __init__(self, label: str, make, step, finish=None, calls: int = CALLS_PER_THREAD) -> None:
        self.label = label
        self.make = make  # () -> a fresh object
        self.step = step  # (object) -> bytes or None: the call threads repeat
        self.finish = finish or (lambda obj: b"")  # (object) -> bytes, after every thread
        self.calls = calls  # how many times each thread calls ``step``

    def __repr__(self) -> str:
        return self.label


class Family:
    """One family of primitives, as the reliability tests see it."""

    def __init__(self, name, module, primitives, workload, shared, secret_paths) -> None:
        self.name = name  # "aes": also the catalog's family, for ACCEL_AGENT_EXCLUDE
        self.module = module  # "Cipher.AES", under Crypto and Cryptodome
        self.primitives = primitives  # the catalog names its calls reach
        self.workload = workload
        self.shared = shared
        self.secret_paths = secret_paths

    def __repr__(self) -> str:
        return self.name


def installed_flavours() -> list[str]:
    found = []
    for pkg in FLAVOURS:
        try:
            importlib.import_module(pkg)
        except ImportError:
            continue
        found.append(pkg)
    return found


def attempt(raised: list, function, *args, **kwargs):
    """Call; on an exception, keep it in ``raised`` and return None."""
    try:
        return function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - every exception is material for the tests
        raised.append(exc)
        return None


def outcome(function, *args, **kwargs) -> bytes:
    """A call's result as bytes, or the name of what it raised (part of the contract too)."""
    try:
        result = function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001
        return ("raised %s" % type(exc).__name__).encode()
    if result is None:
        return b"None"
    if isinstance(result, tuple):
        return b"|".join(bytes(part) for part in result)
    return bytes(result)


# ============================================================================ AES

AES_PRIMITIVES = ("aes-ecb", "aes-cbc", "aes-ctr", "aes-cfb", "aes-ofb", "aes-gcm")
AES_PRIMITIVES += ("aes-ccm", "aes-eax")


def _aes(pkg: str):
    return importlib.import_module(pkg + ".Cipher.AES")


def aes_workload(pkg: str) -> dict[str, bytes]:
    """Every AES mode, each key size, whole and in pieces, and the GCM verification paths."""
    AES = _aes(pkg)
    message = bytes(range(256)) * 4 + bytes(range(64))  # 1088 bytes: 68 blocks
    odd = message[:1000]
    iv = bytes(range(100, 116))
    out: dict[str, bytes] = {}
    for size in (16, 24, 32):
        key = bytes(range(size, 2 * size))

        def run(label, mode, data=message, cut=None, key=key, size=size, **params):
            enc = AES.new(key, mode, **params)
            if cut is None:
                out["%s-%d" % (label, size)] = enc.encrypt(data)
            else:
                out["%s-%d" % (label, size)] = enc.encrypt(data[:cut]) + enc.encrypt(data[cut:])
            dec = AES.new(key, mode, **params)
            out["%s-%d-back" % (label, size)] = dec.decrypt(out["%s-%d" % (label, size)])

        run("ecb", AES.MODE_ECB)
        run("cbc", AES.MODE_CBC, iv=iv, cut=48)
        run("ctr", AES.MODE_CTR, data=odd, cut=17, nonce=iv[:8], initial_value=7)
        run("cfb8", AES.MODE_CFB, data=odd, cut=5, iv=iv)
        run("cfb128", AES.MODE_CFB, data=odd, cut=33, iv=iv, segment_size=128)
        run("ofb", AES.MODE_OFB, data=odd, cut=21, iv=iv)

        nonce = iv[:12]
        enc = AES.new(key, AES.MODE_GCM, nonce=nonce)
        enc.update(b"header")
        ciphertext, tag = enc.encrypt_and_digest(odd)
        out["gcm-%d" % size] = ciphertext + tag
        stream = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=12)
        stream.update(b"head")
        stream.update(b"er")
        out["gcm-stream-%d" % size] = (
            stream.encrypt(odd[:100]) + stream.encrypt(odd[100:]) + stream.digest()
        )
        dec = AES.new(key, AES.MODE_GCM, nonce=nonce)
        dec.update(b"header")
        out["gcm-open-%d" % size] = outcome(dec.decrypt_and_verify, ciphertext, tag)
        forged = bytes([tag[0] ^ 1]) + tag[1:]
        dec = AES.new(key, AES.MODE_GCM, nonce=nonce)
        dec.update(b"header")
        out["gcm-forged-%d" % size] = outcome(dec.decrypt_and_verify, ciphertext, forged)
        out["gcm-forged-again-%d" % size] = outcome(dec.verify, tag)
        dec = AES.new(key, AES.MODE_GCM, nonce=nonce)
        dec.update(b"header")
        out["gcm-chunked-%d" % size] = dec.decrypt(ciphertext[:7]) + dec.decrypt(ciphertext[7:])
        out["gcm-verify-%d" % size] = outcome(dec.verify, tag)
    # One message past GCM's one-shot size: the streaming context serves it.
    big = bytes(range(256)) * 160  # 40 KiB
    enc = AES.new(bytes(16), AES.MODE_GCM, nonce=bytes(12))
    out["gcm-40k"] = b"".join(enc.encrypt_and_digest(big))
    out.update(ccm_eax_workload(AES))
    return out


def ccm_eax_workload(AES) -> dict[str, bytes]:
    """CCM and EAX: whole messages, streamed (CCM with declared lengths), and forged tags."""
    message = bytes(range(256)) * 4 + bytes(range(64))
    out: dict[str, bytes] = {}
    for size in (16, 24, 32):
        key = bytes(range(size, 2 * size))
        modes = (("ccm", AES.MODE_CCM, bytes(11)), ("eax", AES.MODE_EAX, bytes(16)))
        for name, mode, nonce in modes:
            label = "%s-%d" % (name, size)
            enc = AES.new(key, mode, nonce=nonce, mac_len=12)
            enc.update(b"header")
            ciphertext, tag = enc.encrypt_and_digest(message)
            out[label] = ciphertext + tag
            declared = {"msg_len": len(message), "assoc_len": 6} if name == "ccm" else {}
            stream = AES.new(key, mode, nonce=nonce, mac_len=12, **declared)
            stream.update(b"hea")
            stream.update(b"der")
            out[label + "-stream"] = (
                stream.encrypt(message[:100]) + stream.encrypt(message[100:]) + stream.digest()
            )
            dec = AES.new(key, mode, nonce=nonce, mac_len=12)
            dec.update(b"header")
            out[label + "-open"] = outcome(dec.decrypt_and_verify, ciphertext, tag)
            dec = AES.new(key, mode, nonce=nonce, mac_len=12)
            dec.update(b"header")
            forged = bytes([tag[0] ^ 1]) + tag[1:]
            out[label + "-forged"] = outcome(dec.decrypt_and_verify, ciphertext, forged)
            out[label + "-forged-again"] = outcome(dec.verify, tag)
            dec = AES.new(key, mode, nonce=nonce, mac_len=12)
            dec.update(b"header")
            out[label + "-split"] = dec.decrypt(ciphertext)
            out[label + "-verify"] = outcome(dec.verify, tag)
    return out


def _zeros_step(obj) -> bytes:
    return obj.encrypt(bytes(16))


def aes_shared(pkg: str) -> list[SharedCase]:
    """Objects threads share: zero blocks in, so any order of atomic calls gives one multiset."""
    AES = _aes(pkg)
    key, iv = bytes(range(16)), bytes(range(16, 32))
    return [
        SharedCase("ecb-encrypt", lambda: AES.new(key, AES.MODE_ECB), _zeros_step),
        SharedCase(
            "ecb-decrypt",
            lambda: AES.new(key, AES.MODE_ECB),
            lambda obj: obj.decrypt(bytes(range(16))),
        ),
        SharedCase("cbc", lambda: AES.new(key, AES.MODE_CBC, iv=iv), _zeros_step),
        SharedCase("ctr", lambda: AES.new(key, AES.MODE_CTR, nonce=iv[:8]), _zeros_step),
        SharedCase(
            "ctr-decrypt",
            lambda: AES.new(key, AES.MODE_CTR, nonce=iv[:8]),
            lambda obj: obj.decrypt(bytes(16)),
        ),
        SharedCase("cfb8", lambda: AES.new(key, AES.MODE_CFB, iv=iv), _zeros_step),
        SharedCase(
            "cfb128", lambda: AES.new(key, AES.MODE_CFB, iv=iv, segment_size=128), _zeros_step
        ),
        SharedCase("ofb", lambda: AES.new(key, AES.MODE_OFB, iv=iv), _zeros_step),
        # No tag at the end: native GcmMode feeds its GHASH and its CTR in two
        # calls, so under threads its tag depends on the interleaving (the
        # agent's, one OpenSSL call, does not; nothing a user can rely on).
        SharedCase("gcm", lambda: AES.new(key, AES.MODE_GCM, nonce=iv[:12]), _zeros_step),
        # No tag either: native EaxMode feeds its CTR and its OMAC in two calls.
        SharedCase("eax", lambda: AES.new(key, AES.MODE_EAX, nonce=iv), _zeros_step),
    ]


def aes_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    """Every mode, whole and streamed, and every error path, with marked key, IV, nonce, data."""
    AES = _aes(pkg)
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    params = {
        "ecb": (AES.MODE_ECB, {}),
        "cbc": (AES.MODE_CBC, {"iv": s.iv}),
        "ctr": (AES.MODE_CTR, {"nonce": s.nonce[:8]}),
        "cfb8": (AES.MODE_CFB, {"iv": s.iv}),
        "cfb128": (AES.MODE_CFB, {"iv": s.iv, "segment_size": 128}),
        "cfb32": (AES.MODE_CFB, {"iv": s.iv, "segment_size": 32}),  # decryption only served
        "ofb": (AES.MODE_OFB, {"iv": s.iv}),
    }
    for key in (s.key16, s.key24, s.key32):
        for mode, kwargs in params.values():
            enc = AES.new(key, mode, **kwargs)
            ciphertext = enc.encrypt(s.plaintext)
            AES.new(key, mode, **kwargs).decrypt(ciphertext)
            # the order rules, wrong types, wrong sizes, output= buffers
            attempt(raised, enc.decrypt, ciphertext)
            fresh = AES.new(key, mode, **kwargs)
            attempt(raised, fresh.encrypt, text)
            attempt(raised, fresh.encrypt, s.plaintext[:15])
            attempt(raised, fresh.encrypt, s.plaintext, output=bytearray(3))
            attempt(raised, fresh.encrypt, s.plaintext, output=bytes(len(s.plaintext)))
            attempt(raised, fresh.encrypt, memoryview(bytearray(s.plaintext * 2))[::2])
        attempt(raised, AES.new, key[:15], AES.MODE_ECB)
        attempt(raised, AES.new, key + b"!", AES.MODE_CBC, iv=s.iv)
        attempt(raised, AES.new, key, AES.MODE_CBC, iv=s.iv[:15])
        attempt(raised, AES.new, key, AES.MODE_CBC, iv=s.iv.decode())
        attempt(raised, AES.new, key, AES.MODE_CTR, nonce=s.nonce + s.nonce)
        attempt(raised, AES.new, key, AES.MODE_CTR, nonce=s.nonce[:8], initial_value=2**64)
        attempt(raised, AES.new, key, 99)
        attempt(raised, AES.new, key.decode(), AES.MODE_ECB)
        wrapping = AES.new(key, AES.MODE_CTR, nonce=s.nonce[:8] + s.iv[:7], initial_value=254)
        attempt(raised, wrapping.encrypt, s.plaintext)  # the 1-byte counter wraps

        for nonce in (s.nonce, s.iv, s.nonce[:4]):  # 12, 16 and 4 bytes (native)
            enc = AES.new(key, AES.MODE_GCM, nonce=nonce)
            enc.update(s.aad)
            ciphertext, tag = enc.encrypt_and_digest(s.plaintext)
            forged = bytes([tag[0] ^ 1]) + tag[1:]
            for candidate in (tag, forged, tag[:8], b""):
                dec = AES.new(key, AES.MODE_GCM, nonce=nonce)
                dec.update(s.aad)
                attempt(raised, dec.decrypt_and_verify, ciphertext, candidate)
                attempt(raised, dec.verify, candidate)
                attempt(raised, dec.hexverify, candidate.hex())
                attempt(raised, dec.encrypt, s.plaintext)
                attempt(raised, dec.digest)
            dec = AES.new(key, AES.MODE_GCM, nonce=nonce)
            dec.update(s.aad)
            dec.decrypt(ciphertext)
            attempt(raised, dec.verify, text)
            attempt(raised, dec.hexverify, "zz" + tag.hex())
            attempt(raised, dec.update, s.aad)
        attempt(raised, AES.new, key, AES.MODE_GCM, nonce=b"")
        attempt(raised, AES.new, key, AES.MODE_GCM, nonce=s.nonce, mac_len=3)
        attempt(raised, AES.new, key, AES.MODE_GCM, nonce=s.nonce.decode())
        ccm_eax_secret_paths(AES, key, s, raised)
    return raised


# ============================================================================ AES-OCB, SIV, KW, KWP

AES_MORE_PRIMITIVES = ("aes-ocb", "aes-siv", "aes-kw", "aes-kwp")


def aes_more_workload(pkg: str) -> dict[str, bytes]:
    """OCB and SIV one-shot, streamed and forged; KW and KWP both ways and forged."""
    AES = _aes(pkg)
    message = bytes(range(256)) * 4 + bytes(range(64))
    out: dict[str, bytes] = {}
    for size in (16, 24, 32):
        key = bytes(range(size, 2 * size))
        nonce = bytes(range(12))
        enc = AES.new(key, AES.MODE_OCB, nonce=nonce)
        enc.update(b"header")
        ciphertext, tag = enc.encrypt_and_digest(message)
        out["ocb-%d" % size] = ciphertext + tag
        stream = AES.new(key, AES.MODE_OCB, nonce=nonce)
        stream.update(b"header")
        out["ocb-stream-%d" % size] = (
            stream.encrypt(message[:100]) + stream.encrypt(message[100:]) + stream.encrypt()
        )
        for label, candidate in (("open", tag), ("forged", bytes([tag[0] ^ 1]) + tag[1:])):
            dec = AES.new(key, AES.MODE_OCB, nonce=nonce)
            dec.update(b"header")
            opened = outcome(dec.decrypt_and_verify, ciphertext, candidate)
            out["ocb-%s-%d" % (label, size)] = opened
            out["ocb-%s-again-%d" % (label, size)] = outcome(dec.verify, tag)
        siv_key = key * 2
        for siv_nonce in (None, nonce):
            options = {} if siv_nonce is None else {"nonce": siv_nonce}
            enc = AES.new(siv_key, AES.MODE_SIV, **options)
            enc.update(b"first")
            enc.update(b"second")
            ciphertext, tag = enc.encrypt_and_digest(message)
            out["siv-%d-%s" % (size, bool(siv_nonce))] = tag + ciphertext
            for label, candidate in (("open", tag), ("forged", bytes([tag[0] ^ 1]) + tag[1:])):
                dec = AES.new(siv_key, AES.MODE_SIV, **options)
                dec.update(b"first")
                dec.update(b"second")
                out["siv-%s-%d-%s" % (label, size, bool(siv_nonce))] = outcome(
                    dec.decrypt_and_verify, ciphertext, candidate
                )
        for mode_name in ("MODE_KW", "MODE_KWP"):
            mode = getattr(AES, mode_name, None)
            if mode is None:  # pycryptodome 3.x
                continue
            data = message[:40] if mode_name == "MODE_KW" else message[:37]
            wrapped = AES.new(key, mode).seal(data)
            out["%s-%d" % (mode_name, size)] = wrapped
            out["%s-open-%d" % (mode_name, size)] = outcome(AES.new(key, mode).unseal, wrapped)
            forged = wrapped[:-1] + bytes([wrapped[-1] ^ 1])
            out["%s-forged-%d" % (mode_name, size)] = outcome(AES.new(key, mode).unseal, forged)
    return out


def aes_more_shared(pkg: str) -> list[SharedCase]:
    """A fresh OCB or SIV object sealed by many threads at once: one wins, the rest raise."""
    AES = _aes(pkg)
    key = bytes(range(32))
    return [
        SharedCase(
            "ocb-one-shot",
            lambda: AES.new(key[:16], AES.MODE_OCB, nonce=key[:12]),
            lambda obj: outcome(obj.encrypt_and_digest, bytes(64)),
        ),
        SharedCase(
            "siv-one-shot",
            lambda: AES.new(key, AES.MODE_SIV, nonce=key[:12]),
            lambda obj: outcome(obj.encrypt_and_digest, bytes(64)),
        ),
    ]


def aes_more_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    """Every OCB, SIV and key-wrap path, good and bad, with marked key, nonce, data and tags."""
    AES = _aes(pkg)
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    for key in (s.key16, s.key24, s.key32):
        for nonce in (s.nonce, s.nonce[:8]):  # 12 bytes (OpenSSL), 8 bytes (native)
            enc = AES.new(key, AES.MODE_OCB, nonce=nonce)
            enc.update(s.aad)
            ciphertext, tag = enc.encrypt_and_digest(s.plaintext)
            for candidate in (tag, bytes([tag[0] ^ 1]) + tag[1:], tag[:8], b""):
                dec = AES.new(key, AES.MODE_OCB, nonce=nonce)
                dec.update(s.aad)
                attempt(raised, dec.decrypt_and_verify, ciphertext, candidate)
                attempt(raised, dec.verify, candidate)
                attempt(raised, dec.hexverify, candidate.hex())
                attempt(raised, dec.encrypt, s.plaintext)
            attempt(raised, AES.new(key, AES.MODE_OCB, nonce=nonce).encrypt_and_digest, text)
        attempt(raised, AES.new, key, AES.MODE_OCB, nonce=s.iv)
        attempt(raised, AES.new, key, AES.MODE_OCB, nonce=s.nonce, mac_len=7)
        siv_key = key + key
        for options in ({}, {"nonce": s.nonce}):
            enc = AES.new(siv_key, AES.MODE_SIV, **options)
            enc.update(s.aad)
            ciphertext, tag = enc.encrypt_and_digest(s.plaintext)
            for candidate in (tag, bytes([tag[0] ^ 1]) + tag[1:], tag[:8], b""):
                dec = AES.new(siv_key, AES.MODE_SIV, **options)
                dec.update(s.aad)
                attempt(raised, dec.decrypt_and_verify, ciphertext, candidate)
                attempt(raised, dec.verify, candidate)
                attempt(raised, dec.update, s.aad)
            attempt(raised, AES.new(siv_key, AES.MODE_SIV, **options).encrypt, s.plaintext)
        attempt(raised, AES.new, key, AES.MODE_SIV, nonce=s.nonce)
        for mode in (getattr(AES, "MODE_KW", None), getattr(AES, "MODE_KWP", None)):
            if mode is None:
                continue
            wrapped = AES.new(key, mode).seal(s.plaintext)
            attempt(raised, AES.new(key, mode).unseal, wrapped[:-1] + bytes([wrapped[-1] ^ 1]))
            attempt(raised, AES.new(key, mode).unseal, s.plaintext[:20])
            attempt(raised, AES.new(key, mode).seal, s.plaintext[:15])
            attempt(raised, AES.new(key, mode).seal, text)
    return raised


def ccm_eax_secret_paths(AES, key: bytes, s: type[Secrets], raised: list) -> None:
    """CCM and EAX with marked values: forged tags, misuse, bad lengths and parameters."""
    text = s.plaintext.decode()
    for mode, nonce in ((AES.MODE_CCM, s.nonce), (AES.MODE_EAX, s.nonce), (AES.MODE_EAX, s.iv)):
        enc = AES.new(key, mode, nonce=nonce)
        enc.update(s.aad)
        ciphertext, tag = enc.encrypt_and_digest(s.plaintext)
        attempt(raised, enc.encrypt, s.plaintext)
        forged = bytes([tag[0] ^ 1]) + tag[1:]
        for candidate in (tag, forged, tag[:8], b""):
            dec = AES.new(key, mode, nonce=nonce)
            dec.update(s.aad)
            attempt(raised, dec.decrypt_and_verify, ciphertext, candidate)
            attempt(raised, dec.verify, candidate)
            attempt(raised, dec.hexverify, candidate.hex())
            attempt(raised, dec.digest)
        dec = AES.new(key, mode, nonce=nonce)
        dec.update(s.aad)
        dec.decrypt(ciphertext)
        attempt(raised, dec.verify, text)
        attempt(raised, dec.decrypt, ciphertext)
        attempt(raised, dec.update, s.aad)
    declared = AES.new(key, AES.MODE_CCM, nonce=s.nonce, msg_len=10, assoc_len=3)
    attempt(raised, declared.update, s.aad)
    attempt(raised, declared.encrypt, s.plaintext)
    attempt(raised, AES.new, key, AES.MODE_CCM, nonce=s.nonce + s.nonce)
    attempt(raised, AES.new, key, AES.MODE_CCM, nonce=s.nonce, mac_len=5)
    attempt(raised, AES.new, key, AES.MODE_CCM, nonce=s.nonce[:7], msg_len=2**64)
    attempt(raised, AES.new, key, AES.MODE_EAX, nonce=b"")
    attempt(raised, AES.new, key, AES.MODE_EAX, nonce=s.nonce, mac_len=17)
    attempt(raised, AES.new, key, AES.MODE_EAX, nonce=text)


# ============================================================================ ChaCha20

CHACHA_PRIMITIVES = ("chacha20", "chacha20-poly1305", "xchacha20-poly1305")
CHACHA_NONCES = (8, 12, 24)  # original, IETF (RFC 7539), XChaCha20


def _chacha(pkg: str):
    cipher = importlib.import_module(pkg + ".Cipher.ChaCha20")
    aead = importlib.import_module(pkg + ".Cipher.ChaCha20_Poly1305")
    return cipher, aead


def chacha_workload(pkg: str) -> dict[str, bytes]:
    """ChaCha20 and (X)ChaCha20-Poly1305 for each nonce size, whole, in pieces, with seek."""
    ChaCha20, ChaCha20_Poly1305 = _chacha(pkg)
    key = bytes(range(32, 64))
    message = bytes(range(256)) * 4
    out: dict[str, bytes] = {}
    for size in CHACHA_NONCES:
        nonce = bytes(range(size))
        enc = ChaCha20.new(key=key, nonce=nonce)
        out["chacha20-%d" % size] = enc.encrypt(message[:100]) + enc.encrypt(message[100:])
        dec = ChaCha20.new(key=key, nonce=nonce)
        dec.seek(130)
        out["chacha20-seek-%d" % size] = dec.decrypt(out["chacha20-%d" % size][130:300])

        enc = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        enc.update(b"header")
        ciphertext, tag = enc.encrypt_and_digest(message)
        out["aead-%d" % size] = ciphertext + tag
        stream = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        stream.update(b"head")
        stream.update(b"er")
        out["aead-stream-%d" % size] = (
            stream.encrypt(message[:77]) + stream.encrypt(message[77:]) + stream.digest()
        )
        dec = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        dec.update(b"header")
        out["aead-open-%d" % size] = outcome(dec.decrypt_and_verify, ciphertext, tag)
        forged = bytes([tag[0] ^ 1]) + tag[1:]
        dec = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        dec.update(b"header")
        out["aead-forged-%d" % size] = outcome(dec.decrypt_and_verify, ciphertext, forged)
        out["aead-forged-again-%d" % size] = outcome(dec.verify, tag)
        dec = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        dec.update(b"header")
        out["aead-chunked-%d" % size] = dec.decrypt(ciphertext[:9]) + dec.decrypt(ciphertext[9:])
        out["aead-verify-%d" % size] = outcome(dec.verify, tag)
    return out


def chacha_shared(pkg: str) -> list[SharedCase]:
    ChaCha20, ChaCha20_Poly1305 = _chacha(pkg)
    key = bytes(range(32))
    cases = []
    for size in CHACHA_NONCES:
        nonce = bytes(range(size))
        cases.append(
            SharedCase(
                "chacha20-%d" % size,
                lambda nonce=nonce: ChaCha20.new(key=key, nonce=nonce),
                lambda obj: obj.encrypt(bytes(64)),
            )
        )
        cases.append(  # no tag at the end, as for GCM: native's depends on the interleaving
            SharedCase(
                "chacha20-poly1305-%d" % size,
                lambda nonce=nonce: ChaCha20_Poly1305.new(key=key, nonce=nonce),
                lambda obj: obj.encrypt(bytes(64)),
            )
        )
    return cases


def chacha_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    ChaCha20, ChaCha20_Poly1305 = _chacha(pkg)
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    key = s.key32
    for nonce in (s.nonce[:8], s.nonce, s.nonce + s.nonce):
        enc = ChaCha20.new(key=key, nonce=nonce)
        ciphertext = enc.encrypt(s.plaintext)
        dec = ChaCha20.new(key=key, nonce=nonce)
        dec.decrypt(ciphertext)
        attempt(raised, dec.encrypt, s.plaintext)
        attempt(raised, ChaCha20.new(key=key, nonce=nonce).encrypt, text)
        attempt(raised, ChaCha20.new(key=key, nonce=nonce).seek, -1)
        attempt(
            raised, ChaCha20.new(key=key, nonce=nonce).encrypt, s.plaintext, output=bytearray(1)
        )

        enc = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        enc.update(s.aad)
        ciphertext, tag = enc.encrypt_and_digest(s.plaintext)
        forged = bytes([tag[0] ^ 1]) + tag[1:]
        for candidate in (tag, forged, tag[:8], b""):
            dec = ChaCha20_Poly1305.new(key=key, nonce=nonce)
            dec.update(s.aad)
            attempt(raised, dec.decrypt_and_verify, ciphertext, candidate)
            attempt(raised, dec.verify, candidate)
            attempt(raised, dec.hexverify, candidate.hex())
            attempt(raised, dec.encrypt, s.plaintext)
            attempt(raised, dec.digest)
        dec = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        dec.decrypt(ciphertext)
        attempt(raised, dec.verify, text)
        attempt(raised, dec.update, s.aad)
    attempt(raised, ChaCha20.new, key=s.key16, nonce=s.nonce)
    attempt(raised, ChaCha20.new, key=key, nonce=s.iv)
    attempt(raised, ChaCha20.new, key=key.decode(), nonce=s.nonce)
    attempt(raised, ChaCha20_Poly1305.new, key=s.key24, nonce=s.nonce)
    attempt(raised, ChaCha20_Poly1305.new, key=key, nonce=s.iv)
    attempt(raised, ChaCha20_Poly1305.new, key=key, nonce=s.nonce.decode())
    return raised


# ============================================================================ hashes, MACs, KDFs

HASH_PRIMITIVES = (
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha512-224",
    "sha512-256",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "shake128",
    "shake256",
    "blake2b",
    "blake2s",
    "hmac",
    "pbkdf2",
    "hkdf",
    "aes-cmac",
    "poly1305",
)  # scrypt is native by choice (calibration): no accelerated call is expected of it


def _hash_modules(pkg: str) -> dict:
    names = ("MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA3_224", "SHA3_256")
    names += ("SHA3_384", "SHA3_512", "SHAKE128", "SHAKE256", "BLAKE2b", "BLAKE2s", "HMAC")
    names += ("CMAC", "Poly1305")
    modules = {name: importlib.import_module("%s.Hash.%s" % (pkg, name)) for name in names}
    modules["AES"] = importlib.import_module(pkg + ".Cipher.AES")
    modules["KDF"] = importlib.import_module(pkg + ".Protocol.KDF")
    return modules


def hash_workload(pkg: str) -> dict[str, bytes]:
    """Every hash whole, in pieces and copied; HMAC, CMAC, Poly1305 and their checks; KDFs."""
    m = _hash_modules(pkg)
    message = bytes(range(256)) * 4 + bytes(range(77))
    out: dict[str, bytes] = {}
    for name in ("MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA3_224", "SHA3_256"):
        module = m[name]
        out[name] = module.new(message).digest()
        h = module.new()
        h.update(message[:100])
        clone = h.copy()
        h.update(message[100:])
        clone.update(b"tail")
        out[name + "-pieces"] = h.digest() + clone.digest()
    for truncate in ("224", "256"):
        out["SHA512/" + truncate] = m["SHA512"].new(message, truncate=truncate).digest()
    for name in ("SHA3_384", "SHA3_512"):
        out[name] = m[name].new(message, update_after_digest=True).digest()
    for name in ("SHAKE128", "SHAKE256"):
        xof = m[name].new(message)
        out[name] = xof.read(10) + xof.read(100)
    for name in ("BLAKE2b", "BLAKE2s"):
        out[name] = m[name].new(data=message).digest()
        out[name + "-keyed"] = m[name].new(data=message, key=b"k" * 16).digest()
    for name in ("SHA1", "SHA256", "SHA512", "SHA3_256"):
        mac = m["HMAC"].new(b"key" * 10, message, digestmod=m[name])
        tag = mac.digest()
        out["hmac-" + name] = tag
        out["hmac-verify-" + name] = outcome(mac.verify, tag)
        out["hmac-forged-" + name] = outcome(mac.verify, bytes([tag[0] ^ 1]) + tag[1:])
    mac = m["CMAC"].new(bytes(range(16)), message, ciphermod=m["AES"])
    out["cmac"] = mac.digest()
    out["cmac-verify"] = outcome(mac.verify, out["cmac"])
    out["cmac-update-after"] = outcome(mac.update, b"x")
    for cipher in ("AES",):
        mac = m["Poly1305"].new(
            key=bytes(range(32)), cipher=m[cipher], nonce=bytes(16), data=message
        )
        out["poly1305"] = mac.digest()
        out["poly1305-forged"] = outcome(mac.verify, bytes(16))
    kdf = m["KDF"]
    out["pbkdf2"] = kdf.PBKDF2(b"password", b"salt", 40, 10, hmac_hash_module=m["SHA256"])
    out["pbkdf2-native"] = kdf.PBKDF2(b"password", b"salt", 20, 1000, hmac_hash_module=m["SHA1"])
    out["hkdf"] = kdf.HKDF(b"master" * 5, 50, b"salt", m["SHA256"], context=b"info")
    out["scrypt"] = kdf.scrypt(b"password", b"salt", 16, 16, 1, 1)
    return out


def _fed(h, chunk: bytes) -> None:
    """One update; its result (the object, for SHA-3 and the MACs) is not an output."""
    h.update(chunk)


def hash_shared(pkg: str) -> list[SharedCase]:
    m = _hash_modules(pkg)
    chunk = bytes(range(64))
    return [
        SharedCase(
            "sha256", lambda: m["SHA256"].new(), lambda h: _fed(h, chunk), lambda h: h.digest()
        ),
        SharedCase(
            "sha3-256", lambda: m["SHA3_256"].new(), lambda h: _fed(h, chunk), lambda h: h.digest()
        ),
        SharedCase("shake128-read", lambda: m["SHAKE128"].new(chunk), lambda h: h.read(32)),
        SharedCase(
            "hmac-sha256",
            lambda: m["HMAC"].new(b"key", digestmod=m["SHA256"]),
            lambda h: _fed(h, chunk),
            lambda h: h.digest(),
        ),
        SharedCase(
            "cmac",
            lambda: m["CMAC"].new(bytes(16), ciphermod=m["AES"]),
            lambda h: _fed(h, chunk),
            lambda h: h.digest(),
        ),
    ]


def hash_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    m = _hash_modules(pkg)
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    for name in ("SHA256", "SHA3_256", "SHAKE128", "BLAKE2b"):
        module = m[name]
        h = module.new(data=s.plaintext) if name == "BLAKE2b" else module.new(s.plaintext)
        attempt(raised, h.update, text)
        if name != "BLAKE2b":
            attempt(raised, module.new, text)
    for name in ("SHA256", "SHA512", "SHA3_256"):
        mac = m["HMAC"].new(s.key32, s.plaintext, digestmod=m[name])
        for candidate in (s.iv, s.key16, text):
            attempt(raised, mac.verify, candidate)
            attempt(
                raised, mac.hexverify, candidate if isinstance(candidate, str) else candidate.hex()
            )
        attempt(raised, mac.update, text)
    attempt(raised, m["HMAC"].new, text, s.plaintext, digestmod=m["SHA256"])
    attempt(raised, m["HMAC"].new, s.key16, s.plaintext, digestmod=m["SHAKE128"])
    for key in (s.key16, s.key24, s.key32, s.key16[:15]):
        mac = attempt(raised, m["CMAC"].new, key, s.plaintext, ciphermod=m["AES"])
        if mac is not None:
            attempt(raised, mac.verify, s.iv)
            mac.digest()
            attempt(raised, mac.update, s.plaintext)
        attempt(raised, m["CMAC"].new, key, ciphermod=m["AES"], mac_len=2)
    for nonce in (s.iv, s.nonce, s.nonce[:5]):
        for cipher in ("AES",):
            mac = attempt(
                raised,
                m["Poly1305"].new,
                key=s.key32,
                cipher=m[cipher],
                nonce=nonce,
                data=s.plaintext,
            )
            if mac is not None:
                attempt(raised, mac.verify, s.iv)
                mac.digest()
                attempt(raised, mac.update, s.plaintext)
    attempt(raised, m["Poly1305"].new, key=s.key16, cipher=m["AES"], nonce=s.iv)
    kdf = m["KDF"]
    attempt(raised, kdf.PBKDF2, s.key16, s.iv, 16, 0, hmac_hash_module=m["SHA256"])
    attempt(raised, kdf.PBKDF2, s.key16, s.iv, 16, 10, prf=len, hmac_hash_module=m["SHA256"])
    attempt(raised, kdf.HKDF, s.key32, 255 * 32 + 1, s.iv, m["SHA256"])
    attempt(raised, kdf.HKDF, text, 16, s.iv, m["SHA256"])
    return raised


# ============================================================================ public keys

# A fixed RSA-2048 key (test material, made for this file): generating one
# natively takes seconds, and every fault test runs these workloads natively.
RSA_P = int(
    "f9e1ee6b42a4e9a033543ff77459df1834897d2bd1e0323684f25fc80166534b"
    "1f682ad68191d47357ceeaed8e9f43af4c960842fd32eb6e3592b2191ddd0dbc"
    "8b6a54452d911ca26f887a5c2704fb0e604a071442cca8fb6793c9a15daa7130"
    "cf4689d58901589b9b518b51ca662395abfd9448ad5650f856c415c20c8603d3",
    16,
)
RSA_Q = int(
    "b59e949e54aafe7b1f06fa41a32a17da2fbe5cc3f55caf76ec4b8c36cca73eed"
    "3534a7d3e46de631618d224909d284d826aabc154c8329b32ed906e46521757d"
    "552fcc1c745433b15ecafbe929fa1b409fb744bf1c864b79e69a2349bfff7f9e"
    "68493e3be58e4514c1f2f0e667ff4c80eb7b9578ee33b5a014d076961849b74f",
    16,
)
RSA_PRIMITIVES = ("rsa-pkcs1v15-sign", "rsa-pss", "rsa-oaep", "rsa-pkcs1v15-encrypt")
ECC_PRIMITIVES = (
    "ecdsa-p256",
    "ecdsa-p384",
    "ecdsa-p521",
    "ed25519",
    "ed448",
    "ecdh-p256",
    "x25519",
    "ecc-keygen",
)  # rsa-keygen is left out: natively (every fault test) it takes seconds


def _pk(pkg: str, dotted: str):
    return importlib.import_module("%s.%s" % (pkg, dotted))


def _rsa_key(pkg: str, e: int = 65537):
    n, phi = RSA_P * RSA_Q, (RSA_P - 1) * (RSA_Q - 1)
    return _pk(pkg, "PublicKey.RSA").construct((n, e, pow(e, -1, phi), RSA_P, RSA_Q))


def _flip(data: bytes) -> bytes:
    return bytes([data[0] ^ 1]) + data[1:]


def rsa_workload(pkg: str) -> dict[str, bytes]:
    """PKCS#1 v1.5 and PSS signatures, OAEP and PKCS#1 v1.5 encryption, each with its failure.

    Deterministic outputs are kept as they are; randomized ones (PSS, both
    encryptions) through what native makes of them (verify, decrypt).
    """
    key = _rsa_key(pkg)
    public = key.public_key()
    sha256 = _pk(pkg, "Hash.SHA256")
    digest = sha256.new(b"a message to sign" * 5)
    pkcs1_15, pss = _pk(pkg, "Signature.pkcs1_15"), _pk(pkg, "Signature.pss")
    oaep, v1_5 = _pk(pkg, "Cipher.PKCS1_OAEP"), _pk(pkg, "Cipher.PKCS1_v1_5")
    out: dict[str, bytes] = {}
    signature = pkcs1_15.new(key).sign(digest)
    out["pkcs1_15"] = signature
    out["pkcs1_15-verify"] = outcome(pkcs1_15.new(public).verify, digest, signature)
    out["pkcs1_15-forged"] = outcome(pkcs1_15.new(public).verify, digest, _flip(signature))
    signature = pss.new(key).sign(digest)
    out["pss-verify"] = outcome(pss.new(public).verify, digest, signature)
    out["pss-forged"] = outcome(pss.new(public).verify, digest, _flip(signature))
    message = b"a secret message"
    ciphertext = oaep.new(public, hashAlgo=sha256).encrypt(message)
    out["oaep"] = oaep.new(key, hashAlgo=sha256).decrypt(ciphertext)
    out["oaep-bad"] = outcome(oaep.new(key, hashAlgo=sha256).decrypt, _flip(ciphertext))
    out["oaep-too-long"] = outcome(oaep.new(public).encrypt, bytes(300))
    ciphertext = v1_5.new(public).encrypt(message)
    out["v1_5"] = v1_5.new(key).decrypt(ciphertext, b"sentinel")
    out["v1_5-bad"] = v1_5.new(key).decrypt(bytes(256), b"sentinel")
    return out


def rsa_shared(pkg: str) -> list[SharedCase]:
    """Scheme objects threads share: each call is whole, so every thread sees one answer."""
    key = _rsa_key(pkg)
    digest = _pk(pkg, "Hash.SHA256").new(b"shared")
    pkcs1_15 = _pk(pkg, "Signature.pkcs1_15")
    signature = pkcs1_15.new(key).sign(digest)
    return [
        SharedCase(
            "pkcs1_15-sign",
            lambda: pkcs1_15.new(key),
            lambda s: s.sign(digest),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
        SharedCase(
            "pkcs1_15-verify",
            lambda: pkcs1_15.new(key.public_key()),
            lambda s: outcome(s.verify, digest, signature),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
    ]


def rsa_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    """Every error of the RSA schemes with a marked plaintext, label and hash input."""
    key = _rsa_key(pkg)
    public = key.public_key()
    raised: list[BaseException] = []
    sha256 = _pk(pkg, "Hash.SHA256")
    digest = sha256.new(s.plaintext)
    text = s.plaintext.decode()
    for scheme in (_pk(pkg, "Signature.pkcs1_15"), _pk(pkg, "Signature.pss")):
        signature = scheme.new(key).sign(digest)
        for bad in (_flip(signature), signature[:-1], s.plaintext, text, None, s.key32, 12345):
            attempt(raised, scheme.new(public).verify, digest, bad)
        attempt(raised, scheme.new(public).sign, digest)  # no private key
        attempt(raised, scheme.new(key).sign, s.plaintext)  # not a hash object
    oaep, v1_5 = _pk(pkg, "Cipher.PKCS1_OAEP"), _pk(pkg, "Cipher.PKCS1_v1_5")
    for message in (s.plaintext * 3, text, s.key32, None, 12345):
        attempt(raised, oaep.new(public, label=s.aad).encrypt, message)
        attempt(raised, v1_5.new(public).encrypt, message)
    ciphertext = oaep.new(public, label=s.aad).encrypt(s.plaintext)
    attempt(raised, oaep.new(key, label=s.iv).decrypt, ciphertext)
    attempt(raised, oaep.new(key).decrypt, s.plaintext)
    attempt(raised, oaep.new(public).decrypt, ciphertext)
    attempt(raised, v1_5.new(key).decrypt, s.plaintext, None)
    attempt(raised, v1_5.new(key).decrypt, ciphertext[:-1], s.nonce)
    return raised


def _ecc_key(pkg: str, curve: str, secret: bytes = bytes(range(1, 33))):
    ecc = _pk(pkg, "PublicKey.ECC")
    if curve.startswith("Ed"):
        return ecc.construct(curve=curve, seed=secret[: 32 if curve == "Ed25519" else 57])
    return ecc.construct(curve=curve, d=int.from_bytes(secret, "big"))


def ecc_workload(pkg: str) -> dict[str, bytes]:
    """ECDSA (deterministic and random) on three curves, EdDSA, key agreement, generation."""
    dss, eddsa = _pk(pkg, "Signature.DSS"), _pk(pkg, "Signature.eddsa")
    out: dict[str, bytes] = {}
    for curve, hash_name in (("P-256", "SHA256"), ("P-384", "SHA384"), ("P-521", "SHA512")):
        key = _ecc_key(pkg, curve)
        digest = _pk(pkg, "Hash." + hash_name).new(b"a message to sign")
        signature = dss.new(key, "deterministic-rfc6979").sign(digest)
        out["dss-rfc6979-" + curve] = signature
        verifier = dss.new(key.public_key(), "fips-186-3")
        out["dss-verify-" + curve] = outcome(verifier.verify, digest, signature)
        out["dss-forged-" + curve] = outcome(verifier.verify, digest, _flip(signature))
        random = dss.new(key, "fips-186-3", encoding="der").sign(digest)
        verifier = dss.new(key.public_key(), "fips-186-3", encoding="der")
        out["dss-random-" + curve] = outcome(verifier.verify, digest, random)
    seed = bytes(range(57))
    for curve in ("Ed25519", "Ed448"):
        key = _ecc_key(pkg, curve, seed)
        signature = eddsa.new(key, "rfc8032").sign(b"a message to sign")
        out[curve] = signature
        verifier = eddsa.new(key.public_key(), "rfc8032")
        out[curve + "-verify"] = outcome(verifier.verify, b"a message to sign", signature)
        out[curve + "-forged"] = outcome(verifier.verify, b"a message to sign", _flip(signature))
    dh = _pk(pkg, "Protocol.DH")
    for curve in ("P-256", "Curve25519"):
        mine = _ecc_key(pkg, curve, bytes(range(40, 72))) if curve == "P-256" else None
        if mine is None:
            mine = _pk(pkg, "PublicKey.ECC").construct(curve=curve, seed=bytes(range(40, 72)))
        theirs = _ecc_key(pkg, "P-256") if curve == "P-256" else None
        if theirs is None:
            theirs = _pk(pkg, "PublicKey.ECC").construct(curve=curve, seed=bytes(32))
        out["dh-" + curve] = dh.key_agreement(
            static_priv=mine, static_pub=theirs.public_key(), kdf=lambda z: z
        )
    generated = _pk(pkg, "PublicKey.ECC").generate(curve="P-256")
    digest = _pk(pkg, "Hash.SHA256").new(b"generated")
    signature = dss.new(generated, "fips-186-3").sign(digest)
    out["generated"] = outcome(
        dss.new(generated.public_key(), "fips-186-3").verify, digest, signature
    )
    return out


def ecc_shared(pkg: str) -> list[SharedCase]:
    key = _ecc_key(pkg, "P-256")
    dss, eddsa = _pk(pkg, "Signature.DSS"), _pk(pkg, "Signature.eddsa")
    digest = _pk(pkg, "Hash.SHA256").new(b"shared")
    ed_key = _ecc_key(pkg, "Ed25519")
    return [
        SharedCase(
            "dss-rfc6979",
            lambda: dss.new(key, "deterministic-rfc6979"),
            lambda s: s.sign(digest),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
        SharedCase(
            "ed25519",
            lambda: eddsa.new(ed_key, "rfc8032"),
            lambda s: s.sign(b"shared"),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
    ]


def ecc_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    """Every error of ECDSA, EdDSA and key agreement with a marked private key and message."""
    dss, eddsa = _pk(pkg, "Signature.DSS"), _pk(pkg, "Signature.eddsa")
    ecc, dh = _pk(pkg, "PublicKey.ECC"), _pk(pkg, "Protocol.DH")
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    key = _ecc_key(pkg, "P-256", s.key32)  # d's hex is the marked key's hex
    digest = _pk(pkg, "Hash.SHA256").new(s.plaintext)
    for mode in ("fips-186-3", "deterministic-rfc6979"):
        signer = dss.new(key, mode)
        signature = signer.sign(digest)
        verifier = dss.new(key.public_key(), mode)
        for bad in (_flip(signature), signature[:-1], s.plaintext, text, None, s.key32, 12345):
            attempt(raised, verifier.verify, digest, bad)
        attempt(raised, verifier.sign, digest)
        attempt(raised, signer.sign, s.plaintext)
    attempt(raised, dss.new, key, "no-such-mode")
    ed_key = _ecc_key(pkg, "Ed25519", s.key32)
    signer = eddsa.new(ed_key, "rfc8032")
    signature = signer.sign(s.plaintext)
    verifier = eddsa.new(ed_key.public_key(), "rfc8032")
    for bad in (_flip(signature), signature[:-1], s.plaintext, text, s.key32, None):
        attempt(raised, verifier.verify, s.plaintext, bad)
    attempt(raised, signer.sign, text)
    attempt(raised, eddsa.new, ed_key, "rfc8032", context=s.aad * 20)
    attempt(raised, ecc.construct, curve="P-256", d=int.from_bytes(s.key32, "big"), point_x=5)
    other = _ecc_key(pkg, "P-384")
    attempt(raised, dh.key_agreement, static_priv=key, static_pub=other.public_key(), kdf=len)
    attempt(raised, dh.key_agreement, static_priv=key.public_key(), kdf=len)
    return raised


# ============================================================ other libraries
# python-rsa and python-ecdsa: the same providers as pycryptodome's public
# keys, reached through another library's API. Their workloads ignore ``pkg``
# (they run once per installed pycryptodome flavour, identically). pyaes has
# reliability tests of its own (tests/libraries/pyaes/test_pyaes_reliability.py).

PYTHON_RSA_PRIMITIVES = ("rsa-pkcs1v15-sign", "rsa-pkcs1v15-encrypt")
PYTHON_ECDSA_PRIMITIVES = ("ecdsa-p256", "ecdsa-p384", "ecdsa-secp256k1")


def _python_rsa_key():
    rsa = importlib.import_module("rsa")
    n, e = RSA_P * RSA_Q, 65537
    d = pow(e, -1, (RSA_P - 1) * (RSA_Q - 1))
    return rsa, rsa.PrivateKey(n, e, d, RSA_P, RSA_Q), rsa.PublicKey(n, e)


def python_rsa_workload(pkg: str) -> dict[str, bytes]:
    """Deterministic signatures as they are; the random encryption through its decryption."""
    rsa, private, public = _python_rsa_key()
    out: dict[str, bytes] = {}
    for method in ("SHA-256", "SHA-1", "SHA-512"):
        signature = rsa.sign(b"a message to sign", private, method)
        out["sign-" + method] = signature
        out["verify-" + method] = outcome(
            lambda s=signature: rsa.verify(b"a message to sign", s, public).encode()
        )
        out["forged-" + method] = outcome(
            rsa.verify, b"a message to sign", _flip(signature), public
        )
    ciphertext = rsa.encrypt(b"a secret message", public)
    out["encrypt"] = rsa.decrypt(ciphertext, private)
    out["encrypt-too-long"] = outcome(rsa.encrypt, bytes(250), public)
    return out


def python_rsa_shared(pkg: str) -> list[SharedCase]:
    rsa, private, public = _python_rsa_key()
    signature = rsa.sign(b"shared", private, "SHA-256")
    # The threads' reference is 2,401 native signatures: with RSA-2048 (20 ms
    # each in pure Python) that took 50 s; a 512-bit key (served by OpenSSL
    # too: above the 496 bits the agent needs) takes about a second.
    _small_public, small = rsa.newkeys(512)
    return [
        SharedCase(
            "sign",
            lambda: small,
            lambda key: rsa.sign(b"shared", key, "SHA-256"),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
        SharedCase(
            "verify",
            lambda: public,
            lambda key: rsa.verify(b"shared", signature, key).encode(),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
    ]


def python_rsa_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    rsa, private, public = _python_rsa_key()
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    signature = rsa.sign(s.plaintext, private, "SHA-256")
    for bad in (_flip(signature), signature[:-1], s.plaintext, s.key32, b"", text, None, 7):
        attempt(raised, rsa.verify, s.plaintext, bad, public)
        attempt(raised, rsa.verify, s.aad, bad, public)
    for message in (s.plaintext * 3, text, None, s.key32 * 8):
        attempt(raised, rsa.encrypt, message, public)
        attempt(raised, rsa.sign, message, private, "SHA-256")
    attempt(raised, rsa.sign, s.plaintext, private, "SHA-3")
    attempt(raised, rsa.sign_hash, s.key32, private, "SHA-1")
    attempt(raised, rsa.sign, s.plaintext, public, "SHA-256")
    attempt(raised, rsa.decrypt, s.plaintext * 3, private)
    attempt(raised, rsa.decrypt, rsa.encrypt(s.plaintext, public)[:-1], private)
    attempt(raised, rsa.find_signature_hash, _flip(signature), public)
    return raised


def _python_ecdsa_keys(secret: bytes = bytes(range(1, 33))):
    ecdsa = importlib.import_module("ecdsa")
    keys = {}
    for curve in (ecdsa.NIST256p, ecdsa.NIST384p, ecdsa.SECP256k1):
        exponent = int.from_bytes(secret, "big") % (curve.order - 1) + 1
        keys[curve.name] = ecdsa.SigningKey.from_secret_exponent(exponent, curve=curve)
    return ecdsa, keys


def python_ecdsa_workload(pkg: str) -> dict[str, bytes]:
    """Deterministic signatures as they are; random ones through their verification."""
    ecdsa, keys = _python_ecdsa_keys()
    util = importlib.import_module("ecdsa.util")
    hashlib = importlib.import_module("hashlib")
    out: dict[str, bytes] = {}
    message = b"a message to sign"
    for name, key in keys.items():
        verifying = key.get_verifying_key()
        signature = key.sign_deterministic(message, hashfunc=hashlib.sha256)
        out["deterministic-" + name] = signature
        out["verify-" + name] = outcome(
            lambda v=verifying, s=signature: b"%d" % v.verify(s, message, hashlib.sha256)
        )
        out["forged-" + name] = outcome(verifying.verify, _flip(signature), message, hashlib.sha256)
        der = key.sign(message, sigencode=util.sigencode_der)
        out["random-" + name] = outcome(
            lambda v=verifying, d=der: b"%d" % v.verify(d, message, sigdecode=util.sigdecode_der)
        )
    return out


def python_ecdsa_shared(pkg: str) -> list[SharedCase]:
    _ecdsa, keys = _python_ecdsa_keys()
    key = keys["NIST256p"]
    return [
        SharedCase(
            "sign_deterministic",
            lambda: key,
            lambda k: k.sign_deterministic(b"s"),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        )
    ]


def python_ecdsa_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    ecdsa, keys = _python_ecdsa_keys(s.key32)  # the secret exponent's hex is the mark's
    util = importlib.import_module("ecdsa.util")
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    for key in keys.values():
        verifying = key.get_verifying_key()
        signature = key.sign_deterministic(s.plaintext)
        for bad in (_flip(signature), signature[:-1], s.plaintext, s.key32, b"", text, None):
            attempt(raised, verifying.verify, bad, s.plaintext)
        attempt(raised, verifying.verify, signature, s.plaintext, sigdecode=util.sigdecode_der)
        attempt(raised, key.sign_digest, s.plaintext * 2, allow_truncate=False)
        attempt(raised, key.sign, text)
    return raised


# ============================================================ DSA
# pycryptodome's DSS with DSA keys: random-nonce signatures through their
# verification, RFC 6979 ones (native by choice) as they are.

DSA_PRIMITIVES = ("dsa",)


def _dsa_key(pkg: str, secret: bytes | None = None):
    """RFC 6979 A.2.2's DSA-2048 key, or a key of its domain with ``secret`` as x."""
    known_answers = importlib.import_module("accel_agent.known_answers")
    p, q, g, y, x = known_answers.dsa_key(known_answers.read("dsa")["vectors"][0]["key"])
    if secret is not None:
        x = int.from_bytes(secret, "big") % (q - 1) + 1
        y = pow(g, x, p)
    return importlib.import_module(pkg + ".PublicKey.DSA").construct((y, g, p, q, x))


def dsa_workload(pkg: str) -> dict[str, bytes]:
    dss = importlib.import_module(pkg + ".Signature.DSS")
    sha256 = importlib.import_module(pkg + ".Hash.SHA256")
    key = _dsa_key(pkg)
    public = key.public_key()
    digest = sha256.new(b"a message to sign")
    out: dict[str, bytes] = {}
    for encoding in ("binary", "der"):
        deterministic = dss.new(key, "deterministic-rfc6979", encoding).sign(digest)
        out["deterministic-" + encoding] = deterministic
        verifier = dss.new(public, "fips-186-3", encoding)
        out["verify-" + encoding] = outcome(verifier.verify, digest, deterministic)
        out["forged-" + encoding] = outcome(verifier.verify, digest, _flip(deterministic))
        signature = dss.new(key, "fips-186-3", encoding).sign(digest)
        out["random-" + encoding] = outcome(verifier.verify, digest, signature)
    return out


def dsa_shared(pkg: str) -> list[SharedCase]:
    dss = importlib.import_module(pkg + ".Signature.DSS")
    sha256 = importlib.import_module(pkg + ".Hash.SHA256")
    key = _dsa_key(pkg)
    digest = sha256.new(b"shared")
    signature = dss.new(key, "deterministic-rfc6979").sign(digest)
    verifier = dss.new(key.public_key(), "fips-186-3")
    signer = dss.new(key, "fips-186-3")
    return [
        SharedCase(
            "verify",
            lambda: verifier,
            lambda v: outcome(v.verify, digest, signature),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
        SharedCase(
            "sign then verify",
            lambda: signer,
            lambda scheme: outcome(verifier.verify, digest, scheme.sign(digest)),
            calls=PUBLIC_KEY_CALLS_PER_THREAD,
        ),
    ]


def dsa_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    dss = importlib.import_module(pkg + ".Signature.DSS")
    sha256 = importlib.import_module(pkg + ".Hash.SHA256")
    md5 = importlib.import_module(pkg + ".Hash.MD5")
    key = _dsa_key(pkg, s.key32)  # x is the mark
    raised: list[BaseException] = []
    digest = sha256.new(s.plaintext)
    for encoding in ("binary", "der"):
        signer = dss.new(key, "fips-186-3", encoding)
        verifier = dss.new(key.public_key(), "fips-186-3", encoding)
        signature = signer.sign(digest)
        for bad in (_flip(signature), signature[:-1], s.plaintext, s.key32, b"", None, 7):
            attempt(raised, verifier.verify, digest, bad)
            attempt(raised, verifier.verify, md5.new(s.plaintext), bad)
        attempt(raised, verifier.verify, s.plaintext, signature)
        attempt(raised, signer.sign, md5.new(s.plaintext))
        attempt(raised, signer.sign, s.plaintext)
        attempt(raised, verifier.sign, digest)
        attempt(raised, dss.new, key, "fips-186-3", encoding, low_s=True)
    for mode, encoding in (("sec1", "binary"), ("fips-186-2", "binary"), ("fips-186-3", "pem")):
        attempt(raised, dss.new, key, mode, encoding)
    return raised


# ============================================================ starkbank-ecdsa
# Its Ecdsa class: hedged (random) signatures through their verification.
# The workload ignores ``pkg`` (it runs once per pycryptodome flavour, identically).

STARKBANK_ECDSA_PRIMITIVES = ("ecdsa-p256", "ecdsa-secp256k1")


def _starkbank_keys(secret: bytes = bytes(range(1, 33))):
    ellipticcurve = importlib.import_module("ellipticcurve")
    curves = importlib.import_module("ellipticcurve.curve")
    keys = {}
    for curve in (curves.prime256v1, curves.secp256k1):
        exponent = int.from_bytes(secret, "big") % (curve.N - 1) + 1
        keys[curve.name] = ellipticcurve.PrivateKey(curve=curve, secret=exponent)
    return ellipticcurve, keys


def starkbank_ecdsa_workload(pkg: str) -> dict[str, bytes]:
    ellipticcurve, keys = _starkbank_keys()
    ecdsa, signature_class = ellipticcurve.Ecdsa, ellipticcurve.Signature
    out: dict[str, bytes] = {}
    for name, key in keys.items():
        public = key.publicKey()
        signature = ecdsa.sign("a message to sign", key)
        verdict = ecdsa.verify("a message to sign", signature, public)
        out["verify-" + name] = b"%d" % verdict
        forged = signature_class(signature.r, signature.s ^ 1)
        out["forged-" + name] = b"%d" % ecdsa.verify("a message to sign", forged, public)
        out["other-message-" + name] = b"%d" % ecdsa.verify("another", signature, public)
        out["low-s-" + name] = b"%d" % (signature.s <= key.curve.N // 2)
    return out


def starkbank_ecdsa_shared(pkg: str) -> list[SharedCase]:
    ellipticcurve, keys = _starkbank_keys()
    key = keys["prime256v1"]
    public = key.publicKey()
    signature = ellipticcurve.Ecdsa.sign("shared", key)

    def verify(k):
        return b"%d" % ellipticcurve.Ecdsa.verify("shared", signature, public)

    def sign_then_verify(k):
        return b"%d" % ellipticcurve.Ecdsa.verify(
            "shared", ellipticcurve.Ecdsa.sign("shared", k), public
        )

    return [
        SharedCase("verify", lambda: public, verify, calls=PUBLIC_KEY_CALLS_PER_THREAD),
        SharedCase("sign", lambda: key, sign_then_verify, calls=PUBLIC_KEY_CALLS_PER_THREAD),
    ]


def starkbank_ecdsa_secret_paths(pkg: str, s: type[Secrets]) -> list[BaseException]:
    ellipticcurve, keys = _starkbank_keys(s.key32)  # the secret is the mark
    ecdsa, signature_class = ellipticcurve.Ecdsa, ellipticcurve.Signature
    raised: list[BaseException] = []
    text = s.plaintext.decode()
    for key in keys.values():
        public = key.publicKey()
        signature = ecdsa.sign(text, key)
        for bad in (
            signature_class(signature.r, None),
            signature_class(str(signature.r), signature.s),
            signature_class(signature.r, [signature.s]),
            signature_class(None, None),
            None,
            s.plaintext,
            text,
        ):
            attempt(raised, ecdsa.verify, text, bad, public)
        for message in (s.plaintext, None, 7, bytearray(s.plaintext)):
            attempt(raised, ecdsa.verify, message, signature, public)
            attempt(raised, ecdsa.sign, message, key)
        attempt(raised, ecdsa.sign, text, public)
        attempt(raised, ecdsa.sign, text, None)
        attempt(raised, ecdsa.verify, text, signature, key)
        attempt(raised, ecdsa.verify, text, signature, public, hashfunc=s.key32)
    return raised


FAMILIES = (
    Family("aes", "Cipher.AES", AES_PRIMITIVES, aes_workload, aes_shared, aes_secret_paths),
    Family(
        "chacha",
        "Cipher.ChaCha20",
        CHACHA_PRIMITIVES,
        chacha_workload,
        chacha_shared,
        chacha_secret_paths,
    ),
    Family("hashes", "Hash.SHA256", HASH_PRIMITIVES, hash_workload, hash_shared, hash_secret_paths),
    Family(
        "aes-ocb-siv-kw",
        "Cipher.AES",
        AES_MORE_PRIMITIVES,
        aes_more_workload,
        aes_more_shared,
        aes_more_secret_paths,
    ),
    Family("rsa", "PublicKey.RSA", RSA_PRIMITIVES, rsa_workload, rsa_shared, rsa_secret_paths),
    Family("ecc", "PublicKey.ECC", ECC_PRIMITIVES, ecc_workload, ecc_shared, ecc_secret_paths),
    Family(
        "python-rsa",
        "rsa",
        PYTHON_RSA_PRIMITIVES,
        python_rsa_workload,
        python_rsa_shared,
        python_rsa_secret_paths,
    ),
    Family(
        "python-ecdsa",
        "ecdsa",
        PYTHON_ECDSA_PRIMITIVES,
        python_ecdsa_workload,
        python_ecdsa_shared,
        python_ecdsa_secret_paths,
    ),
    Family("dsa", "PublicKey.DSA", DSA_PRIMITIVES, dsa_workload, dsa_shared, dsa_secret_paths),
    Family(
        "starkbank-ecdsa",
        "ellipticcurve",
        STARKBANK_ECDSA_PRIMITIVES,
        starkbank_ecdsa_workload,
        starkbank_ecdsa_shared,
        starkbank_ecdsa_secret_paths,
    ),
)
