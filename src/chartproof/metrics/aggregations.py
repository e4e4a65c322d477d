"""How a metric's per-sample values become a run's figure: scorers produce values, and each
metric declares its aggregation by name (`Metric.aggregation`): ``mean`` (the default, the
mean ± standard error of the computed values, failures counted as the summary counts them)
or another one registered here with `@aggregation(name)`.

```python
from chartproof.metrics.aggregations import aggregation
from chartproof.metrics.breakdown import mean_score

@aggregation("median")
def median(metric, results, group, run):
    values = sorted(v for r in results if (v := r.scores.get(metric)) is not None)
    ...
    return Score(metric=metric, value=..., n=len(values), group=dict(group))
```

An aggregation gets the metric's name, the results of one cell (the whole run for the
headline row, one group's for a breakdown or grid cell), the cell's group labels and the
run (`RunInput`: its protocol, every result and its dataset), and returns the cell's
`Score`. The same rule then gives the headline row, every breakdown cell and the grid, so no
figure is restated afterwards. One whose metric has no per-sample value at all
(`per_sample=False`, e.g. balanced accuracy over a run's premises) gives the headline row of
every protocol its scorer applies to, and no breakdown. chartproof's own live in this module,
in `chartproof.metrics.premises` (premise-level counting) and in
`chartproof.metrics.explanations` (ROSCOE's renormalised AS); other packages add theirs
through the entry-point group ``chartproof.aggregations``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from chartproof.metrics.breakdown import mean_score
from chartproof.metrics.registry import SCORERS, RunInput, metric
from chartproof.types import SampleResult, Score
from chartproof.types.registry import Registry

__all__ = [
    "AGGREGATIONS",
    "Aggregate",
    "Aggregation",
    "aggregate",
    "aggregation",
    "aggregation_of",
    "run_level_metrics",
]

Aggregate = Callable[[str, Sequence[SampleResult], Mapping[str, str], RunInput], Score]
"""``fn(metric, results, group, run) -> Score``: one cell's figure of a metric."""

F = TypeVar("F", bound=Aggregate)


@dataclass(frozen=True)
class Aggregation:
    """A registered aggregation."""

    name: str
    """The name a `Metric.aggregation` gives."""
    fn: Aggregate
    """Computes one cell's score."""
    per_sample: bool = True
    """Whether its metric has per-sample values (False: computed from the run's records
    alone; it gives the headline row, never a breakdown cell)."""


AGGREGATIONS: Registry[Aggregation] = Registry(
    "aggregation",
    modules=(
        "chartproof.metrics.aggregations",
        "chartproof.metrics.premises",
        "chartproof.metrics.explanations",
    ),
    group="chartproof.aggregations",
)
"""Aggregations by name (`@aggregation` registers here)."""


def aggregation(name: str, *, per_sample: bool = True) -> Callable[[F], F]:
    """Register the decorated function as the aggregation `name` (ValueError when taken)."""

    def register(fn: F) -> F:
        AGGREGATIONS.register(name, Aggregation(name, fn, per_sample))
        return fn

    return register


@aggregation("mean")
def mean(
    metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """The mean of the computed values with its standard error (`breakdown.mean_score`)."""
    return mean_score(metric, [r.scores.get(metric) for r in results], group)


def aggregation_of(name: str) -> Aggregation:
    """The aggregation a metric declares (``mean`` for a metric no scorer declares); an
    unknown one is an error naming the metric and the nearest registered aggregation."""
    declared = metric(name)
    wanted = declared.aggregation if declared is not None else "mean"
    found = AGGREGATIONS.get(wanted)
    if found is None:
        raise ValueError(f"metric {name!r}: {AGGREGATIONS.unknown(wanted)}")
    return found


def aggregate(
    name: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """One cell's score of metric `name` under its declared aggregation."""
    return aggregation_of(name).fn(name, results, group, run)


def run_level_metrics(protocol: str) -> list[str]:
    """Metrics of the scorers that apply under `protocol` whose aggregation reads no
    per-sample value (they join the headline rows without a value on any result)."""
    return [
        m.name
        for s in SCORERS.values()
        if s.applies(protocol)
        for m in s.metrics
        if not aggregation_of(m.name).per_sample
    ]
