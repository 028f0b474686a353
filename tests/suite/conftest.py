"""pycryptodome's own test suite under the agent: the ``suite`` marker.

The suite takes minutes per flavour (twice: native and agent), so its test
carries ``@pytest.mark.suite``; CI can run it as its own job with
``-m suite`` and leave it out elsewhere with ``-m "not suite"``.
"""

from __future__ import annotations


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "suite: runs pycryptodome's own test suite natively and under the agent (minutes)",
    )
