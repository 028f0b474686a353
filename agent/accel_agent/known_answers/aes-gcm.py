DOCUMENT = {
  "checker": "gcm",
  "source": "The GCM specification (McGrew and Viega), test cases 4 (96-bit nonce) and 6 (60-byte nonce)",
  "vectors": [
    {
      "label": "GCM spec test case 4",
      "key": "feffe9928665731c6d6a8f9467308308",
      "nonce": "cafebabefacedbaddecaf888",
      "aad": "feedfacedeadbeeffeedfacedeadbeefabaddad2",
      "plaintext": "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
      "ciphertext": "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
      "tag": "5bc94fbc3221a5db94fae95ae7121a47"
    },
    {
      "label": "GCM spec test case 6",
      "key": "feffe9928665731c6d6a8f9467308308",
      "nonce": "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
      "aad": "feedfacedeadbeeffeedfacedeadbeefabaddad2",
      "plaintext": "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
      "ciphertext": "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
      "tag": "619cc5aefffe0bfa462af43c1699d050"
    }
  ]
}
