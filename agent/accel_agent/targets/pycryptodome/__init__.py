"""The pycryptodome target: ``Crypto.*`` (pycryptodome) and ``Cryptodome.*`` (pycryptodomex).

Both distributions ship the same code under two package names, so every
patch is registered for both prefixes. Supported: pycryptodome 3.15 and
later, 4.x, and pycryptodomex. Only this module is imported at start-up;
each family's patch code loads when its pycryptodome module is imported.
"""

from __future__ import annotations

PREFIXES = ("Crypto", "Cryptodome")

# pycryptodome module (without prefix) -> patch function in this package
_PATCHES = {
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


def hooks() -> list[tuple[str, str]]:
    """(watched module name, patch spec) for both package names."""
    return [
        ("%s.%s" % (prefix, module), patch)
        for prefix in PREFIXES
        for module, patch in _PATCHES.items()
    ]
