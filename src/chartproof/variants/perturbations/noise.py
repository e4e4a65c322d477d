"""Pixel noise (ChartR's noise variant): additive Gaussian noise, or salt-and-pepper.

| level | Gaussian std (0–255 scale) | salt-and-pepper share of pixels |
|---|---|---|
| 1 | 8 | 0.01 |
| 2 | 16 | 0.02 |
| 3 | 28 | 0.04 |
| 4 | 44 | 0.07 |
| 5 | 64 | 0.12 |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from chartproof.variants.perturbations.base import (
    Canvas,
    ParamValue,
    Perturbed,
    check_level,
    register_perturbation,
)

__all__ = ["NOISE", "SALT_PEPPER", "GaussianNoise", "SaltPepperNoise"]

STD: dict[int, float] = {1: 8.0, 2: 16.0, 3: 28.0, 4: 44.0, 5: 64.0}
SHARE: dict[int, float] = {1: 0.01, 2: 0.02, 3: 0.04, 4: 0.07, 5: 0.12}


@dataclass(frozen=True)
class GaussianNoise:
    """Independent zero-mean Gaussian noise on every channel of every pixel, clipped."""

    name: str = "noise"
    levels: tuple[int, ...] = tuple(STD)
    answer_preserved: bool = True

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """Standard deviation of `level`."""
        check_level(self.name, level, self.levels)
        return {"std": STD[level]}

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Add N(0, std²) noise drawn from `rng`."""
        # float32 halves the work of drawing ~1M numbers per chart; rounding to uint8 hides it
        noise = rng.standard_normal(size=canvas.image.shape, dtype=np.float32)
        out = canvas.image.astype(np.float32) + noise * np.float32(params["std"])
        return Perturbed(np.clip(np.rint(out), 0, 255).astype(np.uint8))


@dataclass(frozen=True)
class SaltPepperNoise:
    """A share of pixels set to pure white or pure black (half each, on average)."""

    name: str = "salt_pepper"
    levels: tuple[int, ...] = tuple(SHARE)
    answer_preserved: bool = True

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """Share of pixels hit at `level`."""
        check_level(self.name, level, self.levels)
        return {"amount": SHARE[level]}

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Hit each pixel with probability `amount`; a hit is salt or pepper by a coin."""
        h, w = canvas.image.shape[:2]
        hit = rng.random((h, w)) < float(params["amount"])
        salt = rng.random((h, w)) < 0.5
        out = canvas.image.copy()
        out[hit & salt] = 255
        out[hit & ~salt] = 0
        return Perturbed(out)


NOISE = register_perturbation(GaussianNoise())
SALT_PEPPER = register_perturbation(SaltPepperNoise())
