"""``Crypto.Signature.DSS`` with DSA keys served by OpenSSL: what the DSS patch asks of it.

* **Signing** in mode ``fips-186-3`` without a ``randfunc`` of the user's:
  OpenSSL draws the nonce and signs, over the digest native code signs
  (its leftmost bytes up to the length of q, as both truncate), in the
  scheme's encoding (``binary``: r and s on the length of q each; ``der``:
  the strict DER that native code also writes). Random-nonce signatures
  differ from run to run; each is one native code could have made.
* **Signing** in mode ``deterministic-rfc6979`` stays native, by choice:
  pyca/cryptography offers neither RFC 6979 DSA nor a DSA signature with
  the caller's nonce, and the one other OpenSSL route to g^k mod p (finite
  field Diffie-Hellman with the nonce as private key) checks the domain on
  every key it loads (hundreds of milliseconds) and costs more than native's
  whole signature even without that.
* **Verifying** in both modes: a signature OpenSSL accepts is one native
  code accepts (the same equation, over the same truncated digest, after
  native's checks of the encoding and of 0 < r, s < q, made here first);
  anything else is judged again by the native method, which raises its own
  ``ValueError``.

Only keys whose p and q have a FIPS 186-4 pair of sizes are served (what
``fips-186-3`` requires anyway); hashes OpenSSL does not know, a key
OpenSSL refuses and any exception of OpenSSL's go to native code.
"""

from __future__ import annotations

from accel_agent.targets.pycryptodome import _pubkey_common as common
from accel_agent.targets.pycryptodome import _pubkey_twins as twins

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def sign(scheme: Any, provider: Any, msg_hash: Any) -> bytes | None:
    """OpenSSL's random-nonce signature in the scheme's encoding, or None for "native"."""
    key = scheme._key
    # Native's own checks first (a private key, a FIPS hash): their errors are native's.
    if not key.has_private() or not scheme._valid_hash(msg_hash):
        return None
    found = common.digest_and_oid(provider, msg_hash)
    private = found and twins.dsa_private(key, provider)
    if not private:
        return None
    try:
        der = provider.sign(private, found[0], found[1])
        if scheme._encoding == "der":
            return der
        r, s = provider.decode_der(der)
    except Exception:  # noqa: BLE001 - native decides
        return None
    size = scheme._order_bytes
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def verify(scheme: Any, provider: Any, msg_hash: Any, signature: Any) -> bool:
    """True when OpenSSL accepts the signature (native code then accepts it too)."""
    order = common.order_value(scheme._order)
    decoded = common.decode_signature(scheme, provider, msg_hash, signature, order)
    if decoded is None:
        return False
    public = twins.dsa_public(scheme._key, provider)
    if not public:
        return False
    digest, oid, r, s = decoded
    try:
        return provider.verify(public, r, s, digest, oid)
    except Exception:  # noqa: BLE001
        return False
