"""Every primitive the agent knows, and its providers in priority order, as data.

Declarative (style.md #7): a primitive is a name, a family, the CPU
capabilities its fast providers need, the providers that can serve it, each
named as ``"module:factory"`` so that nothing heavy is imported until a
primitive is first used, the path calibration picks without a calibration
cache (``default``), and the known-answer sets that gate it. ``native`` is
never a provider: it is what remains when no provider passes its gates.
"""

from __future__ import annotations


class ProviderSpec:
    """A provider of one primitive: its name and where its factory lives."""

    __slots__ = ("name", "factory")

    def __init__(self, name: str, factory: str) -> None:
        self.name = name  # "openssl" (pyca/cryptography) or "hashlib" (CPython's _hashlib)
        self.factory = factory  # "package.module:callable" returning the provider object

    def __repr__(self) -> str:
        return "ProviderSpec(%r, %r)" % (self.name, self.factory)


NATIVE = "native"  # a default: native pycryptodome was measured faster


class PrimitiveSpec:
    """One algorithm as the registry sees it."""

    __slots__ = ("name", "family", "requires", "providers", "default", "known_answers")

    def __init__(
        self,
        name: str,
        family: str,
        requires: tuple[str, ...],
        providers: tuple[ProviderSpec, ...],
        default: str | None = None,
        known_answers: tuple[str, ...] | None = None,
    ) -> None:
        self.name = name  # "aes-ecb"
        self.family = family  # "aes": what ACCEL_AGENT_EXCLUDE=aes switches off
        self.requires = requires  # platform capabilities ("aes", "clmul", "sha")
        self.providers = providers
        # The path measured fastest on the reference machine (docs/performance.md):
        # a provider's name, NATIVE, or None for no opinion (the providers' order
        # decides). A calibration cache overrides it (calibration.preferred).
        self.default = default
        # Known-answer sets (accel_agent/known_answers/NAME.json), all must pass.
        self.known_answers = known_answers or (name,)

    def __repr__(self) -> str:
        return "PrimitiveSpec(%r)" % self.name


def _openssl(module: str, factory: str) -> ProviderSpec:
    return ProviderSpec("openssl", "accel_agent.providers.%s:%s" % (module, factory))


def _aes(
    name: str, module: str, factory: str, requires: tuple[str, ...] = ("aes",)
) -> PrimitiveSpec:
    return PrimitiveSpec(name, "aes", requires, (_openssl(module, factory),), "openssl")


# AES: OpenSSL is faster for every mode on the reference machine
# (docs/performance.md); the sizes from which native overtakes it within a
# mode are calibration.NATIVE_FROM_SIZE.
PRIMITIVES: tuple[PrimitiveSpec, ...] = (
    # single block: 2.3 us native vs 0.18 us OpenSSL (4.4, x86_64 AES-NI)
    _aes("aes-ecb", "aes", "ecb_provider"),
    _aes("aes-cbc", "aes", "cbc_provider"),
    _aes("aes-ctr", "aes", "ctr_provider"),
    _aes("aes-cfb", "aes", "cfb_provider"),
    _aes("aes-ofb", "aes", "ofb_provider"),
    # GCM's speed rests on carry-less multiplication as much as on AES rounds.
    # 1 KiB: 23 MB/s native vs 1.33 GB/s OpenSSL.
    _aes("aes-gcm", "aes", "gcm_provider", ("aes", "clmul")),
    # One-shot OpenSSL primitives (AESOCB3, AESSIV, RFC 3394/5649 key wrap);
    # docs/performance.md, "AES-OCB, SIV, KW, KWP".
    _aes("aes-ocb", "aes_aead", "ocb_provider"),
    _aes("aes-siv", "aes_aead", "siv_provider"),
    _aes("aes-kw", "keywrap", "kw_provider"),
    _aes("aes-kwp", "keywrap", "kwp_provider"),
    # 64 B to 1 MiB: 3-30x native (docs/performance.md, CCM and EAX)
    _aes("aes-ccm", "aes_aead", "ccm_provider"),
    _aes("aes-eax", "aes_aead", "eax_provider"),
    # Triple DES (DES-EDE3), family "tdes": no CPU feature. OpenSSL is
    # faster than native for every mode and size measured (docs/performance.md,
    # Triple DES); CTR has no OpenSSL mode and stays native.
    *(
        PrimitiveSpec(
            "tdes-" + mode, "tdes", (), (_openssl("tdes", mode + "_provider"),), "openssl"
        )
        for mode in ("ecb", "cbc", "cfb", "ofb")
    ),
    # ChaCha20 is fast in portable SIMD code: no CPU feature is required.
    # Figures: docs/compatibility.md, ChaCha section. The chacha20 row's
    # provider also serves HChaCha20 (XChaCha20's subkey): its set is checked too.
    PrimitiveSpec(
        "chacha20",
        "chacha",
        (),
        (_openssl("chacha", "chacha20_provider"),),
        "openssl",
        ("chacha20", "hchacha20"),
    ),
    PrimitiveSpec(
        "chacha20-poly1305",
        "chacha",
        (),
        (_openssl("chacha", "chacha20_poly1305_provider"),),
        "openssl",
    ),
    PrimitiveSpec(
        "xchacha20-poly1305",
        "chacha",
        (),
        (_openssl("chacha", "xchacha20_poly1305_provider"),),
        "openssl",
    ),
)

