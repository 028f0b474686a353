"""Triple DES (DES-EDE3) through OpenSSL: ECB, CBC, CFB-8, CFB-64, OFB.

The generic modes of :mod:`.block_modes` over the
:data:`~.block_ciphers.TRIPLE_DES` record; nothing else is Triple DES's
own. OpenSSL has no CTR for it. OpenSSL ignores the parity bits of a DES
key, as pycryptodome does (it sets them before use), so a key gives the same
result with or without them; which keys are refused is the target's rule.
"""

from __future__ import annotations

from functools import partial

from accel_agent.providers.block_ciphers import TRIPLE_DES
from accel_agent.providers.block_modes import CfbProvider, ModeProvider

# The catalog's factories ("tdes:cbc_provider"), one per primitive.
ecb_provider = partial(ModeProvider, TRIPLE_DES, "ECB")
cbc_provider = partial(ModeProvider, TRIPLE_DES, "CBC")
ofb_provider = partial(ModeProvider, TRIPLE_DES, "OFB")
cfb_provider = partial(CfbProvider, TRIPLE_DES)
