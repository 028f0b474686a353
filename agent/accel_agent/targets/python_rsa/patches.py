"""python-rsa's PKCS#1 v1.5 functions and ``newkeys`` served by OpenSSL.

What goes to OpenSSL, and why the result is python-rsa's own
(docs/compatibility-python-rsa.md has the table):

* ``sign_hash`` (and so ``sign``, which calls the module's ``sign_hash``):
  deterministic, byte-identical. Served when the hash name is one python-rsa
  knows with its standard DigestInfo (the module's ``HASH_ASN1`` is read at
  call time), the digest has that hash's length, the block fits the key
  (python-rsa raises ``OverflowError`` otherwise: native raises it), and the
  key is a plain ``PrivateKey`` with consistent numbers.
* ``verify``: OpenSSL raises the signature to ``e`` and checks the block
  type 1 padding; the rest is python-rsa's own code, run on the very block
  python-rsa would have computed (``_find_method_hash``, ``compute_hash``,
  ``_pad_for_signing``, all looked up in the module at call time). A
  signature OpenSSL rejects (wrong padding, not below the modulus) is judged
  by native ``verify`` from scratch, which raises ``VerificationError`` or,
  for what only python-rsa accepts (a signature not reduced modulo n),
  returns the hash name.
* ``encrypt``: randomized; OpenSSL draws the non-zero padding, as python-rsa
  does from ``os.urandom``. Served only while ``os.urandom`` is the
  interpreter's own (``posix.urandom``): a test that replaces it gets native.
* ``decrypt``: **native, always**. OpenSSL 3.2 and later reject a bad
  PKCS#1 v1.5 padding implicitly (a synthetic message instead of an error),
  where python-rsa raises ``DecryptionError``; pyca/cryptography offers no
  raw RSA operation to check the padding elsewhere, and telling the two
  cases apart afterwards would be a padding oracle.
* ``newkeys``: even sizes from 1024 to 16384 bits, exponent 3 or 65537 (what
  OpenSSL generates); the keys are python-rsa's ``PublicKey`` and
  ``PrivateKey``, with python-rsa's conventions (``p > q``,
  ``d = e^-1 mod (p-1)(q-1)``, computed by python-rsa's own function).

Anything else (other types, a subclass of the key classes, a key OpenSSL
refuses, an exception from OpenSSL) is the native function's business, and
native raises python-rsa's own exceptions with their own messages.
"""

from __future__ import annotations

import functools
import os
import sys

from accel_agent import hooks, patching, registry
from accel_agent.constant_time import compare_digest
from accel_agent.targets.keygen import bind, patch_generator
from accel_agent.targets.python_rsa import _keys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

_NIST = "2.16.840.1.101.3.4.2."
_NIST_DER = bytes.fromhex("06096086480165030402")

# python-rsa's hash name -> (object identifier, DigestInfo prefix, digest size), RFC 8017 9.2
HASHES: dict[str, tuple[str, bytes, int]] = {
    name: (oid, bytes.fromhex(prefix), size)
    for name, oid, prefix, size in (
        ("MD5", "1.2.840.113549.2.5", "3020300c06082a864886f70d020505000410", 16),
        ("SHA-1", "1.3.14.3.2.26", "3021300906052b0e03021a05000414", 20),
        ("SHA-224", _NIST + "4", "302d300d06096086480165030402040500041c", 28),
        ("SHA-256", _NIST + "1", "3031300d060960864801650304020105000420", 32),
        ("SHA-384", _NIST + "2", "3041300d060960864801650304020205000430", 48),
        ("SHA-512", _NIST + "3", "3051300d060960864801650304020305000440", 64),
        ("SHA3-256", _NIST + "8", "3031300d060960864801650304020805000420", 32),
        ("SHA3-384", _NIST + "9", "3041300d060960864801650304020905000430", 48),
        ("SHA3-512", _NIST + "10", "3051300d060960864801650304020a05000440", 64),
    )
}

# The keygen arguments, in python-rsa's order, and its defaults.
_NEWKEYS_PARAMETERS = ("nbits", "accurate", "poolsize", "exponent")


