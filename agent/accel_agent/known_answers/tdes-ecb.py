DOCUMENT = {
  "checker": "block-mode",
  "source": "NIST example values TDES_ECB.pdf (csrc.nist.gov, Cryptographic Standards and Guidelines, examples): keys K1 K2 K3, IV and the SP 800-38A plaintext blocks; the ciphertexts of vectors marked 'derived' were computed by pycryptodome 4.4 and by OpenSSL 3 (pyca/cryptography 50), which agree, from the same inputs",
  "vectors": [
    {
      "label": "NIST TDES_ECB three-key",
      "key": "0123456789abcdef23456789abcdef01456789abcdef0123",
      "iv": None,
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "714772f339841d34267fcc4bd2949cc3ee11c22a576a303876183f99c0b6de87"
    },
    {
      "label": "two-key (K3 = K1), derived",
      "key": "0123456789abcdef23456789abcdef01",
      "iv": None,
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "06ede3d82884090aff322c19f0518486730576972a666e58b6c88cf107340d3d"
    }
  ]
}
