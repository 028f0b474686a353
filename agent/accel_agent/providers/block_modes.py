"""The classic modes of operation (ECB, CBC, CTR, CFB, OFB) of any block cipher, through OpenSSL.

A provider hands out OpenSSL cipher contexts for a key and an IV or counter
block; which cipher is a :class:`~.block_ciphers.BlockCipher` record. It
knows nothing of pycryptodome: the targets wrap these contexts in objects
that behave like pycryptodome's own.
"""

from __future__ import annotations

from accel_agent.providers._pyca import context_makers
from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable
from accel_agent.providers.block_ciphers import BlockCipher, algorithm_maker, mode_class


class ModeProvider:
    """One mode of one block cipher: contexts whose ``update`` encrypts or decrypts.

    ``mode_name`` is the pyca/cryptography mode class (``"CBC"``, ``"CFB8"``...);
    ECB takes no IV, every other mode takes one block-sized value.
    """

    name = "openssl"

    def __init__(self, cipher: BlockCipher, mode_name: str, shares_key_with: tuple = ()) -> None:
        if mode_name not in cipher.modes:
            raise ProviderUnavailable("OpenSSL has no %s-%s" % (cipher.name, mode_name))
        self.cipher = cipher
        self.primitive = "%s-%s" % (cipher.name, mode_name.rstrip("8").lower())
        self._encryption_context, self._decryption_context = context_makers()
        # algorithms.AES(key) validates in Python (~370 ns a message): the
        # last key object's is reused (base.LastKeyReuse). ``algorithm(key)``
        # is that object for a key.
        self.keys = LastKeyReuse(algorithm_maker(cipher), shares_key_with=shares_key_with)
        self.algorithm = self.keys.for_key
        self._mode = mode_class(mode_name)
        self._ecb = mode_name == "ECB"

    def encryptor(self, key: bytes, iv: bytes | None = None):
        mode = self._mode() if self._ecb else self._mode(iv)
        return self._encryption_context(self.algorithm(key), mode)

    def decryptor(self, key: bytes, iv: bytes | None = None):
        mode = self._mode() if self._ecb else self._mode(iv)
        return self._decryption_context(self.algorithm(key), mode)


class CfbProvider:
    """CFB: OpenSSL's two segment sizes (8 bits, the block); ECB for the registers of others."""

    name = "openssl"

    def __init__(self, cipher: BlockCipher) -> None:
        cfb8 = ModeProvider(cipher, "CFB8")
        # One key for both segment sizes' caches (base.LastKeyReuse).
        cfb_block = ModeProvider(cipher, "CFB", shares_key_with=(cfb8.keys,))
        self.cipher = cipher
        self.primitive = cfb_block.primitive
        # segment size in bits -> the ModeProvider of OpenSSL's CFB of that segment: a
        # caller that knows its segment size asks it for contexts directly (a frame less).
        self.by_segment = dict(zip(cipher.cfb_segments, (cfb8, cfb_block)))
        # Other segment sizes' decryption: the shift registers through ECB.
        self._ecb = ModeProvider(cipher, "ECB")

    def block_encryptor(self, key: bytes):
        """An ECB encryption context of ``key`` (CFB decryption with other segment sizes)."""
        return self._ecb.encryptor(key)

    def encryptor(self, key: bytes, iv: bytes, segment_size: int):
        return self.by_segment[segment_size].encryptor(key, iv)

    def decryptor(self, key: bytes, iv: bytes, segment_size: int):
        return self.by_segment[segment_size].decryptor(key, iv)


class CtrProvider(ModeProvider):
    """CTR: OpenSSL's contexts for a counter it follows, ECB contexts for the blocks of any other.

    OpenSSL's CTR increments the whole block, big-endian; a counter laid out
    otherwise is made block by block by the caller and encrypted by
    :meth:`block_encryptor`'s context, of the same key cache.
    """

    def __init__(self, cipher: BlockCipher) -> None:
        ModeProvider.__init__(self, cipher, "CTR")
        self._ecb_mode = mode_class("ECB")
        # The last key object's ECB context (base.LastKeyReuse), one key with
        # the algorithm cache: ECB holds nothing between calls of whole
        # blocks, so every stream of that key may use it in turn.
        self._blocks = LastKeyReuse(self.own_block_encryptor, shares_key_with=(self.keys,))

    def block_encryptor(self, key: bytes):
        """An ECB encryption context of ``key`` (CTR's key stream from counter blocks).

        Shared by the streams of the last key object: about 1 us (~13 % of
        a 1 KiB message) not spent per message. A stream that finds it busy
        in another thread takes :meth:`own_block_encryptor` instead
        (``speedups.CounterStream``'s ``fresh``).
        """
        return self._blocks.for_key(key)

    def own_block_encryptor(self, key: bytes):
        """A new ECB encryption context of ``key``, for one stream alone."""
        return self._encryption_context(self.algorithm(key), self._ecb_mode())
