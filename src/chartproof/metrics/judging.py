"""Judge scoring: a model's Correct/Incorrect verdict on each answer (the `judge` metric,
written by `pipelines.judge`), and how often it agrees with the rule-based scores.

The `judge` summary section gives the judge's mean over the samples it graded, how many it
could not grade (failed call, unreadable verdict: left out of the mean, counted), and its
agreement with chartproof's `accuracy` and with the benchmark's `official` score where
there is one: the share of samples on which both call the answer right or both call it
wrong, Cohen's κ, and the samples where they part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chartproof.metrics.registry import Metric, RunInput, scorer
from chartproof.types import SampleResult

__all__ = ["agreement", "judge_section"]

DISAGREEMENTS_LISTED = 100
"""How many samples where the judge and the rule part the section lists (all counted)."""


def agreement(a: Sequence[bool], b: Sequence[bool]) -> dict[str, float | int | None]:
    """Share of equal verdicts and Cohen's κ of two raters' right/wrong calls (κ is None
    when chance agreement is 1, as when both always say the same one thing)."""
    n = len(a)
    if n == 0 or n != len(b):
        return {"n": n, "agreement": None, "kappa": None}
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    pa, pb = sum(a) / n, sum(b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    kappa = None if chance >= 1 else (observed - chance) / (1 - chance)
    return {"n": n, "agreement": observed, "kappa": kappa}


@scorer(
    kind="run",
    name="judge",
    section="judge",
    metrics=[
        Metric(
            "judge",
            "judge verdict",
            headline={"direct": 0.75},
            description="a judge model's Correct/Incorrect on the answer (`eval --judge`)",
        )
    ],
)
def judge_section(run: RunInput) -> dict[str, Any] | None:
    """The judge's mean and its agreement with `accuracy` and `official`."""
    rows = [r for r in run.results if "judge" in r.scores]
    if not rows:
        return None
    graded = [r for r in rows if r.scores["judge"] is not None]
    out: dict[str, Any] = {
        "n": len(graded),
        "ungraded": len(rows) - len(graded),
        "judge": sum(_right(r, "judge") for r in graded) / len(graded) if graded else None,
        "agreement": {},
        "disagreements": [],
    }
    for rule in ("accuracy", "official"):
        both = [r for r in graded if r.scores.get(rule) is not None]
        if not both:
            continue
        judge, other = [_right(r, "judge") for r in both], [_right(r, rule) for r in both]
        out["agreement"][rule] = agreement(judge, other)
    differ = [r for r in graded if _right(r, "judge") != _right(r, "accuracy")]
    out["disagree"] = len(differ)
    out["disagreements"] = [_row(r) for r in differ[:DISAGREEMENTS_LISTED]]
    return out


def _right(r: SampleResult, metric: str) -> bool:
    value = r.scores.get(metric)
    return value is not None and value >= 1.0


def _row(r: SampleResult) -> dict[str, Any]:
    return {
        "sample_id": r.sample_id,
        "prediction": r.prediction,
        "judge": r.scores.get("judge"),
        "accuracy": r.scores.get("accuracy"),
        "official": r.scores.get("official"),
    }
