"""A run's summary from its per-sample results: headline metrics, breakdowns by every group
label, chain and premise diagnostics, robustness (ARM) per perturbation, and counts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chartproof.metrics.breakdown import breakdown_results, mean_score
from chartproof.metrics.chains import arm, error_analysis
from chartproof.metrics.families import edit_breakage, family_scores, outcomes_from_samples
from chartproof.metrics.premises import PremiseOutcome, premise_metrics
from chartproof.pipelines.protocols import chain_outcome
from chartproof.types import Sample, SampleResult, Score

__all__ = ["BREAKDOWN_KEYS", "HEADLINE", "summarize"]

HEADLINE: dict[str, tuple[str, ...]] = {
    "direct": ("accuracy", "relaxed_accuracy", "exact_match", "anls"),
    "chain": ("isa", "csa", "faa", "cfa", "accuracy"),
    "premise": ("premise_accuracy", "premise_balanced_accuracy", "acc_vpp"),
}
"""Metrics shown first for each protocol (others follow in name order)."""

BREAKDOWN_KEYS = (
    "chart_type",
    "question_type",
    "task_type",
    "program",
    "perturbation",
    "level",
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
        r if r.error is None else r.model_copy(update={"scores": _zeros(results)}) for r in results
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
        _premise_figures(summary, results, samples)
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


def _zeros(results: Sequence[SampleResult]) -> dict[str, float | None]:
    names = {m for r in results for m in r.scores}
    return dict.fromkeys(names, 0.0)


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


PREMISE_RULE = (
    "over every premise of every question asked: a premise whose call failed or whose reply "
    "gave no true/false verdict counts as wrong"
)
"""The one counting rule behind every premise figure of a summary (stated in the report)."""


def _premise_sequences(
    results: Sequence[SampleResult], samples: Sequence[Sample]
) -> dict[str, list[PremiseOutcome]]:
    """Each result's premise outcomes; a failed result recorded without steps (older runs)
    has all its dataset premises wrong."""
    premises = {s.id: s.premises for s in samples}
    out: dict[str, list[PremiseOutcome]] = {}
    for r in results:
        if r.steps:
            out[r.sample_id] = [
                PremiseOutcome(
                    kind=str(st["kind"]),
                    correct=bool(st.get("correct")),
                    truth=st["truth"] if isinstance(st.get("truth"), bool) else None,
                )
                for st in r.steps
            ]
        elif premises.get(r.sample_id):
            out[r.sample_id] = [
                PremiseOutcome(kind=p.kind, correct=False, truth=p.truth)
                for p in premises[r.sample_id]
            ]
    return out


def _premise_score(metric: str, seqs: Sequence[Sequence[PremiseOutcome]]) -> dict[str, Any]:
    """premise_accuracy (with a standard error clustered by question: premises of one
    question are not independent), premise_balanced_accuracy or acc_vpp over `seqs`."""
    figures = premise_metrics(seqs)
    baseline = figures["baseline"]
    base = baseline if isinstance(baseline, dict) else {}
    n_prem = sum(len(q) for q in seqs)
    if metric == "acc_vpp":
        value, n = figures["acc_vpp"], len(seqs)
        stderr = (
            (value * (1 - value) / (n - 1)) ** 0.5 if isinstance(value, float) and n > 1 else None
        )
        key = "acc_vpp"
    else:
        key = "accuracy" if metric == "premise_accuracy" else "balanced_accuracy"
        value, n = figures[key], n_prem
        stderr = None
        if metric == "premise_accuracy" and isinstance(value, float) and len(seqs) > 1:
            k = len(seqs)
            resid = sum((sum(p.correct for p in q) - value * len(q)) ** 2 for q in seqs)
            stderr = (resid * k / (k - 1)) ** 0.5 / n_prem
    note = None
    if isinstance(base.get(key), float):
        note = f"always {base['answer']!r} scores {100 * float(base[key]):.2f}"
    return Score(
        metric=metric,
        value=value if isinstance(value, float) else None,
        n=n,
        stderr=stderr,
        note=note,
    ).model_dump(exclude_defaults=False)


def _premise_figures(
    summary: dict[str, Any], results: Sequence[SampleResult], samples: Sequence[Sample]
) -> None:
    """Give every premise figure of the summary one definition (RealCQA-V2's: accuracy over
    premises, Acc_VPP over questions) and one rule (`PREMISE_RULE`), whether it is a
    headline card, a breakdown cell or the VPP table, and add the baseline beside it."""
    seqs = _premise_sequences(results, samples)
    premise = dict(premise_metrics(list(seqs.values())))
    premise["rule"] = PREMISE_RULE
    premise["questions"] = len(results)
    premise["failed"] = sum(1 for r in results if r.error is not None)
    summary["premise"] = premise
    names = ("premise_accuracy", "premise_balanced_accuracy", "acc_vpp")

    def subset(group: dict[str, str]) -> list[list[PremiseOutcome]]:
        return [
            seqs[r.sample_id]
            for r in results
            if r.sample_id in seqs and all(r.groups.get(k) == v for k, v in group.items())
        ]

    def redo(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for row in rows:
            if row["metric"] in names:
                row = {**_premise_score(row["metric"], subset(row["group"])), "group": row["group"]}
            out.append(row)
        return out

    metrics = [_premise_score(m, subset({})) for m in names]
    summary["metrics"] = metrics + [m for m in summary["metrics"] if m["metric"] not in names]
    summary["breakdowns"] = {k: redo(v) for k, v in summary["breakdowns"].items()}
    summary["grid"] = redo(summary["grid"])
