"""The shape every perturbation has: documented parameters per intensity level, and a pure
function from (image, optional spec, parameters, random generator) to a new image."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeAlias, TypeVar

import numpy as np

from chartproof.types import ChartSpec
from chartproof.types.registry import Registry
from chartproof.variants.images import RGB

__all__ = [
    "PERTURBATIONS",
    "Canvas",
    "ParamValue",
    "Perturbation",
    "Perturbed",
    "check_level",
    "reference_scale",
    "register_perturbation",
]

ParamValue: TypeAlias = float | int | str | bool
"""One recorded parameter value (what `Transform.params` holds)."""


class Canvas:
    """What a perturbation starts from: the image, and the spec when the chart is synthetic.

    The image may be given lazily (`draw`), so a perturbation that only needs the spec
    (label removal re-renders it) never pays for drawing the original.
    """

    __slots__ = ("_draw", "_image", "spec")

    def __init__(
        self,
        image: RGB | None = None,
        spec: ChartSpec | None = None,
        *,
        draw: Callable[[], RGB] | None = None,
    ) -> None:
        if image is None and draw is None:
            raise ValueError("a canvas needs an image or a way to draw one")
        self._image = image
        self._draw = draw
        self.spec = spec

    @property
    def image(self) -> RGB:
        """The original image (drawn on first use)."""
        if self._image is None:
            assert self._draw is not None
            self._image = self._draw()
        return self._image


@dataclass(frozen=True)
class Perturbed:
    """What it produces: the new image, and a new spec when it re-rendered one."""

    image: RGB
    spec: ChartSpec | None = None


class Perturbation(Protocol):
    """A registered perturbation: `params` fixes everything random draws do not, so
    (params, seed) reproduces the output exactly."""

    @property
    def name(self) -> str:
        """Registry name, e.g. "blur"."""
        ...

    @property
    def levels(self) -> tuple[int, ...]:
        """Intensity levels it defines, mildest first."""
        ...

    @property
    def answer_preserved(self) -> bool:
        """Whether the original answers still hold on its output."""
        ...

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """The parameters of `level` for this canvas (sizes scale with the image)."""
        ...

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Apply with the given parameters, drawing randomness only from `rng`."""
        ...


def check_level(name: str, level: int, levels: tuple[int, ...]) -> None:
    """Raise ValueError naming the perturbation when `level` is not one of its levels."""
    if level not in levels:
        raise ValueError(f"perturbation {name!r} has levels {list(levels)}, not {level!r}")


def reference_scale(image: RGB) -> float:
    """Image height over the 480 px of a default 6.4×4.8 in, 100 dpi chart: pixel sizes in
    the level tables are for that height and scale with it."""
    return float(image.shape[0]) / 480.0


_HOMES = (
    "chartproof.variants.perturbations.blur",
    "chartproof.variants.perturbations.noise",
    "chartproof.variants.perturbations.watermark",
    "chartproof.variants.perturbations.label_removal",
)
"""Modules of the shipped perturbations (a new one is one module plus its line here)."""

PERTURBATIONS: Registry[Perturbation] = Registry(
    "perturbation", modules=_HOMES, group="chartproof.perturbations"
)
"""Perturbations by registry name (`register_perturbation` registers here)."""

P = TypeVar("P", bound=Perturbation)


def register_perturbation(perturbation: P) -> P:
    """Register a perturbation under its `name`; returns it (ValueError on a name taken)."""
    PERTURBATIONS.register(perturbation.name, perturbation)
    return perturbation
