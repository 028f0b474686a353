"""The pyaes target: pyaes 1.6.1's modes of operation and block feeders served by OpenSSL.

pyaes (https://github.com/ricmoo/pyaes) is AES in pure Python: about 0.7 MB/s.
Its mode objects (``AESModeOfOperation{ECB,CBC,CTR,CFB,OFB}``) keep their
state in plain attributes; the patch of :mod:`.modes` replaces the classes'
methods (the classes stay the same objects, so references bound before the
patch, ``isinstance`` and ``AESModesOfOperation`` all keep working) with ones
that hand plain ``bytes`` to the AES providers and write pyaes's own state
back after every call; :mod:`.feeder` lets ``Encrypter``/``Decrypter`` hand
whole runs of ECB/CBC blocks over at once. Nothing of it is imported at
start-up (:mod:`accel_agent.targets` lists the modules watched): it loads
when pyaes is imported.
"""
