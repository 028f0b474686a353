DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 180-4 examples",
  "vectors": [
    {
      "label": "sha1('abc')",
      "message": {"ascii": "abc"},
      "digest": "a9993e364706816aba3e25717850c26c9cd0d89d"
    }
  ]
}
