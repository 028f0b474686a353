DOCUMENT = {
  "checker": "poly1305",
  "source": "RFC 8439 2.5.2",
  "vectors": [
    {
      "label": "RFC 8439 2.5.2",
      "key": "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
      "message": {"ascii": "Cryptographic Forum Research Group"},
      "tag": "a8061dc1305136c6c22b8baf0c0127a9"
    }
  ]
}
