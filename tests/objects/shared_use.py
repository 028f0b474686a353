"""What the objects tests share: hash and MAC cases, threads hammering one object.

A *case* names one pycryptodome object kind (module, how to make one, how to
read its result) and the agent primitive that serves it. :func:`hammer`
runs calls on many threads at once and collects the exceptions they raise,
by type name, so that a test can compare the two sides' counts.
"""

from __future__ import annotations

import threading

import transparency_helpers as th


class Case:
    """One hash or MAC kind: ``make(module, data)`` an object, ``out(obj)`` its result."""

    def __init__(self, name, module, primitive, make, out=None, public_class=None) -> None:
        self.name = name
        self.module = module  # dotted, without the flavour prefix
        self.primitive = primitive
        self.make = make  # (module, data: bytes) -> object
        self.out = out or (lambda obj: obj.digest())
        self.public_class = public_class  # the pycryptodome class isinstance() checks

    def __repr__(self) -> str:
        return self.name

    def module_of(self, flavour):
        return th.import_from(flavour, self.module)

    def native_class(self, flavour):
        return getattr(self.module_of(flavour), self.public_class)


def _plain(name, module, primitive, cls):
    return Case(name, module, primitive, lambda m, data: m.new(data), public_class=cls)


def _read(obj):
    return obj.read(40)


HASHES = [
    _plain("md5", "Hash.MD5", "md5", "MD5Hash"),
    _plain("sha1", "Hash.SHA1", "sha1", "SHA1Hash"),
    _plain("sha224", "Hash.SHA224", "sha224", "SHA224Hash"),
    _plain("sha256", "Hash.SHA256", "sha256", "SHA256Hash"),
    _plain("sha384", "Hash.SHA384", "sha384", "SHA384Hash"),
    _plain("sha512", "Hash.SHA512", "sha512", "SHA512Hash"),
    Case(
        "sha512-224",
        "Hash.SHA512",
        "sha512-224",
        lambda m, data: m.new(data, truncate="224"),
        public_class="SHA512Hash",
    ),
    Case(
        "sha512-256",
        "Hash.SHA512",
        "sha512-256",
        lambda m, data: m.new(data, truncate="256"),
        public_class="SHA512Hash",
    ),
    _plain("ripemd160", "Hash.RIPEMD160", "ripemd160", "RIPEMD160Hash"),
    _plain("sha3-224", "Hash.SHA3_224", "sha3-224", "SHA3_224_Hash"),
    _plain("sha3-256", "Hash.SHA3_256", "sha3-256", "SHA3_256_Hash"),
    _plain("sha3-384", "Hash.SHA3_384", "sha3-384", "SHA3_384_Hash"),
    _plain("sha3-512", "Hash.SHA3_512", "sha3-512", "SHA3_512_Hash"),
    Case(
        "sha3-256-after",
        "Hash.SHA3_256",
        "sha3-256",
        lambda m, data: m.new(data, update_after_digest=True),
        public_class="SHA3_256_Hash",
    ),
    Case("shake128", "Hash.SHAKE128", "shake128", lambda m, d: m.new(d), _read, "SHAKE128_XOF"),
    Case("shake256", "Hash.SHAKE256", "shake256", lambda m, d: m.new(d), _read, "SHAKE256_XOF"),
    Case(
        "blake2b",
        "Hash.BLAKE2b",
        "blake2b",
        lambda m, data: m.new(data=data, update_after_digest=True),
        public_class="BLAKE2b_Hash",
    ),
    Case(
        "blake2s",
        "Hash.BLAKE2s",
        "blake2s",
        lambda m, data: m.new(data=data),
        public_class="BLAKE2s_Hash",
    ),
]


def _hmac(digestmod):
    def make(module, data):
        flavour = module.__name__.split(".")[0]
        return module.new(b"a shared key", data, th.import_from(flavour, digestmod))

    return make


def _cmac(module, data):
    aes = th.import_from(module.__name__.split(".")[0], "Cipher.AES")
    return module.new(bytes(range(16)), data, ciphermod=aes, update_after_digest=True)


