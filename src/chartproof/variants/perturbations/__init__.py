"""The registered perturbations, one module each: blur, noise, salt_pepper, watermark,
label_removal. A new perturbation is one module plus one line in `PERTURBATIONS`."""

from __future__ import annotations

from chartproof.variants.perturbations.base import Canvas, ParamValue, Perturbation, Perturbed
from chartproof.variants.perturbations.blur import BLUR
from chartproof.variants.perturbations.label_removal import LABEL_REMOVAL
from chartproof.variants.perturbations.noise import NOISE, SALT_PEPPER
from chartproof.variants.perturbations.watermark import WATERMARK

__all__ = ["PERTURBATIONS", "Canvas", "ParamValue", "Perturbation", "Perturbed"]

PERTURBATIONS: dict[str, Perturbation] = {
    p.name: p for p in (BLUR, NOISE, SALT_PEPPER, WATERMARK, LABEL_REMOVAL)
}
"""Perturbations by registry name."""
