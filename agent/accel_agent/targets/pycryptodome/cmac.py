"""``Crypto.Hash.CMAC`` with AES served by OpenSSL's CMAC (pyca/cryptography).

``CMAC.new(key, msg, ciphermod=AES, mac_len=...)`` with a plain AES key
returns an object of a subclass of pycryptodome's ``CMAC`` whose state is an
OpenSSL CMAC context; ``digest`` finalises a copy, so the context goes on.
pycryptodome's rules are kept: after ``digest`` or ``verify`` the tag is
fixed and ``update`` raises, unless ``update_after_digest``. Other ciphers,
``cipher_params`` and exotic arguments go to the original ``new``.
"""

from __future__ import annotations

import functools
import sys
from hmac import compare_digest

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome.hashes import _plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

KEY_SIZES = (16, 24, 32)


def patch(module: ModuleType) -> None:
    native_new = module.new
    native_cls = module.CMAC
    native_verify = native_cls.verify
    slot = registry.slot("aes-cmac")
    aes_name = module.__name__.split(".")[0] + ".Cipher.AES"

    class CMAC(native_cls):
        __slots__ = ("_ctx", "_tag", "_after", "_native_args", "_size")

        def update(self, msg):
            if self._tag is not None and not self._after:
                self._refuse_update()
            if type(msg) is not bytes and not _plain(msg):
                msg = self._twin_update(msg)
            self._size += len(msg)
            self._ctx.update(msg)
            return self

        def copy(self):
            clone = object.__new__(CMAC)
            clone.digest_size = self.digest_size
            clone._ctx = self._ctx.copy()
            clone._tag = self._tag
            clone._after = self._after
            clone._native_args = self._native_args
            clone._size = self._size
            return clone

        def digest(self):
            tag = self._tag
            if tag is not None and not self._after:
                return tag
            # A copy is finalised, never the context: threads sharing the object
            # may digest or update it at once (the context stays usable by all).
            tag = self._tag = self._ctx.copy().finalize()[: self.digest_size]
            return tag

        def hexdigest(self):
            return self.digest().hex()

        def verify(self, mac_tag):
            if type(mac_tag) is bytes or _plain(mac_tag):
                if not compare_digest(mac_tag, self.digest()):
                    raise ValueError("MAC check failed")
                return
            native_verify(self, mac_tag)

        def _native_twin(self) -> Any:
            key, aes, mac_len = self._native_args
            return native_new(key, ciphermod=aes, mac_len=mac_len)

        def _refuse_update(self) -> None:
            twin = self._native_twin()
            twin.digest()
            twin.update(b"")  # raises pycryptodome's own TypeError
            raise TypeError("update() cannot be called after digest() or verify()")

        def _twin_update(self, msg: Any) -> bytes:
            """Show ``msg`` to a native twin holding as many cached bytes as this object.

            What native accepts or rejects depends on that partial block (it
            slices and stores the message in it): the twin raises what native
            would raise here; otherwise the bytes native would read are returned.
            """
            twin = self._native_twin()
            if self._size % 16:
                twin.update(bytes(self._size % 16))
            twin.update(msg)
            if not len(msg):
                return b""
            try:
                return memoryview(msg).tobytes()
            except TypeError:
                return bytes(msg)  # a list of ints that fitted in the partial block

    CMAC.__name__ = CMAC.__qualname__ = native_cls.__name__
    CMAC.__module__ = native_cls.__module__
    _native_shape.install_native_constructor(CMAC, native_cls)
    _native_shape.install(
        CMAC,
        CMAC.__slots__,
        lambda mac: native_new(bytes(16), ciphermod=sys.modules[aes_name]),
    )

    def new(
        key,
        msg=None,
        ciphermod=None,
        cipher_params=None,
        mac_len=None,
        update_after_digest=False,
    ):
        if (
            ciphermod is not None
            and getattr(ciphermod, "__name__", None) == aes_name
            and not cipher_params
            and (cipher_params is None or type(cipher_params) is dict)
            and (mac_len is None or (type(mac_len) is int and 4 <= mac_len <= 16))
            and type(update_after_digest) is bool
            and (type(key) is bytes or _plain(key))
            and len(key) in KEY_SIZES
            and (msg is None or type(msg) is bytes or _plain(msg))
        ):
            provider = slot.get()
            if provider is not None:
                key = bytes(key)
                mac = object.__new__(CMAC)
                mac.digest_size = 16 if mac_len is None else mac_len
                mac._ctx = provider.new(key)
                mac._tag = None
                mac._after = update_after_digest
                mac._native_args = (key, ciphermod, mac_len)
                mac._size = 0
                if msg:
                    mac._ctx.update(msg)
                    mac._size = len(msg)
                slot.calls += 1
                return mac
        return native_new(key, msg, ciphermod, cipher_params, mac_len, update_after_digest)

    functools.update_wrapper(new, native_new)
    patching.patch_attribute(module, "new", new)