def _cmac_final(module, data):
    aes = th.import_from(module.__name__.split(".")[0], "Cipher.AES")
    return module.new(bytes(range(32)), data, ciphermod=aes, mac_len=12)


def _poly1305(cipher):
    def make(module, data):
        cipher_module = th.import_from(module.__name__.split(".")[0], cipher)
        nonce = bytes(16) if cipher == "Cipher.AES" else bytes(12)
        return module.new(key=bytes(range(32)), cipher=cipher_module, nonce=nonce, data=data)

    return make


MACS = [
    Case("hmac-sha256", "Hash.HMAC", "hmac", _hmac("Hash.SHA256"), public_class="HMAC"),
    Case("hmac-sha1", "Hash.HMAC", "hmac", _hmac("Hash.SHA1"), public_class="HMAC"),
    Case("hmac-sha512", "Hash.HMAC", "hmac", _hmac("Hash.SHA512"), public_class="HMAC"),
    Case("hmac-ripemd160", "Hash.HMAC", "hmac", _hmac("Hash.RIPEMD160"), public_class="HMAC"),
    Case("hmac-sha3-256", "Hash.HMAC", "hmac", _hmac("Hash.SHA3_256"), public_class="HMAC"),
    Case("hmac-sha3-512", "Hash.HMAC", "hmac", _hmac("Hash.SHA3_512"), public_class="HMAC"),
    Case("cmac-aes128", "Hash.CMAC", "aes-cmac", _cmac, public_class="CMAC"),
    Case("cmac-aes256", "Hash.CMAC", "aes-cmac", _cmac_final, public_class="CMAC"),
    Case(
        "poly1305-aes",
        "Hash.Poly1305",
        "poly1305",
        _poly1305("Cipher.AES"),
        public_class="Poly1305_MAC",
    ),
    Case(
        "poly1305-chacha",
        "Hash.Poly1305",
        "poly1305",
        _poly1305("Cipher.ChaCha20"),
        public_class="Poly1305_MAC",
    ),
]


def hammer(call, threads: int, calls_per_thread: int, concurrent: bool = True) -> list[str]:
    """``call(thread, i)`` from ``threads`` threads at once; the exceptions raised, by type.

    The threads wait on a barrier so that they start together. With
    ``concurrent`` false the same calls are made one thread after another
    (what native code is compared on: see :func:`compare_threaded`).
    """
    raised: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(threads if concurrent else 1)

    def work(thread: int) -> None:
        barrier.wait()
        for i in range(calls_per_thread):
            try:
                call(thread, i)
            except Exception as exc:  # noqa: BLE001 - counted, compared with native's
                with lock:
                    raised.append("%s.%s" % (type(exc).__module__, type(exc).__qualname__))

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
        if not concurrent:
            worker.join()
    for worker in workers:
        worker.join()
    return sorted(raised)


def compare_threaded(scenario, module, *args) -> None:
    """``scenario(rec, module, *args, concurrent=...)``: the agent's threads against native's calls.

    Natively, pycryptodome's objects are not safe to share: concurrent
    updates race on the C state without the GIL (the result is garbage) and
    can abort the process (SHA-1's C code does). So the agent's run makes
    the calls from its threads at once, and native's makes the same calls,
    thread after thread. The transcripts (results, exceptions by type) must
    be equal: under the agent each call is whole, and no call raises what
    native code does not.
    """
    th.ensure_agent()
    agent = th.Recorder()
    before = th.call_counts()
    scenario(agent, module, *args, concurrent=True)
    after = th.call_counts()
    native = th.Recorder()
    with th.natively():
        scenario(native, module, *args, concurrent=False)
    leaked = th.count_delta(after, th.call_counts())
    difference = th.first_difference(agent.steps, native.steps)
    th.TALLY.compared(mismatch=difference is not None or bool(leaked))
    assert not leaked, "the native run made accelerated calls: %s" % leaked
    if difference is not None:
        raise th.Mismatch("agent's threads and native's calls differ: %s" % difference)
    assert th.count_delta(before, after), "the agent's run made no accelerated call"
