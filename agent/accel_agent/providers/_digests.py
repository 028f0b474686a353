"""Hash algorithms of the public-key providers, found by their ASN.1 object identifier.

A signature scheme is handed a finished digest and the identifier of the
hash that made it; OpenSSL needs the algorithm object. The table is the
standard identifiers (RFC 8017 appendix B.1, NIST's CSOR registry) of the
hashes OpenSSL signs, pads and masks with: SHA-1, SHA-2 and SHA-3, the
``signing_oid`` of their records in :mod:`.hash_algorithms`. Anything
else (MD5, RIPEMD-160, BLAKE2, an unknown object) has no entry, and the
caller serves it natively.
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module
from accel_agent.providers.hash_algorithms import ALGORITHMS

# object identifier -> pyca/cryptography class name in hazmat.primitives.hashes
OID_NAMES: dict[str, str] = {
    a.signing_oid: a.cryptography_name for a in ALGORITHMS if a.signing_oid is not None
}


def algorithms_by_oid() -> dict[str, object]:
    """Object identifier -> a pyca/cryptography hash algorithm instance, for those it has."""
    hashes = cryptography_module("hazmat.primitives.hashes")
    table = {}
    for oid, name in OID_NAMES.items():
        algorithm_class = getattr(hashes, name, None)
        if algorithm_class is not None:
            table[oid] = algorithm_class()
    return table
