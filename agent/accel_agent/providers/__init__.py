"""Providers: OpenSSL-backed implementations of primitives, one module per family.

A provider knows nothing of pycryptodome or any other patched library: it
offers plain operations on bytes (a target maps a library's API onto them).
Every provider module imports its heavy dependency (pyca/cryptography) inside
its factory, so that importing this package costs nothing.
"""
