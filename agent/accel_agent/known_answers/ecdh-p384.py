DOCUMENT = {
  "checker": "ecdh",
  "source": "NIST CAVS KAS_ECC_CDH_PrimitiveTest, COUNT = 0",
  "vectors": [
    {
      "label": "CAVS ECC CDH P-384 COUNT 0",
      "d": "3cc3122a68f0d95027ad38c067916ba0eb8c38894d22e1b15618b6818a661774ad463b205da88cf699ab4d43c9cf98a1",
      "x": "a7c76b970c3b5fe8b05d2838ae04ab47697b9eaf52e764592efda27fe7513272734466b400091adbf2d68c58e0c50066",
      "y": "ac68f19f2e1cb879aed43a9969b91a0839c4c38a49749b661efedf243451915ed0905a32b060992b468c64766fc8437a",
      "shared": "5f9d29dc5e31a163060356213669c8ce132e22f57c9a04f40ba7fcead493b457e5621e766c40a2e3d4d6a04b25e533f1"
    }
  ]
}
