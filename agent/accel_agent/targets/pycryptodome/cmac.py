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

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome._hash_common import CheckedTag, plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

KEY_SIZES = (16, 24, 32)


class CmacMethods(CheckedTag):
    """The methods of the agent's CMAC objects, on a subclass of pycryptodome's ``CMAC``.

    The class of one CMAC module carries ``_target`` (its :class:`CmacTarget`)
    and ``_native_verify``.
    """

    __slots__ = ()
    _target: CmacTarget

    def update(self, msg):
        if self._tag is not None and not self._after:
            self._refuse_update()
        if type(msg) is not bytes and not plain(msg):
            msg = self._twin_update(msg)
        self._size += len(msg)
        self._ctx.update(msg)
        return self

    def copy(self):
        clone = object.__new__(self._target.cls)
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

    def _native_twin(self) -> Any:
        key, aes, mac_len = self._native_args
        return self._target.native_new(key, ciphermod=aes, mac_len=mac_len)

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


class CmacTarget:
    """One CMAC module (``Crypto`` or ``Cryptodome``): native's pieces and the agent's class."""

    def __init__(self, module: ModuleType) -> None:
        native_new = self.native_new = module.new
        native_cls = module.CMAC
        self.slot = registry.slot("aes-cmac")
        aes_name = self.aes_name = module.__name__.split(".")[0] + ".Cipher.AES"
        self.cls = _native_shape.native_subclass(
            CmacMethods,
            native_cls,
            ("_ctx", "_tag", "_after", "_native_args", "_size"),
            lambda mac: native_new(bytes(16), ciphermod=sys.modules[aes_name]),
            _target=self,
            _native_verify=native_cls.verify,
        )

    def serves(self, key, msg, ciphermod, cipher_params, mac_len, update_after_digest) -> bool:
        """AES, no cipher parameters, a plain key of an AES size and message, ordinary options."""
        return (
            ciphermod is not None
            and getattr(ciphermod, "__name__", None) == self.aes_name
            and not cipher_params
            and (cipher_params is None or type(cipher_params) is dict)
            and (mac_len is None or (type(mac_len) is int and 4 <= mac_len <= 16))
            and type(update_after_digest) is bool
            and (type(key) is bytes or plain(key))
            and len(key) in KEY_SIZES
            and (msg is None or type(msg) is bytes or plain(msg))
        )

    def make(self, provider: Any, key: bytes, msg, ciphermod, mac_len, after: bool) -> Any:
        mac = object.__new__(self.cls)
        mac.digest_size = 16 if mac_len is None else mac_len
        mac._ctx = provider.new(key)
        mac._tag = None
        mac._after = after
        mac._native_args = (key, ciphermod, mac_len)
        mac._size = 0
        if msg:
            mac._ctx.update(msg)
            mac._size = len(msg)
        return mac


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one CMAC module."""
    target = CmacTarget(module)
    native_new, slot, serves, make = target.native_new, target.slot, target.serves, target.make

    def new(
        key,
        msg=None,
        ciphermod=None,
        cipher_params=None,
        mac_len=None,
        update_after_digest=False,
    ):
        if serves(key, msg, ciphermod, cipher_params, mac_len, update_after_digest):
            provider = slot.get()
            if provider is not None:
                mac = make(provider, bytes(key), msg, ciphermod, mac_len, update_after_digest)
                slot.calls += 1
                return mac
        return native_new(key, msg, ciphermod, cipher_params, mac_len, update_after_digest)

    functools.update_wrapper(new, native_new)
    patching.patch_attribute(module, "new", new)
