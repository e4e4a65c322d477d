"""Visual premise proving (RealCQA-V2): structural premises per chart and data, reasoning and
math premises per question, each true premise with three false distractors (1:3), every one
with a paraphrased text and a first-order-logic AST that `evaluate` checks on the chart.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from chartproof.questions.premises.claims import Claim, Statement
from chartproof.questions.premises.judging import Judge, premise_judge
from chartproof.questions.premises.logic import LogicError, evaluate
from chartproof.questions.premises.sequence import (
    QUESTION_STRUCTURE,
    op_claims,
    premise_rows,
    question_claims,
    render_premises,
)
from chartproof.questions.premises.structural import STRUCTURAL_KINDS, structural_claims
from chartproof.questions.premises.templates import PREMISE_TEMPLATES, premise_kind
from chartproof.questions.program import ProgramResult
from chartproof.questions.view import ChartView, chart_view
from chartproof.types import ChartSpec, Premise

__all__ = [
    "PREMISE_TEMPLATES",
    "QUESTION_STRUCTURE",
    "STRUCTURAL_KINDS",
    "Claim",
    "Judge",
    "LogicError",
    "Statement",
    "evaluate",
    "op_claims",
    "premise_judge",
    "premise_kind",
    "premise_rows",
    "question_claims",
    "question_premises",
    "render_premises",
    "structural_claims",
    "structural_premises",
]


def question_premises(
    result: ProgramResult,
    *,
    rng: random.Random,
    prefix: str,
    structural: Sequence[Claim] | None = None,
) -> list[Premise]:
    """The ordered premise sequence of one executed question."""
    if structural is None:
        structural = structural_claims(result.view, rng)
    return render_premises(question_claims(result.view, result.ops, structural), rng, prefix)


def structural_premises(
    chart: ChartSpec | ChartView, *, seed: int = 0, prefix: str | None = None
) -> list[Premise]:
    """The chart's own structural sequence (SP0-SP9 that apply), deterministic per seed."""
    view = chart_view(chart)
    chart_id = chart.id if isinstance(chart, ChartSpec) else "chart"
    rng = random.Random(f"{chart_id}|{seed}|structure")
    return render_premises(structural_claims(view, rng), rng, prefix or f"{chart_id}/sp")
