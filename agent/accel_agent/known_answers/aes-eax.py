DOCUMENT = {
  "checker": "eax",
  "source": "The EAX paper (Bellare, Rogaway, Wagner 2004), its first three vectors",
  "vectors": [
    {
      "label": "EAX paper vector 1",
      "key": "233952dee4d5ed5f9b9c6d6ff80ff478",
      "nonce": "62ec67f9c3a4a407fcb2a8c49031a8b3",
      "aad": "6bfb914fd07eae6b",
      "plaintext": "",
      "ciphertext": "",
      "tag": "e037830e8389f27b025a2d6527e79d01"
    },
    {
      "label": "EAX paper vector 2",
      "key": "91945d3f4dcbee0bf45ef52255f095a4",
      "nonce": "becaf043b0a23d843194ba972c66debd",
      "aad": "fa3bfd4806eb53fa",
      "plaintext": "f7fb",
      "ciphertext": "19dd",
      "tag": "5c4c9331049d0bdab0277408f67967e5"
    },
    {
      "label": "EAX paper vector 3",
      "key": "01f74ad64077f2e704c0f60ada3dd523",
      "nonce": "70c3db4f0d26368400a10ed05d2bff5e",
      "aad": "234a3463c1264ac6",
      "plaintext": "1a47cb4933",
      "ciphertext": "d851d5bae0",
      "tag": "3a59f238a23e39199dc9266626c40f80"
    }
  ]
}
