DOCUMENT = {
  "checker": "ecc-keygen",
  "source": "FIPS 186-4 D.1.2 (curve parameters; y^2 = x^3 - 3x + b)",
  "note": "A new key on each curve must have d in [1, n) and (x, y) on the curve.",
  "vectors": [
    {
      "label": "FIPS 186-4 D.1.2.3 P-256",
      "curve": "p256",
      "p": "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
      "n": "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
      "b": "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"
    },
    {
      "label": "FIPS 186-4 D.1.2.4 P-384",
      "curve": "p384",
      "p": "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
      "n": "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
      "b": "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef"
    },
    {
      "label": "FIPS 186-4 D.1.2.5 P-521",
      "curve": "p521",
      "p": "1ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
      "n": "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
      "b": "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00"
    }
  ]
}
