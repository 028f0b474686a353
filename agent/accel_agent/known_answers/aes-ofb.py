DOCUMENT = {
  "checker": "block-mode",
  "source": "NIST SP 800-38A appendix F.4",
  "vectors": [
    {
      "label": "SP 800-38A F.4.1 OFB-AES128",
      "key": "2b7e151628aed2a6abf7158809cf4f3c",
      "iv": "000102030405060708090a0b0c0d0e0f",
      "plaintext": "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
      "ciphertext": "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed8259740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e"
    }
  ]
}
