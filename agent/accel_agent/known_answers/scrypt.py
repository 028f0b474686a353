DOCUMENT = {
  "checker": "scrypt",
  "source": "RFC 7914 section 12",
  "vectors": [
    {
      "label": "RFC 7914 12 (N=1024)",
      "password": {"ascii": "password"},
      "salt": {"ascii": "NaCl"},
      "n": 1024,
      "r": 8,
      "p": 16,
      "key": "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
    }
  ]
}
