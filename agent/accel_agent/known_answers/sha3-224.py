DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 202 examples",
  "vectors": [
    {
      "label": "sha3-224('abc')",
      "message": {"ascii": "abc"},
      "digest": "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf"
    }
  ]
}
