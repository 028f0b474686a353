"""AES-OCB3, AES-SIV and AES key wrap (KW, KWP) through OpenSSL (pyca/cryptography).

Each of these is served by OpenSSL's matching primitive as a one-shot call:
OCB3 (RFC 7253) and SIV (RFC 5297) through pyca/cryptography's ``AESOCB3``
and ``AESSIV`` AEAD classes, key wrap (RFC 3394) and key wrap with padding
(RFC 5649) through its ``keywrap`` functions. The providers know nothing of
pycryptodome; the limits the target must respect (nonce and tag sizes) are
stated here as data.
"""

from __future__ import annotations

from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable

KEY_SIZES = (16, 24, 32)
SIV_KEY_SIZES = (32, 48, 64)  # two AES keys: one for S2V (CMAC), one for CTR
# pyca/cryptography's AESOCB3 takes 12..15-byte nonces and makes 16-byte tags;
# OCB3 encodes the tag length into its nonce block, so a shorter tag is not a
# truncated 16-byte one and cannot be served.
OCB_NONCE_SIZES = range(12, 16)
OCB_TAG_SIZE = 16
SIV_TAG_SIZE = 16


def _aead(name: str):
    try:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers import aead
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None
    one_shot = getattr(aead, name, None)
    if one_shot is None:
        raise ProviderUnavailable("pyca/cryptography has no %s (too old)" % name)
    return LastKeyReuse(one_shot).for_key, InvalidTag


class OcbProvider:
    """AES-OCB3: ``one_shot(key).encrypt(nonce, data, aad)`` -> ciphertext || 16-byte tag."""

    name = "openssl"
    primitive = "aes-ocb"

    def __init__(self) -> None:
        self.one_shot, self.InvalidTag = _aead("AESOCB3")


class SivProvider:
    """AES-SIV: ``one_shot(key).encrypt(data, [ad, ..., nonce])`` -> 16-byte tag || ciphertext."""

    name = "openssl"
    primitive = "aes-siv"

    def __init__(self) -> None:
        self.one_shot, self.InvalidTag = _aead("AESSIV")


class KeyWrapProvider:
    """AES key wrap, RFC 3394 (``padded=False``) or RFC 5649 (``padded=True``)."""

    name = "openssl"

    def __init__(self, padded: bool) -> None:
        try:
            from cryptography.hazmat.primitives import keywrap
        except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
            raise ProviderUnavailable(
                "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
            ) from None
        self.primitive = "aes-kwp" if padded else "aes-kw"
        if padded:
            self.wrap = keywrap.aes_key_wrap_with_padding
            self.unwrap = keywrap.aes_key_unwrap_with_padding
        else:
            self.wrap = keywrap.aes_key_wrap
            self.unwrap = keywrap.aes_key_unwrap
        self.InvalidUnwrap = keywrap.InvalidUnwrap


def ocb_provider() -> OcbProvider:
    return OcbProvider()


def siv_provider() -> SivProvider:
    return SivProvider()


def kw_provider() -> KeyWrapProvider:
    return KeyWrapProvider(padded=False)


def kwp_provider() -> KeyWrapProvider:
    return KeyWrapProvider(padded=True)
