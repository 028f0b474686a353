DOCUMENT = {
  "checker": "ecdsa",
  "source": "RFC 6979 deterministic k, the widely published 'Satoshi Nakamoto' vector (python-ecdsa's and Go's RFC 6979 tests)",
  "note": "RFC 6979 has no secp256k1 vector: k is the published 'Satoshi Nakamoto' vector with key 1, and (r, s) the signature published with it before low-s normalisation (s is n minus the published 2442ce9d...d9e5).",
  "vectors": [
    {
      "label": "secp256k1 RFC 6979 SHA-256, key 1, 'Satoshi Nakamoto'",
      "d": "1",
      "x": "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
      "y": "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
      "hash_oid": "2.16.840.1.101.3.4.2.1",
      "digest": "a0dc65ffca799873cbea0ac274015b9526505daaaed385155425f7337704883e",
      "signature": "934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8dbbd3162d46e9f9bef7feb87c16dc13b4f6568a87f4e83f728e2443ba586675c"
    }
  ]
}