def _byte_size(n: int) -> int:
    """python-rsa's ``common.byte_size`` for a positive modulus."""
    return (n.bit_length() + 7) // 8


def _key_length(key: Any) -> int:
    """The byte length of the key's modulus; 0 for a modulus that is not a positive int."""
    n = key.n
    return _byte_size(n) if type(n) is int and n > 0 else 0


def _from_openssl(slot: Any, twin: Any, key: Any, operation: str, *args: Any) -> Any:
    """``provider.<operation>(twin of key, *args)``; None, for native to decide,
    when the slot is empty, OpenSSL refuses the key or the operation raised."""
    provider = slot.get()
    made = provider is not None and twin(provider, key)
    if not made:
        return None
    try:
        return getattr(provider, operation)(made, *args)
    except Exception:  # noqa: BLE001 - native decides
        return None


def _on_reset() -> None:
    _keys.clear()


registry.reset_listeners.append(_on_reset)


# --------------------------------------------------------------------------- rsa.pkcs1


def patch_pkcs1(module: ModuleType) -> None:
    """``sign_hash``, ``verify`` and ``encrypt`` of ``rsa.pkcs1`` through OpenSSL.

    The natives come from ``module`` (at a first call, a copy holding them);
    what the replacements read when called, from the module itself.
    """
    live = hooks.live(module)
    key_module = sys.modules["rsa.key"]  # rsa.pkcs1 imports it first
    key_classes = (key_module.PublicKey, key_module.PrivateKey)
    private_class = key_module.PrivateKey
    sign_slot = registry.slot("rsa-pkcs1v15-sign")
    encrypt_slot = registry.slot("rsa-pkcs1v15-encrypt")
    native_sign_hash, native_verify = module.sign_hash, module.verify
    native_encrypt = module.encrypt
    # The interpreter's own urandom, not what rsa.pkcs1's os.urandom is now: the
    # first call may come while a test's replacement is in place.
    urandom = sys.modules[os.name].urandom

    def sign_hash(hash_value: bytes, priv_key: Any, hash_method: str) -> bytes:
        if type(priv_key) is private_class and type(hash_value) is bytes:
            known = type(hash_method) is str and HASHES.get(hash_method)
            # A hash name the application added to HASH_ASN1, or a changed prefix: native.
            if known and live.HASH_ASN1.get(hash_method) == known[1]:
                oid, prefix, size = known
                keylength = _key_length(priv_key)
                if len(hash_value) == size and len(prefix) + size <= keylength - 11:
                    signature = _from_openssl(
                        sign_slot, _keys.private_twin, priv_key, "sign_pkcs1v15", hash_value, oid
                    )
                    if signature is not None and len(signature) == keylength:
                        sign_slot.calls += 1
                        return signature
        return native_sign_hash(hash_value, priv_key, hash_method)

    def verify(message: Any, signature: bytes, pub_key: Any) -> str:
        if type(pub_key) in key_classes and type(signature) is bytes:
            keylength = _key_length(pub_key)
            if keylength and len(signature) == keylength:
                recovered = _from_openssl(
                    sign_slot, _keys.public_twin, pub_key, "recover_pkcs1v15", signature
                )
                if recovered is not None and len(recovered) <= keylength - 11:
                    sign_slot.calls += 1
                    return _verify_recovered(live, message, recovered, keylength)
        return native_verify(message, signature, pub_key)

    def encrypt(message: bytes, pub_key: Any) -> bytes:
        if type(message) is bytes and type(pub_key) in key_classes and live.os.urandom is urandom:
            keylength = _key_length(pub_key)
            if keylength and len(message) <= keylength - 11:
                ciphertext = _from_openssl(
                    encrypt_slot, _keys.public_twin, pub_key, "encrypt_pkcs1v15", message
                )
                if ciphertext is not None and len(ciphertext) == keylength:
                    encrypt_slot.calls += 1
                    return ciphertext
        return native_encrypt(message, pub_key)

    for name, replacement, original in (
        ("sign_hash", sign_hash, native_sign_hash),
        ("verify", verify, native_verify),
        ("encrypt", encrypt, native_encrypt),
    ):
        functools.update_wrapper(replacement, original)
        patching.patch_attribute(module, name, replacement)


