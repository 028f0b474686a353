"""Known answers for AES-OCB3, AES-SIV, AES-KW and AES-KWP (part of :mod:`selfcheck`).

Published vectors only: RFC 7253 appendix A (OCB3, 128-bit tags), RFC 5297
A.1 and A.2 (SIV, deterministic and with a nonce and two associated-data
components), RFC 3394 4.1 (KW) and RFC 5649 section 6 (KWP). Each checker
runs the provider's interface the target calls, both directions, and checks
that a tampered input is refused. Kept apart from selfcheck.py so that the
modes added in parallel do not edit the same lines; selfcheck.py merges
:data:`KNOWN_ANSWERS` into its table.
"""

from __future__ import annotations

from accel_agent.providers.base import SelfCheckFailed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def _h(text: str) -> bytes:
    return bytes.fromhex(text)


def _flip(data: bytes) -> bytes:
    return bytes([data[0] ^ 1]) + data[1:]


_OCB_KEY = _h("000102030405060708090a0b0c0d0e0f")
# (label, key, nonce, aad, plaintext, ciphertext || tag)
AES_OCB_VECTORS = (
    ("RFC 7253 A, empty", _OCB_KEY, _h("bbaa99887766554433221100"), b"", b"",
     _h("785407bfffc8ad9edcc5520ac9111ee6")),
    ("RFC 7253 A, 8 bytes", _OCB_KEY, _h("bbaa99887766554433221101"),
     _h("0001020304050607"), _h("0001020304050607"),
     _h("6820b3657b6f615a5725bda0d3b4eb3a257c9af1f8f03009")),
)  # fmt: skip

# (label, key, associated-data components (the nonce last, when there is one), plaintext,
#  tag || ciphertext)
AES_SIV_VECTORS = (
    (
        "RFC 5297 A.1 (deterministic)",
        _h("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
        [_h("101112131415161718191a1b1c1d1e1f2021222324252627")],
        _h("112233445566778899aabbccddee"),
        _h("85632d07c6e8f37f950acd320a2ecc9340c02b9690c4dc04daef7f6afe5c"),
    ),
    (
        "RFC 5297 A.2 (nonce, two components)",
        _h("7f7e7d7c7b7a79787776757473727170404142434445464748494a4b4c4d4e4f"),
        [
            _h("00112233445566778899aabbccddeeffdeaddadadeaddadaffeeddccbbaa99887766554433221100"),
            _h("102030405060708090a0"),
            _h("09f911029d74e35bd84156c5635688c0"),
        ],
        _h(
            "7468697320697320736f6d6520706c61696e7465787420746f20656e6372797074207573696e67"
            "205349562d414553"
        ),
        _h(
            "7bdb6e3b432667eb06f4d14bff2fbd0fcb900f2fddbe404326601965c889bf17dba77ceb094fa663"
            "b7a3f748ba8af829ea64ad544a272e9c485b62a3fd5c0d"
        ),
    ),
)

_KWP_KEK = _h("5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8")
# (label, key-encryption key, key data, wrapped key)
AES_KW_VECTORS = (
    (
        "RFC 3394 4.1",
        _h("000102030405060708090a0b0c0d0e0f"),
        _h("00112233445566778899aabbccddeeff"),
        _h("1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"),
    ),
)
AES_KWP_VECTORS = (
    (
        "RFC 5649 6 (20 bytes)",
        _KWP_KEK,
        _h("c37b7e6492584340bed12207808941155068f738"),
        _h("138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a"),
    ),
    (
        "RFC 5649 6 (7 bytes)",
        _KWP_KEK,
        _h("466f7250617369"),
        _h("afbeb0f07dfbf5419200f2ccb50bb24f"),
    ),
)


def check_ocb(provider: Any, vectors: tuple) -> None:
    for label, key, nonce, aad, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(nonce, plaintext, aad or None) != sealed:
            raise SelfCheckFailed("%s: wrong ciphertext or tag" % label)
        if aead.decrypt(nonce, sealed, aad or None) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        _refused(provider, label, aead.decrypt, nonce, _flip(sealed), aad or None)


def check_siv(provider: Any, vectors: tuple) -> None:
    for label, key, components, plaintext, sealed in vectors:
        aead = provider.one_shot(key)
        if aead.encrypt(plaintext, components) != sealed:
            raise SelfCheckFailed("%s: wrong tag or ciphertext" % label)
        if aead.decrypt(sealed, components) != plaintext:
            raise SelfCheckFailed("%s: wrong plaintext" % label)
        _refused(provider, label, aead.decrypt, _flip(sealed), components)


def check_key_wrap(provider: Any, vectors: tuple) -> None:
    for label, kek, key_data, wrapped in vectors:
        if provider.wrap(kek, key_data) != wrapped:
            raise SelfCheckFailed("%s: wrong wrapped key" % label)
        if provider.unwrap(kek, wrapped) != key_data:
            raise SelfCheckFailed("%s: wrong unwrapped key" % label)
        try:
            provider.unwrap(kek, _flip(wrapped))
        except provider.InvalidUnwrap:
            continue
        raise SelfCheckFailed("%s: a tampered wrapped key was accepted" % label)


def _refused(provider: Any, label: str, call: Callable[..., Any], *args: Any) -> None:
    try:
        call(*args)
    except provider.InvalidTag:
        return
    raise SelfCheckFailed("%s: a tampered message was accepted" % label)


KNOWN_ANSWERS: dict[str, tuple[Callable[[Any, tuple], None], tuple]] = {
    "aes-ocb": (check_ocb, AES_OCB_VECTORS),
    "aes-siv": (check_siv, AES_SIV_VECTORS),
    "aes-kw": (check_key_wrap, AES_KW_VECTORS),
    "aes-kwp": (check_key_wrap, AES_KWP_VECTORS),
}
