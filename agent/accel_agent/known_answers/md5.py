DOCUMENT = {
  "checker": "hash",
  "source": "RFC 1321 A.5",
  "vectors": [
    {
      "label": "md5('abc')",
      "message": {"ascii": "abc"},
      "digest": "900150983cd24fb0d6963f7d28e17f72"
    }
  ]
}
