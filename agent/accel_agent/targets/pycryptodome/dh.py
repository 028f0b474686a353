"""``Crypto.Protocol.DH.key_agreement``: its ECDH computations through OpenSSL.

``key_agreement`` checks its arguments (key types, curves, which of the
static and ephemeral keys are there), computes one or two shared secrets
with the module's ``_compute_ecdh(private, public)`` and calls the KDF on
their concatenation. Only ``_compute_ecdh`` is replaced: every check, the
mode logic, the order of the secrets and the KDF call stay native, in 3.x
and 4.x alike.

The shared secret is what native code returns: the x coordinate of d·Q,
big-endian and as long as the field, for the NIST curves (``bytes``), the
little-endian u coordinate for X25519 and X448 (a ``bytearray``, as
native's). A secret OpenSSL refuses to return (all zeros: a small-order
point on X25519/X448) is computed natively, which raises its own error.
"""

from __future__ import annotations

import functools

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _pubkey_twins as twins
from accel_agent.targets.pycryptodome._pubkey_common import with_curve_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

# pycryptodome's canonical curve name -> (primitive, Montgomery curve?)
ECDH_PRIMITIVES = {
    "NIST P-256": ("ecdh-p256", False),
    "NIST P-384": ("ecdh-p384", False),
    "NIST P-521": ("ecdh-p521", False),
    "Curve25519": ("x25519", True),
    "Curve448": ("x448", True),
}


def patch_dh(module: ModuleType) -> None:
    """Install the OpenSSL ``_compute_ecdh`` in one ``Protocol.DH`` module."""
    original = module._compute_ecdh
    slots = with_curve_names(
        {
            curve: (registry.slot(primitive), montgomery)
            for curve, (primitive, montgomery) in ECDH_PRIMITIVES.items()
        }
    )

    def _compute_ecdh(key_priv: Any, key_pub: Any) -> Any:
        curve = getattr(key_priv, "curve", None)
        entry = slots.get(curve)
        if entry is not None and slots.get(getattr(key_pub, "curve", None)) is entry:
            slot, montgomery = entry
            provider = slot.get()
            if provider is not None:
                shared = _exchange(provider, key_priv, key_pub, montgomery)
                if shared is not None:
                    slot.calls += 1
                    return bytearray(shared) if montgomery else shared
        return original(key_priv, key_pub)

    functools.update_wrapper(_compute_ecdh, original)
    patching.patch_attribute(module, "_compute_ecdh", _compute_ecdh)


def _exchange(provider: Any, key_priv: Any, key_pub: Any, montgomery: bool) -> bytes | None:
    if montgomery:
        private, public = twins.xdh_private(key_priv, provider), twins.xdh_public(key_pub, provider)
    else:
        private, public = twins.ec_private(key_priv, provider), twins.ec_public(key_pub, provider)
    if not private or not public:
        return None
    try:
        return provider.exchange(private, public)
    except Exception:  # noqa: BLE001 - ValueError for an all-zero secret: native raises
        return None
