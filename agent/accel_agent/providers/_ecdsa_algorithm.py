"""pyca/cryptography's ``ec.ECDSA`` signature algorithm, without its constructor's import.

``ec.ECDSA.__init__`` imports ``hazmat.backends.openssl`` (its OpenSSL
bindings, ``threading``, the RSA, padding and cipher modules: 2-3 ms of
CPU) to ask whether OpenSSL signs deterministically, even when it is not
asked to. A key's ``sign`` needs only an instance of ``ec.ECDSA`` with the
two public properties ``algorithm`` and ``deterministic_signing``; this
subclass has them and skips that import. Whether deterministic signing
works is then found out by signing (``EcdsaProvider``), and the provider's
self-check compares that signature with RFC 6979's.

Imported by the ECDSA providers only, once pyca/cryptography has loaded.
"""

from __future__ import annotations

from accel_agent.providers._pyca import cryptography_module

_ec = cryptography_module("hazmat.primitives.asymmetric.ec")


class Ecdsa(_ec.ECDSA):
    """``ec.ECDSA(algorithm, deterministic_signing)``, made without loading the backend."""

    def __init__(self, algorithm, deterministic_signing: bool = False) -> None:
        # ec.ECDSA.__init__ is not called: its one job besides these two
        # fields is the backend query this class exists to avoid.
        self._accel_algorithm = algorithm
        self._accel_deterministic = bool(deterministic_signing)

    @property
    def algorithm(self):
        return self._accel_algorithm

    @property
    def deterministic_signing(self) -> bool:
        return self._accel_deterministic
