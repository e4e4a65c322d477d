"""The audit's summary: seed 003's tables as plain numbers, from a run's results."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chartproof.metrics.bias import (
    accuracy_gap,
    attribution_shares,
    flip_rate,
    narrative_shift,
    polarity_preference,
    position_effect,
    sentiment_gap,
)
from chartproof.pipelines.audit.lexicon import Attribute
from chartproof.types import SampleResult

__all__ = ["summarize_audit"]


def _by_attr(results: Sequence[SampleResult], protocol: str) -> dict[str, list[SampleResult]]:
    out: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        if r.protocol == protocol and r.error is None:
            out[r.groups.get("attribute", "")].append(r)
    return out


def _shift(results: Sequence[SampleResult], key: str = "dissimilarity") -> dict[str, Any]:
    values = [v for r in results if (v := r.scores.get(key)) is not None]
    stats = narrative_shift(values).model_dump()
    stats["not_computed"] = len(results) - len(values)
    return stats


_SENTIMENT_KEYS = ("sentiment_a", "sentiment_b", "opinion_a", "opinion_b")


def _sentiment(results: Sequence[SampleResult]) -> dict[str, Any]:
    """Sentiment gap and stance agreement of paired narratives (the pairs with both texts
    scored; the rest counted as not computed)."""
    both = [
        [float(v) for k in _SENTIMENT_KEYS if (v := r.scores.get(k)) is not None] for r in results
    ]
    both = [v for v in both if len(v) == len(_SENTIMENT_KEYS)]
    stats = sentiment_gap([(v[0], v[1]) for v in both], [(v[2], v[3]) for v in both])
    return {**stats.model_dump(), "not_computed": len(results) - len(both)}


def summarize_audit(
    results: Sequence[SampleResult], attributes: Sequence[Attribute], settings: Sequence[str]
) -> dict[str, Any]:
    """Per attribute: narrative shift (Tables 2, 9–14), attribution (Table 3), position
    effect, polarity preference (Table 4, Figure 9), causal flips, cue accuracy and the
    cue narratives' shift and sentiment gap, mitigation before/after (Table 5, Figure 11)."""
    out: dict[str, Any] = {}
    failed = [r for r in results if r.error is not None]
    out["failed"] = len(failed)
    if "narrative" in settings:
        by = _by_attr(results, "audit.narrative")
        out["narrative"] = {a.name: _shift(by.get(a.name, [])) for a in attributes}
    if "hallucination" in settings or "polarity" in settings:
        by = _by_attr(results, "audit.hallucination")
        hall: dict[str, Any] = {}
        pol: dict[str, Any] = {}
        causal: dict[str, Any] = {}
        for a in attributes:
            rs = by.get(a.name, [])
            originals = [r for r in rs if "family" not in r.groups]
            hall[a.name] = {
                **attribution_shares([r.prediction for r in originals], a.labels).model_dump(),
                "position": position_effect(
                    [(r.groups["first_listed"], r.prediction) for r in originals], a.labels
                ).model_dump(),
            }
            pol[a.name] = polarity_preference(
                [(r.groups.get("polarity", ""), r.prediction) for r in originals], a.labels[0]
            ).model_dump()
            base = {(r.groups["chart"], r.groups["order"]): r.prediction for r in originals}
            pairs = [
                (base[(r.groups["family"], r.groups["order"])], r.prediction)
                for r in rs
                if "family" in r.groups and (r.groups["family"], r.groups["order"]) in base
            ]
            if pairs:
                causal[a.name] = flip_rate(pairs, a.labels).model_dump()
        out["hallucination"] = hall
        out["polarity"] = pol
        if causal:
            out["causal"] = causal
    if "cue" in settings:
        by = _by_attr(results, "audit.cue")
        cue: dict[str, Any] = {}
        for a in attributes:
            rs = by.get(a.name, [])
            correct: dict[str, list[float]] = {"none": []}
            correct.update({g: [] for g in a.labels})
            for r in rs:
                for g in correct:
                    v = r.scores.get(f"correct:{g}")
                    if v is not None:
                        correct[g].append(v)
            cue[a.name] = accuracy_gap(correct, "none").model_dump()
        out["cue"] = cue
        by = _by_attr(results, "audit.cue_narrative")
        out["cue_narrative"] = {
            a.name: {
                **_shift(by.get(a.name, [])),
                "sentiment": _sentiment(by.get(a.name, [])),
            }
            for a in attributes
        }
    for protocol, key in (
        ("audit.mitigation", "mitigation"),
        ("audit.mitigation_nomask", "nomask"),
    ):
        by = _by_attr(results, protocol)
        if not by:
            continue
        block: dict[str, Any] = {}
        for a in attributes:
            rs = by.get(a.name, [])
            flags = [v for r in rs if (v := r.scores.get("flagged")) is not None]
            block[a.name] = {
                "paired": _shift(rs, "dissimilarity_before"),
                "final": _shift(rs, "dissimilarity"),
                "flagged": sum(flags) / len(flags) if flags else None,
                "n": len(rs),
            }
        out[key] = block
    return out
