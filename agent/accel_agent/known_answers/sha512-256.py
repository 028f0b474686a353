DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 180-4 examples",
  "vectors": [
    {
      "label": "sha512-256('abc')",
      "message": {"ascii": "abc"},
      "digest": "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"
    }
  ]
}
