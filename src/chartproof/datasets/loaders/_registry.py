"""The loader registry: each loader module registers its function under a name with
`@register_loader(name, detect=...)`, so `--data NAME:PATH` finds it and a bare path is
recognised by the first detector (in `order`) that claims the folder.

`LOADERS` and `DETECTORS` are `chartproof.types.registry.Registry` tables: the shipped
loader modules (`_HOMES`; a shipped loader adds its module there) are imported on first use,
and other packages add loaders through the entry-point group ``chartproof.loaders``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, overload

from chartproof.datasets.errors import LoadResult
from chartproof.types.registry import Registry

__all__ = [
    "DETECTORS",
    "LOADERS",
    "Detector",
    "Loader",
    "detect_folder",
    "register_loader",
    "unregister_loader",
]

Loader = Callable[..., LoadResult]
"""A loader: `loader(path, *, strict=False, **options) -> LoadResult`."""

Detector = Callable[[Path], bool]
"""Whether a folder is laid out as a loader's benchmark release."""


@dataclass(frozen=True)
class _Detector:
    order: int
    name: str
    test: Detector


_HOMES = (
    # the package imports its loader modules in the order their detectors tie-break in
    "chartproof.datasets.loaders",
    "chartproof.datasets.loaders.native",
    "chartproof.datasets.loaders.chartbench",
    "chartproof.datasets.loaders.chartbias",
    "chartproof.datasets.loaders.chartqa",
    "chartproof.datasets.loaders.chartqapro",
    "chartproof.datasets.loaders.chartqax",
    "chartproof.datasets.loaders.chartx",
    "chartproof.datasets.loaders.charxiv",
    "chartproof.datasets.loaders.csv_questions",
    "chartproof.datasets.loaders.dvqa",
    "chartproof.datasets.loaders.figureqa",
    "chartproof.datasets.loaders.generic",
    "chartproof.datasets.loaders.hf_folder",
    "chartproof.datasets.loaders.opencqa",
    "chartproof.datasets.loaders.plotqa",
    "chartproof.datasets.loaders.realcqa",
)
_GROUP = "chartproof.loaders"

LOADERS: Registry[Loader] = Registry("loader", modules=_HOMES, group=_GROUP)
"""Loaders by name, in registration order."""

DETECTORS: Registry[_Detector] = Registry("loader detector", modules=_HOMES, group=_GROUP)
"""Folder detectors by loader name, tried by ascending `order` (specific layouts before
generic ones)."""

F = TypeVar("F", bound=Loader)


@overload
def register_loader(
    name: str, loader: None = None, *, detect: Detector | None = None, order: int = 50
) -> Callable[[F], F]: ...


@overload
def register_loader(
    name: str, loader: Loader, *, detect: Detector | None = None, order: int = 50
) -> None: ...


def register_loader(
    name: str, loader: Loader | None = None, *, detect: Detector | None = None, order: int = 50
) -> Callable[[F], F] | None:
    """Register a loader under `name` (ValueError if the name is taken). Use it as a
    decorator, `@register_loader("charxiv", detect=is_charxiv)`, or call it with the loader.

    `detect(folder)` says whether a folder holds this loader's layout; detectors run by
    `order` (lower first: the native folder is 0, benchmark layouts 10-40, generic Hugging
    Face / JSONL / CSV folders 80-90), so a generic layout never hides a specific one.
    """

    def add(fn: F) -> F:
        if name in LOADERS:
            raise ValueError(f"a loader called {name!r} is already registered")
        LOADERS.register(name, fn)
        if detect is not None:
            DETECTORS.register(name, _Detector(order, name, detect), replace=True)
        else:
            DETECTORS.unregister(name)
        return fn

    if loader is not None:
        add(loader)
        return None
    return add


def unregister_loader(name: str) -> None:
    """Remove a loader and its detector (tests and scripts that add their own)."""
    LOADERS.unregister(name)
    DETECTORS.unregister(name)


def detect_folder(path: Path) -> str | None:
    """The name of the first loader whose detector claims the folder, or None."""
    # a stable sort: detectors of one order are tried in registration order
    for detector in sorted(DETECTORS.values(), key=lambda d: d.order):
        if detector.name in LOADERS and detector.test(path):
            return detector.name
    return None
