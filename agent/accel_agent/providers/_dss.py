"""What the DSA and ECDSA providers share: DSS signatures (r, s), in DER, over a digest.

Both schemes sign a digest the caller computed (``Prehashed``, one per
hash object identifier of :func:`._digests.algorithms_by_oid`), and both
write a signature as the DER ``SEQUENCE {r, s}``; only the signature
algorithm around the digest differs (ECDSA wraps it in ``ec.ECDSA``).
"""

from __future__ import annotations

from accel_agent.providers._digests import algorithms_by_oid
from accel_agent.providers._pyca import cryptography_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


class DssSignatures:
    """Verification of (r, s) and DER's encoding and decoding, for a DSA or ECDSA provider."""

    def __init__(self, scheme: Callable[[object], object] | None = None) -> None:
        """``scheme``: the signature algorithm of a ``Prehashed`` hash (None: the hash itself)."""
        utils = cryptography_module("hazmat.primitives.asymmetric.utils")
        self._InvalidSignature = cryptography_module("exceptions").InvalidSignature
        self._decode = utils.decode_dss_signature
        self.encode_der = utils.encode_dss_signature
        self._by_oid = algorithms_by_oid()
        self._prehashed = {
            oid: utils.Prehashed(a) if scheme is None else scheme(utils.Prehashed(a))
            for oid, a in self._by_oid.items()
        }

    def algorithm(self, oid: str):
        return self._by_oid.get(oid)

    def decode_der(self, signature: bytes) -> tuple[int, int]:
        """(r, s) of a DER signature; ValueError when it is not DER."""
        return self._decode(signature)

    def verify(self, public_key, r: int, s: int, digest: bytes, oid: str) -> bool:
        try:
            public_key.verify(self.encode_der(r, s), digest, self._prehashed[oid])
        except self._InvalidSignature:
            return False
        return True
