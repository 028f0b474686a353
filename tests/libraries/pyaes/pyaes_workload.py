"""A fixed pyaes workload, for the reliability tests' children and threads.

Importable by path from a child (stdlib and pyaes only); ``main`` prints one
JSON line: the results per label (hex) and the agent's call counts.
"""

from __future__ import annotations

import json
import sys

LABELS = ("ecb", "cbc", "cbc-dec", "ctr", "cfb8", "cfb128", "ofb", "feeder", "errors")


def workload(seed: int = 0) -> dict[str, str]:
    """Every mode, in pieces and through the feeders; the errors by type and message."""
    import pyaes

    key = bytes((seed + i) % 256 for i in range(32))
    iv = bytes((seed * 7 + i) % 256 for i in range(16))
    data = bytes((seed * 13 + i) % 256 for i in range(1000))
    out = {}
    ecb = pyaes.AESModeOfOperationECB(key[:16])
    out["ecb"] = b"".join(ecb.encrypt(data[i : i + 16]) for i in range(0, 992, 16))
    cbc = pyaes.AESModeOfOperationCBC(key[:24], iv=iv)
    out["cbc"] = b"".join(cbc.encrypt(data[i : i + 16]) for i in range(0, 992, 16))
    dec = pyaes.AESModeOfOperationCBC(key[:24], iv=iv)
    out["cbc-dec"] = b"".join(dec.decrypt(out["cbc"][i : i + 16]) for i in range(0, 992, 16))
    ctr = pyaes.AESModeOfOperationCTR(key, counter=pyaes.Counter((1 << 128) - 5))
    out["ctr"] = b"".join(ctr.encrypt(data[i : i + 37]) for i in range(0, 1000, 37))
    cfb = pyaes.AESModeOfOperationCFB(key, iv=iv, segment_size=1)
    out["cfb8"] = cfb.encrypt(data[:333]) + cfb.encrypt(data[333:])
    cfb = pyaes.AESModeOfOperationCFB(key, iv=iv, segment_size=16)
    out["cfb128"] = cfb.encrypt(data[:992])
    ofb = pyaes.AESModeOfOperationOFB(key, iv=iv)
    out["ofb"] = b"".join(ofb.encrypt(data[i : i + 21]) for i in range(0, 1000, 21))
    encrypter = pyaes.Encrypter(pyaes.AESModeOfOperationCBC(key, iv=iv))
    out["feeder"] = encrypter.feed(data[:500]) + encrypter.feed(data[500:]) + encrypter.feed()
    errors = []
    for call in (
        lambda: pyaes.AESModeOfOperationECB(key[:16]).encrypt(data[:15]),
        lambda: pyaes.AESModeOfOperationCBC(key[:15]),
        lambda: pyaes.AESModeOfOperationCFB(key, iv, segment_size=16).decrypt(data[:5]),
        lambda: pyaes.AESModeOfOperationCTR(key).encrypt(bytearray(3)),
    ):
        try:
            call()
        except Exception as exc:  # noqa: BLE001 - the error is the result
            errors.append("%s: %s" % (type(exc).__name__, exc))
    out["errors"] = "\n".join(errors).encode()
    return {label: value.hex() for label, value in out.items()}


def main() -> int:
    results = workload(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    try:
        from accel_agent import activation, registry

        calls = registry.calls() if activation.is_active() else {}
    except ImportError:
        calls = {}
    print(json.dumps({"results": results, "calls": calls}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
