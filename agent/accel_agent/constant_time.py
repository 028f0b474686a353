"""Constant-time comparison of MAC tags, without importing ``hmac``.

``hmac`` imports ``hashlib``, which loads OpenSSL's ``_hashlib`` (about
5 ms here): too much for the import of a cipher module under the agent
(docs/activation.md, "Start-up cost"). ``hmac.compare_digest`` is
``_hashlib.compare_digest``, and ``_operator._compare_digest`` where
``_hashlib`` is absent: the same constant-time C comparison, with the same
rules and errors. The agent compares its own bytes with it, so the builtin
``_operator`` one serves, and ``hmac``'s where an interpreter lacks it.
"""

try:
    from _operator import _compare_digest as compare_digest
except ImportError:  # an interpreter without CPython's _operator
    from hmac import compare_digest

__all__ = ["compare_digest"]
