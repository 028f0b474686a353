"""``accel-agent bench``: the per-call benchmark, shipped with the agent.

pycryptodome timed natively and under the agent, next to pyca/cryptography
doing the same work, per family of primitives and message size. Modules:

* :mod:`~accel_agent.bench.families` - what is measured: one module per
  family, each a declarative list of rows (its docstring is the API);
* :mod:`~accel_agent.bench.timing` - how: interleaved samples on the
  thread's CPU clock;
* :mod:`~accel_agent.bench.crypto` - the measurement of every row;
* :mod:`~accel_agent.bench.report`, :mod:`~accel_agent.bench.chart`,
  :mod:`~accel_agent.bench.aesni` - tables and CSV, the PNG chart, the
  AES-NI A/B;
* :mod:`~accel_agent.bench.command` - the command's steps (``accel_agent.cli``
  parses its options).

Nothing here is imported at start-up: only the ``bench`` command loads it.
"""
