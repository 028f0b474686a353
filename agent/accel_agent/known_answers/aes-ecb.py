DOCUMENT = {
  "checker": "block-mode",
  "source": "NIST SP 800-38A appendix F.1; FIPS 197 appendix C.3",
  "vectors": [
    {
      "label": "SP 800-38A F.1.1 ECB-AES128",
      "key": "2b7e151628aed2a6abf7158809cf4f3c",
      "iv": None,
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
    },
    {
      "label": "SP 800-38A F.1.3 ECB-AES192",
      "key": "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
      "iv": None,
      "plaintext": "6bc1bee22e409f96e93d7e117393172a",
      "ciphertext": "bd334f1d6e45f25ff712a214571fa5cc"
    },
    {
      "label": "FIPS-197 C.3 AES-256",
      "key": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      "iv": None,
      "plaintext": "00112233445566778899aabbccddeeff",
      "ciphertext": "8ea2b7ca516745bfeafc49904b496089"
    }
  ]
}
