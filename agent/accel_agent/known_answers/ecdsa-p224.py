DOCUMENT = {
  "checker": "ecdsa",
  "source": "RFC 6979 A.2.4",
  "vectors": [
    {
      "label": "RFC 6979 A.2.4 P-224 SHA-256 sample",
      "d": "f220266e1105bfe3083e03ec7a3a654651f45e37167e88600bf257c1",
      "x": "cf08da5ad719e42707fa431292dea11244d64fc51610d94b130d6c",
      "y": "eeab6f3debe455e3dbf85416f7030cbd94f34f2d6f232c69f3c1385a",
      "hash_oid": "2.16.840.1.101.3.4.2.1",
      "digest": "af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf",
      "signature": "61aa3da010e8e8406c656bc477a7a7189895e7e840cdfe8ff42307babc814050dab5d23770879494f9e0a680dc1af7161991bde692b10101"
    }
  ]
}
