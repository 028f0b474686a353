DOCUMENT = {
  "checker": "ocb",
  "source": "RFC 7253 appendix A (128-bit tags)",
  "vectors": [
    {
      "label": "RFC 7253 A, empty",
      "key": "000102030405060708090a0b0c0d0e0f",
      "nonce": "bbaa99887766554433221100",
      "aad": "",
      "plaintext": "",
      "sealed": "785407bfffc8ad9edcc5520ac9111ee6"
    },
    {
      "label": "RFC 7253 A, 8 bytes",
      "key": "000102030405060708090a0b0c0d0e0f",
      "nonce": "bbaa99887766554433221101",
      "aad": "0001020304050607",
      "plaintext": "0001020304050607",
      "sealed": "6820b3657b6f615a5725bda0d3b4eb3a257c9af1f8f03009"
    }
  ]
}
