DOCUMENT = {
  "checker": "pbkdf2",
  "source": "RFC 6070; RFC 7914 section 11",
  "vectors": [
    {
      "label": "RFC 6070 1",
      "hash": "sha1",
      "password": {"ascii": "password"},
      "salt": {"ascii": "salt"},
      "iterations": 1,
      "key": "0c60c80f961f0e71f3a9b524af6012062fe037a6"
    },
    {
      "label": "RFC 6070 3",
      "hash": "sha1",
      "password": {"ascii": "password"},
      "salt": {"ascii": "salt"},
      "iterations": 4096,
      "key": "4b007901b765489abead49d926f721d065a429c1"
    },
    {
      "label": "RFC 7914 11 PBKDF2-HMAC-SHA256",
      "hash": "sha256",
      "password": {"ascii": "passwd"},
      "salt": {"ascii": "salt"},
      "iterations": 1,
      "key": "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
    }
  ]
}
