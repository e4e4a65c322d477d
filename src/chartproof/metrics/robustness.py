"""Robustness under visual perturbations (ChartR): each metric per perturbation and per
intensity level, and the average robustness metric ARM = (M_orig − mean_v M_v) / M_orig."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.registry import RunInput, scorer
from chartproof.types import SampleResult, Score

__all__ = ["arm", "arm_score", "robustness"]


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


def _mean(results: Sequence[SampleResult], metric: str) -> float | None:
    got = [v for v in (r.scores.get(metric) for r in results) if v is not None]
    return sum(got) / len(got) if got else None


@scorer(kind="run", name="robustness", section="robustness")
def robustness(run: RunInput) -> dict[str, Any] | None:
    """Metric per perturbation and level, and ARM over the perturbations present (None when
    the original's metric is 0: ARM undefined); None without originals and perturbed
    samples side by side."""
    by_pert: dict[str, list[SampleResult]] = defaultdict(list)
    by_level: dict[tuple[str, str], list[SampleResult]] = defaultdict(list)
    for r in run.results:
        pert = r.groups.get("perturbation", "original")
        by_pert[pert].append(r)
        if pert != "original" and "level" in r.groups:
            by_level[(pert, r.groups["level"])].append(r)
    if "original" not in by_pert or len(by_pert) < 2:
        return None
    out: dict[str, Any] = {"metrics": {}, "curves": {}}
    for m in run.metrics:
        orig = _mean(by_pert["original"], m)
        per = {p: _mean(rs, m) for p, rs in sorted(by_pert.items()) if p != "original"}
        got = [v for v in per.values() if v is not None]
        entry: dict[str, Any] = {"original": orig, "by_perturbation": per, "arm": None}
        if orig is not None and got:
            score = arm_score(m, orig, got)
            entry["arm"] = score.value
            if score.note:
                entry["arm_note"] = score.note
        out["metrics"][m] = entry
        curves: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for (p, level), rs in sorted(by_level.items()):
            v = _mean(rs, m)
            if v is not None and orig is not None:
                curves[p].append((float(level), v))
        if curves and orig is not None:
            for p in curves:
                curves[p].insert(0, (0.0, orig))
        out["curves"][m] = dict(curves)
    return out
