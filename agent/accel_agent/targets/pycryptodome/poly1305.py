"""``Crypto.Hash.Poly1305`` served by OpenSSL's Poly1305 (pyca/cryptography).

pycryptodome derives the one-time key pair (r, s) from the 32-byte key and
the nonce with the chosen cipher (AES or ChaCha20); the replacement ``new``
lets the cipher module do exactly that (``_derive_Poly1305_key_pair``, its
errors included) and only then hands ``r || s`` to OpenSSL. The object is
a subclass of pycryptodome's ``Poly1305_MAC``: the tag is fixed by the first
``digest`` (``update`` then raises), ``copy`` is not implemented, as natively.
"""

from __future__ import annotations

import functools
import threading

from accel_agent import patching, registry
from accel_agent.targets.pycryptodome import _native_shape
from accel_agent.targets.pycryptodome._hash_common import CheckedTag, Coercer, plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

_KEYWORDS = frozenset(("key", "cipher", "nonce", "data"))
# OpenSSL's Poly1305 context can be finalised once: threads sharing an object
# take this lock to fix its tag (a digest, not an update, takes it).
_FINALIZING = threading.Lock()
_REFUSED = "You can only call 'digest' or 'hexdigest' on this object"


class Poly1305Methods(CheckedTag):
    """The methods of the agent's Poly1305 objects, on a subclass of ``Poly1305_MAC``.

    The class of one module carries ``_native_cls``, pycryptodome's class
    (a twin of it validates unusual inputs), and ``_native_verify``.
    """

    __slots__ = ()

    def update(self, data):
        if self._tag is not None:
            raise TypeError(_REFUSED)
        if type(data) is not bytes and not plain(data):
            r, s = self._rs
            native_cls = self._native_cls
            # Validates as native does (raising its errors) and gives the bytes
            # its C code reads (3.x: len(data) of them; 4.x: the whole buffer).
            data = Coercer(lambda: native_cls(r, s, None))(data)
        try:
            self._ctx.update(data)
        except Exception:  # noqa: BLE001 - pyca's AlreadyFinalized, from another thread
            with _FINALIZING:
                finalized = self._tag is not None
            if not finalized:
                raise
        else:
            return self
        # Raised outside the handler: pyca's AlreadyFinalized is not chained to it.
        raise TypeError(_REFUSED)

    def digest(self):
        tag = self._tag
        if tag is None:
            with _FINALIZING:
                tag = self._tag
                if tag is None:
                    tag = self._tag = self._ctx.finalize()
        return tag


def patch(module: ModuleType) -> None:
    """Install the fast ``new`` on one Poly1305 module."""
    native_new = module.new
    native_cls = module.Poly1305_MAC
    cls = _native_shape.native_subclass(
        Poly1305Methods,
        native_cls,
        ("_ctx", "_tag", "_rs"),
        lambda mac: native_cls(bytes(16), bytes(16), None),
        _native_cls=native_cls,
        _native_verify=native_cls.verify,
    )
    slot = registry.slot("poly1305")

    def new(*args, **kwargs):
        if args or not kwargs.keys() <= _KEYWORDS or "key" not in kwargs:
            return native_new(*args, **kwargs)
        cipher = kwargs.get("cipher")
        data = kwargs.get("data")
        key = kwargs["key"]
        derive = getattr(cipher, "_derive_Poly1305_key_pair", None)
        if (
            derive is None
            or not (type(key) is bytes or plain(key))
            or not (data is None or type(data) is bytes or plain(data))
        ):
            return native_new(*args, **kwargs)  # native's checks, in native's order
        provider = slot.get()
        if provider is None:
            return native_new(*args, **kwargs)
        r, s, nonce = derive(key, kwargs.get("nonce"))
        if len(r) != 16 or len(s) != 16:
            return native_new(*args, **kwargs)
        mac = object.__new__(cls)
        mac._ctx = provider.new(bytes(r) + bytes(s))
        mac._tag = None
        mac._rs = (bytes(r), bytes(s))
        if data:
            mac._ctx.update(data)
        mac.nonce = bytes(nonce)
        slot.calls += 1
        return mac

    functools.update_wrapper(new, native_new)
    patching.patch_attribute(module, "new", new)
