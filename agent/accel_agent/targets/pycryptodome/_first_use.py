"""The lock held while a new cipher object opens its OpenSSL context.

Its own module, so that a cipher that has no block mode (ChaCha20,
ChaCha20-Poly1305) takes it without importing the block-mode code.
"""

from __future__ import annotations

from accel_agent import forksafe

# Held while a new object opens its OpenSSL context (and while a twin is
# made): reentrant, since pycryptodome's own GCM builds CTR objects through new.
# Renewed in a forked child (forksafe): a thread that opened a context at the
# fork does not exist there.
FIRST_USE_LOCK = forksafe.rlock(globals(), "FIRST_USE_LOCK")
