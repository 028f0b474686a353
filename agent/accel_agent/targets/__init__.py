"""Targets: one per patched library, each mapping its API onto providers.

:data:`HOOKS` is all the start-up path needs from here: which module names to
watch and which ``"module:function"`` patches them. It is plain data in this
one module, so that activation imports no target package: each target's
code (its package included) loads only when a module it watches is imported,
or, for pycryptodome, when a function its patch replaces is first called
(:data:`FIRST_CALL`; docs/activation.md, "Start-up cost").
"""

from __future__ import annotations

# ------------------------------------------------------------------ pycryptodome
# ``Crypto.*`` (pycryptodome) and ``Cryptodome.*`` (pycryptodomex) ship the same
# code under two package names: every patch is registered for both prefixes.

PREFIXES = ("Crypto", "Cryptodome")

# pycryptodome module (without prefix) -> patch function in this package
PYCRYPTODOME_PATCHES = {
    "Cipher.AES": "accel_agent.targets.pycryptodome.aes:patch",
    "Cipher.DES3": "accel_agent.targets.pycryptodome.des3:patch",
    # Hashes, MACs and KDFs: one hook per pycryptodome module.
    **{
        "Hash." + name: "accel_agent.targets.pycryptodome.hashes:patch"
        for name in ("MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512")
        + ("SHA3_224", "SHA3_256", "SHA3_384", "SHA3_512", "SHAKE128", "SHAKE256")
        + ("BLAKE2b", "BLAKE2s", "RIPEMD160", "RIPEMD")
    },
    "Hash.HMAC": "accel_agent.targets.pycryptodome.hmac:patch",
    "Hash.CMAC": "accel_agent.targets.pycryptodome.cmac:patch",
    "Hash.Poly1305": "accel_agent.targets.pycryptodome.poly1305:patch",
    "Protocol.KDF": "accel_agent.targets.pycryptodome.kdf:patch",
    "Cipher.ChaCha20": "accel_agent.targets.pycryptodome.chacha:patch_chacha20",
    "Cipher.ChaCha20_Poly1305": "accel_agent.targets.pycryptodome.chacha:patch_chacha20_poly1305",
    # Public keys. "Cipher.oaep" exists in pycryptodome 4.x only.
    "PublicKey.RSA": "accel_agent.targets.pycryptodome.pubkey:patch_rsa",
    "PublicKey.ECC": "accel_agent.targets.pycryptodome.pubkey:patch_ecc",
    "PublicKey.DSA": "accel_agent.targets.pycryptodome.pubkey:patch_dsa",
    "Signature.pkcs1_15": "accel_agent.targets.pycryptodome.signature:patch_pkcs1_15",
    "Signature.pss": "accel_agent.targets.pycryptodome.signature:patch_pss",
    "Signature.DSS": "accel_agent.targets.pycryptodome.signature:patch_dss",
    "Signature.eddsa": "accel_agent.targets.pycryptodome.signature:patch_eddsa",
    "Cipher.PKCS1_OAEP": "accel_agent.targets.pycryptodome.rsa_cipher:patch_pkcs1_oaep",
    "Cipher.oaep": "accel_agent.targets.pycryptodome.rsa_cipher:patch_oaep",
    "Cipher.PKCS1_v1_5": "accel_agent.targets.pycryptodome.rsa_cipher:patch_pkcs1_v1_5",
    "Protocol.DH": "accel_agent.targets.pycryptodome.dh:patch_dh",
}


# What each pycryptodome patch replaces: module-level functions only. The
# import puts a stand-in in each, and the patch's code loads at the first call
# of one of them (accel_agent.hooks.FirstCallPatch); a name the module lacks
# (``digest`` before pycryptodome 4.0) is left alone. tests/test_startup.py
# checks that these are the names each patch replaces.
_HASH_NAMES = ("new", "digest")
PYCRYPTODOME_FIRST_CALL = {
    **dict.fromkeys(PYCRYPTODOME_PATCHES, ("new",)),
    "Hash.RIPEMD": (),  # an alias of RIPEMD160's new, patched at once to what that holds
    **{
        "Hash." + name: _HASH_NAMES
        for name in ("MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512")
        + ("SHA3_224", "SHA3_256", "SHA3_384", "SHA3_512", "SHAKE128", "SHAKE256")
        + ("BLAKE2b", "BLAKE2s", "RIPEMD160")
    },
    "Protocol.KDF": ("HKDF", "PBKDF2", "scrypt"),
    "PublicKey.RSA": ("generate",),
    "PublicKey.ECC": ("generate",),
    "PublicKey.DSA": ("generate",),
    "Protocol.DH": ("_compute_ecdh",),
}

# watched module name -> patch function spec
HOOKS: dict[str, str] = {
    "%s.%s" % (prefix, module): patch
    for prefix in PREFIXES
    for module, patch in PYCRYPTODOME_PATCHES.items()
}
# watched module name -> the names its patch replaces, for the patches that
# wait for a first call (the others patch at the import)
FIRST_CALL: dict[str, tuple[str, ...]] = {
    "%s.%s" % (prefix, module): names
    for prefix in PREFIXES
    for module, names in PYCRYPTODOME_FIRST_CALL.items()
    if names
}
# The standard library's hashlib and hmac: OpenSSL constructors where
# the interpreter has builtin code only, OpenSSL's HMAC for pycryptodome digestmods.
HOOKS.update(
    {
        "hashlib": "accel_agent.targets.hashlib_backend:patch_hashlib",
        "hmac": "accel_agent.targets.hashlib_backend:patch_hmac",
    }
)
# python-rsa: rsa.pkcs1, rsa.key and the rsa package's re-exports; "rsa"
# after its submodules (dicts keep order): see accel_agent.targets.python_rsa.
HOOKS.update(
    {
        "rsa.key": "accel_agent.targets.python_rsa.patches:patch_key",
        "rsa.pkcs1": "accel_agent.targets.python_rsa.patches:patch_pkcs1",
        "rsa": "accel_agent.targets.python_rsa:patch_package",
    }
)
# Its submodules' patches, too, wait for the first call of a function they
# replace; the package's re-exports follow them (python_rsa.patch_package).
FIRST_CALL.update({"rsa.key": ("newkeys",), "rsa.pkcs1": ("sign_hash", "verify", "encrypt")})
# python-ecdsa: its key classes, in ecdsa.keys.
HOOKS["ecdsa.keys"] = "accel_agent.targets.python_ecdsa.keys:patch_keys"
# pyaes: its mode classes, then (pyaes/__init__.py imports aes, then
# blockfeeder, which adds the feeders' methods to the mode classes) its block feeders.
HOOKS.update(
    {
        "pyaes.aes": "accel_agent.targets.pyaes.modes:patch",
        "pyaes.blockfeeder": "accel_agent.targets.pyaes.feeder:patch",
    }
)
# starkbank-ecdsa: its Ecdsa class, in ellipticcurve.ecdsa.
HOOKS["ellipticcurve.ecdsa"] = "accel_agent.targets.starkbank_ecdsa.signing:patch_ecdsa"
# pyDes: its des and triple_des classes.
HOOKS["pyDes"] = "accel_agent.targets.pydes.ciphers:patch"
