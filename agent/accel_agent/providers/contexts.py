"""pyca/cryptography's cipher contexts when threads share them.

A context's ``update`` releases the GIL while OpenSSL works, and the Rust
object behind it lets one caller in at a time: a second thread calling it
meanwhile gets ``RuntimeError: Already borrowed`` (pyo3's borrow check),
before anything is read or changed. Native pycryptodome never raises there
(its C state is not guarded; racing stateful calls give an order-dependent
result). So a busy context is waited for, and the call then made as if the
two had come one after the other; a context that holds no state between
calls (ECB) is better served by a context of its own (see the targets).

Callers try the plain call first and come here only when it raised, so the
single-threaded path pays nothing.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_LONGEST_WAIT = 0.001  # seconds between two tries, at most


def is_busy(exc: BaseException) -> bool:
    """True when ``exc`` is pyo3's "another thread is inside this object" refusal."""
    return type(exc) is RuntimeError and "borrowed" in str(exc)


def when_free(method: Callable, *args: Any) -> Any:
    """``method(*args)``, tried again while another thread is inside the same context.

    A refusal consumes nothing (the borrow is checked before OpenSSL is
    called), so retrying is the same call made a moment later. Any other
    exception is raised as it is.
    """
    wait = 0.0
    while True:
        try:
            return method(*args)
        except RuntimeError as exc:
            if not is_busy(exc):
                raise
        time.sleep(wait)  # sleep(0) first: it only lets the other thread finish
        wait = min(wait * 2 or 1e-6, _LONGEST_WAIT)
