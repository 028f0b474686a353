"""``Crypto.Protocol.KDF.{PBKDF2,scrypt,HKDF}`` served by OpenSSL where it is faster.

Each replacement serves the plain argument shapes (bytes-like or Latin-1
string secrets, a covered hash, integer parameters in range) and hands
everything else to the original function, so pycryptodome's own checks,
warnings and errors stay as they are.

PBKDF2 is a case where OpenSSL is not always faster: pycryptodome's C inner
loop (``_pbkdf2_hmac_assist``, SHA-NI where the CPU has it) beats OpenSSL 3's
``PKCS5_PBKDF2_HMAC`` from a few hundred iterations on. The choice is per
call, from the iteration count and a threshold per hash that calibration
provides (:func:`accel_agent.calibration.thresholds`): below it OpenSSL,
from it on native code.
"""

from __future__ import annotations

import functools

from accel_agent import calibration, patching, registry
from accel_agent.targets.pycryptodome.hmac import hash_info

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

_UNSET = object()


def _secret(value: Any) -> bytes | None:
    """What pycryptodome's ``tobytes`` makes of a password or salt, when that is plain."""
    kind = type(value)
    if kind is bytes:
        return value
    if kind is bytearray:
        return bytes(value)
    if kind is memoryview:
        return value.tobytes()
    if kind is str:
        try:
            return value.encode("latin-1")
        except UnicodeEncodeError:
            return None  # native raises it, with its own traceback
    return None


def _buffer(value: Any) -> bytes | None:
    """A bytes-like argument that pycryptodome's HMAC takes as is (HKDF's secret, salt, info)."""
    kind = type(value)
    if kind is bytes:
        return value
    if kind is bytearray or (
        kind is memoryview and value.ndim == 1 and value.c_contiguous and value.format == "B"
    ):
        return bytes(value)
    return None


def _fits(provider: Any, password: bytes, salt: bytes) -> bool:
    """Whether OpenSSL's call takes a password and salt this long (native takes any)."""
    limit = provider.max_input_size
    return len(password) <= limit and len(salt) <= limit


def patch(module: ModuleType) -> None:
    """Install PBKDF2, scrypt and HKDF on one KDF module."""
    _patch_pbkdf2(module)
    _patch_scrypt(module)
    _patch_hkdf(module)


def _patch_pbkdf2(module: ModuleType) -> None:
    native = module.PBKDF2
    slot = registry.slot("pbkdf2")
    limits = calibration.thresholds("pbkdf2")  # hash name -> OpenSSL below this many iterations

    def PBKDF2(password, salt, dkLen=16, count=_UNSET, prf=None, hmac_hash_module=None):
        if (
            count is not _UNSET
            and prf is None
            and hmac_hash_module is not None
            and type(count) is int
            and type(dkLen) is int
            and count >= 1
            and dkLen >= 1
        ):
            info = hash_info(hmac_hash_module)
            if info is not None and count < limits.get(info.name, 0):
                password_bytes, salt_bytes = _secret(password), _secret(salt)
                if password_bytes is not None and salt_bytes is not None:
                    provider = slot.get()
                    if provider is not None and _fits(provider, password_bytes, salt_bytes):
                        slot.calls += 1
                        return provider.derive(info.name, password_bytes, salt_bytes, count, dkLen)
        if count is _UNSET:
            return native(password, salt, dkLen, prf=prf, hmac_hash_module=hmac_hash_module)
        return native(password, salt, dkLen, count, prf, hmac_hash_module)

    _install(module, "PBKDF2", PBKDF2, native)


def _patch_scrypt(module: ModuleType) -> None:
    native = module.scrypt
    slot = registry.slot("scrypt")

    def scrypt(password, salt, key_len, N, r, p, num_keys=1, **kwargs):
        if (
            num_keys == 1
            and type(num_keys) is int
            and not kwargs.keys() - {"threads"}
            and all(type(v) is int for v in (key_len, N, r, p))
            and key_len >= 1
            and 2 <= N < 2**32
            and N & (N - 1) == 0
            and r >= 1
            and 1 <= p <= ((2**32 - 1) * 32) // (128 * r)
        ):
            password_bytes, salt_bytes = _secret(password), _secret(salt)
            provider = slot.get() if password_bytes is not None and salt_bytes is not None else None
            if provider is not None and _fits(provider, password_bytes, salt_bytes):
                try:
                    derived = provider.derive(password_bytes, salt_bytes, N, r, p, key_len)
                except (ValueError, MemoryError):
                    pass  # beyond OpenSSL's own limits: native computes it
                else:
                    slot.calls += 1
                    return derived
        return native(password, salt, key_len, N, r, p, num_keys, **kwargs)

    _install(module, "scrypt", scrypt, native)


def _patch_hkdf(module: ModuleType) -> None:
    native = module.HKDF
    slot = registry.slot("hkdf")

    def HKDF(master, key_len, salt, hashmod, num_keys=1, context=None):
        if (
            type(key_len) is int
            and type(num_keys) is int
            and key_len >= 1
            and num_keys >= 1
            and hashmod is not None
        ):
            info = hash_info(hashmod)
            master_bytes = _buffer(master)
            salt_bytes = b"" if salt is None else _buffer(salt)
            info_bytes = b"" if context is None else _buffer(context)
            if (
                info is not None
                and master_bytes is not None
                and salt_bytes is not None
                and info_bytes is not None
            ):
                size = hashmod.digest_size
                total = key_len * num_keys
                provider = slot.get() if total <= 255 * size else None
                if (
                    provider is not None
                    and info.name in provider.names
                    and len(salt_bytes) <= provider.max_key_size  # the salt is an HMAC key
                ):
                    okm = provider.derive(
                        info.name, size, master_bytes, salt_bytes or bytes(size), info_bytes, total
                    )
                    slot.calls += 1
                    if num_keys == 1:
                        return okm[:key_len]
                    return [okm[i : i + key_len] for i in range(0, total, key_len)][:num_keys]
        return native(master, key_len, salt, hashmod, num_keys, context)

    _install(module, "HKDF", HKDF, native)


def _install(module: ModuleType, name: str, replacement: Any, native: Any) -> None:
    functools.update_wrapper(replacement, native)
    patching.patch_attribute(module, name, replacement)
