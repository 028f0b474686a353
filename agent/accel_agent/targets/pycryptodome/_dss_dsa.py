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

from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome import _pubkey_twins as twins
from accel_agent.targets.pycryptodome._pubkey_common import digest_and_oid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _plain_bytes(data: Any) -> bytes | None:
    if type(data) is bytes:
        return data
    if _buffers.is_plain(data):
        return bytes(data)
    return None


def sign(scheme: Any, provider: Any, msg_hash: Any) -> bytes | None:
    """OpenSSL's random-nonce signature in the scheme's encoding, or None for "native"."""
    key = scheme._key
    # Native's own checks first (a private key, a FIPS hash): their errors are native's.
    if not key.has_private() or not scheme._valid_hash(msg_hash):
        return None
    found = digest_and_oid(provider, msg_hash)
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
    if scheme._encoding == "binary":
        data = _plain_bytes(signature)
    else:  # native's strict DER decoder takes bytes only
        data = signature if type(signature) is bytes else None
    if data is None or not scheme._valid_hash(msg_hash):
        return False
    found = digest_and_oid(provider, msg_hash)
    if not found:
        return False
    if scheme._encoding == "binary":
        size = scheme._order_bytes
        if len(data) != 2 * size:
            return False
        r = int.from_bytes(data[:size], "big")
        s = int.from_bytes(data[size:], "big")
    else:
        try:
            r, s = provider.decode_der(data)
            if provider.encode_der(r, s) != data:
                return False
        except Exception:  # noqa: BLE001 - not DER: native's message
            return False
    order = int(scheme._order)
    if not (0 < r < order and 0 < s < order):
        return False
    public = twins.dsa_public(scheme._key, provider)
    if not public:
        return False
    try:
        return provider.verify(public, r, s, found[0], found[1])
    except Exception:  # noqa: BLE001
        return False