# Hashes, MACs and KDFs. OpenSSL's SHA-1/SHA-256 use SHA-NI where
# the CPU has it, but are fast enough without: no requirement, calibration decides.
# Measured on the reference machine (pycryptodome 4.4, OpenSSL 3.0 via
# _hashlib, x86_64 with SHA-NI; docs/performance.md, hashes section): OpenSSL
# hashes every message size faster (64 B: 5-9x; 1 MiB: 1.1-2.8x). Hashes,
# HMAC, PBKDF2 and HKDF have two providers (hashlib, then openssl for a Python
# without _hashlib) and no default: both are faster than native, so their
# priority order decides. PBKDF2's per-call threshold (native from a few
# hundred iterations) is calibration.BUILTIN_THRESHOLDS.
_HASHES = (
    ("md5", "md5"),
    ("sha1", "sha1"),
    ("sha224", "sha2"),
    ("sha256", "sha2"),
    ("sha384", "sha2"),
    ("sha512", "sha2"),
    ("sha512-224", "sha2"),
    ("sha512-256", "sha2"),
    ("sha3-224", "sha3"),
    ("sha3-256", "sha3"),
    ("sha3-384", "sha3"),
    ("sha3-512", "sha3"),
    ("shake128", "sha3"),
    ("shake256", "sha3"),
    # RIPEMD-160 through _hashlib where its OpenSSL has it (3.0.7+ default
    # provider): 64 B 3.3 us vs 13.8 us native, 1 KiB 2.4x; from 16 KiB
    # OpenSSL 3.0's is no faster (calibration.NATIVE_FROM_SIZE).
    ("ripemd160", "ripemd"),
    ("blake2b", "blake2"),  # BLAKE2b-512 and BLAKE2s-256 without a key: OpenSSL has no other
    ("blake2s", "blake2"),
)


def _hashlib_then_openssl(stem: str) -> tuple[ProviderSpec, ...]:
    """CPython's _hashlib first (no cryptography import, cheapest per call), then
    the same OpenSSL through pyca/cryptography for a Python built without it."""
    module = "accel_agent.providers.hashes:%s_" % stem
    return (
        ProviderSpec("hashlib", module + "provider"),
        ProviderSpec("openssl", module + "openssl_provider"),
    )


