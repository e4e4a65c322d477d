"""Gaussian blur (ChartR's blur variant), sigma growing with the level.

| level | sigma (px at 480 px height) |
|---|---|
| 1 | 0.6 |
| 2 | 1.2 |
| 3 | 2.0 |
| 4 | 3.0 |
| 5 | 4.5 |
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
    reference_scale,
    register_perturbation,
)

__all__ = ["BLUR", "Blur"]

SIGMA: dict[int, float] = {1: 0.6, 2: 1.2, 3: 2.0, 4: 3.0, 5: 4.5}


@dataclass(frozen=True)
class Blur:
    """Isotropic Gaussian smoothing of every channel (edges replicate the border)."""

    name: str = "blur"
    levels: tuple[int, ...] = tuple(SIGMA)
    answer_preserved: bool = True

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """Sigma of `level`, scaled to the image height."""
        check_level(self.name, level, self.levels)
        return {"sigma": round(SIGMA[level] * reference_scale(canvas.image), 4)}

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Blur with `params["sigma"]` (rng unused: blur is deterministic)."""
        from scipy.ndimage import gaussian_filter

        sigma = float(params["sigma"])
        img = canvas.image.astype(np.float64)
        out = gaussian_filter(img, sigma=(sigma, sigma, 0.0), mode="nearest", truncate=4.0)
        return Perturbed(np.clip(np.rint(out), 0, 255).astype(np.uint8))


BLUR = register_perturbation(Blur())
