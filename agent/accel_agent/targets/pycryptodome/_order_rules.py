"""pycryptodome's order rules for AEAD objects (GCM, ChaCha20-Poly1305, CCM, EAX), shared.

pycryptodome's AEAD classes keep in ``_next`` the methods a caller may
invoke next; the set depends only on the last method called. The
accelerated objects mirror it with these frozensets (compared by identity),
and :func:`replay` brings a fresh native object to the same state, without
data, so that it raises what native raises for a call out of order.

Every AEAD target binds these very objects (see ``METHODS`` and ``STATES``),
so the set each one compares ``_next`` with is the one defined here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY = "update", "encrypt", "decrypt", "digest", "verify"
AFTER_UPDATE = INITIAL = frozenset((UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY))
AFTER_ENCRYPT = frozenset((ENCRYPT, DIGEST))
AFTER_DECRYPT = frozenset((DECRYPT, VERIFY))
AFTER_DIGEST = frozenset((DIGEST,))
AFTER_VERIFY = frozenset((VERIFY,))
WITH_TWIN = frozenset()  # a native twin decides everything from now on

# In this order, for a target to bind as its own globals in one line each
# (``UPDATE, ENCRYPT, ... = _order_rules.METHODS``): its per-message paths read
# them as module globals, which an attribute lookup per use would slow down.
METHODS = (UPDATE, ENCRYPT, DECRYPT, DIGEST, VERIFY)
STATES = (INITIAL, AFTER_ENCRYPT, AFTER_DECRYPT, AFTER_DIGEST, AFTER_VERIFY)


def replay(twin: Any, allowed_next: frozenset) -> None:
    """Bring a fresh native AEAD object to the order-rule state ``allowed_next``, without data."""
    if allowed_next is AFTER_ENCRYPT:
        twin.encrypt(b"")
    elif allowed_next is AFTER_DECRYPT:
        twin.decrypt(b"")
    elif allowed_next is AFTER_DIGEST:
        twin.digest()
    elif allowed_next is AFTER_VERIFY:
        try:
            twin.verify(b"")
        except ValueError:
            pass  # the transition happened; the (empty) tag was wrong, as intended
