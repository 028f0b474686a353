"""AES key wrap through OpenSSL (pyca/cryptography): KW (RFC 3394) and KWP (RFC 5649).

Each is served by pyca/cryptography's ``keywrap`` functions as a one-shot
call. The provider knows nothing of pycryptodome.
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module


class KeyWrapProvider:
    """AES key wrap, RFC 3394 (``padded=False``) or RFC 5649 (``padded=True``)."""

    name = "openssl"

    def __init__(self, padded: bool) -> None:
        keywrap = cryptography_module("hazmat.primitives.keywrap")
        self.primitive = "aes-kwp" if padded else "aes-kw"
        if padded:
            self.wrap = keywrap.aes_key_wrap_with_padding
            self.unwrap = keywrap.aes_key_unwrap_with_padding
        else:
            self.wrap = keywrap.aes_key_wrap
            self.unwrap = keywrap.aes_key_unwrap
        self.InvalidUnwrap = keywrap.InvalidUnwrap


def kw_provider() -> KeyWrapProvider:
    return KeyWrapProvider(padded=False)


def kwp_provider() -> KeyWrapProvider:
    return KeyWrapProvider(padded=True)
