DOCUMENT = {
  "checker": "cfb",
  "source": "NIST SP 800-38A appendix F.3",
  "vectors": [
    {
      "label": "SP 800-38A F.3.7 CFB8-AES128",
      "segment_size": 8,
      "key": "2b7e151628aed2a6abf7158809cf4f3c",
      "iv": "000102030405060708090a0b0c0d0e0f",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d",
      "ciphertext": "3b79424c9c0dd436bace9e0ed4586a4f32b9"
    },
    {
      "label": "SP 800-38A F.3.13 CFB128-AES128",
      "segment_size": 128,
      "key": "2b7e151628aed2a6abf7158809cf4f3c",
      "iv": "000102030405060708090a0b0c0d0e0f",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
      "ciphertext": "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6"
    }
  ]
}
