"""Benchmarks: ``python -m bench.startup`` (``make bench``), timed by accel_agent.bench.timing."""
