DOCUMENT = {
  "checker": "block-mode",
  "source": "NIST example values TDES_OFB.pdf (csrc.nist.gov, Cryptographic Standards and Guidelines, examples): keys K1 K2 K3, IV and the SP 800-38A plaintext blocks; the ciphertexts of vectors marked 'derived' were computed by pycryptodome 4.4 and by OpenSSL 3 (pyca/cryptography 50), which agree, from the same inputs",
  "vectors": [
    {
      "label": "OFB three-key, derived",
      "key": "0123456789abcdef23456789abcdef01456789abcdef0123",
      "iv": "f69f2445df4f9b17",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "078bb74e59ce7ed6267e120692667da1a58662d7e04cbc642144d55c03db5aee"
    }
  ]
}
