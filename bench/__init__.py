"""Benchmarks: ``python -m bench.startup`` (``make bench``); helpers in bench.common."""
