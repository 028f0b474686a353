"""A fixed pyDes workload, for the reliability tests' children and threads.

Importable by path from a child (stdlib and pyDes only); ``main`` prints one
JSON line: the results per label (hex, with the objects' final state) and
the agent's call counts. Native pyDes is slow: the messages are short.
"""

from __future__ import annotations

import json
import sys


def _state(obj) -> str:
    import pyDes

    parts = {
        name: _state(value) for name, value in vars(obj).items() if isinstance(value, pyDes.des)
    }
    plain = {name: value for name, value in vars(obj).items() if not isinstance(value, pyDes.des)}
    return repr(sorted(plain.items())) + repr(sorted(parts.items()))


def workload(seed: int = 0) -> dict[str, str]:
    """Both classes, both modes, both pad modes; the errors by type and message."""
    import pyDes

    key = bytes((seed + i) % 256 for i in range(24))
    iv = bytes((seed * 7 + i) % 256 for i in range(8))
    data = bytes((seed * 13 + i) % 256 for i in range(100))
    out = {}
    for label, obj in (
        ("3des-cbc", pyDes.triple_des(key, pyDes.CBC, iv, padmode=pyDes.PAD_PKCS5)),
        ("3des2-ecb", pyDes.triple_des(key[:16], pad=b"*")),
        ("des-cbc", pyDes.des(key[:8], pyDes.CBC, iv, padmode=pyDes.PAD_PKCS5)),
        ("des-ecb", pyDes.des(key[8:16], pad=b"#")),
    ):
        sealed = obj.encrypt(data[: 40 + seed % 7])
        opened = obj.decrypt(sealed)
        out[label] = sealed + opened + _state(obj).encode()
    errors = []
    for call in (
        lambda: pyDes.triple_des(key[:15]),
        lambda: pyDes.des(key[:8], pyDes.CBC).encrypt(data[:16]),
        lambda: pyDes.triple_des(key).decrypt(data[:13]),
        lambda: pyDes.des(key[:8]).encrypt(data[:13]),
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
