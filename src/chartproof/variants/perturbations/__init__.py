"""The registered perturbations, one module each: blur, noise, salt_pepper, watermark,
label_removal. A new perturbation is one module that calls `register_perturbation` plus its
line in `base._HOMES` (another package's: an entry point of ``chartproof.perturbations``)."""

from __future__ import annotations

from chartproof.variants.perturbations.base import (
    PERTURBATIONS,
    Canvas,
    ParamValue,
    Perturbation,
    Perturbed,
    register_perturbation,
)

__all__ = [
    "PERTURBATIONS",
    "Canvas",
    "ParamValue",
    "Perturbation",
    "Perturbed",
    "register_perturbation",
]
