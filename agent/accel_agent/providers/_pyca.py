"""Reaching pyca/cryptography: its modules, or the reason a provider cannot use them.

Every provider that runs on pyca/cryptography imports it through here, at
its first use (never at start-up): a missing or broken installation
becomes :class:`~.base.ProviderUnavailable` with one reason, the same
wherever it is met, and no exception of pyca/cryptography's escapes.
"""

from __future__ import annotations

import sys

from accel_agent.providers.base import ProviderUnavailable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def cryptography_module(dotted: str):
    """``cryptography.<dotted>``, or ProviderUnavailable with the reason.

    ``__import__`` and ``sys.modules``, not ``importlib.import_module``: a
    program that never imported ``importlib`` (pyaes's, python-rsa's) does not
    load it for this.
    """
    name = "cryptography." + dotted
    try:
        __import__(name)
        return sys.modules[name]
    except Exception as exc:  # noqa: BLE001 - ImportError, or broken bindings
        raise ProviderUnavailable(
            "pyca/cryptography cannot be imported (%s)" % type(exc).__name__
        ) from None


def without_deprecation_warnings(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` with pyca/cryptography's ``CryptographyDeprecationWarning`` silenced.

    pyca/cryptography deprecates algorithms the agent serves because
    pycryptodome's callers use them (DSA since 51.0: its module's names and
    every DSA key it loads warn). Native pycryptodome prints nothing there,
    so neither may the agent. Only that category is silenced, and only for
    this call; it is for calls made once per provider or per key (the
    warnings filters are process-wide state while ``catch_warnings`` holds
    them), never on a per-message path.
    """
    import warnings

    category = getattr(cryptography_module("utils"), "CryptographyDeprecationWarning", None)
    if category is None:
        return call(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category)
        return call(*args)


def context_makers() -> tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]:
    """(make encryptor, make decryptor) from an algorithm and a mode object (or None).

    ``Cipher(algorithm, mode).encryptor()`` validates its arguments in
    Python (``isinstance`` against ABCs) and then calls
    ``create_encryption_ctx``: about a microsecond per message (~7.5k
    instructions, ~12 % of a 64-byte ChaCha20 message) that the agent,
    having validated key, IV and nonce exactly as pycryptodome does, need
    not pay twice. Where that binding is absent (its module path is
    pyca/cryptography's own, not a promise) the public API is used; either
    way the known-answer tests run through the maker chosen here.
    """
    cipher = cryptography_module("hazmat.primitives.ciphers").Cipher
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
