DOCUMENT = {
  "checker": "hash",
  "source": "RFC 7693 appendix B",
  "vectors": [
    {
      "label": "blake2s('abc')",
      "message": {"ascii": "abc"},
      "digest": "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"
    }
  ]
}
