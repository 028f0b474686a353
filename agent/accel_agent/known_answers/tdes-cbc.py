DOCUMENT = {
  "checker": "block-mode",
  "source": "NIST example values TDES_CBC.pdf (csrc.nist.gov, Cryptographic Standards and Guidelines, examples): keys K1 K2 K3, IV and the SP 800-38A plaintext blocks",
  "vectors": [
    {
      "label": "NIST TDES_CBC three-key",
      "key": "0123456789abcdef23456789abcdef01456789abcdef0123",
      "iv": "f69f2445df4f9b17",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "2079c3d53aa763e193b79e2569ab5262516570481f25b50f73c0bda85c8e0da7"
    },
    {
      "label": "NIST TDES_CBC two-key",
      "key": "0123456789abcdef23456789abcdef01",
      "iv": "f69f2445df4f9b17",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "7401ce1eab6d003caff84bf47b36cc2154f0238f9ffecd8f6acf118392b45581"
    }
  ]
}
