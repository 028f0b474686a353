"""AES's AEAD modes besides GCM through OpenSSL (pyca/cryptography): CCM, EAX, OCB3, SIV.

OCB3 (RFC 7253) and SIV (RFC 5297) are served by OpenSSL's matching
primitive as a one-shot call, through pyca/cryptography's ``AESOCB3`` and
``AESSIV``; the limits the target must respect (nonce and tag sizes) are
stated here as data.

CCM is OpenSSL's own AEAD (``AESCCM``: nonce 7..13 bytes, tag 4..16 bytes,
even), one-shot only; a CTR context over the CCM counter blocks recovers a
plaintext without its tag (the tag is then rebuilt by encrypting again).
Its CBC-MAC can also be run alone (``cbc_mac`` over ``mac_input``, SP
800-38C A.2), for the MAC's unmasked value, which the one-shot call does
not give.

OpenSSL has no EAX. EAX (Bellare, Rogaway, Wagner 2004) is composed here
from OpenSSL's CMAC and CTR: ``N = OMAC_0(nonce)``, ``H = OMAC_1(header)``,
``C = CTR_N(M)``, ``tag = N ^ H ^ OMAC_2(C)``, where ``OMAC_t(X)`` is
``CMAC(K, [t]_16 || X)``. One keyed CMAC context is copied for the three
OMACs (a copy skips the key schedule). Nothing here knows pycryptodome.
"""

from __future__ import annotations

from accel_agent.providers._pyca import context_makers, cryptography_module
from accel_agent.providers.base import LastKeyReuse, ProviderUnavailable
from accel_agent.providers.block_ciphers import AES, algorithm_class, mode_class
from accel_agent.providers.contexts import when_free

# pyca/cryptography's AESOCB3 takes 12..15-byte nonces and makes 16-byte tags;
# OCB3 encodes the tag length into its nonce block, so a shorter tag is not a
# truncated 16-byte one and cannot be served.
OCB_NONCE_SIZES = range(12, 16)
OCB_TAG_SIZE = 16
SIV_TAG_SIZE = 16
CCM_NONCE_SIZES = range(7, 14)
CCM_TAG_SIZES = (4, 6, 8, 10, 12, 14, 16)
_OMAC_PREFIX = tuple(bytes(AES.block_size - 1) + bytes((t,)) for t in range(3))


def _ctr_maker(aes):
    """``(key, counter_block) -> encryption context`` without the public API's checks.

    The contexts of :func:`accel_agent.providers._pyca.context_makers`:
    the arguments were validated by the caller. ``aes`` makes the
    ``algorithms.AES`` object of a key.
    """
    create, _ = context_makers()
    ctr = mode_class("CTR")

    def make(key: bytes, counter_block: bytes):
        return create(aes(key), ctr(counter_block))

    return make


class CcmProvider:
    """AES-CCM: ``one_shot(key, tag_length)`` is an ``AESCCM``; ``keystream`` a CTR context."""

    name = "openssl"
    primitive = "aes-ccm"

    def __init__(self) -> None:
        AESCCM = cryptography_module("hazmat.primitives.ciphers.aead").AESCCM
        self.InvalidTag = cryptography_module("exceptions").InvalidTag
        self.one_shot = AESCCM  # AESCCM(key, tag_length).encrypt(nonce, data, aad) -> ct || tag
        # The AESCCM (16-byte tag) of the last key object, for the common tag length.
        self.one_shot_16 = LastKeyReuse(AESCCM).for_key
        self._ctr = _ctr_maker(LastKeyReuse(algorithm_class(AES)).for_key)

    def keystream(self, key: bytes, nonce: bytes, first: int = 1):
        """CTR over the CCM counter blocks A_first, ... (SP 800-38C A.3); from A_1 the
        payload's cipher, from A_0 the tag's mask S_0 first."""
        q = 15 - len(nonce)
        return self._ctr(key, bytes((q - 1,)) + nonce + first.to_bytes(q, "big"))

    def cbc_mac(self, key: bytes, data: bytes) -> bytes:
        """The last block of AES-CBC over ``data`` (whole blocks) from a zero IV."""
        create, _ = context_makers()
        aes = algorithm_class(AES)
        cbc = mode_class("CBC")
        return create(aes(key), cbc(bytes(AES.block_size))).update(data)[-AES.block_size :]


