DOCUMENT = {
  "checker": "siv",
  "source": "RFC 5297 A.1 and A.2",
  "vectors": [
    {
      "label": "RFC 5297 A.1 (deterministic)",
      "key": "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
      "components": [
        "101112131415161718191a1b1c1d1e1f2021222324252627"
      ],
      "plaintext": "112233445566778899aabbccddee",
      "sealed": "85632d07c6e8f37f950acd320a2ecc9340c02b9690c4dc04daef7f6afe5c"
    },
    {
      "label": "RFC 5297 A.2 (nonce, two components)",
      "key": "7f7e7d7c7b7a79787776757473727170404142434445464748494a4b4c4d4e4f",
      "components": [
        "00112233445566778899aabbccddeeffdeaddadadeaddadaffeeddccbbaa99887766554433221100",
        "102030405060708090a0",
        "09f911029d74e35bd84156c5635688c0"
      ],
      "plaintext": {"ascii": "this is some plaintext to encrypt using SIV-AES"},
      "sealed": "7bdb6e3b432667eb06f4d14bff2fbd0fcb900f2fddbe404326601965c889bf17dba77ceb094fa663b7a3f748ba8af829ea64ad544a272e9c485b62a3fd5c0d"
    }
  ]
}
