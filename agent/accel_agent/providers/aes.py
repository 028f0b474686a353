"""AES through OpenSSL (pyca/cryptography): ECB, CBC, CTR, CFB-8, CFB-128, OFB, GCM.

A provider hands out OpenSSL cipher contexts for a key and an IV, nonce or
counter block; it knows nothing of pycryptodome. The pycryptodome target
wraps these contexts in objects that behave like pycryptodome's own.
"""

from __future__ import annotations

from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable

KEY_SIZES = (16, 24, 32)
BLOCK_SIZE = 16
# pyca/cryptography accepts GCM nonces of 8..128 bytes (OpenSSL's own limits
# are wider); pycryptodome accepts any non-empty length: the rest stay native.
GCM_NONCE_SIZES = range(8, 129)
GCM_MIN_TAG = 4


def _cryptography_ciphers():
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None
    return Cipher, algorithms, modes


def _mode_class(modes, mode_name: str):
    """pyca/cryptography moved CFB, CFB8 and OFB to its ``decrepit`` package (43.0)."""
    try:
        from cryptography.hazmat.decrepit.ciphers import modes as decrepit_modes
    except ImportError:
        decrepit_modes = None
    if decrepit_modes is not None and hasattr(decrepit_modes, mode_name):
        return getattr(decrepit_modes, mode_name)
    return getattr(modes, mode_name)


def _context_makers(cipher):
    """(make encryptor, make decryptor) from an algorithm and a mode object.

    ``Cipher(algorithm, mode).encryptor()`` validates its arguments in Python
    and then calls ``create_encryption_ctx``: about a microsecond per message
    that the agent, having validated key, IV and nonce exactly as pycryptodome
    does, need not pay twice. Where that binding is absent (its module path is
    pyca/cryptography's own, not a promise) the public API is used; either
    way the known-answer tests run through the maker chosen here.
    """
    try:
        from cryptography.hazmat.bindings._rust import openssl as rust_openssl

        return (
            rust_openssl.ciphers.create_encryption_ctx,
            rust_openssl.ciphers.create_decryption_ctx,
        )
    except (ImportError, AttributeError):
        return (
            lambda algorithm, mode: cipher(algorithm, mode).encryptor(),
            lambda algorithm, mode: cipher(algorithm, mode).decryptor(),
        )


class ModeProvider:
    """One AES mode of operation: contexts whose ``update`` encrypts or decrypts.

    ``mode_name`` is the pyca/cryptography mode class (``"CBC"``, ``"CFB8"``...);
    ECB takes no IV, every other mode takes one 16-byte value.
    """

    name = "openssl"

    def __init__(self, primitive: str, mode_name: str, shares_key_with: tuple = ()) -> None:
        cipher, algorithms, modes = _cryptography_ciphers()
        self.primitive = primitive
        self._encryption_context, self._decryption_context = _context_makers(cipher)
        # algorithms.AES(key) validates in Python (~370 ns a message): the
        # last key object's is reused (base.LastKeyReuse).
        self.keys = LastKeyReuse(algorithms.AES, shares_key_with=shares_key_with)
        self._aes = self.keys.for_key
        self._mode = _mode_class(modes, mode_name)
        self._ecb = mode_name == "ECB"

    def encryptor(self, key: bytes, iv: bytes | None = None):
        mode = self._mode() if self._ecb else self._mode(iv)
        return self._encryption_context(self._aes(key), mode)

    def decryptor(self, key: bytes, iv: bytes | None = None):
        mode = self._mode() if self._ecb else self._mode(iv)
        return self._decryption_context(self._aes(key), mode)


class CfbProvider:
    """AES-CFB with the two segment sizes OpenSSL has: 8 and 128 bits."""

    name = "openssl"
    primitive = "aes-cfb"
    SEGMENT_SIZES = (8, 128)

    def __init__(self) -> None:
        cfb8 = ModeProvider("aes-cfb", "CFB8")
        # One key for both segment sizes' caches (base.LastKeyReuse).
        cfb128 = ModeProvider("aes-cfb", "CFB", shares_key_with=(cfb8.keys,))
        self._by_segment = {8: cfb8, 128: cfb128}

    def encryptor(self, key: bytes, iv: bytes, segment_size: int):
        return self._by_segment[segment_size].encryptor(key, iv)

    def decryptor(self, key: bytes, iv: bytes, segment_size: int):
        return self._by_segment[segment_size].decryptor(key, iv)


class GcmProvider:
    """AES-GCM: one-shot AEAD calls for whole messages, streaming contexts otherwise."""

    name = "openssl"
    primitive = "aes-gcm"

    def __init__(self) -> None:
        cipher, algorithms, modes = _cryptography_ciphers()
        from cryptography.exceptions import AlreadyFinalized, InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._encryption_context, self._decryption_context = _context_makers(cipher)
        streaming_keys = LastKeyReuse(algorithms.AES)  # as ModeProvider's
        self._aes = streaming_keys.for_key
        self._gcm = modes.GCM
        # one_shot(key).encrypt(nonce, data, aad) -> ct || 16-byte tag; the
        # AESGCM object of the last key object is reused (base.LastKeyReuse).
        # One key for both caches: a new key in either drops the other's.
        self.one_shot = LastKeyReuse(AESGCM, shares_key_with=(streaming_keys,)).for_key
        self.InvalidTag = InvalidTag
        # What a context raises when another thread finalized it meanwhile.
        self.AlreadyFinalized = AlreadyFinalized

    def encryptor(self, key: bytes, nonce: bytes):
        return self._encryption_context(self._aes(key), self._gcm(nonce))

    def decryptor(self, key: bytes, nonce: bytes):
        """A context that checks the tag given to ``finalize_with_tag`` (4..16 bytes)."""
        mode = self._gcm(nonce, min_tag_length=GCM_MIN_TAG)
        return self._decryption_context(self._aes(key), mode)


def ecb_provider() -> ModeProvider:
    return ModeProvider("aes-ecb", "ECB")


def cbc_provider() -> ModeProvider:
    return ModeProvider("aes-cbc", "CBC")


def ctr_provider() -> ModeProvider:
    """CTR over a full 16-byte counter block (OpenSSL increments all 128 bits)."""
    return ModeProvider("aes-ctr", "CTR")


def ofb_provider() -> ModeProvider:
    return ModeProvider("aes-ofb", "OFB")


def cfb_provider() -> CfbProvider:
    return CfbProvider()


def gcm_provider() -> GcmProvider:
    return GcmProvider()
