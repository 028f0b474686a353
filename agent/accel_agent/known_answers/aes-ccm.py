DOCUMENT = {
  "checker": "ccm",
  "source": "NIST SP 800-38C appendix C.1; RFC 3610 packet vector #1",
  "vectors": [
    {
      "label": "SP 800-38C example 1",
      "key": "404142434445464748494a4b4c4d4e4f",
      "nonce": "10111213141516",
      "aad": "0001020304050607",
      "plaintext": "20212223",
      "ciphertext": "7162015b",
      "tag": "4dac255d"
    },
    {
      "label": "RFC 3610 packet vector 1",
      "key": "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
      "nonce": "00000003020100a0a1a2a3a4a5",
      "aad": "0001020304050607",
      "plaintext": "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
      "ciphertext": "588c979a61c663d2f066d0c2c0f989806d5f6b61dac384",
      "tag": "17e8d12cfdf926e0"
    }
  ]
}
