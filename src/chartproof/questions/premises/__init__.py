"""Visual premise proving (RealCQA-V2): structural premises per chart and data, reasoning and
math premises per question, each true premise with three false distractors (1:3).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from chartproof.questions.view import ChartView
from chartproof.types import Premise

__all__ = ["question_premises", "structural_claims"]


def structural_claims(view: ChartView, rng: random.Random) -> list[object]:
    """Placeholder until the premise generator lands."""
    return []


def question_premises(
    result: object, *, rng: random.Random, prefix: str, structural: Sequence[object] | None
) -> list[Premise]:
    """Placeholder until the premise generator lands."""
    return []
