DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 202 examples",
  "vectors": [
    {
      "label": "shake128('abc')",
      "message": {"ascii": "abc"},
      "digest": "5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8"
    }
  ]
}
