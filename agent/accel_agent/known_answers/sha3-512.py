DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 202 examples",
  "vectors": [
    {
      "label": "sha3-512('abc')",
      "message": {"ascii": "abc"},
      "digest": "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"
    }
  ]
}
