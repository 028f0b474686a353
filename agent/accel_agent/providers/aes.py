"""AES through OpenSSL (pyca/cryptography): ECB, CBC, CTR, CFB-8, CFB-128, OFB, GCM.

The classic modes are the generic ones of :mod:`.block_modes` over the
:data:`~.block_ciphers.AES` record; GCM is AES's own. A provider hands out
OpenSSL cipher contexts for a key and an IV, nonce or counter block; it
knows nothing of pycryptodome.
"""

from __future__ import annotations

from functools import partial

from accel_agent.providers._pyca import context_makers
from accel_agent.providers.base import LastKeyReuse
from accel_agent.providers.block_ciphers import (
    AES,
    algorithm_class,
    cryptography_ciphers,
    mode_class,
)
from accel_agent.providers.block_modes import CfbProvider, CtrProvider, ModeProvider

# pyca/cryptography accepts GCM nonces of 8..128 bytes (block_ciphers.
# GCM_NONCE_SIZES; OpenSSL's own limits are wider); pycryptodome accepts any
# non-empty length: the rest stay native.
GCM_MIN_TAG = 4


class GcmProvider:
    """AES-GCM: one-shot AEAD calls for whole messages, streaming contexts otherwise."""

    name = "openssl"
    primitive = "aes-gcm"

    def __init__(self) -> None:
        cryptography_ciphers()  # ProviderUnavailable, with its reason, where it cannot load
        from cryptography.exceptions import AlreadyFinalized, InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._encryption_context, self._decryption_context = context_makers()
        streaming_keys = LastKeyReuse(algorithm_class(AES))  # as ModeProvider's
        self.algorithm = streaming_keys.for_key
        self._gcm = mode_class("GCM")
        # one_shot(key).encrypt(nonce, data, aad) -> ct || 16-byte tag; the
        # AESGCM object of the last key object is reused (base.LastKeyReuse).
        # One key for both caches: a new key in either drops the other's.
        self.one_shot = LastKeyReuse(AESGCM, shares_key_with=(streaming_keys,)).for_key
        self.InvalidTag = InvalidTag
        # What a context raises when another thread finalized it meanwhile.
        self.AlreadyFinalized = AlreadyFinalized

    def encryptor(self, key: bytes, nonce: bytes):
        return self._encryption_context(self.algorithm(key), self._gcm(nonce))

    def decryptor(self, key: bytes, nonce: bytes):
        """A context that checks the tag given to ``finalize_with_tag`` (4..16 bytes)."""
        mode = self._gcm(nonce, min_tag_length=GCM_MIN_TAG)
        return self._decryption_context(self.algorithm(key), mode)


# The catalog's factories ("aes:cbc_provider"), one per primitive. CTR: OpenSSL's
# for a 16-byte counter block, ECB for counter blocks laid out otherwise.
ecb_provider = partial(ModeProvider, AES, "ECB")
cbc_provider = partial(ModeProvider, AES, "CBC")
ctr_provider = partial(CtrProvider, AES)
ofb_provider = partial(ModeProvider, AES, "OFB")
cfb_provider = partial(CfbProvider, AES)
gcm_provider = GcmProvider
