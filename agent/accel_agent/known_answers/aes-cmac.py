DOCUMENT = {
  "checker": "cmac",
  "source": "RFC 4493 section 4, examples 1 and 2",
  "vectors": [
    {
      "label": "RFC 4493 example 1",
      "key": "2b7e151628aed2a6abf7158809cf4f3c",
      "message": "",
      "tag": "bb1d6929e95937287fa37d129b756746"
    },
    {
      "label": "RFC 4493 example 2",
      "key": "2b7e151628aed2a6abf7158809cf4f3c",
      "message": "6bc1bee22e409f96e93d7e117393172a",
      "tag": "070a16b46b4d4144f79bdd9dd04a287c"
    }
  ]
}
