"""The pycryptodome target: ``Crypto.*`` (pycryptodome) and ``Cryptodome.*`` (pycryptodomex).

Both distributions ship the same code under two package names, so every
patch is registered for both prefixes. Supported: pycryptodome 3.15 and
later, 4.x, and pycryptodomex. Nothing of it is imported at start-up: the
modules it watches and their patch functions are listed in
:mod:`accel_agent.targets`, and each family's patch code loads when its
pycryptodome module's patched functions are first called (until then the
module holds stand-ins: :class:`accel_agent.hooks.FirstCallPatch`).
"""
