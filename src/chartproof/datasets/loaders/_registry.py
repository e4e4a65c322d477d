"""The loader registry: each loader module registers its function under a name with
`@register_loader(name, detect=...)`, so `--data NAME:PATH` finds it and a bare path is
recognised by the first detector (in `order`) that claims the folder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, overload

from chartproof.datasets.errors import LoadResult

__all__ = ["DETECTORS", "LOADERS", "Detector", "Loader", "detect_folder", "register_loader"]

Loader = Callable[..., LoadResult]
"""A loader: `loader(path, *, strict=False, **options) -> LoadResult`."""

Detector = Callable[[Path], bool]
"""Whether a folder is laid out as a loader's benchmark release."""


@dataclass(frozen=True)
class _Detector:
    order: int
    name: str
    test: Detector


LOADERS: dict[str, Loader] = {}
"""Loaders by name, in registration order."""

DETECTORS: list[_Detector] = []
"""Folder detectors, tried by ascending `order` (specific layouts before generic ones)."""

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
        LOADERS[name] = fn
        if detect is not None:
            DETECTORS.append(_Detector(order, name, detect))
            DETECTORS.sort(key=lambda d: d.order)
        return fn

    if loader is not None:
        add(loader)
        return None
    return add


def detect_folder(path: Path) -> str | None:
    """The name of the first loader whose detector claims the folder, or None."""
    for detector in DETECTORS:
        if detector.test(path):
            return detector.name
    return None
