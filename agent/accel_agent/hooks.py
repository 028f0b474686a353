"""Post-import hooks: run a patch function right after a watched module is imported.

Modelled on wrapt's ``importer.py``, with the traps design.md lists:

* the finder sits at the front of ``sys.meta_path`` and returns at once (one
  dict lookup) for any name it does not watch;
* for a watched name it asks the finders behind it directly, never
  ``importlib.util.find_spec`` (re-entrant calls deadlocked wrapt and ddtrace);
* the hook runs after the module has executed, with the hook table's lock
  released; the import lock of that one module is still held by importlib,
  which is what keeps another thread from seeing the module unpatched;
* a module already imported when its hook is registered is patched at once;
* a hook that raises never makes the import fail: the failure is recorded,
  reported on stderr, and whatever the hook had patched is put back.

A hook is named as ``"package.module:function"`` so its code loads only when
the watched module is imported (style.md, "import late").
"""

from __future__ import annotations

import _thread
import sys

from accel_agent import forksafe, messages, patching

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

# Guards the hook table; renewed in a forked child (forksafe).
_lock = forksafe.rlock(globals(), "_lock")

_hooks: dict[str, list[str]] = {}  # module name -> hook specs
_applied: set[tuple[str, str]] = set()  # (module name, hook spec) already run
failures: dict[str, str] = {}  # module name -> "ExceptionType: message" of a failed hook
_guard = _thread._local()


class _HookedLoader:
    """Wraps the real loader; after ``exec_module`` runs the module's hooks."""

    def __init__(self, loader: object, name: str) -> None:
        self._loader = loader
        self._name = name

    def __getattr__(self, attribute: str) -> object:
        return getattr(self._loader, attribute)

    def create_module(self, spec: object) -> object:
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        # Give the module its real loader back (importlib.resources, reload).
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self._loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self._loader
        _fire(module)


class PostImportFinder:
    """The ``sys.meta_path`` entry; finds nothing itself, only wraps loaders."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if fullname not in _hooks:
            return None
        searching = getattr(_guard, "names", None)
        if searching is None:
            searching = _guard.names = set()
        if fullname in searching:
            return None
        searching.add(fullname)
        try:
            spec = self._spec_from_later_finders(fullname, path, target)
        finally:
            searching.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _HookedLoader(spec.loader, fullname)
        return spec

    def _spec_from_later_finders(self, fullname: str, path: object, target: object) -> object:
        for finder in list(sys.meta_path):
            if finder is self or isinstance(finder, PostImportFinder):
                continue
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return None


_finder = PostImportFinder()


def install_finder() -> None:
    """Put the finder at the front of ``sys.meta_path`` (once)."""
    with _lock:
        if not any(isinstance(f, PostImportFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _finder)


def remove_finder() -> None:
    with _lock:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, PostImportFinder)]


def register(module_name: str, hook_spec: str) -> None:
    """Run ``hook_spec`` on ``module_name`` after its import, or now if already imported."""
    with _lock:
        specs = _hooks.setdefault(module_name, [])
        if hook_spec not in specs:
            specs.append(hook_spec)
        module = sys.modules.get(module_name)
    if module is not None and not _initializing(module):
        _fire(module)


def watched() -> list[str]:
    with _lock:
        return sorted(_hooks)


def clear() -> None:
    """Forget every hook and what was applied (uninstall)."""
    with _lock:
        _hooks.clear()
        _applied.clear()
        failures.clear()


def _initializing(module: ModuleType) -> bool:
    spec = getattr(module, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def _fire(module: ModuleType) -> None:
    """Run each hook of ``module`` that has not run on it yet; never raise."""
    name = module.__name__
    with _lock:
        pending = [spec for spec in _hooks.get(name, ()) if (name, spec) not in _applied]
        _applied.update((name, spec) for spec in pending)
    for spec in pending:
        try:
            _resolve(spec)(module)
        except Exception as exc:  # noqa: BLE001 - a patch must never break an import
            patching.restore_module(name)
            failures[name] = "%s: %s" % (type(exc).__name__, exc)
            messages.problem(
                "patching %s failed (%s); it stays native" % (name, type(exc).__name__)
            )


def _resolve(spec: str) -> object:
    module_name, _, attribute = spec.partition(":")
    __import__(module_name)
    return getattr(sys.modules[module_name], attribute)
