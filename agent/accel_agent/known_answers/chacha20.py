DOCUMENT = {
  "checker": "chacha20",
  "source": "RFC 8439 2.4.2 and A.1",
  "note": "A.1 #1 is the original construction (8-byte nonce, 64-bit counter): all-zero key and nonce.",
  "vectors": [
    {
      "label": "RFC 8439 2.4.2 ChaCha20",
      "key": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      "nonce": "000000000000004a00000000",
      "counter": 1,
      "plaintext": {"ascii": "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."},
      "ciphertext": "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d"
    },
    {
      "label": "RFC 8439 A.1 #1 (8-byte nonce layout)",
      "key": "0000000000000000000000000000000000000000000000000000000000000000",
      "nonce": "0000000000000000",
      "counter": 0,
      "plaintext": "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      "ciphertext": "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
    }
  ]
}
