DOCUMENT = {
  "checker": "cfb",
  "source": "NIST example values TDES_CFB8 and TDES_CFB64.pdf (csrc.nist.gov, Cryptographic Standards and Guidelines, examples): keys K1 K2 K3, IV and the SP 800-38A plaintext blocks; the ciphertexts of vectors marked 'derived' were computed by pycryptodome 4.4 and by OpenSSL 3 (pyca/cryptography 50), which agree, from the same inputs",
  "vectors": [
    {
      "label": "CFB8 three-key, derived",
      "segment_size": 8,
      "key": "0123456789abcdef23456789abcdef01456789abcdef0123",
      "iv": "f69f2445df4f9b17",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "07951b729dc23ab448fc82b40372623dc443a4b443b6b4a66c20d892236028d5"
    },
    {
      "label": "CFB64 three-key, derived",
      "segment_size": 64,
      "key": "0123456789abcdef23456789abcdef01456789abcdef0123",
      "iv": "f69f2445df4f9b17",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
      "ciphertext": "078bb74e59ce7ed67666de9cf95eaf3fe9ed6bb460f451528a5f9fe4ed710918"
    }
  ]
}
