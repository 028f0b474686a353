"""The python-rsa target: ``rsa.pkcs1``, ``rsa.key`` and the ``rsa`` package's re-exports.

Supported: python-rsa 4.7 and later (pinned and tested: 4.9.1; the suite
from 4.7.2's sdist also runs against 4.7.2). Nothing of it is imported at
start-up (:mod:`accel_agent.targets` lists the modules watched), and
importing python-rsa loads only this module: ``rsa.key`` and ``rsa.pkcs1``
get stand-ins for the functions the patch replaces, and the patch code
(:mod:`.patches`) loads at the first call of one of them, as pycryptodome's
does (docs/activation.md, "Start-up cost").

Order matters and is handled: ``import rsa`` runs ``rsa/__init__.py``,
which imports ``rsa.key`` and ``rsa.pkcs1`` (each given its stand-ins right
after it executed) and then binds their functions in the package
namespace; the ``rsa`` hook runs last (:func:`patch_package`) and records
the package's re-exports in the registry of originals, so ``uninstall()``
puts them back as well.
"""

from __future__ import annotations

import sys

from accel_agent import hooks, patching

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

# Names ``rsa/__init__.py`` re-exports from a patched submodule.
REEXPORTS = {
    "newkeys": "rsa.key",
    "sign_hash": "rsa.pkcs1",
    "verify": "rsa.pkcs1",
    "encrypt": "rsa.pkcs1",
}


def patch_package(module: ModuleType) -> None:
    """Point the ``rsa`` package's re-exports at what its submodules hold.

    On a fresh ``import rsa`` the package bound its submodules' stand-ins:
    each follows its patch (``hooks.follow``), getting the replacement at
    the first call. With the submodules patched already (shadow mode and
    the savings report patch at the import) the package bound the patched
    functions: the original is put back for a moment so the registry
    records it, and ``uninstall()`` restores it. A re-export the
    application replaced with something else is left alone.
    """
    for name, submodule_name in REEXPORTS.items():
        if hooks.follow(module, name, submodule_name):
            continue
        if not patching.is_patched(submodule_name, name):
            continue  # that submodule's patch failed or was undone: stays native
        original = patching.get_original(submodule_name, name)
        replacement = getattr(sys.modules[submodule_name], name)
        current = getattr(module, name, None)
        if current is original or current is replacement:
            setattr(module, name, original)
            patching.patch_attribute(module, name, replacement)
