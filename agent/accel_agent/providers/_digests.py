"""Hash algorithms of the public-key providers, found by their ASN.1 object identifier.

A signature scheme is handed a finished digest and the identifier of the
hash that made it; OpenSSL needs the algorithm object. The table is the
standard identifiers (RFC 8017 appendix B.1, NIST's CSOR registry) of the
hashes OpenSSL signs, pads and masks with: SHA-1, SHA-2 and SHA-3. Anything
else (MD5, RIPEMD-160, BLAKE2, an unknown object) has no entry, and the
caller serves it natively.
"""

from __future__ import annotations

from accel_agent.providers.base import ProviderUnavailable

_NIST_HASHES = "2.16.840.1.101.3.4.2."

# object identifier -> pyca/cryptography class name in hazmat.primitives.hashes
OID_NAMES: dict[str, str] = {
    "1.3.14.3.2.26": "SHA1",
    _NIST_HASHES + "4": "SHA224",
    _NIST_HASHES + "1": "SHA256",
    _NIST_HASHES + "2": "SHA384",
    _NIST_HASHES + "3": "SHA512",
    _NIST_HASHES + "5": "SHA512_224",
    _NIST_HASHES + "6": "SHA512_256",
    _NIST_HASHES + "7": "SHA3_224",
    _NIST_HASHES + "8": "SHA3_256",
    _NIST_HASHES + "9": "SHA3_384",
    _NIST_HASHES + "10": "SHA3_512",
}


def cryptography_module(dotted: str):
    """``cryptography.<dotted>``, or ProviderUnavailable with the reason."""
    import importlib

    try:
        return importlib.import_module("cryptography." + dotted)
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None


def algorithms_by_oid() -> dict[str, object]:
    """Object identifier -> a pyca/cryptography hash algorithm instance, for those it has."""
    hashes = cryptography_module("hazmat.primitives.hashes")
    table = {}
    for oid, name in OID_NAMES.items():
        algorithm_class = getattr(hashes, name, None)
        if algorithm_class is not None:
            table[oid] = algorithm_class()
    return table
