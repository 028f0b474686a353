DOCUMENT = {
  "checker": "hash",
  "source": "H. Dobbertin, A. Bosselaers, B. Preneel, RIPEMD-160: A Strengthened Version of RIPEMD (1996), appendix B, test values",
  "vectors": [
    {
      "label": "ripemd160('')",
      "message": {"ascii": ""},
      "digest": "9c1185a5c5e9fc54612808977ee8f548b2258d31"
    },
    {
      "label": "ripemd160('a')",
      "message": {"ascii": "a"},
      "digest": "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"
    },
    {
      "label": "ripemd160('abc')",
      "message": {"ascii": "abc"},
      "digest": "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"
    },
    {
      "label": "ripemd160('message digest')",
      "message": {"ascii": "message digest"},
      "digest": "5d0689ef49d2fae572b881b123a85ffa21595f36"
    },
    {
      "label": "ripemd160('a'..'z')",
      "message": {"ascii": "abcdefghijklmnopqrstuvwxyz"},
      "digest": "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"
    },
    {
      "label": "ripemd160('abcdbcde...nopq')",
      "message": {"ascii": "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"},
      "digest": "12a053384a9c0c88e405a06c27dcf49ada62eb2b"
    },
    {
      "label": "ripemd160('A'..'Z' 'a'..'z' '0'..'9')",
      "message": {"ascii": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"},
      "digest": "b0e20b6e3116640286ed3a87a5713079b21f5189"
    },
    {
      "label": "ripemd160(8 x '1234567890')",
      "message": {"ascii": "12345678901234567890123456789012345678901234567890123456789012345678901234567890"},
      "digest": "9b752e45573d4b39f4dbd3323cab82bf63326bfb"
    }
  ]
}
