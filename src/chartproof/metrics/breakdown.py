"""Per-group breakdowns of any per-sample metric: the mean, its standard error and counts
for the whole set, for each value of a group label, and for pairs of labels."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from chartproof.types import SampleResult, Score

__all__ = ["breakdown", "breakdown_results", "mean_score"]


def mean_score(
    metric: str, values: Iterable[float | None], group: Mapping[str, str] | None = None
) -> Score:
    """Mean of the computed values with its standard error (sample std / √n, None below 2).

    None values ("not computed") are left out of the mean and counted in `note`; when no
    value was computed the score's value is None, never a made-up number.
    """
    computed: list[float] = []
    missing = 0
    for i, v in enumerate(values):
        if v is None:
            missing += 1
            continue
        if not math.isfinite(v):
            raise ValueError(f"{metric}: value at position {i} is {v}, not a finite number")
        computed.append(float(v))
    n = len(computed)
    labels = dict(group or {})
    if n == 0:
        why = f"not computed for any of the {missing} samples" if missing else "no samples"
        return Score(metric=metric, value=None, n=0, group=labels, note=why)
    mean = math.fsum(computed) / n
    stderr = None
    if n >= 2:
        variance = math.fsum((x - mean) ** 2 for x in computed) / (n - 1)
        stderr = math.sqrt(variance / n)
    note = (
        f"{missing} of {n + missing} values not computed; mean over the other {n}"
        if missing
        else None
    )
    return Score(metric=metric, value=mean, n=n, stderr=stderr, group=labels, note=note)


def breakdown(
    metric: str,
    values: Sequence[float | None],
    labels: Sequence[Mapping[str, str]],
    *,
    by: Sequence[str] = (),
    pairs: Sequence[tuple[str, str]] = (),
    missing: str | None = None,
) -> list[Score]:
    """Scores of one metric: the whole set first, then every value of each key in `by`
    (values sorted), then every combination of each key pair in `pairs` (e.g.
    ("chart_type", "question_type") for a ChartQA-X Table 3 style grid).

    `labels[i]` are sample i's group labels (`Sample.group_labels()`). A sample lacking a
    key is left out of that key's groups, or grouped under `missing` when it is given.
    Groups where no sample has a computed value still appear, with value None.
    """
    if len(values) != len(labels):
        raise ValueError(f"{metric}: {len(values)} values but {len(labels)} label sets")
    scores = [mean_score(metric, values)]
    for key in by:
        scores.extend(_grouped(metric, values, labels, (key,), missing))
    for pair in pairs:
        scores.extend(_grouped(metric, values, labels, pair, missing))
    return scores


def _grouped(
    metric: str,
    values: Sequence[float | None],
    labels: Sequence[Mapping[str, str]],
    keys: tuple[str, ...],
    missing: str | None,
) -> list[Score]:
    buckets: dict[tuple[str, ...], list[float | None]] = {}
    for value, sample_labels in zip(values, labels, strict=True):
        combo: list[str] = []
        for key in keys:
            label = sample_labels.get(key, missing)
            if label is None:
                break
            combo.append(label)
        else:
            buckets.setdefault(tuple(combo), []).append(value)
    return [
        mean_score(metric, buckets[combo], dict(zip(keys, combo, strict=True)))
        for combo in sorted(buckets)
    ]


def breakdown_results(
    results: Sequence[SampleResult],
    metrics: Sequence[str] | None = None,
    *,
    by: Sequence[str] = (),
    pairs: Sequence[tuple[str, str]] = (),
    missing: str | None = None,
    aggregate: Callable[[str, Sequence[SampleResult], Mapping[str, str]], Score] | None = None,
) -> list[Score]:
    """`breakdown` of each metric over a run's per-sample results (their `scores` and
    `groups`). Metrics default to every name any result has, in sorted order; a result
    without a metric counts as not computed for it. `aggregate(metric, results, group)`
    gives each cell's score from the cell's results (default: `mean_score` of their
    values)."""
    names = sorted({m for r in results for m in r.scores}) if metrics is None else list(metrics)
    cell = aggregate or _mean_of
    out: list[Score] = []
    for name in names:
        out.append(cell(name, results, {}))
        for keys in [(key,) for key in by] + [tuple(pair) for pair in pairs]:
            buckets: dict[tuple[str, ...], list[SampleResult]] = {}
            for r in results:
                combo = tuple(r.groups.get(key, missing) for key in keys)
                if all(label is not None for label in combo):
                    buckets.setdefault(combo, []).append(r)  # type: ignore[arg-type]
            out.extend(
                cell(name, buckets[combo], dict(zip(keys, combo, strict=True)))
                for combo in sorted(buckets)
            )
    return out


def _mean_of(name: str, results: Sequence[SampleResult], group: Mapping[str, str]) -> Score:
    return mean_score(name, [r.scores.get(name) for r in results], group)
