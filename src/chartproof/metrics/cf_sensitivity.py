"""Counterfactual sensitivity (ChartCF): does a model change its answer when the chart's data
change the right answer? Computed over (original, counterfactual) question pairs of the
counterfactual families whose gold answers differ.

- `cf_sensitivity`: share of those pairs where the model's two answers differ — a model that
  ignores the chart (a constant answer, or one recalled from the question) scores 0, its
  baseline;
- `cf_follow`: share where the answer on the counterfactual is right, among pairs whose
  original was answered right (the family consistency restricted to changed answers);
- `cf_both_right`: share of all pairs answered right on both charts.

The run scorer `cf_sensitivity` writes them to a run's summary (section "cf_sensitivity",
`{"scores": [...]}`) when the run has such pairs; a sample counts as answered right when its
relaxed accuracy is 1 (the first `means_correct` metric where it has none).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from chartproof.answers import normalize_text, numbers_in
from chartproof.answers import same_answer as same_gold
from chartproof.metrics.registry import RunInput, correct_value, scorer
from chartproof.types import Sample, Score

__all__ = ["CF_METRICS", "counterfactual_sensitivity", "run_sensitivity", "same_answer"]

CF_METRICS = ("cf_sensitivity", "cf_follow", "cf_both_right")
"""The scores `counterfactual_sensitivity` gives, in order."""


def same_answer(
    a: str | None, b: str | None, *, rel_tol: float = 0.05, as_numbers: bool = True
) -> bool:
    """Whether two predictions say the same thing: both numbers within `rel_tol` of the
    larger magnitude (when `as_numbers`), else equal after normalisation; a missing answer
    equals only another. A pair's predictions are compared as its gold answers are: as
    numbers only when the gold is one, so the years 2016 and 2020 are two labels."""
    if a is None or b is None:
        return a is b
    na, nb = (numbers_in(a), numbers_in(b)) if as_numbers else ([], [])
    if na and nb:
        x, y = na[0], nb[0]
        return math.isclose(x, y, rel_tol=rel_tol, abs_tol=0.0) if (x or y) else True
    return normalize_text(a) == normalize_text(b)


def _is_counterfactual(s: Sample) -> bool:
    return any(t.kind == "counterfactual" for t in s.transforms) and not any(
        t.kind == "perturbation" for t in s.transforms
    )


def counterfactual_sensitivity(
    samples: Iterable[Sample],
    predictions: Mapping[str, str | None],
    correct: Mapping[str, bool | None],
) -> list[Score]:
    """The three scores above; pairs with a sample the run has no prediction for are left
    out (`n` counts the pairs used)."""
    items = list(samples)
    by_id = {s.id: s for s in items}
    changed: list[bool] = []
    follow: list[bool] = []
    both: list[bool] = []
    for cf in items:
        if not _is_counterfactual(cf) or cf.parent_id not in by_id:
            continue
        orig = by_id[cf.parent_id]
        if same_gold(cf.answer, orig.answer):  # the edit left the answer as it was
            continue
        if orig.id not in predictions or cf.id not in predictions:
            continue
        changed.append(
            not same_answer(
                predictions[orig.id],
                predictions[cf.id],
                rel_tol=orig.answer.tolerance,
                as_numbers=orig.answer.kind == "number",
            )
        )
        right_o, right_c = correct.get(orig.id), correct.get(cf.id)
        both.append(bool(right_o) and bool(right_c))
        if right_o:
            follow.append(bool(right_c))

    def share(metric: str, flags: list[bool], note: str) -> Score:
        if not flags:
            return Score(metric=metric, value=None, n=0, note="no counterfactual pairs")
        return Score(metric=metric, value=sum(flags) / len(flags), n=len(flags), note=note)

    sensitivity, follows, both_right = CF_METRICS
    return [
        share(sensitivity, changed, "answer changed with the chart; constant-answer baseline 0"),
        share(follows, follow, "right on the counterfactual when right on the original"),
        share(both_right, both, "right on both charts"),
    ]


@scorer(kind="run", name="cf_sensitivity", protocols=("direct", "chain"), section="cf_sensitivity")
def run_sensitivity(run: RunInput) -> dict[str, Any] | None:
    """The three scores over the run's (original, counterfactual) pairs whose gold answers
    differ; None (no section) when the run has none. A failed sample has no answer and is
    not right."""
    predictions: dict[str, str | None] = {}
    correct: dict[str, bool | None] = {}
    for r in run.results:
        predictions[r.sample_id] = r.prediction
        value = r.scores.get("relaxed_accuracy", correct_value(r.scores))
        correct[r.sample_id] = None if value is None else value >= 1.0
    scores = counterfactual_sensitivity(run.samples, predictions, correct)
    if not any(s.n for s in scores):
        return None
    return {"scores": [s.model_dump(exclude_defaults=False) for s in scores]}
