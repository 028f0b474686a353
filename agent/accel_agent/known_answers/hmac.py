DOCUMENT = {
  "checker": "hmac",
  "source": "RFC 2202, RFC 4231 and RFC 2286, test case 2",
  "vectors": [
    {
      "label": "RFC 2202 HMAC-MD5 2",
      "hash": "md5",
      "key": {"ascii": "Jefe"},
      "message": {"ascii": "what do ya want for nothing?"},
      "tag": "750c783e6ab0b503eaa86e310a5db738"
    },
    {
      "label": "RFC 2202 HMAC-SHA1 2",
      "hash": "sha1",
      "key": {"ascii": "Jefe"},
      "message": {"ascii": "what do ya want for nothing?"},
      "tag": "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
    },
    {
      "label": "RFC 4231 HMAC-SHA256 2",
      "hash": "sha256",
      "key": {"ascii": "Jefe"},
      "message": {"ascii": "what do ya want for nothing?"},
      "tag": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    },
    {
      "label": "RFC 4231 HMAC-SHA512 2",
      "hash": "sha512",
      "key": {"ascii": "Jefe"},
      "message": {"ascii": "what do ya want for nothing?"},
      "tag": "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
    },
    {
      "label": "RFC 2286 HMAC-RIPEMD160 2",
      "hash": "ripemd160",
      "key": {"ascii": "Jefe"},
      "message": {"ascii": "what do ya want for nothing?"},
      "tag": "dda6c0213a485a9e24f4742064a7f033b43c4069"
    }
  ]
}
