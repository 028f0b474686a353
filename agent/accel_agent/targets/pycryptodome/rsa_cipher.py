"""``Crypto.Cipher.{PKCS1_OAEP, oaep, PKCS1_v1_5}`` served by OpenSSL.

As for signatures (see :mod:`.signature`), each module's ``new`` returns an
accelerated subclass of the native cipher object; pycryptodome 4.x has both
``oaep`` and the legacy ``PKCS1_OAEP`` (a subclass of ``oaep``'s class),
3.x only ``PKCS1_OAEP``.

* **OAEP**, encryption and decryption, when the mask function is the
  default (MGF1 over the OAEP hash: a function of the user's own is
  honoured natively) and the hash is one OpenSSL has. Encryption also needs
  pycryptodome's default random source (OpenSSL then draws the seed).
  Decryption checks natively-visible conditions first (ciphertext length,
  ciphertext below the modulus, a private key, a modulus long enough for
  the hash) and hands anything else to native code; past them, OpenSSL's
  constant-time decoding either returns the message or fails, and the
  failure raises native's ``ValueError("Incorrect decryption.")`` directly,
  with nothing native run afterwards: no timing difference between the
  ways padding can be wrong.
* **PKCS#1 v1.5 encryption** with the default random source. **PKCS#1
  v1.5 decryption stays native**, always: pycryptodome's decryption (a
  ``sentinel``, ``expected_pt_len``, and 4.x's implicit rejection with its
  own key derivation) is a constant-time C decoder whose exact results
  OpenSSL's API cannot reproduce without revealing the padding check.
"""

from __future__ import annotations

import types

from accel_agent import registry
from accel_agent.targets.pycryptodome import _buffers
from accel_agent.targets.pycryptodome import _pubkey_twins as twins
from accel_agent.targets.pycryptodome._pubkey_common import (
    accelerated_class,
    default_random,
    patch_new,
    served,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_OID_ATTRIBUTE = "_accel_agent_oid"  # on a cipher object: its hash's OID, or "" for none
DECRYPTION_FAILED = "Incorrect decryption."  # native's message, pycryptodome 3.x and 4.x


def _default_mask_code(native_cls: type) -> types.CodeType | None:
    """The code of the MGF1 lambda that native ``__init__`` installs when no mask function is given.

    ``cipher._mgf.__code__ is`` this code object only for that lambda, so a
    mask function of the user's (even MGF1 with the same hash) is told apart.
    """
    for constant in native_cls.__init__.__code__.co_consts:
        if isinstance(constant, types.CodeType) and constant.co_name == "<lambda>":
            return constant
    return None


def _hash_oid(cipher: Any, provider: Any) -> str | None:
    """The OID of the OAEP hash (a hash module, class or object), cached on the cipher."""
    cached = cipher.__dict__.get(_OID_ATTRIBUTE)
    if cached is None:
        cached = ""
        hash_like = cipher._hashObj
        try:
            oid = getattr(hash_like, "oid", None)
            if oid is None:  # a module (Crypto.Hash.SHA256): its objects carry the OID
                oid = hash_like.new().oid
            algorithm = provider.algorithm(oid)
            if algorithm is not None and hash_like.digest_size == algorithm.digest_size:
                cached = oid
        except Exception:  # noqa: BLE001 - not a hash as OpenSSL knows them: native
            pass
        cipher.__dict__[_OID_ATTRIBUTE] = cached
    return cached or None


def _oaep_methods(native_cls: type, slot: Any, random_default: Callable) -> dict:
    native_encrypt, native_decrypt = native_cls.encrypt, native_cls.decrypt
    default_mask = _default_mask_code(native_cls)

    def _servable(self: Any, provider: Any) -> str | None:
        if default_mask is None or getattr(self._mgf, "__code__", None) is not default_mask:
            return None
        return _hash_oid(self, provider)

    def encrypt(self: Any, message: Any) -> bytes:
        provider = slot.get()
        if provider is not None and self._randfunc is random_default:
            data = _buffers.plain_bytes(message)
            oid = data is not None and _servable(self, provider)
            public = oid and twins.rsa_public(self._key, provider)
            if public:  # OpenSSL raises for a message too long for the key: native raises
                ciphertext = served(slot, provider.encrypt_oaep, public, data, oid, self._label)
                if ciphertext is not None:
                    return ciphertext
        return native_encrypt(self, message)

    def decrypt(self: Any, ciphertext: Any) -> bytes:
        provider = slot.get()
        if provider is not None:
            data = _buffers.plain_bytes(ciphertext)
            oid = data is not None and _servable(self, provider)
            key = self._key
            if oid and _decryptable(key, data, provider.algorithm(oid).digest_size):
                private = twins.rsa_private(key, provider)
                try:
                    message = private and provider.decrypt_oaep(private, data, oid, self._label)
                except Exception:  # noqa: BLE001 - e.g. a hash OpenSSL's OAEP lacks: native
                    private = None
                if private:
                    slot.calls += 1
                    if message is None:  # the padding is wrong: OpenSSL said no more
                        raise ValueError(DECRYPTION_FAILED)
                    return message
        return native_decrypt(self, ciphertext)

    return {"encrypt": encrypt, "decrypt": decrypt}


def _decryptable(key: Any, data: bytes, hash_size: int) -> bool:
    """Native code would reach its padding check (and OpenSSL's limits are not in the way)."""
    size = key.size_in_bytes()
    return (
        len(data) == size
        and size >= 2 * hash_size + 2
        and key.has_private()
        and int.from_bytes(data, "big") < int(key.n)
    )


def _patch_oaep_module(module: Any) -> None:
    # 4.x's legacy PKCS1_OAEP class subclasses oaep's native class (classes are
    # never replaced, only ``new``): each module maps its own class.
    native_cls = module.PKCS1OAEP_Cipher
    methods = _oaep_methods(native_cls, registry.slot("rsa-oaep"), default_random())
    patch_new(module, {native_cls: accelerated_class(native_cls, methods)})


def patch_pkcs1_oaep(module: Any) -> None:
    """``PKCS1_OAEP.new`` returns a cipher whose encrypt/decrypt go to OpenSSL."""
    _patch_oaep_module(module)


def patch_oaep(module: Any) -> None:
    """pycryptodome 4.x's ``oaep.new``, the same way."""
    _patch_oaep_module(module)


def patch_pkcs1_v1_5(module: Any) -> None:
    """``PKCS1_v1_5.new`` returns a cipher whose encryption goes to OpenSSL (decryption: native)."""
    native_cls = module.PKCS115_Cipher
    native_encrypt = native_cls.encrypt
    slot = registry.slot("rsa-pkcs1v15-encrypt")
    random_default = default_random()

    def encrypt(self: Any, message: Any) -> bytes:
        # Native draws k - len - 3 non-zero bytes from randfunc one at a time;
        # with the default source OpenSSL draws them instead.
        provider = slot.get()
        if provider is not None and self._randfunc is random_default:
            data = _buffers.plain_bytes(message)
            key = self._key
            public = (
                data is not None
                and len(data) <= key.size_in_bytes() - 11
                and twins.rsa_public(key, provider)
            )
            if public:
                ciphertext = served(slot, provider.encrypt_pkcs1v15, public, data)
                if ciphertext is not None:
                    return ciphertext
        return native_encrypt(self, message)

    patch_new(module, {native_cls: accelerated_class(native_cls, {"encrypt": encrypt})})
