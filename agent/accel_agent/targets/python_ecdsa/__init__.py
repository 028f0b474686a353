"""The python-ecdsa target: the ``ecdsa`` package's key classes.

Nothing of it is imported at start-up (:mod:`accel_agent.targets` lists
the modules watched); the patch code (:mod:`.keys`) loads when
``ecdsa.keys`` is imported. Supported: python-ecdsa 0.18 and later.
"""
