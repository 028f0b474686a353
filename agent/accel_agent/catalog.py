"""Every primitive the agent knows, and its providers in priority order, as data.

Declarative (style.md #7): a primitive is a name, a family, the CPU
capabilities its fast providers need, and the providers that can serve it,
each named as ``"module:factory"`` so that nothing heavy is imported until a
primitive is first used. ``native`` is never listed: it is what remains when
no provider passes its gates.
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


class PrimitiveSpec:
    """One algorithm as the registry sees it."""

    __slots__ = ("name", "family", "requires", "providers")

    def __init__(
        self, name: str, family: str, requires: tuple[str, ...], providers: tuple[ProviderSpec, ...]
    ) -> None:
        self.name = name  # "aes-ecb"
        self.family = family  # "aes": what ACCEL_AGENT_EXCLUDE=aes switches off
        self.requires = requires  # platform capabilities ("aes", "clmul", "sha")
        self.providers = providers

    def __repr__(self) -> str:
        return "PrimitiveSpec(%r)" % self.name


def _openssl(module: str, factory: str) -> ProviderSpec:
    return ProviderSpec("openssl", "accel_agent.providers.%s:%s" % (module, factory))


PRIMITIVES: tuple[PrimitiveSpec, ...] = (
    PrimitiveSpec("aes-ecb", "aes", ("aes",), (_openssl("aes", "ecb_provider"),)),
    PrimitiveSpec("aes-cbc", "aes", ("aes",), (_openssl("aes", "cbc_provider"),)),
    PrimitiveSpec("aes-ctr", "aes", ("aes",), (_openssl("aes", "ctr_provider"),)),
    PrimitiveSpec("aes-cfb", "aes", ("aes",), (_openssl("aes", "cfb_provider"),)),
    PrimitiveSpec("aes-ofb", "aes", ("aes",), (_openssl("aes", "ofb_provider"),)),
    # GCM's speed rests on carry-less multiplication as much as on AES rounds.
    PrimitiveSpec("aes-gcm", "aes", ("aes", "clmul"), (_openssl("aes", "gcm_provider"),)),
    # One-shot OpenSSL primitives (AESOCB3, AESSIV, RFC 3394/5649 key wrap).
    PrimitiveSpec("aes-ocb", "aes", ("aes",), (_openssl("aes_ocb_siv_kw", "ocb_provider"),)),
    PrimitiveSpec("aes-siv", "aes", ("aes",), (_openssl("aes_ocb_siv_kw", "siv_provider"),)),
    PrimitiveSpec("aes-kw", "aes", ("aes",), (_openssl("aes_ocb_siv_kw", "kw_provider"),)),
    PrimitiveSpec("aes-kwp", "aes", ("aes",), (_openssl("aes_ocb_siv_kw", "kwp_provider"),)),
    PrimitiveSpec("aes-ccm", "aes", ("aes",), (_openssl("aes_ccm_eax", "ccm_provider"),)),
    PrimitiveSpec("aes-eax", "aes", ("aes",), (_openssl("aes_ccm_eax", "eax_provider"),)),
    # ChaCha20 is fast in portable SIMD code: no CPU feature is required.
    PrimitiveSpec("chacha20", "chacha", (), (_openssl("chacha", "chacha20_provider"),)),
    PrimitiveSpec(
        "chacha20-poly1305", "chacha", (), (_openssl("chacha", "chacha20_poly1305_provider"),)
    ),
    PrimitiveSpec(
        "xchacha20-poly1305", "chacha", (), (_openssl("chacha", "xchacha20_poly1305_provider"),)
    ),
)

# Hashes, MACs and KDFs. OpenSSL's SHA-1/SHA-256 use SHA-NI where
# the CPU has it, but are fast enough without: no requirement, calibration decides.
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
    PrimitiveSpec("scrypt", "kdf", (), _hashlib_then_openssl("scrypt")),
    PrimitiveSpec("hkdf", "kdf", (), _hashlib_then_openssl("hkdf")),
    PrimitiveSpec("aes-cmac", "cmac", ("aes",), (_openssl("macs", "cmac_provider"),)),
    PrimitiveSpec("poly1305", "poly1305", (), (_openssl("macs", "poly1305_provider"),)),
)

# Public keys: families "rsa" and "ecc" (ACCEL_AGENT_EXCLUDE=rsa,ecc).
# Big-number arithmetic needs no CPU feature: calibration decides.
_PUBLIC_KEY = (
    ("rsa-pkcs1v15-sign", "rsa", "rsa", "pkcs1v15_signature_provider"),
    ("rsa-pss", "rsa", "rsa", "pss_provider"),
    ("rsa-oaep", "rsa", "rsa", "oaep_provider"),
    ("rsa-pkcs1v15-encrypt", "rsa", "rsa", "pkcs1v15_encryption_provider"),
    ("rsa-keygen", "rsa", "rsa", "keygen_provider"),
    ("ecdsa-p256", "ecc", "ecc", "ecdsa_p256_provider"),
    ("ecdsa-p384", "ecc", "ecc", "ecdsa_p384_provider"),
    ("ecdsa-p521", "ecc", "ecc", "ecdsa_p521_provider"),
    # Served for python-ecdsa: its curves that OpenSSL also has.
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
)
PRIMITIVES += tuple(
    PrimitiveSpec(name, family, (), (_openssl(module, factory),))
    for name, family, module, factory in _PUBLIC_KEY
)

BY_NAME = {spec.name: spec for spec in PRIMITIVES}
FAMILIES = frozenset(spec.family for spec in PRIMITIVES)
