"""How the agent's hash and MAC objects copy, deep-copy and pickle: as native ones do.

A native pycryptodome hash or MAC object is a plain Python object whose
state is a C pointer (``_state``) or a hash module (HMAC's, CMAC's
``_digestmod``/``_factory``). So, natively:

* ``copy.copy(obj)`` makes a second object over the *same* state: feeding
  either feeds both (not ``obj.copy()``, which clones the state);
* ``copy.deepcopy(obj)`` and ``pickle.dumps(obj)`` raise, the exception
  pycryptodome's state raises (``TypeError: cannot pickle
  '_cffi_backend._CDataBase' object`` with the cffi backend, another message
  with ctypes, "cannot pickle 'module' object" for HMAC).

:func:`install` gives an agent class the same three behaviours: the shallow
copy shares the OpenSSL state (the named fields, and the instance
dictionary); deep copies and pickles raise what doing the same to a fresh
native object raises, found by doing it. Should a future pycryptodome allow
them, deep copies clone the state (``copy()``), and pickles are refused with
a ``TypeError``, as the OpenSSL state cannot be serialised.
"""

from __future__ import annotations

import copy as _copy
import pickle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def install(cls: type, fields: tuple[str, ...], make_native: Callable[[Any], Any]) -> None:
    """``__copy__``, ``__deepcopy__`` and ``__reduce_ex__`` on ``cls``, as native's behave.

    ``fields`` are the attributes (slots) that hold the object's state;
    ``make_native(obj)`` is a fresh native object of the same kind, to learn
    what native code raises.
    """

    def __copy__(self):
        clone = type(self).__new__(type(self))
        for name in fields:
            try:
                value = getattr(self, name)
            except AttributeError:
                continue
            setattr(clone, name, value)
        state = getattr(self, "__dict__", None)
        if state:
            clone.__dict__.update(state)
        return clone

    def __deepcopy__(self, memo):
        _copy.deepcopy(make_native(self), {})  # raises what native raises
        return self.copy()

    def __reduce_ex__(self, protocol):
        pickle.dumps(make_native(self), protocol)  # raises what native raises
        raise TypeError("cannot pickle %r object" % type(self).__name__)

    cls.__copy__ = __copy__
    cls.__deepcopy__ = __deepcopy__
    cls.__reduce_ex__ = __reduce_ex__
