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

from accel_agent import patching

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def install(
    cls: type,
    fields: tuple[str, ...],
    make_native: Callable[[Any], Any],
    blank: Callable[[type], Any] = object.__new__,
) -> None:
    """``__copy__``, ``__deepcopy__`` and ``__reduce_ex__`` on ``cls``, as native's behave.

    ``fields`` are the attributes (slots) that hold the object's state;
    ``make_native(obj)`` is a fresh native object of the same kind, to learn
    what native code raises; ``blank(type)`` an empty object of a type.
    """

    def __copy__(self):
        clone = blank(type(self))
        patching.copy_attributes(self, clone, fields)
        state = getattr(self, "__dict__", None)
        if state:
            clone.__dict__.update(state)
        return clone

    # copy and pickle are imported by the first deep copy or pickle, not by
    # the patch: pickle alone costs ~2 ms of a hash module's import.
    def __deepcopy__(self, memo):
        import copy

        copy.deepcopy(make_native(self), {})  # raises what native raises
        return self.copy()

    def __reduce_ex__(self, protocol):
        import pickle

        pickle.dumps(make_native(self), protocol)  # raises what native raises
        raise TypeError("cannot pickle %r object" % type(self).__name__)

    cls.__copy__ = __copy__
    cls.__deepcopy__ = __deepcopy__
    cls.__reduce_ex__ = __reduce_ex__


class _InstanceValue:
    """A data descriptor for an attribute kept in the instance dictionary.

    In a native-run class (see :func:`native_constructor`) it shadows the
    agent class's property of the same name, so that native code can set it.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        try:
            return obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value


_NOT_COPIED = frozenset(("__dict__", "__weakref__", "__init__", "__module__", "__qualname__"))


def _native_run_class(kind: type, native_cls: type) -> type:
    """A subclass of ``kind`` whose methods are ``native_cls``'s own."""
    namespace: dict[str, Any] = {"__slots__": ()}
    for klass in kind.__mro__:
        if klass is native_cls:
            break
        for name, value in vars(klass).items():
            if isinstance(value, property):
                namespace[name] = _InstanceValue(name)
    for name, value in vars(native_cls).items():
        if name not in _NOT_COPIED:
            namespace[name] = value
    namespace["__init__"] = native_cls.__init__
    namespace["__new__"] = lambda run, *args, **kwargs: object.__new__(run)
    run = type(kind.__name__, (kind,), namespace)
    run.__qualname__ = kind.__qualname__
    run.__module__ = kind.__module__
    return run


def install_native_constructor(cls: type, native_cls: type) -> None:
    """Calling ``cls`` makes an object that is a native one in all but its class.

    ``type(mac)(key, ...)`` runs native's ``__init__`` itself (its
    signature, its errors, its warnings, attributed to the caller as
    natively) on an object of a subclass of the class called that runs
    native's methods on the state native's ``__init__`` set: the object then
    behaves exactly as a native object does, and is an instance of the class
    called. The agent's own constructors bypass this (``object.__new__``).
    """
    runs: dict[type, type] = {}

    def __new__(kind, *args, **kwargs):
        run = runs.get(kind)
        if run is None:
            run = runs[kind] = _native_run_class(kind, native_cls)
        return object.__new__(run)

    cls.__new__ = __new__


def native_subclass(
    methods: type,
    native_cls: type,
    slots: tuple[str, ...],
    make_native: Callable[[Any], Any],
    **attributes: Any,
) -> type:
    """``methods`` on a subclass of ``native_cls`` that holds ``slots``, named as native's.

    ``attributes`` go on the class. Calling it, copying, deep-copying and
    pickling its objects do what they do natively
    (:func:`install_native_constructor`, :func:`install` with ``make_native``).
    """
    cls = type(native_cls.__name__, (methods, native_cls), {"__slots__": slots, **attributes})
    cls.__qualname__ = native_cls.__name__
    cls.__module__ = native_cls.__module__
    install_native_constructor(cls, native_cls)
    install(cls, slots, make_native)
    return cls
