"""Paired comparison of two runs on the samples both answered: every shared metric with its
delta and a paired bootstrap 95 % CI, McNemar's exact test for right/wrong metrics, deltas
per group, and the samples one run got right and the other wrong.

Scores are taken as each run's summary counts them (`registry.counted_scores`: a failed
sample is wrong). Only the samples both runs hold are compared; how many each run holds
alone is part of the result, so a page can say so loudly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from chartproof.metrics import registry
from chartproof.types import SampleResult

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "GroupDelta",
    "MetricDelta",
    "PairedComparison",
    "bootstrap_ci",
    "compare",
    "mcnemar_exact",
]

BOOTSTRAP_RESAMPLES = 10_000
"""Resamples of the paired bootstrap."""
_SEED = 20_240_601
_MAX_DRAWS = 50_000_000
"""Largest samples × resamples drawn index by index (fewer resamples above it)."""


@dataclass(frozen=True)
class MetricDelta:
    """One metric of run A and run B over the shared samples."""

    metric: str
    n: int
    """Shared samples with a value in both runs."""
    a: float
    b: float
    delta: float
    """b - a."""
    ci_low: float
    ci_high: float
    """Paired bootstrap 95 % CI of the delta (percentile method)."""
    binary: bool
    """Every value is 0 or 1 (a right/wrong metric): McNemar's test applies."""
    a_only: int = 0
    """Samples A got right and B wrong (binary metrics)."""
    b_only: int = 0
    """Samples B got right and A wrong (binary metrics)."""
    p_value: float | None = None
    """McNemar's exact two-sided p-value (binary metrics)."""


@dataclass(frozen=True)
class GroupDelta:
    """The first compared metric within one group value."""

    key: str
    value: str
    n: int
    a: float
    b: float
    delta: float
    a_only: int
    b_only: int
    p_value: float | None


