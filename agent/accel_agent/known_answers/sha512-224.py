DOCUMENT = {
  "checker": "hash",
  "source": "FIPS 180-4 examples",
  "vectors": [
    {
      "label": "sha512-224('abc')",
      "message": {"ascii": "abc"},
      "digest": "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"
    }
  ]
}
