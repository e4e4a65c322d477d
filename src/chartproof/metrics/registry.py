"""The metric registry: every metric chartproof reports is declared once, with the scorer that
computes it, and summaries, headline tables, breakdowns and report labels are built from here.

A scorer is one decorated function (modelled on inspect_ai's ``@scorer(metrics=[...])``):

```python
from chartproof.metrics.registry import Metric, scorer

@scorer(kind="sample", protocols=("direct",), metrics=[Metric("answer_chars", "answer length")])
def answer_chars(prediction: str, gold: Answer) -> dict[str, float | None]:
    return {"answer_chars": float(len(prediction))}
```

Kinds and the call each gets:

* ``sample`` — ``fn(prediction, gold) -> {metric: value}`` on a sample's final answer (a
  missing prediction is the empty string), under each protocol in `protocols`; a scorer
  that also declares a `sample` or `scores` keyword parameter gets the sample (its choices,
  labels, ...) and the values the scorers registered before it gave.
* ``step`` — ``fn(sample, steps, scores) -> {metric: value}`` on a sample's step records
  (chain steps or premise verdicts) and the sample-level scores computed before it.
* ``run`` — ``fn(RunInput) -> dict | None`` over a whole run's results; the dict becomes the
  summary's `section` (left out when None or empty).
* ``summary`` — ``fn(summary, RunInput) -> None`` after the run scorers: may annotate the
  summary's rows (their `note`); a figure is never restated here: a metric counted by
  another rule than the mean declares its aggregation (`Metric.aggregation`).
* ``explanation`` — opt-in scorers of explanation quality, chosen by name with
  ``evaluate(metrics=[...])``; their fn is given to the evaluation as a stage (see
  `chartproof.metrics.explanations`).

Per-sample and per-step values are stored on each result; a run's value of each is its
declared aggregation over the results (`chartproof.metrics.aggregations`; by default the
mean, failures counting as 0). A metric's `headline` gives its place among the
metrics shown first for a protocol; `means_correct` marks the metric whose value 1.0 means
the sample was answered right (the first present in a result's scores decides).
The scorers shipped with chartproof live in the modules of `_HOMES`, imported on first use;
other packages add theirs through the entry-point group ``chartproof.metrics`` (`SCORERS`,
`METRICS` are `chartproof.types.registry.Registry` tables).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

from chartproof.types import Sample, SampleResult
from chartproof.types.registry import Registry

__all__ = [
    "METRICS",
    "SCORERS",
    "Metric",
    "MetricKind",
    "RunInput",
    "Scorer",
    "correct_value",
    "counted_scores",
    "explanation_scorers",
    "headline_metrics",
    "metric",
    "metric_label",
    "metrics",
    "scorer",
    "scorers",
    "unregister",
]

MetricKind: TypeAlias = Literal["sample", "step", "run", "summary", "explanation"]
"""What a scorer looks at: one final answer, one sample's steps, a whole run, the finished
summary, explanations."""

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Metric:
    """One reported number: its name in scores and summaries, and how to show it."""

    name: str
    """Key in `SampleResult.scores` and in the summary's metrics."""
    label: str | None = None
    """Display label in reports (default: the name with spaces for underscores)."""
    direction: Literal["higher", "lower"] = "higher"
    """Which way is better."""
    means_correct: bool = False
    """A value of 1.0 means the sample was answered right (families, the gallery)."""
    headline: Mapping[str, float] = field(default_factory=dict)
    """Protocol → position among the metrics shown first for that protocol (a new metric
    can slot in between with a fractional position, e.g. 0.5)."""
    description: str = ""
    """One line on what the number means."""
    on_failure: Literal["zero", "recorded"] = "zero"
    """How a failed sample counts: "zero" scores it 0; "recorded" keeps the value a missing
    answer gets, which the protocol records on the failure (left out of the mean when the
    sample has none, as for the multiple-choice metrics of a sample without options)."""
    aggregation: str = "mean"
    """How its per-sample values become a run's figure, in the headline, every breakdown
    cell and the grid alike: the name of an aggregation of
    `chartproof.metrics.aggregations` ("mean": mean ± standard error)."""

    @property
    def display(self) -> str:
        """The label shown in reports."""
        return self.label or self.name.replace("_", " ")


@dataclass(frozen=True)
class RunInput:
    """What a run scorer sees: the run's results (failures zero-scored) and its dataset."""

    protocol: str
    """The run's protocol."""
    results: Sequence[SampleResult]
    """Every result, failures with every metric set to 0."""
    answered: Sequence[SampleResult]
    """Only the results that were answered (diagnostics of steps need real records)."""
    samples: Sequence[Sample]
    """The run's dataset (may be empty)."""
    metrics: Sequence[str]
    """Names of the per-sample metrics present, headline first."""