def ccm_mac_input(nonce: bytes, mac_len: int, aad: bytes, plaintext: bytes) -> bytes:
    """B_0, the encoded associated data and the payload, each zero-padded to whole
    blocks: what CCM's CBC-MAC runs over (SP 800-38C A.2)."""
    q = 15 - len(nonce)
    flags = (bool(aad) << 6) | (((mac_len - 2) // 2) << 3) | (q - 1)
    b_0 = bytes((flags,)) + nonce + len(plaintext).to_bytes(q, "big")
    size = len(aad)
    if not size:
        encoded = b""
    elif size < 2**16 - 2**8:
        encoded = size.to_bytes(2, "big")
    elif size < 2**32:
        encoded = b"\xff\xfe" + size.to_bytes(4, "big")
    else:
        encoded = b"\xff\xff" + size.to_bytes(8, "big")
    header = encoded + aad
    return b"".join(
        (b_0, header, bytes(-len(header) % AES.block_size), plaintext,
         bytes(-len(plaintext) % AES.block_size))
    )  # fmt: skip


def _xor16(a: bytes, b: bytes, c: bytes) -> bytes:
    return (
        int.from_bytes(a, "big") ^ int.from_bytes(b, "big") ^ int.from_bytes(c, "big")
    ).to_bytes(AES.block_size, "big")


def _fed(context, data: bytes):
    """``context.update(data)``, waiting while another thread is inside it (providers.contexts)."""
    try:
        return context.update(data)
    except RuntimeError:
        return when_free(context.update, data)


class EaxStream:
    """One EAX message: ``authenticate`` (header), then ``encrypt`` or ``decrypt``, then ``tag``.

    The caller keeps the order (header before payload, one direction); this
    object only computes. Threads may share it, as they may share native's
    EaxMode: a call waits while another thread is inside a context. ``tag()``
    is the full 16-byte tag of what was fed so far and leaves the stream
    going, as native's OMACs do: a copy of the object (``copy.copy`` shares
    the stream, as native's copy shares its OMACs and CTR) may go on and ask
    again. ``final_tag()`` is the same for a stream nobody else holds.
    """

    __slots__ = ("_n", "_header", "_payload", "_ctr", "_handed")

    def __init__(self, provider: EaxProvider, key: bytes, nonce: bytes) -> None:
        keyed = provider.cmac(key)
        omac_n = keyed.copy()
        omac_n.update(_OMAC_PREFIX[0])
        omac_n.update(nonce)
        self._n = omac_n.finalize()
        self._header = keyed.copy()
        self._header.update(_OMAC_PREFIX[1])
        keyed.update(_OMAC_PREFIX[2])
        self._payload = keyed
        self._ctr = provider.ctr(key, self._n)
        self._handed = False

    @property
    def initial_counter(self) -> bytes:
        """The first counter block of the payload's CTR (the nonce's OMAC)."""
        return self._n

    def authenticate(self, header: bytes) -> None:
        _fed(self._header, header)

    def encrypt(self, plaintext: bytes) -> bytes:
        if self._handed:
            raise HandedOver("this stream's payload goes on elsewhere")
        ciphertext = _fed(self._ctr, plaintext)
        _fed(self._payload, ciphertext)
        return ciphertext

    def decrypt(self, ciphertext: bytes) -> bytes:
        if self._handed:
            raise HandedOver("this stream's payload goes on elsewhere")
        _fed(self._payload, ciphertext)
        return _fed(self._ctr, ciphertext)

    def absorb(self, ciphertext: bytes) -> None:
        """MAC ciphertext without decrypting it (the key stream does not move)."""
        if self._handed:
            raise HandedOver("this stream's payload goes on elsewhere")
        _fed(self._payload, ciphertext)

    def hand_over(self) -> None:
        """Refuse payload from now on (:class:`HandedOver`): its caller goes on elsewhere
        from the point it reads after this call (its counts, ``omac_tags``).

        A caller counts a call's bytes before it feeds the stream, and reads
        its counts after this: of two threads, either the feeding one is
        refused, or its bytes are in the counts read, so no key stream is
        handed on that this stream also uses.
        """
        self._handed = True

    def tag(self) -> bytes:
        return _xor16(*self.omac_tags())

    def final_tag(self) -> bytes:
        return _xor16(self._n, self._header.finalize(), self._payload.finalize())

    def omac_tags(self) -> tuple[bytes, bytes, bytes]:
        """The three OMACs of what was fed so far (nonce, header, payload), the stream going on."""
        header = when_free(self._header.copy).finalize()
        payload = when_free(self._payload.copy).finalize()
        return self._n, header, payload


class HandedOver(Exception):
    """Payload given to an :class:`EaxStream` after ``hand_over`` (only threads get here)."""


class EaxProvider:
    """AES-EAX composed from OpenSSL's CMAC and CTR (no EAX in OpenSSL)."""

    name = "openssl"
    primitive = "aes-eax"

    def __init__(self) -> None:
        CMAC = cryptography_module("hazmat.primitives.cmac").CMAC
        # One message makes three CMACs and a CTR context of one key: the
        # algorithms.AES object of the last key object serves them all
        # (base.LastKeyReuse; ~370 ns each otherwise).
        aes = LastKeyReuse(algorithm_class(AES)).for_key
        self.ctr = _ctr_maker(aes)  # (key, 16-byte initial counter block) -> context

        def cmac(key: bytes):
            return CMAC(aes(key))

        self.cmac = cmac

    def stream(self, key: bytes, nonce: bytes) -> EaxStream:
        return EaxStream(self, key, nonce)

    def encrypt(self, key: bytes, nonce: bytes, header: bytes, plaintext: bytes) -> tuple:
        """One whole message: (ciphertext, 16-byte tag)."""
        return self._whole(EaxStream.encrypt, key, nonce, header, plaintext)

    def decrypt(self, key: bytes, nonce: bytes, header: bytes, ciphertext: bytes) -> tuple:
        """One whole message: (plaintext, the 16-byte tag it should carry). The caller compares."""
        return self._whole(EaxStream.decrypt, key, nonce, header, ciphertext)

    def _whole(self, direction, key: bytes, nonce: bytes, header: bytes, data: bytes) -> tuple:
        """(``direction``'s output for ``data``, the tag): ``direction`` one of EaxStream's."""
        stream = EaxStream(self, key, nonce)
        if header:
            stream.authenticate(header)
        output = direction(stream, data)
        return output, stream.final_tag()


def _aead(name: str):
    aead = cryptography_module("hazmat.primitives.ciphers.aead")
    invalid_tag = cryptography_module("exceptions").InvalidTag
    one_shot = getattr(aead, name, None)
    if one_shot is None:
        raise ProviderUnavailable("pyca/cryptography has no %s (too old)" % name)
    return LastKeyReuse(one_shot).for_key, invalid_tag


class OcbProvider:
    """AES-OCB3: ``one_shot(key).encrypt(nonce, data, aad)`` -> ciphertext || 16-byte tag."""

    name = "openssl"
    primitive = "aes-ocb"

    def __init__(self) -> None:
        self.one_shot, self.InvalidTag = _aead("AESOCB3")


class SivProvider:
    """AES-SIV: ``one_shot(key).encrypt(data, [ad, ..., nonce])`` -> 16-byte tag || ciphertext."""

    name = "openssl"
    primitive = "aes-siv"

    def __init__(self) -> None:
        self.one_shot, self.InvalidTag = _aead("AESSIV")


def ccm_provider() -> CcmProvider:
    return CcmProvider()


def eax_provider() -> EaxProvider:
    return EaxProvider()


def ocb_provider() -> OcbProvider:
    return OcbProvider()


def siv_provider() -> SivProvider:
    return SivProvider()
