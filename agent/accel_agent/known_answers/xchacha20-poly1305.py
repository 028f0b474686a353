DOCUMENT = {
  "checker": "chacha20-poly1305",
  "source": "draft-irtf-cfrg-xchacha-03 A.3.1",
  "vectors": [
    {
      "label": "draft-irtf-cfrg-xchacha-03 A.3.1 XChaCha20-Poly1305",
      "key": "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
      "nonce": "404142434445464748494a4b4c4d4e4f5051525354555657",
      "aad": "50515253c0c1c2c3c4c5c6c7",
      "plaintext": {"ascii": "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."},
      "ciphertext": "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e",
      "tag": "c0875924c1c7987947deafd8780acf49"
    }
  ]
}