@dataclass(frozen=True)
class Scorer:
    """A registered scorer: the function and the metrics (or summary section) it produces."""

    name: str
    """Scorer name (for explanation scorers: the name `evaluate(metrics=...)` takes)."""
    kind: MetricKind
    """What it looks at."""
    fn: Callable[..., Any]
    """The function (its call depends on `kind`, see the module docstring)."""
    metrics: tuple[Metric, ...] = ()
    """The metrics it produces."""
    protocols: tuple[str, ...] = ()
    """Protocols it runs under (sample and step kinds); empty = every protocol."""
    section: str | None = None
    """Summary key a run scorer writes."""

    def applies(self, protocol: str) -> bool:
        """Whether it runs under this protocol."""
        return not self.protocols or protocol in self.protocols

    def score_answer(
        self, prediction: str, sample: Sample, scores: Mapping[str, float | None]
    ) -> dict[str, float | None]:
        """Call a sample scorer on one final answer, with the extras it declares."""
        extras: dict[str, Any] = {}
        wanted = _keywords(self.fn)
        if "sample" in wanted:
            extras["sample"] = sample
        if "scores" in wanted:
            extras["scores"] = scores
        out: dict[str, float | None] = self.fn(prediction, sample.answer, **extras)
        return out


def _keywords(fn: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return frozenset()


# modules whose import registers chartproof's own scorers, in registration order
_HOMES = (
    "chartproof.metrics.accuracy",
    "chartproof.metrics.conventions",
    "chartproof.metrics.judging",
    "chartproof.metrics.choice",
    "chartproof.metrics.robustness",
    "chartproof.metrics.chains",
    "chartproof.metrics.premises",
    "chartproof.metrics.families",
    "chartproof.metrics.cf_sensitivity",
    "chartproof.metrics.explanations",
)

SCORERS: Registry[Scorer] = Registry("scorer", modules=_HOMES, group="chartproof.metrics")
"""Scorers by name, chartproof's own first (`@scorer` registers here)."""

METRICS: Registry[Metric] = Registry("metric", modules=_HOMES, group="chartproof.metrics")
"""Metrics by name, in the order their scorers were registered."""


def scorer(
    *,
    kind: MetricKind,
    metrics: Iterable[Metric] = (),
    protocols: Sequence[str] = (),
    section: str | None = None,
    name: str | None = None,
) -> Callable[[F], F]:
    """Register the decorated function as a scorer of `kind` producing `metrics` (or, for a
    run scorer, the summary `section`). Raises ValueError on a name already taken."""

    def register(fn: F) -> F:
        # chartproof's own scorers register first, so a scorer added later can read their
        # values (and the headline keeps its order) whatever was imported first
        SCORERS.load()
        entry = Scorer(
            name=name or fn.__name__,
            kind=kind,
            fn=fn,
            metrics=tuple(metrics),
            protocols=tuple(protocols),
            section=section,
        )
        if entry.name in SCORERS:
            raise ValueError(f"a scorer named {entry.name!r} is registered already")
        taken = [m.name for m in entry.metrics if m.name in METRICS]
        if taken:
            raise ValueError(f"scorer {entry.name!r}: metrics {taken} are registered already")
        if kind == "run" and not section:
            raise ValueError(f"run scorer {entry.name!r} needs the summary section it writes")
        SCORERS.register(entry.name, entry)
        for m in entry.metrics:
            METRICS.register(m.name, m)
        return fn

    return register


def unregister(name: str) -> None:
    """Remove a scorer and its metrics (tests that register their own)."""
    entry = SCORERS.pop(name)
    if entry is not None:
        for m in entry.metrics:
            METRICS.unregister(m.name)


def scorers(kind: MetricKind, protocol: str | None = None) -> list[Scorer]:
    """Registered scorers of a kind (that apply under `protocol`), in registration order."""
    return [
        s for s in SCORERS.values() if s.kind == kind and (protocol is None or s.applies(protocol))
    ]


def explanation_scorers() -> dict[str, Scorer]:
    """The opt-in explanation scorers by name."""
    return {s.name: s for s in scorers("explanation")}


def metrics() -> dict[str, Metric]:
    """Every registered metric by name."""
    return dict(METRICS.items())


def metric(name: str) -> Metric | None:
    """A metric's definition, None when no scorer declares it."""
    return METRICS.get(name)


def metric_label(name: str) -> str:
    """How reports name a metric (its label, or the name with spaces)."""
    m = metric(name)
    return m.display if m is not None else name.replace("_", " ")


def headline_metrics(protocol: str) -> tuple[str, ...]:
    """The metrics shown first for a protocol, in order."""
    ranked = [(m.headline[protocol], m.name) for m in METRICS.values() if protocol in m.headline]
    return tuple(name for _, name in sorted(ranked))


def counted_scores(result: SampleResult, names: Iterable[str]) -> dict[str, float | None]:
    """A result's scores as a run's summary counts them: an answered result's own; a failed
    one scores 0 on every metric of `names` but those whose definition keeps the value its
    protocol recorded for the failure (`Metric.on_failure`): a failed multiple-choice
    sample is a wrong answer, chance-corrected below 0, its chance level unchanged."""
    if result.error is None:
        return dict(result.scores)
    scores: dict[str, float | None] = {
        m: 0.0 for m in names if (d := metric(m)) is None or d.on_failure == "zero"
    }
    scores.update(result.scores)
    return scores


def correct_value(scores: Mapping[str, float | None]) -> float | None:
    """The value of the first `means_correct` metric in `scores` (1.0 = right), None when
    none is there or it was not computed."""
    for m in METRICS.values():
        if m.means_correct and m.name in scores:
            return scores[m.name]
    return None
