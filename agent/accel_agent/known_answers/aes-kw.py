DOCUMENT = {
  "checker": "key-wrap",
  "source": "RFC 3394 4.1",
  "vectors": [
    {
      "label": "RFC 3394 4.1",
      "kek": "000102030405060708090a0b0c0d0e0f",
      "key_data": "00112233445566778899aabbccddeeff",
      "wrapped": "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"
    }
  ]
}
