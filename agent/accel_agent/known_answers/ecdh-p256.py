DOCUMENT = {
  "checker": "ecdh",
  "source": "NIST CAVS KAS_ECC_CDH_PrimitiveTest, COUNT = 0",
  "vectors": [
    {
      "label": "CAVS ECC CDH P-256 COUNT 0",
      "d": "7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534",
      "x": "700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287",
      "y": "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac",
      "shared": "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"
    }
  ]
}