PRIMITIVES += tuple(
    PrimitiveSpec(name, family, (), _hashlib_then_openssl(name.replace("-", "_")))
    for name, family in _HASHES
) + (
    PrimitiveSpec("hmac", "hmac", (), _hashlib_then_openssl("hmac")),
    PrimitiveSpec("pbkdf2", "kdf", (), _hashlib_then_openssl("pbkdf2")),
    # scrypt at N=2^10..2^14 is faster natively (26 ms vs 39 ms at 2^14).
    PrimitiveSpec("scrypt", "kdf", (), _hashlib_then_openssl("scrypt"), NATIVE),
    PrimitiveSpec("hkdf", "kdf", (), _hashlib_then_openssl("hkdf")),
    # CMAC and Poly1305 gain from one C call where pycryptodome makes several Python ones.
    PrimitiveSpec("aes-cmac", "cmac", ("aes",), (_openssl("macs", "cmac_provider"),), "openssl"),
    PrimitiveSpec("poly1305", "poly1305", (), (_openssl("macs", "poly1305_provider"),), "openssl"),
)

# Public keys: families "rsa" and "ecc" (ACCEL_AGENT_EXCLUDE=rsa,ecc).
# Big-number arithmetic needs no CPU feature. Measured on the reference
# machine (pycryptodome 4.4, OpenSSL 4.0, pyca/cryptography 50;
# docs/compatibility-pubkey.md): OpenSSL is faster for every operation, by 4x
# (RSA-2048 sign) to 8x (ECDSA P-256 sign); RSA-2048 generation 55 ms vs 310
# ms. Every row defaults to openssl.
_PUBLIC_KEY = (
    ("rsa-pkcs1v15-sign", "rsa", "rsa", "pkcs1v15_signature_provider"),
    ("rsa-pss", "rsa", "rsa", "pss_provider"),
    ("rsa-oaep", "rsa", "rsa", "oaep_provider"),
    ("rsa-pkcs1v15-encrypt", "rsa", "rsa", "pkcs1v15_encryption_provider"),
    ("rsa-keygen", "rsa", "rsa", "keygen_provider"),
    ("ecdsa-p256", "ecc", "ecc", "ecdsa_p256_provider"),
    ("ecdsa-p384", "ecc", "ecc", "ecdsa_p384_provider"),
    ("ecdsa-p521", "ecc", "ecc", "ecdsa_p521_provider"),
    # Served for python-ecdsa: its curves that OpenSSL also has. Its
    # pure-Python arithmetic is slower than pycryptodome's on every curve
    # (docs/compatibility-python-ecdsa.md).
    ("ecdsa-p192", "ecc", "ecc", "ecdsa_p192_provider"),
    ("ecdsa-p224", "ecc", "ecc", "ecdsa_p224_provider"),
    ("ecdsa-secp256k1", "ecc", "ecc", "ecdsa_secp256k1_provider"),
    ("ed25519", "ecc", "eddsa", "ed25519_provider"),
    ("ed448", "ecc", "eddsa", "ed448_provider"),
    ("ecdh-p256", "ecc", "ecc", "ecdh_p256_provider"),
    ("ecdh-p384", "ecc", "ecc", "ecdh_p384_provider"),
    ("ecdh-p521", "ecc", "ecc", "ecdh_p521_provider"),
    ("x25519", "ecc", "ecc", "x25519_provider"),
    ("x448", "ecc", "ecc", "x448_provider"),
    ("ecc-keygen", "ecc", "ecc", "keygen_provider"),
    # DSA (family "dsa"): random-nonce signing and verification, 2.1x and 2.3x
    # native at DSA-2048 (1.2 ms vs 2.6 ms and 2.8 ms, SHA-256); key generation
    # (domain included, random time) at 3072 bits, medians of 4: 2.2 s vs 6.2 s
    # (docs/compatibility-pubkey.md).
    ("dsa", "dsa", "dsa", "dsa_provider"),
    ("dsa-keygen", "dsa", "dsa", "keygen_provider"),
)
PRIMITIVES += tuple(
    PrimitiveSpec(name, family, (), (_openssl(module, factory),), "openssl")
    for name, family, module, factory in _PUBLIC_KEY
)

BY_NAME = {spec.name: spec for spec in PRIMITIVES}
FAMILIES = frozenset(spec.family for spec in PRIMITIVES)
