DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 180-4 examples",
  "vectors": [
    {
      "label": "sha224('abc')",
      "message": {"ascii": "abc"},
      "digest": "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
    }
  ]
}
