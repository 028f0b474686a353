DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 202 examples",
  "vectors": [
    {
      "label": "sha3-256('abc')",
      "message": {"ascii": "abc"},
      "digest": "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
    }
  ]
}
