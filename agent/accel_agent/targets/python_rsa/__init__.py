"""The python-rsa target: ``rsa.pkcs1``, ``rsa.key`` and the ``rsa`` package's re-exports.

Supported: python-rsa 4.7 and later (pinned and tested: 4.9.1; the suite
from 4.7.2's sdist also runs against 4.7.2). Nothing of it is imported at
start-up (:mod:`accel_agent.targets` lists the modules watched); the patch
code loads when python-rsa's modules are imported.

Order matters and is handled: ``import rsa`` runs ``rsa/__init__.py``,
which imports ``rsa.key`` and ``rsa.pkcs1`` (each patched right after it
executed) and then binds their functions in the package namespace; the
``rsa`` hook runs last and records the package's re-exports in the registry
of originals, so ``uninstall()`` puts them back as well.
"""
