"""The pyDes target: pyDes 2.0.1's ``des`` and ``triple_des`` served by OpenSSL's DES-EDE3.

pyDes (https://pypi.org/project/pyDes/) is DES and Triple DES in pure
Python: about 40 us a DES block, 1 KiB of 3DES-CBC in 0.2 s. Its objects
keep their state in plain attributes; the patch of :mod:`.ciphers` replaces
methods of its classes (the classes stay the same objects) with ones that
hand whole messages to the Triple DES providers and write pyDes's own state
back after every call. Nothing of it is imported at start-up
(:mod:`accel_agent.targets` lists the module watched): it loads when pyDes
is imported.
"""
