"""What a program sees of a cipher object besides its methods: native's class, name and copies.

pycryptodome's mode objects are plain Python objects: ``copy.copy`` shares
their C state, ``weakref.ref`` and new attributes work, ``copy.deepcopy`` and
``pickle`` fail with a ``TypeError`` (the C state cannot be pickled), and
``isinstance(c, GcmMode)`` holds. The agent's objects carry native's class
name (``type(c).__name__``, ``repr``, ``AttributeError`` messages) and answer
``isinstance`` against native's class through ``__class__`` (which
``isinstance`` consults when the type itself does not match), without
inheriting native's methods: a method the agent does not define raises
``AttributeError`` instead of running native code on state it does not have.

What fails natively is left to a fresh native object of the same mode and
key, so the exception and its message are native's own in every version.
"""

from __future__ import annotations

import copy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (agent class, backing) -> the native class its objects stand for
_NATIVE_TYPES: dict[tuple[type, Any], type] = {}


def named_as(native_name: str):
    """Class decorator: the class carries native's name (its Python identifier stays)."""

    def rename(cls: type) -> type:
        cls.__name__ = cls.__qualname__ = native_name
        return cls

    return rename


class NativeFace:
    """Mixin for the agent's cipher objects; a subclass provides ``_new_native()``.

    Nothing here runs on a per-message path.
    """

    _backing: Any

    def _new_native(self) -> Any:
        raise NotImplementedError

    def _native_type(self) -> type:
        key = (type(self), self._backing)
        native = _NATIVE_TYPES.get(key)
        if native is None:
            native = _NATIVE_TYPES[key] = type(self._new_native())
        return native

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # noqa: D105 - isinstance() reads it
        return self._native_type()

    def __dir__(self) -> list[str]:
        # object.__dir__ reads __class__, which names native's class: list this one's.
        names = set(self.__dict__)
        for klass in type(self).__mro__:
            names.update(klass.__dict__)
        return sorted(names)

    def __repr__(self) -> str:
        native = self._native_type()
        return "<%s.%s object at %#x>" % (native.__module__, native.__qualname__, id(self))

    def __copy__(self) -> Any:
        """A shallow copy, as native's, which shares its C state but not its Python attributes.

        Once a native twin serves the object, the copy is served by a
        shallow copy of that twin: native's own sharing, exactly. A copy
        made before the first call makes the object hand its message to a
        twin first (``_twin_for_copy``): before data has flowed no OpenSSL
        state exists that the two could share as native's C state is
        shared. Otherwise the copy shares the OpenSSL contexts.
        """
        twin = self.__dict__.get("_twin") or self._twin_for_copy()
        self._prepare_copy()
        duplicate = object.__new__(type(self))
        duplicate.__dict__.update(self.__dict__)
        if twin is not None:
            duplicate._twin = copy.copy(twin)
        return duplicate

    def _twin_for_copy(self) -> Any:
        """The native twin serving this object from now on, if it has had no call yet; else None.

        Subclasses whose state is made on first use override it.
        """
        return None

    def _prepare_copy(self) -> None:
        """Make state the object and its copy are to share, as native's share theirs.

        Called by ``__copy__`` before the copy is made; the attributes set
        here are copied with the others. Nothing by default.
        """

    def __deepcopy__(self, memo: dict) -> Any:
        self._refuse_copying()

    def __reduce_ex__(self, protocol: int) -> Any:
        self._refuse_copying()  # pickle: as natively, what the object holds cannot be pickled

    def _refuse_copying(self) -> None:
        """Raise native's ``TypeError`` for a deep copy or a pickle of this object.

        A native object's deep copy fails where its pickle does, on the
        same contents and with the same message.
        """
        copy.deepcopy(self._new_native())
        raise TypeError("cannot pickle %r object" % type(self).__name__)
