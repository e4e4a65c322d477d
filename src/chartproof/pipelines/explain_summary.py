"""The explanation-dataset summary: outcomes per round, wins and votes per model, how AS was
computed, and the weight-sensitivity agreement of seed 000 Table 9 over the candidates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from chartproof.metrics.weights import (
    MissingPolicy,
    PerplexityTransform,
    sensitivity_weight_sets,
    weight_sensitivity,
)
from chartproof.pipelines.explain_records import Candidate, ExplainOutcome

__all__ = ["sensitivity_summary", "summarize_explain"]


def summarize_explain(
    outcomes: Sequence[ExplainOutcome],
    *,
    generators: Sequence[str],
    verifiers: Sequence[str],
    perplexity: PerplexityTransform = "one_minus",
    missing: MissingPolicy = "renormalise",
    sensitivity_seed: int = 0,
) -> dict[str, Any]:
    """Counts and breakdowns of a finished (or partial) explain run."""
    status = Counter(o.status for o in outcomes)
    return {
        "counts": {
            "samples": len(outcomes),
            "accepted": status["accepted"],
            "rejected": status["rejected"],
            "failed": status["failed"],
        },
        "rounds": _rounds(outcomes),
        "wins": {m: sum(1 for o in outcomes if o.model == m) for m in generators},
        "models": {m: _model_stats(outcomes, m) for m in generators},
        "verifiers": {v: _verifier_stats(outcomes, v) for v in verifiers},
        "aggregate_notes": dict(
            Counter(
                c.aggregate_note
                for o in outcomes
                for c in o.candidates
                if c.explanation is not None and c.aggregate_note
            ).most_common()
        ),
        "weight_sensitivity": sensitivity_summary(
            outcomes, perplexity=perplexity, missing=missing, seed=sensitivity_seed
        ),
    }


def _rounds(outcomes: Sequence[ExplainOutcome]) -> list[dict[str, int]]:
    last = max((o.rounds for o in outcomes), default=0)
    rows = []
    for r in range(1, last + 1):
        cands = [c for o in outcomes for c in o.candidates if c.round == r]
        entered = sum(1 for o in outcomes if o.rounds >= r)
        accepted = sum(1 for o in outcomes if o.round == r)
        rows.append(
            {
                "round": r,
                "samples": entered,
                "accepted": accepted,
                "not_accepted": entered - accepted,
                "candidates": len(cands),
                "failed_candidates": sum(1 for c in cands if c.status == "failed"),
                "verified_candidates": sum(1 for c in cands if c.needed is not None),
                "rejected_candidates": sum(1 for c in cands if c.status == "rejected"),
            }
        )
    return rows


def _model_stats(outcomes: Sequence[ExplainOutcome], model: str) -> dict[str, Any]:
    mine = [c for o in outcomes for c in o.candidates if c.model == model]
    values = [c.aggregate for c in mine if c.aggregate is not None]
    return {
        "candidates": len(mine),
        "failed": sum(1 for c in mine if c.status == "failed"),
        "ranked_first": sum(1 for c in mine if c.rank == 1),
        "verified": sum(1 for c in mine if c.needed is not None),
        "accepted": sum(1 for c in mine if c.status == "accepted"),
        "rejected": sum(1 for c in mine if c.status == "rejected"),
        "mean_aggregate": sum(values) / len(values) if values else None,
    }


def _verifier_stats(outcomes: Sequence[ExplainOutcome], verifier: str) -> dict[str, int]:
    votes = [v for o in outcomes for c in o.candidates for v in c.votes if v.verifier == verifier]
    return {
        "votes": len(votes),
        "correct": sum(1 for v in votes if v.verdict is True),
        "incorrect": sum(1 for v in votes if v.verdict is False),
        "no_verdict": sum(1 for v in votes if v.verdict is None and v.error is None),
        "failed": sum(1 for v in votes if v.error is not None),
    }


def _comparable(candidates: Sequence[Candidate]) -> list[dict[str, float | None]]:
    return [
        c.scores
        for c in candidates
        if c.round == 1
        and c.explanation is not None
        and any(v is not None for v in c.scores.values())
    ]


def sensitivity_summary(
    outcomes: Sequence[ExplainOutcome],
    *,
    perplexity: PerplexityTransform = "one_minus",
    missing: MissingPolicy = "renormalise",
    seed: int = 0,
) -> dict[str, Any]:
    """Table 9 over the runs' candidates: which candidate each of the eight A.3 weight sets
    would pick, and how often the sets agree.

    Each sample contributes its first-round candidates that carry ROSCOE scores (later rounds
    exist only for some samples); samples with fewer than two such candidates are left out,
    since every weight set trivially agrees on them. `agreement` holds shares (× 100 for the
    paper's percentages).
    """
    sets = sensitivity_weight_sets(seed)
    described = [{"name": w.name, **w.weights} for w in sets]
    groups = [g for g in (_comparable(o.candidates) for o in outcomes) if len(g) >= 2]
    if not groups:
        return {
            "value": None,
            "note": "not computed: no sample has two first-round candidates with ROSCOE scores",
            "weight_sets": described,
        }
    try:
        result = weight_sensitivity(groups, sets, perplexity, missing)
    except ValueError as exc:
        return {"value": None, "note": f"not computed: {exc}", "weight_sets": described}
    return {
        "names": list(result.names),
        "agreement": [list(row) for row in result.agreement],
        "all_agree": result.all_agree,
        "n_samples": result.n_samples,
        "candidates": "first-round candidates with ROSCOE scores; samples with two or more",
        "weight_sets": described,
    }
