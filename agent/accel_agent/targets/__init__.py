"""Targets: one per patched library, each mapping its API onto providers.

:data:`HOOKS` is all the start-up path needs from here: which module names to
watch and which ``"module:function"`` patches them. The patch code itself is
imported only when a watched module is imported.
"""

from __future__ import annotations

from accel_agent.targets.pyaes import hooks as _pyaes_hooks
from accel_agent.targets.pycryptodome import hooks as _pycryptodome_hooks
from accel_agent.targets.pydes import hooks as _pydes_hooks
from accel_agent.targets.python_ecdsa import hooks as _python_ecdsa_hooks
from accel_agent.targets.python_rsa import hooks as _python_rsa_hooks
from accel_agent.targets.starkbank_ecdsa import hooks as _starkbank_ecdsa_hooks

# watched module name -> patch function spec
HOOKS: dict[str, str] = dict(_pycryptodome_hooks())
# The standard library's hashlib and hmac: OpenSSL constructors where
# the interpreter has builtin code only, OpenSSL's HMAC for pycryptodome digestmods.
HOOKS.update(
    {
        "hashlib": "accel_agent.targets.hashlib_backend:patch_hashlib",
        "hmac": "accel_agent.targets.hashlib_backend:patch_hmac",
    }
)
# python-rsa: rsa.pkcs1, rsa.key and the rsa package's re-exports.
HOOKS.update(_python_rsa_hooks())
# python-ecdsa: its key classes, in ecdsa.keys.
HOOKS.update(_python_ecdsa_hooks())
# pyaes: its mode classes and block feeders.
HOOKS.update(_pyaes_hooks())
# starkbank-ecdsa: its Ecdsa class, in ellipticcurve.ecdsa.
HOOKS.update(_starkbank_ecdsa_hooks())
# pyDes: its des and triple_des classes.
HOOKS.update(_pydes_hooks())
