"""Variants of charts: visual perturbations (ChartR), counterfactual data edits
(Chartographer), chart similarity and preference pairs (ChartCF).

Importing this package loads numpy and PIL only; rendering, OCR and the sandbox load on use.
Counterfactual families live in `chartproof.variants.counterfactual` (they need the question
programs); re-making a chart as code, which calls a model and the sandbox, is a pipeline
(`chartproof.pipelines.derender_code`).
"""

from __future__ import annotations

from chartproof.seeds import stable_seed
from chartproof.variants.images import encode_png, to_rgb
from chartproof.variants.perturb import (
    Variant,
    apply_transform,
    get_perturbation,
    level_plan,
    level_table,
    perturb,
    variant_id,
    variant_sample,
    variants_for,
)
from chartproof.variants.perturbations import PERTURBATIONS
from chartproof.variants.preference import PreferencePair, preference_pairs, write_pairs
from chartproof.variants.similarity import image_similarity, select_least_similar, spec_similarity

__all__ = [
    "PERTURBATIONS",
    "PreferencePair",
    "Variant",
    "apply_transform",
    "encode_png",
    "get_perturbation",
    "image_similarity",
    "level_plan",
    "level_table",
    "perturb",
    "preference_pairs",
    "select_least_similar",
    "spec_similarity",
    "stable_seed",
    "to_rgb",
    "variant_id",
    "variant_sample",
    "variants_for",
    "write_pairs",
]
