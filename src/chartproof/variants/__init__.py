"""Variants of charts: visual perturbations (ChartR), counterfactual data edits
(Chartographer), chart similarity and preference pairs (ChartCF), and charts re-made as code.

Importing this package loads numpy and PIL only; rendering, OCR and the sandbox load on use.
"""

from __future__ import annotations

from chartproof.variants.images import encode_png, to_rgb
from chartproof.variants.perturb import (
    Variant,
    apply_transform,
    get_perturbation,
    perturb,
    variant_id,
    variant_sample,
    variants_for,
)
from chartproof.variants.perturbations import PERTURBATIONS
from chartproof.variants.seeds import stable_seed

__all__ = [
    "PERTURBATIONS",
    "Variant",
    "apply_transform",
    "encode_png",
    "get_perturbation",
    "perturb",
    "stable_seed",
    "to_rgb",
    "variant_id",
    "variant_sample",
    "variants_for",
]
