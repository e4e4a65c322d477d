"""A run's summary from its per-sample results: headline metrics, breakdowns by every group
label, counts, and the sections of the registered run scorers (chain and premise diagnostics,
robustness (ARM) per perturbation, counterfactual families, ...)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.aggregations import aggregate, run_level_metrics
from chartproof.metrics.breakdown import breakdown_results
from chartproof.metrics.registry import RunInput, counted_scores, headline_metrics, scorers
from chartproof.types import Sample, SampleResult, Score

__all__ = ["BREAKDOWN_KEYS", "summarize"]

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

    `samples` (the run's dataset) enables the counterfactual-family section. Every metric
    in the results gets its declared aggregation (`Metric.aggregation`, by default the mean)
    in the headline, each breakdown cell and the grid alike (headline metrics of the
    protocol first, then by name); every registered run scorer that applies adds its
    section.
    """
    answered = [r for r in results if r.error is None]
    failed = [r for r in results if r.error is not None]
    # failures count as wrong answers: a model that cannot answer does not score
    scored = [
        r if r.error is None else r.model_copy(update={"scores": _failed_scores(r, results)})
        for r in results
    ]
    names = _metric_names(scored, protocol)
    run = RunInput(
        protocol=protocol, results=scored, answered=answered, samples=samples, metrics=names
    )

    def cell(metric: str, rows: Sequence[SampleResult], group: Mapping[str, str]) -> Score:
        # every figure, headline or cell, follows its metric's declared aggregation
        return aggregate(metric, rows, group, run)

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
        "metrics": _dump([cell(m, scored, {}) for m in _headline_names(names, protocol)]),
        "breakdowns": {
            key: _dump(
                [s for s in breakdown_results(scored, names, by=(key,), aggregate=cell) if s.group]
            )
            for key in BREAKDOWN_KEYS
            if any(key in r.groups for r in scored)
        },
        "grid": _dump(
            [
                s
                for s in breakdown_results(
                    scored, names[:1], pairs=(("chart_type", "question_type"),), aggregate=cell
                )
                if s.group
            ]
        ),
        "failures": [{"sample_id": r.sample_id, "error": r.error} for r in failed[:50]],
    }
    for entry in scorers("run", protocol):
        assert entry.section is not None
        section = entry.fn(run)
        if section:
            summary[entry.section] = section
    # summary scorers annotate rows (notes); no figure is restated after it was aggregated
    for entry in scorers("summary", protocol):
        entry.fn(summary, run)
    # flat {metric: value} of the headline rows, for jq and pandas
    summary["scores"] = {m["metric"]: m["value"] for m in summary["metrics"] if not m.get("group")}
    return summary


def _metric_names(results: Sequence[SampleResult], protocol: str) -> list[str]:
    present = {m for r in results for m in r.scores}
    first = [m for m in headline_metrics(protocol) if m in present]
    return first + sorted(present - set(first))


def _headline_names(names: Sequence[str], protocol: str) -> list[str]:
    """The headline rows: the per-sample metrics present and the run-level metrics of the
    protocol's scorers (no per-sample value), headline metrics first, then by name."""
    present = set(names) | set(run_level_metrics(protocol))
    first = [m for m in headline_metrics(protocol) if m in present]
    return first + sorted(present - set(first))


def _failed_scores(
    failed: SampleResult, results: Sequence[SampleResult]
) -> dict[str, float | None]:
    """A failed sample's scores as counted (`registry.counted_scores`) over every metric of
    the run."""
    return counted_scores(failed, {m for r in results for m in r.scores})
