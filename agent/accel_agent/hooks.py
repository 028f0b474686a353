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
the watched module is imported (style.md, "import late"). A hook registered
with the module-level functions it replaces (``names``) waits longer: the
import puts a stand-in in each (:class:`FirstCallPatch`), and the hook's
code loads, and patches, at the first call of one of them. A program that
imports a module and never calls it then pays nothing for its patch, and a
module that imports others (pycryptodome's ECC imports five hashes) does
not load their patches with it (docs/activation.md, "Start-up cost").
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
_first_call: dict[tuple[str, str], tuple[str, ...]] = {}  # (module, spec) -> names it replaces
_waiting: list[FirstCallPatch] = []  # stand-ins installed, their patch not run yet
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


def register(module_name: str, hook_spec: str, names: tuple[str, ...] = ()) -> None:
    """Run ``hook_spec`` on ``module_name`` after its import, or now if already imported.

    With ``names`` (the module-level functions the hook replaces), the hook
    runs at the first call of one of them instead: see :class:`FirstCallPatch`.
    """
    register_all({module_name: hook_spec}, {module_name: tuple(names)})


def register_all(table: dict[str, str], first_call: dict[str, tuple[str, ...]]) -> None:
    """:func:`register` for every ``module: hook`` of ``table`` (activation's one call).

    One pass under the lock, then the hooks of the modules imported already:
    activation registers some eighty, and this is on every start-up's path.
    """
    with _lock:
        for module_name, hook_spec in table.items():
            specs = _hooks.setdefault(module_name, [])
            if hook_spec not in specs:
                specs.append(hook_spec)
            names = first_call.get(module_name)
            if names:
                _first_call[(module_name, hook_spec)] = names
        imported = [sys.modules.get(name) for name in table if name in sys.modules]
    for module in imported:
        if module is not None and not _initializing(module):
            _fire(module)


def run_waiting(module_name: str | None = None) -> None:
    """Run now every patch still waiting for its first call (before instrumenting them),
    or only those of ``module_name``.

    The latter for a module that re-exports another's names (``Hash.RIPEMD``
    binds ``RIPEMD160.new`` at its import): it must bind what the patch
    installs, not a stand-in that would stay there, one frame slower, after
    the first call.
    """
    with _lock:
        waiting = [p for p in _waiting if module_name in (None, p.module.__name__)]
    for patch in waiting:
        patch.resolve()


def follow(holder: ModuleType, name: str, source: str) -> bool:
    """Let ``holder.name``, a re-export of ``source.name``, follow that name's first-call patch.

    A package that re-exports a submodule's function (``rsa.sign_hash`` is
    ``rsa.pkcs1.sign_hash``) binds the submodule's stand-in at its import.
    With this, the stand-in there is recorded as a patch of ``holder`` (its
    original the submodule's, so ``uninstall()`` puts that back), and when
    the submodule's patch runs, ``holder.name`` gets what the submodule then
    holds, as the submodule does: no stand-in stays behind, one frame slower.
    False when ``source.name`` has no stand-in waiting, or ``holder.name`` is
    neither it nor the original (the application bound something else there).
    """
    with _lock:
        patch = next(
            (p for p in _waiting if p.module.__name__ == source and name in p.stand_ins), None
        )
    if patch is None:
        return False
    with patch.lock:
        stand_in, original = patch.stand_ins[name], patch.originals[name]
        current = patching.current_value(holder, name)
        # The original where the holder was imported before the agent started.
        if patch.resolved is not None or (current is not stand_in and current is not original):
            return False
        patching.set_value(holder, name, original)
        patching.patch_attribute(holder, name, stand_in)
        patch.followers.append((holder, name))
    return True


def live(module: ModuleType) -> ModuleType:
    """The module the application holds, for a hook that reads it at call time.

    A first-call hook runs on a copy of the module (:class:`FirstCallPatch`):
    what its replacements look up when they are called (a table the
    application may change, a function it may replace) must come from the
    module itself.
    """
    return _standing_for.get(id(module), module)


def watched() -> list[str]:
    with _lock:
        return sorted(_hooks)


def clear() -> None:
    """Forget every hook and what was applied (uninstall)."""
    with _lock:
        _hooks.clear()
        _first_call.clear()
        _waiting.clear()
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
        deferred = {spec: _first_call.get((name, spec)) for spec in pending}
    for spec in pending:
        names = deferred[spec]
        # Instrumentation (shadow mode, the report) wraps real replacements, never
        # a stand-in; a module with a second hook is patched at once, as before.
        if names and not patching.patch_listeners and len(pending) == 1:
            patch = FirstCallPatch(module, spec, names)
            if patch.install():
                with _lock:
                    _waiting.append(patch)
                continue
        _apply(spec, module)


def _apply(spec: str, module: ModuleType) -> bool:
    """Run one hook on ``module`` (or a copy of it, same name); False when it failed.

    A failure puts the module in sys.modules back, is recorded and said on
    stderr, never raised.
    """
    name = module.__name__
    try:
        _resolve(spec)(module)
    except Exception as exc:  # noqa: BLE001 - a patch must never break an import
        patching.restore_module(name)
        failures[name] = "%s: %s" % (type(exc).__name__, exc)
        messages.problem("patching %s failed (%s); it stays native" % (name, type(exc).__name__))
        return False
    return True


def _resolve(spec: str) -> object:
    module_name, _, attribute = spec.partition(":")
    __import__(module_name)
    return getattr(sys.modules[module_name], attribute)


class FirstCallPatch:
    """A hook that waits for the first call of a function it replaces.

    :meth:`install` puts a stand-in in each of ``names`` that the module has
    (through :mod:`.patching`: the originals are recorded, and
    ``uninstall()`` puts them back as for any patch). The first call of any
    stand-in runs the hook (:meth:`resolve`): the stand-ins go, the hook
    patches the module as it would have at its import, and the call, like
    every later call of a reference bound to a stand-in, goes on to what the
    hook installed: the replacement, or the original where the hook left
    the name native (a name the application rebound meanwhile, a tracer's
    wrapper of the stand-in say, keeps the application's object). A stand-in
    called after an uninstall() runs nothing: its calls go to what the
    module holds.

    The hook runs on a copy of the module holding the originals; what it
    installs moves into the module once it is done. Another thread meanwhile
    meets the stand-ins, and its calls wait for the hook.
    """

    def __init__(self, module: ModuleType, spec: str, names: tuple[str, ...]) -> None:
        self.module = module
        self.spec = spec
        self.names = names
        self.originals: dict[str, object] = {}
        self.stand_ins: dict[str, object] = {}
        self.resolved: dict[str, object] | None = None  # name -> where a call goes
        self.followers: list[tuple[ModuleType, str]] = []  # re-exports of a stand-in (follow)
        forksafe.rlock(vars(self), "lock")

    def install(self) -> bool:
        """Put the stand-ins in; False when the module has none of the names (run the hook)."""
        module = self.module
        for name in self.names:
            original = getattr(module, name, None)
            if callable(original):
                self.originals[name] = original
                self.stand_ins[name] = _stand_in(self, name, original)
        for name, stand_in in self.stand_ins.items():
            patching.patch_attribute(module, name, stand_in)
        return bool(self.stand_ins)

    def target(self, name: str) -> object:
        """What a call of the stand-in for ``name`` goes to (running the hook the first time)."""
        resolved = self.resolved
        if resolved is None:
            resolved = self.resolve()
        return resolved[name]

    def resolve(self) -> dict[str, object]:
        with self.lock:
            if self.resolved is not None:
                return self.resolved
            with _lock:
                waiting = self in _waiting
            if waiting:
                with forksafe.importing_first_use:
                    resolved = self._patch_through_a_copy()
                self._update_followers(resolved)
            else:
                # uninstall() came first (it empties _waiting and put the originals
                # back): calls go to what the module holds, never to this stand-in.
                resolved = {}
                for name, stand_in in self.stand_ins.items():
                    current = patching.current_value(self.module, name)
                    resolved[name] = self.originals[name] if current is stand_in else current
            self.resolved = resolved
        with _lock:
            if self in _waiting:
                _waiting.remove(self)
        return resolved

    def _update_followers(self, resolved: dict[str, object]) -> None:
        """Give each re-export of a stand-in (:func:`follow`) what the stand-in now calls."""
        for holder, name in self.followers:
            if patching.current_value(holder, name) is not self.stand_ins[name]:
                continue  # replaced by the application since
            value = resolved[name]
            patching.set_value(holder, name, value)
            if value is self.originals[name]:
                patching.forget(holder.__name__, name)  # the hook left it native

    def _patch_through_a_copy(self) -> dict[str, object]:
        """Run the hook on a copy of the module that holds the originals, then move in
        what it installed; return, per stand-in, what the copy then holds (the
        replacement, or the original where the hook left a name native or failed).

        Other threads meet stand-ins or finished replacements, never a native
        function beside a half-installed patch (native PBKDF2 handed a hash
        object of the agent's), and the originals stay recorded throughout. A
        name the application rebound meanwhile (a tracer's wrapper, a mock) keeps
        what it holds: the stand-in that wrapper may call goes on to the
        replacement, never back to the wrapper.
        """
        module = self.module
        copy = type(module)(module.__name__, module.__doc__)
        vars(copy).update(vars(module))
        vars(copy).update(self.originals)
        _standing_for[id(copy)] = module
        try:
            applied = _apply(self.spec, copy)
        finally:
            del _standing_for[id(copy)]
        if not applied:
            return dict(self.originals)  # _apply put the module back to native
        for name in patching.patched_names().get(module.__name__, []):
            value = patching.current_value(copy, name)
            if value is self.originals.get(name):
                patching.forget(module.__name__, name)  # the hook left it native
            stand_in = self.stand_ins.get(name)
            if stand_in is None or patching.current_value(module, name) is stand_in:
                patching.set_value(module, name, value)
        return {name: patching.current_value(copy, name) for name in self.stand_ins}


# id(copy) -> the module a first-call hook's copy stands for, while the hook runs (live)
_standing_for: dict[int, ModuleType] = {}


def _stand_in(patch: FirstCallPatch, name: str, original: object) -> object:
    def stand_in(*args: object, **kwargs: object) -> object:
        return patch.target(name)(*args, **kwargs)

    return patching.update_wrapper(stand_in, original)
