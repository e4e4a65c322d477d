"""The one registry mechanism every extensible part of chartproof uses (metrics, aggregations,
report sections, loaders, backends, perturbations, chart kinds, protocols, scoring
conventions): a name → item table filled by a decorator, found lazily.

Lazy by module name: a registry knows the modules that hold its built-in items and imports
them on the first lookup or listing, never at import time, so `import chartproof` stays
cheap and a part whose extra is missing costs nothing until it is asked for. Third-party
packages add items through an entry-point group (``[project.entry-points."chartproof.loaders"]
charxiv = "mypkg.charxiv"``): the entry point names a module, imported on first use, whose
decorators register the items.

    LOADERS: Registry[Loader] = Registry("loader", group="chartproof.loaders",
                                         modules=("chartproof.datasets.loaders.chartqa",))

    @LOADERS.register("chartqa")
    def load_chartqa(path: Path, *, strict: bool = False) -> LoadResult: ...

    LOADERS["chartqa"]      # imports the built-in modules (once), then looks the name up
    LOADERS["chartq"]       # UnknownNameError: unknown loader 'chartq' (did you mean 'chartqa'?)

A registry may also know the module of one name (`homes`, `add_home`): it is imported with the
others on first use, and `has_home(name)` says whether a fresh process (a worker) can find
the item by its name alone, which an item registered at run time by a script or a test
cannot (`origin` says which module registered an item: by default its `__module__`).
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import metadata
from typing import Generic, TypeVar, overload

from chartproof.types.names import UnknownNameError, unknown_name

__all__ = ["Registry"]

log = logging.getLogger(__name__)

T = TypeVar("T")
F = TypeVar("F")


class Registry(Generic[T]):
    """Items of one kind by name, in registration order (built-ins first).

    `what` names the kind in messages ("loader", "protocol"); `modules` are imported on first
    use (the built-ins: each registers its items with `register` when imported); `group` is
    the entry-point group third-party packages register modules under. Registering a taken
    name is a ValueError unless `replace=True` (tests and plug-ins that override on purpose).
    """

    def __init__(
        self,
        what: str,
        *,
        modules: Sequence[str] = (),
        group: str | None = None,
        homes: Mapping[str, str] | None = None,
        origin: Callable[[T], str | None] | None = None,
    ):
        self.what = what
        self.group = group
        self._modules = tuple(modules)
        self._homes: dict[str, str] = dict(homes or {})
        self._origin = origin or (lambda item: getattr(item, "__module__", None))
        self._items: dict[str, T] = {}
        self._loaded = False
        self._lock = threading.RLock()

    # ----------------------------------------------------------------------- registering

    @overload
    def register(
        self, name: str, item: None = None, *, replace: bool = False
    ) -> Callable[[F], F]: ...

    @overload
    def register(self, name: str, item: T, *, replace: bool = False) -> T: ...

    def register(self, name: str, item: object = None, *, replace: bool = False) -> object:
        """Register `item` under `name` and return it; without an item, a decorator that
        registers what it decorates (``@REGISTRY.register("name")``)."""
        if item is not None:
            self._add(name, item, replace)  # type: ignore[arg-type]
            return item

        def decorate(fn: F) -> F:
            self._add(name, fn, replace)  # type: ignore[arg-type]
            return fn

        return decorate

    def _add(self, name: str, item: T, replace: bool) -> None:
        with self._lock:
            if name in self._items and not replace and self._items[name] is not item:
                raise ValueError(f"a {self.what} called {name!r} is already registered")
            self._items[name] = item

    def unregister(self, name: str) -> None:
        """Remove `name` (no error when absent)."""
        with self._lock:
            self._items.pop(name, None)

    def pop(self, name: str, default: T | None = None) -> T | None:
        """Remove `name` and return its item (`default` when absent)."""
        with self._lock:
            return self._items.pop(name, default)

    def add_home(self, name: str, module: str) -> None:
        """Record that importing `module` registers `name` (imported on first use)."""
        with self._lock:
            self._homes[name] = module

    def home_of(self, name: str) -> str | None:
        """The module a fresh process imports to find `name`: its recorded home, the module
        of an entry point of the group that names it, or the built-in module that registered
        it; None for an item registered at run time only (a script's, a test's)."""
        if name in self._homes:
            return self._homes[name]
        if self.group is not None:
            for entry in metadata.entry_points(group=self.group):
                if entry.name == name:
                    return entry.value.split(":")[0]
        item = self._items.get(name)
        module = self._origin(item) if item is not None else None
        return module if module in self._modules else None

    def has_home(self, name: str) -> bool:
        """Whether a fresh process finds `name` by importing a module (`home_of`)."""
        return self.home_of(name) is not None

    # -------------------------------------------------------------------------- finding

    def load(self) -> None:
        """Import the built-in modules and the entry-point modules (once)."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            # set first: a module importing this registry while it loads sees it as loaded
            self._loaded = True
            for module in (*self._modules, *self._homes.values()):
                importlib.import_module(module)
            if self.group is not None:
                for entry in metadata.entry_points(group=self.group):
                    try:
                        importlib.import_module(entry.value.split(":")[0])
                    except ImportError as exc:
                        log.warning("%s plug-in %r not loaded: %s", self.what, entry.name, exc)

    def _find(self, name: object) -> None:
        self.load()
        if isinstance(name, str) and name not in self._items and name in self._homes:
            importlib.import_module(self._homes[name])  # a home recorded after loading

    def __getitem__(self, name: str) -> T:
        self._find(name)
        try:
            return self._items[name]
        except KeyError:
            raise self.unknown(name) from None

    def get(self, name: str, default: T | None = None) -> T | None:
        self._find(name)
        return self._items.get(name, default)

    def __contains__(self, name: object) -> bool:
        self._find(name)
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._items))

    def __len__(self) -> int:
        self.load()
        return len(self._items)

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self)

    def registered(self) -> list[tuple[str, T]]:
        """The items registered so far, without importing any module."""
        with self._lock:
            return list(self._items.items())

    def items(self) -> list[tuple[str, T]]:
        self.load()
        return list(self._items.items())

    def values(self) -> list[T]:
        self.load()
        return list(self._items.values())

    def known(self) -> list[str]:
        """Registered names and the names of recorded homes and entry points (messages)."""
        self.load()
        names = set(self._items) | set(self._homes)
        if self.group is not None:
            names |= {e.name for e in metadata.entry_points(group=self.group)}
        return sorted(names)

    def unknown(self, name: str) -> UnknownNameError:
        """The error for a name not registered: did-you-mean and the known names."""
        return UnknownNameError(unknown_name(self.what, name, self.known()))

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._items)} registered)"
