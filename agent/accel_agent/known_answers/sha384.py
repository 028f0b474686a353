DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 180-4 examples",
  "vectors": [
    {
      "label": "sha384('abc')",
      "message": {"ascii": "abc"},
      "digest": "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
    }
  ]
}
