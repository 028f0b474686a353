DOCUMENT = {
  "checker": "ecdsa",
  "source": "RFC 6979 A.2.3",
  "vectors": [
    {
      "label": "RFC 6979 A.2.3 P-192 SHA-256 sample",
      "d": "6fab034934e4c0fc9ae67f5b5659a9d7d1fefd187ee09fd4",
      "x": "ac2c77f529f91689fea0ea5efec7f210d8eea0b9e047ed56",
      "y": "3bc723e57670bd4887ebc732c523063d0a7c957bc97c1c43",
      "hash_oid": "2.16.840.1.101.3.4.2.1",
      "digest": "af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf",
      "signature": "4b0b8ce98a92866a2820e20aa6b75b56382e0f9bfd5ecb55ccdb006926ea9565cbadc840829d8c384e06de1f1e381b85"
    }
  ]
}
