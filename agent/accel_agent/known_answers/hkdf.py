DOCUMENT = {
  "checker": "hkdf",
  "source": "RFC 5869 A.1",
  "vectors": [
    {
      "label": "RFC 5869 A.1",
      "hash": "sha256",
      "digest_size": 32,
      "ikm": "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
      "salt": "000102030405060708090a0b0c",
      "info": "f0f1f2f3f4f5f6f7f8f9",
      "okm": "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    }
  ]
}
