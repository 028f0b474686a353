"""The starkbank-ecdsa target: the ``ellipticcurve`` package's ``Ecdsa`` class.

Nothing of it is imported at start-up (:mod:`accel_agent.targets` lists
the modules watched); the patch code (:mod:`.signing`) loads when
``ellipticcurve.ecdsa`` is imported. Supported: starkbank-ecdsa
2.3.1 and later (its hedged RFC 6979 nonces and recovery ids).
"""
