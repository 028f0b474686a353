DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 202 examples",
  "vectors": [
    {
      "label": "sha3-384('abc')",
      "message": {"ascii": "abc"},
      "digest": "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25"
    }
  ]
}
