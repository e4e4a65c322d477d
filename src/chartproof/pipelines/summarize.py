"""A run's summary from its per-sample results: headline metrics, breakdowns by every group
label, chain and premise diagnostics, robustness (ARM) per perturbation, and counts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chartproof.metrics.breakdown import breakdown_results, mean_score
from chartproof.metrics.chains import arm, error_analysis
from chartproof.metrics.choice import CHOICE_METRICS
from chartproof.metrics.families import edit_breakage, family_scores, outcomes_from_samples
from chartproof.metrics.premises import PremiseOutcome, premise_metrics
from chartproof.pipelines.protocols import chain_outcome
from chartproof.types import Sample, SampleResult, Score

__all__ = ["BREAKDOWN_KEYS", "HEADLINE", "summarize"]

HEADLINE: dict[str, tuple[str, ...]] = {
    # multiple-choice runs show the chance level and the corrected score next to accuracy
    "direct": (
        "accuracy",
        "choice_accuracy",
        "chance",
        "chance_corrected_accuracy",
        "relaxed_accuracy",
        "exact_match",
        "anls",
    ),
    "chain": ("isa", "csa", "faa", "cfa", "accuracy"),
    "premise": ("premise_accuracy", "acc_vpp"),
}
"""Metrics shown first for each protocol (others follow in name order)."""

BREAKDOWN_KEYS = (
    "chart_type",
    "question_type",
    "task_type",
    "program",
    "perturbation",
    "level",
    "gold_position",
    "family_member",
    "split",
    "domain",
    "suite",
)
"""Group labels every metric is broken down by (when samples carry them)."""


def _dump(scores: Sequence[Score]) -> list[dict[str, Any]]:
    return [s.model_dump(exclude_defaults=False) for s in scores]


def summarize(
    results: Sequence[SampleResult],
    *,
    protocol: str,
    samples: Sequence[Sample] = (),
) -> dict[str, Any]:
    """Everything the report and `summary.json` show about a run's results.

    `samples` (the run's dataset) enables the counterfactual-family section.
    """
    answered = [r for r in results if r.error is None]
    failed = [r for r in results if r.error is not None]
    # failures count as wrong answers: a model that cannot answer does not score
    scored = [
        r if r.error is None else r.model_copy(update={"scores": _failed_scores(r, results)})
        for r in results
    ]
    names = _metric_names(scored, protocol)
    summary: dict[str, Any] = {
        "protocol": protocol,
        "counts": {
            "results": len(results),
            "answered": len(answered),
            "failed": len(failed),
            "calls": sum(r.calls for r in results),
            "cached_calls": sum(r.cached for r in results),
            "model_seconds": round(sum(r.latency_s for r in results), 3),
        },
        "metrics": _dump([mean_score(m, [r.scores.get(m) for r in scored]) for m in names]),
        "breakdowns": {
            key: _dump([s for s in breakdown_results(scored, names, by=(key,)) if s.group])
            for key in BREAKDOWN_KEYS
            if any(key in r.groups for r in scored)
        },
        "grid": _dump(
            [
                s
                for s in breakdown_results(
                    scored, names[:1], pairs=(("chart_type", "question_type"),)
                )
                if s.group
            ]
        ),
        "failures": [{"sample_id": r.sample_id, "error": r.error} for r in failed[:50]],
    }
    robustness = _robustness(scored, names)
    if robustness:
        summary["robustness"] = robustness
    if protocol == "chain":
        summary["chain"] = _chain_diagnostics(answered)
    if protocol == "premise":
        summary["premise"] = _premise_diagnostics(answered)
    families = _families(scored, samples)
    if families:
        summary["families"] = families
    return summary


def _families(results: Sequence[SampleResult], samples: Sequence[Sample]) -> dict[str, Any]:
    """Chartographer family metrics over the unperturbed members of counterfactual families:
    accuracy on originals and on edits, consistency, and edit × task-type break rates."""
    members = [
        s
        for s in samples
        if s.family_id is not None and not any(t.kind == "perturbation" for t in s.transforms)
    ]
    if not members:
        return {}
    right: dict[str, bool | None] = {}
    for r in results:
        value = r.scores.get("accuracy", r.scores.get("premise_accuracy"))
        right[r.sample_id] = None if value is None else value == 1.0
    outcomes = outcomes_from_samples(members, right)
    return {
        "scores": _dump(family_scores(outcomes)),
        "edit_break_rate": _dump(edit_breakage(outcomes)),
    }


def _metric_names(results: Sequence[SampleResult], protocol: str) -> list[str]:
    present = {m for r in results for m in r.scores}
    first = [m for m in HEADLINE.get(protocol, ()) if m in present]
    return first + sorted(present - set(first))


def _failed_scores(
    failed: SampleResult, results: Sequence[SampleResult]
) -> dict[str, float | None]:
    """A failed sample scores 0 on every metric, except the multiple-choice ones, which it
    has only when it is a multiple-choice sample (its protocol recorded them as a wrong
    answer: chance-corrected below 0, chance unchanged)."""
    names = {m for r in results for m in r.scores}
    scores: dict[str, float | None] = dict.fromkeys(names - set(CHOICE_METRICS), 0.0)
    scores.update({m: failed.scores[m] for m in CHOICE_METRICS if m in failed.scores})
    return scores


def _robustness(results: Sequence[SampleResult], names: Sequence[str]) -> dict[str, Any]:
    """Metric per perturbation and level, and ARM = (M_orig − mean_v M_v) / M_orig (ChartR)
    over the perturbations present; None when the original's metric is 0 (ARM undefined)."""
    by_pert: dict[str, list[SampleResult]] = defaultdict(list)
    by_level: dict[tuple[str, str], list[SampleResult]] = defaultdict(list)
    for r in results:
        pert = r.groups.get("perturbation", "original")
        by_pert[pert].append(r)
        if pert != "original" and "level" in r.groups:
            by_level[(pert, r.groups["level"])].append(r)
    if "original" not in by_pert or len(by_pert) < 2:
        return {}

    def mean(rs: Sequence[SampleResult], m: str) -> float | None:
        vals = [r.scores.get(m) for r in rs]
        got = [v for v in vals if v is not None]
        return sum(got) / len(got) if got else None

    out: dict[str, Any] = {"metrics": {}, "curves": {}}
    for m in names:
        orig = mean(by_pert["original"], m)
        per = {p: mean(rs, m) for p, rs in sorted(by_pert.items()) if p != "original"}
        got = [v for v in per.values() if v is not None]
        arm_value = arm(orig, got) if orig is not None and got else None
        out["metrics"][m] = {"original": orig, "by_perturbation": per, "arm": arm_value}
        curves: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for (p, level), rs in sorted(by_level.items()):
            v = mean(rs, m)
            if v is not None and orig is not None:
                curves[p].append((float(level), v))
        if curves and orig is not None:
            for p in curves:
                curves[p].insert(0, (0.0, orig))
        out["curves"][m] = dict(curves)
    return out


def _chain_diagnostics(results: Sequence[SampleResult]) -> dict[str, Any]:
    outcomes = [chain_outcome(r.steps, r.scores.get("faa") == 1.0) for r in results]
    return dict(error_analysis(outcomes))


def _premise_diagnostics(results: Sequence[SampleResult]) -> dict[str, Any]:
    sequences = [
        [PremiseOutcome(kind=str(st["kind"]), correct=bool(st["correct"])) for st in r.steps]
        for r in results
    ]
    return dict(premise_metrics(sequences))
