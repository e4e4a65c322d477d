"""Robustness under visual perturbations (ChartR): each metric per perturbation and per
intensity level, and the average robustness metric ARM = (M_orig − mean_v M_v) / M_orig."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.registry import RunInput, scorer
from chartproof.types import SampleResult, Score

__all__ = ["HEADLINE_LEVEL", "arm", "arm_score", "headline_levels", "robustness"]


def arm(original: float, variants: Sequence[float] | Mapping[str, float]) -> float | None:
    """ChartR's average robustness metric (M_original − mean_v M_v) / M_original.

    None when M_original is 0 (the ratio is undefined). Negative values mean the variants
    scored higher than the original, which ChartR reads as a weak baseline, not robustness.
    """
    vals = list(variants.values()) if isinstance(variants, Mapping) else list(variants)
    if not vals:
        raise ValueError("ARM needs at least one variant score")
    if original == 0:
        return None
    return (original - sum(vals) / len(vals)) / original


def arm_score(
    metric: str, original: float, variants: Sequence[float] | Mapping[str, float]
) -> Score:
    """ARM of one metric as a `Score` named "arm_<metric>" (value None, with the reason, when
    the original score is 0)."""
    value = arm(original, variants)
    n = len(variants)
    note = None
    if value is None:
        note = f"ARM undefined: the original {metric} is 0"
    return Score(metric=f"arm_{metric}", value=value, n=n, note=note, group={})


HEADLINE_LEVEL = 3
"""ChartR scores each perturbation at one fixed intensity, which it does not publish: the
headline takes level 3 of the five (blur σ 2 px, noise, watermark), or a perturbation's top
level where the run stops below it (label removal has one level). The sweep sits beside it."""


def _mean(results: Sequence[SampleResult], metric: str) -> float | None:
    got = [v for v in (r.scores.get(metric) for r in results) if v is not None]
    return sum(got) / len(got) if got else None


def _parent(result: SampleResult, parents: Mapping[str, str | None]) -> str | None:
    """The sample a perturbed result was made from: the dataset's `parent_id`, else the id
    before the variant suffix ("<parent>~<name>-<level>")."""
    if parents.get(result.sample_id):
        return parents[result.sample_id]
    head, sep, _ = result.sample_id.rpartition("~")
    return head if sep else None


POOLED = ("shuffle_choices", "rotate_choices")
"""Perturbations whose levels are independent draws (option orders), not intensities: their
headline pools every level (names of `chartproof.variants.choice_order`)."""


def headline_levels(levels: Mapping[str, set[int]]) -> dict[str, str]:
    """The level each perturbation's headline figure uses (see `HEADLINE_LEVEL`): level 3
    when the run has it, else the perturbation's top level in the run when that is below 3,
    "all" for the option-order draws (`POOLED`); a perturbation present only above level 3
    has no headline level."""
    out: dict[str, str] = {}
    for pert, have in levels.items():
        if pert in POOLED:
            out[pert] = "all"
        elif HEADLINE_LEVEL in have:
            out[pert] = str(HEADLINE_LEVEL)
        elif have and max(have) < HEADLINE_LEVEL:
            out[pert] = str(max(have))
    return out


def _arm_or_note(metric: str, orig: float | None, values: Sequence[float | None]) -> Any:
    got = [v for v in values if v is not None]
    if orig is None or not got:
        return None, None
    score = arm_score(metric, orig, got)
    return score.value, score.note


@scorer(kind="run", name="robustness", section="robustness")
def robustness(run: RunInput) -> dict[str, Any] | None:
    """Metric per perturbation and level, and ChartR's ARM (None when the original's metric
    is 0: ARM undefined); None without originals and perturbed samples side by side.

    M_original is the mean over exactly the unperturbed samples that have perturbed
    variants in the run: reconstructions and counterfactual samples (also labelled
    "original") stay out unless they were perturbed themselves. The headline ARM averages
    each perturbation at its headline level (`headline_levels`); `arm_by_perturbation` is
    (M_orig − M_p) / M_orig at that level, and `arm_by_level` the ARM over the
    perturbations that have each level (the sweep)."""
    parents = {s.id: s.parent_id for s in run.samples}
    originals = {r.sample_id: r for r in run.results if not _perturbed(r)}
    by_level: dict[tuple[str, int], list[SampleResult]] = defaultdict(list)
    used: set[str] = set()
    for r in run.results:
        if not _perturbed(r):
            continue
        parent = _parent(r, parents)
        if parent not in originals:
            continue
        used.add(parent)
        level = int(r.groups["level"]) if r.groups.get("level", "").isdigit() else 0
        by_level[(r.groups["perturbation"], level)].append(r)
    if not used:
        return None
    base = [originals[i] for i in sorted(used)]
    levels: dict[str, set[int]] = defaultdict(set)
    for pert, level in by_level:
        levels[pert].add(level)
    heads = headline_levels(levels)
    out: dict[str, Any] = {
        "metrics": {},
        "curves": {},
        "n_original": len(base),
        "excluded_originals": len(originals) - len(base),
        "headline_levels": heads,
    }
    for m in run.metrics:
        out["metrics"][m], out["curves"][m] = _metric_entry(m, base, by_level, heads)
    return out


def _perturbed(result: SampleResult) -> bool:
    return result.groups.get("perturbation", "original") != "original"


def _metric_entry(
    m: str,
    base: Sequence[SampleResult],
    by_level: Mapping[tuple[str, int], Sequence[SampleResult]],
    heads: Mapping[str, str],
) -> tuple[dict[str, Any], dict[str, list[tuple[float, float]]]]:
    """One metric's row (original, headline per perturbation, ARMs, the sweep) and curves."""
    orig = _mean(base, m)
    sweep: dict[str, dict[str, float | None]] = defaultdict(dict)
    for (pert, level), rs in sorted(by_level.items()):
        sweep[pert][str(level)] = _mean(rs, m)
    per = {
        p: _mean([r for (q, _), rs in by_level.items() if q == p for r in rs], m)
        if heads[p] == "all"
        else sweep[p].get(heads[p])
        for p in sorted(heads)
    }
    entry: dict[str, Any] = {"original": orig, "by_perturbation": per, "by_level": dict(sweep)}
    entry["arm"], note = _arm_or_note(m, orig, list(per.values()))
    if note:
        entry["arm_note"] = note
    entry["arm_by_perturbation"] = {p: _arm_or_note(m, orig, [v])[0] for p, v in per.items()}
    all_levels = sorted({int(level) for row in sweep.values() for level in row})
    entry["arm_by_level"] = {
        str(level): _arm_or_note(m, orig, [row.get(str(level)) for row in sweep.values()])[0]
        for level in all_levels
    }
    curves: dict[str, list[tuple[float, float]]] = {}
    if orig is not None:
        for p, row in sweep.items():
            points = [(float(level), v) for level, v in row.items() if v is not None]
            if points:
                curves[p] = [(0.0, orig), *sorted(points)]
    return entry, curves
