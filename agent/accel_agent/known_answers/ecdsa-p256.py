DOCUMENT = {
  "checker": "ecdsa",
  "source": "RFC 6979 A.2.5",
  "vectors": [
    {
      "label": "RFC 6979 A.2.5 P-256 SHA-256 sample",
      "d": "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
      "x": "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6",
      "y": "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299",
      "hash_oid": "2.16.840.1.101.3.4.2.1",
      "digest": "af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf",
      "signature": "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"
    }
  ]
}
