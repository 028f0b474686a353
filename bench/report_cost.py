"""What the savings report and shadow mode cost per call, on the 64-byte GCM and SHA-256 rows.

    python -m bench.report_cost [--reps 15] [--rate 0.01]

In one process, with interleaved samples on the thread's CPU clock
(``accel_agent.bench.timing``, as ``accel-agent bench``), each row is timed
in three states that ``Variant.enter`` switches between before every sample:

* ``off``: the agent's replacements bare (shadow and report both off);
* ``report``: the report's wrappers around them (one call in 32 measured);
* ``shadow``: shadow mode at ``--rate`` (native redoes the sampled share).

It prints each median, the paired ratio against ``off`` and the added
nanoseconds per call (``(ratio - 1) x off``): a ratio survives a loaded
machine where raw times do not. The budget for ``report`` is 50 ns.
"""

from __future__ import annotations

import argparse
import os

from accel_agent.bench import timing

SAMPLE_NS = 20e6


def _states(rate: float) -> dict:
    from accel_agent import instrument

    return {
        "off": lambda: instrument.disable(),
        "report": lambda: instrument.enable(None, True),
        "shadow %g" % rate: lambda: instrument.enable(rate, False),
    }


def row(title: str, function, reps: int, rate: float) -> dict[str, float]:
    variants = [timing.Variant(name, function, enter) for name, enter in _states(rate).items()]
    measured = timing.measure(variants, reps=reps, loops=1, sample_ns=SAMPLE_NS)
    base = measured["off"]
    print(title)
    added = {}
    for name, result in measured.items():
        ratio = timing.paired_ratio(result, base)
        added[name] = (ratio - 1.0) * base.median
        print("  %-12s %9.0f ns   x%.3f   %+7.1f ns per call" % (
            name, result.median, ratio, added[name]))  # fmt: skip
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--rate", type=float, default=0.01)
    args = parser.parse_args(argv)
    import accel_agent

    accel_agent.activate("quiet")
    from Crypto.Cipher import AES
    from Crypto.Hash import SHA256

    key, nonce, data = os.urandom(16), os.urandom(12), os.urandom(64)
    mode = AES.MODE_GCM
    row(
        "AES-128-GCM encrypt, 64 B: AES.new(key, MODE_GCM, nonce=n).encrypt_and_digest(data)",
        lambda: AES.new(key, mode, nonce=nonce).encrypt_and_digest(data),
        args.reps,
        args.rate,
    )
    row(
        "SHA-256, 64 B: SHA256.new(data).digest()",
        lambda: SHA256.new(data).digest(),
        args.reps,
        args.rate,
    )
    from accel_agent import instrument

    instrument.disable()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
