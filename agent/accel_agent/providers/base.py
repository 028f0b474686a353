"""What every provider shares: the two ways a provider can be refused."""

from __future__ import annotations


class ProviderUnavailable(Exception):
    """The provider cannot run here (library missing, OpenSSL too old).

    The message is the reason the registry records.
    """


class SelfCheckFailed(Exception):
    """A known-answer test gave a wrong answer; the message names the vector, never its bytes."""