@dataclass(frozen=True)
class PairedComparison:
    """Run A against run B on the samples both hold."""

    shared: int
    """Samples in both runs."""
    only_a: int
    """Samples only run A holds (left out)."""
    only_b: int
    """Samples only run B holds (left out)."""
    metrics: tuple[MetricDelta, ...] = ()
    groups: tuple[GroupDelta, ...] = ()
    a_right_b_wrong: tuple[str, ...] = ()
    """Sample ids A answered right and B wrong (by the first binary metric)."""
    b_right_a_wrong: tuple[str, ...] = ()
    """Sample ids B answered right and A wrong."""
    notes: tuple[str, ...] = field(default_factory=tuple)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p-value from the discordant counts: a binomial test of
    `a_only` successes in `a_only + b_only` trials at 1/2 (1.0 without discordant pairs)."""
    from scipy.stats import binomtest

    n = a_only + b_only
    if n == 0:
        return 1.0
    return float(binomtest(a_only, n, 0.5).pvalue)


def bootstrap_ci(
    diffs: Sequence[float] | np.ndarray,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = _SEED,
) -> tuple[float, float]:
    """Percentile 95 % CI of the mean of paired differences by resampling samples with
    replacement. Few distinct differences (right/wrong metrics: -1, 0, 1) are resampled as
    multinomial counts, which draws the same distribution in O(resamples) time."""
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    values, counts = np.unique(d, return_counts=True)
    if values.size <= 64:
        draws = rng.multinomial(d.size, counts / d.size, size=resamples)
        means = draws @ values / d.size
    else:
        reps = max(1000, min(resamples, _MAX_DRAWS // d.size))
        means = np.empty(reps)
        for i in range(reps):
            means[i] = d[rng.integers(0, d.size, d.size)].mean()
    low, high = np.percentile(means, [2.5, 97.5])
    return (float(low), float(high))


def _metric_order(names: set[str]) -> list[str]:
    right_wrong = [m.name for m in registry.metrics().values() if m.means_correct]
    first = [m for m in right_wrong if m in names]
    return first + sorted(names - set(first))


def compare(
    a: Sequence[SampleResult],
    b: Sequence[SampleResult],
    *,
    group_keys: Sequence[str] = (),
) -> PairedComparison:
    """Run A against run B on the samples (by id) both hold; `group_keys` are the group
    labels to break the first metric down by (default: every label the shared samples
    carry)."""
    by_a = {r.sample_id: r for r in a}
    by_b = {r.sample_id: r for r in b}
    shared = [sid for sid in by_a if sid in by_b]
    only_a, only_b = len(by_a) - len(shared), len(by_b) - len(shared)
    names_a = {m for r in a for m in r.scores}
    names_b = {m for r in b for m in r.scores}
    names = names_a & names_b
    sa = {sid: registry.counted_scores(by_a[sid], names) for sid in shared}
    sb = {sid: registry.counted_scores(by_b[sid], names) for sid in shared}
    notes = []
    if names_a ^ names_b:
        notes.append(
            "metrics in one run only (not compared): " + ", ".join(sorted(names_a ^ names_b))
        )
    deltas = [d for m in _metric_order(names) if (d := _delta(m, shared, sa, sb)) is not None]
    if not deltas:
        return PairedComparison(len(shared), only_a, only_b, notes=tuple(notes))
    first_binary = next((d.metric for d in deltas if d.binary), None)
    headline = first_binary or deltas[0].metric
    keys = group_keys or sorted({k for sid in shared for k in by_a[sid].groups})
    groups = _group_deltas(shared, by_a, sa, sb, headline, keys)
    a_right: tuple[str, ...] = ()
    b_right: tuple[str, ...] = ()
    if first_binary is not None:
        a_right = tuple(s for s in shared if sa[s].get(headline) == 1 and sb[s].get(headline) == 0)
        b_right = tuple(s for s in shared if sa[s].get(headline) == 0 and sb[s].get(headline) == 1)
    return PairedComparison(
        len(shared), only_a, only_b, tuple(deltas), groups, a_right, b_right, tuple(notes)
    )


def _binary(xa: np.ndarray, xb: np.ndarray) -> bool:
    return bool(np.isin(xa, (0.0, 1.0)).all() and np.isin(xb, (0.0, 1.0)).all())


def _discordant(xa: np.ndarray, xb: np.ndarray) -> tuple[int, int]:
    return int(((xa == 1) & (xb == 0)).sum()), int(((xa == 0) & (xb == 1)).sum())


def _delta(
    metric: str,
    shared: Sequence[str],
    sa: dict[str, dict[str, float | None]],
    sb: dict[str, dict[str, float | None]],
) -> MetricDelta | None:
    pairs = [
        (x, y)
        for sid in shared
        if (x := sa[sid].get(metric)) is not None and (y := sb[sid].get(metric)) is not None
    ]
    if not pairs:
        return None
    xa = np.array([p[0] for p in pairs])
    xb = np.array([p[1] for p in pairs])
    low, high = bootstrap_ci(xb - xa)
    binary = _binary(xa, xb)
    a_only, b_only = _discordant(xa, xb) if binary else (0, 0)
    return MetricDelta(
        metric=metric,
        n=len(pairs),
        a=float(xa.mean()),
        b=float(xb.mean()),
        delta=float(xb.mean() - xa.mean()),
        ci_low=low,
        ci_high=high,
        binary=binary,
        a_only=a_only,
        b_only=b_only,
        p_value=mcnemar_exact(a_only, b_only) if binary else None,
    )


def _group_deltas(
    shared: Sequence[str],
    by_a: dict[str, SampleResult],
    sa: dict[str, dict[str, float | None]],
    sb: dict[str, dict[str, float | None]],
    metric: str,
    keys: Sequence[str],
) -> tuple[GroupDelta, ...]:
    out = []
    for key in keys:
        values: dict[str, list[tuple[float, float]]] = {}
        for sid in shared:
            label = by_a[sid].groups.get(key)
            x, y = sa[sid].get(metric), sb[sid].get(metric)
            if label is None or x is None or y is None:
                continue
            values.setdefault(label, []).append((x, y))
        if len(values) < 2:
            continue
        for label in sorted(values):
            xa = np.array([p[0] for p in values[label]])
            xb = np.array([p[1] for p in values[label]])
            binary = _binary(xa, xb)
            a_only, b_only = _discordant(xa, xb)
            out.append(
                GroupDelta(
                    key=key,
                    value=label,
                    n=len(xa),
                    a=float(xa.mean()),
                    b=float(xb.mean()),
                    delta=float(xb.mean() - xa.mean()),
                    a_only=a_only,
                    b_only=b_only,
                    p_value=mcnemar_exact(a_only, b_only) if binary else None,
                )
            )
    return tuple(out)