def _verify_recovered(module: Any, message: Any, recovered: bytes, keylength: int) -> str:
    """The rest of python-rsa's ``verify``, on the block OpenSSL recovered.

    OpenSSL checked ``00 01``, at least eight ``FF`` and the ``00``: the
    block below is byte for byte the ``clearsig`` python-rsa computes, and
    the steps after are its own functions, so its hash detection (the first
    ``HASH_ASN1`` entry found anywhere in the block), its errors and its
    file reading are unchanged. The comparison is constant-time.
    """
    clearsig = b"\x00\x01" + b"\xff" * (keylength - 3 - len(recovered)) + b"\x00" + recovered
    method_name = module._find_method_hash(clearsig)
    message_hash = module.compute_hash(message, method_name)
    cleartext = module.HASH_ASN1[method_name] + message_hash
    expected = module._pad_for_signing(cleartext, keylength)
    if not compare_digest(expected, clearsig):
        raise module.VerificationError("Verification failed")
    return method_name


# --------------------------------------------------------------------------- rsa.key


def _newkeys_arguments(args: tuple, kwargs: dict) -> tuple[int, int] | None:
    """(nbits, exponent) when ``newkeys`` was called in a shape OpenSSL serves, else None."""
    # The provider's module loads at the first call, not at python-rsa's import.
    from accel_agent.providers.rsa import (
        GENERATED_EXPONENTS,
        MAX_GENERATED_BITS,
        MIN_GENERATED_BITS,
    )

    values = bind(_NEWKEYS_PARAMETERS, args, kwargs)
    if values is None:
        return None
    nbits, poolsize = values.get("nbits"), values.get("poolsize", 1)
    exponent = values.get("exponent", 65537)
    if type(nbits) is not int or type(exponent) is not int or type(poolsize) is not int:
        return None
    if (
        poolsize < 1  # native raises its ValueError
        or nbits % 2
        or not MIN_GENERATED_BITS <= nbits <= MAX_GENERATED_BITS
        or exponent not in GENERATED_EXPONENTS
    ):
        return None
    return nbits, exponent


def patch_key(module: ModuleType) -> None:
    """``rsa.key.newkeys`` through OpenSSL.

    ``accurate`` asks for ``n`` of exactly ``nbits`` bits (True) or allows
    slightly fewer (False): OpenSSL's ``n`` always has exactly ``nbits``,
    which satisfies both. ``poolsize`` is how many processes python-rsa's
    own prime search uses; OpenSSL's single-threaded search is faster than
    any pool, so it changes nothing here but is still validated natively
    (``poolsize < 1`` raises python-rsa's ``ValueError``).
    """
    live = hooks.live(module)  # python-rsa's classes and functions, read at each call
    patch_generator(
        module,
        "newkeys",
        "rsa-keygen",
        _newkeys_arguments,
        lambda provider, arguments: _generate(live, provider, *arguments),
    )


def _generate(module: Any, provider: Any, nbits: int, exponent: int) -> Any:
    """(PublicKey, PrivateKey) from OpenSSL's primes, as python-rsa's ``newkeys`` builds them."""
    try:
        generated = provider.generate(nbits, exponent)
        if generated is None:
            return None
        n, _e, _d, small, large, _u, private = generated
        p, q = large, small  # python-rsa: p > q
        e, d = module.calculate_keys_custom_exponent(p, q, exponent)
    except Exception:  # noqa: BLE001 - native generates
        return None
    # OpenSSL's d is e^-1 mod lcm(p-1, q-1), python-rsa's mod (p-1)(q-1): the
    # same modulo p-1 and q-1, so the twin signs exactly as the new key does.
    _keys.remember_private((n, e, d, p, q), private)
    return module.PublicKey(n, e), module.PrivateKey(n, e, d, p, q)
