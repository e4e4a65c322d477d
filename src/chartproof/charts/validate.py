"""Checks that a chart spec can be drawn honestly, before any drawing starts.

Every failure raises `SpecError` naming the spec id and the problem (column, row, value).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from chartproof.charts.kinds import ChartKind, chart_kind, chart_kinds
from chartproof.types import ChartSpec

__all__ = ["SpecError", "spec_problem", "validate_spec"]


class SpecError(ValueError):
    """A chart spec that cannot be rendered as it stands."""

    def __init__(self, spec_id: str, problem: str) -> None:
        super().__init__(f"chart spec {spec_id!r}: {problem}")
        self.spec_id = spec_id
        self.problem = problem


def validate_spec(spec: ChartSpec) -> None:
    """Raise `SpecError` unless the spec can be drawn; return None when it can."""
    problem = spec_problem(spec)
    if problem is not None:
        raise SpecError(spec.id, problem)


def spec_problem(spec: ChartSpec) -> str | None:
    """The first reason the spec cannot be drawn, or None."""
    kind, style, enc, table = spec.chart_type, spec.style, spec.encoding, spec.table
    ck = chart_kind(kind)
    if table.n_rows == 0:
        return "the table has no rows"
    try:
        style.value_format.format(1.5)
    except (ValueError, IndexError, KeyError) as err:
        return f"value_format {style.value_format!r} cannot format a number: {err}"
    n_series = table.n_rows if ck.color_keys == "x" else len(spec.series_names())
    if n_series > len(style.palette):
        return f"{n_series} series or wedges but the palette has only {len(style.palette)} colours"
    if ck.single_series and len(enc.y) != 1:
        return f"a {kind} chart shows exactly one value column, got {list(enc.y)}"
    if enc.series is not None and not ck.long_format:
        return f"Encoding.series (long format) is only supported for {_names(lambda k: k.long_format)} charts"
    if enc.series is not None and len(enc.y) != 1:
        return f"a {kind} with Encoding.series takes exactly one y column"
    if style.x_scale == "log" and ck.data != "points":
        return f"x_scale 'log' needs a numeric x axis, which only {_names(lambda k: k.data == 'points')} charts have"
    for col in enc.y:
        for i, v in enumerate(table.numbers(col)):
            if v is None and not ck.gaps:
                return f"row {i}, column {col!r}: missing value (only {_names(lambda k: k.gaps)} allow gaps)"
    if all(v is None for col in enc.y for v in table.numbers(col)):
        return "every plotted value is missing"
    return _type_problem(spec) or _log_problem(spec)


def _type_problem(spec: ChartSpec) -> str | None:
    kind, style, enc, table = spec.chart_type, spec.style, spec.encoding, spec.table
    ck = chart_kind(kind)
    if ck.data != "points":
        seen: dict[str, int] = {}
        for i, lab in enumerate(table.labels(enc.x)):
            if lab in seen:
                return (
                    f"rows {seen[lab]} and {i} share the category label {lab!r} in column {enc.x!r}"
                )
            seen[lab] = i
    if ck.data == "points" and table.col(enc.x).kind != "number":
        return f"{kind} x column {enc.x!r} must be numeric, it holds {table.col(enc.x).kind}"
    if ck.whole:
        values = table.numbers(enc.y[0])
        for i, v in enumerate(values):
            if v is not None and v < 0:
                return f"row {i}, column {enc.y[0]!r}: {kind} values must be non-negative, got {v}"
        if sum(v or 0.0 for v in values) <= 0:
            return f"{kind} column {enc.y[0]!r} sums to zero"
    if ck.stacks:
        if style.y_scale == "log":
            return f"a {kind} chart stacks values and needs a linear value axis"
        for col in enc.y:
            for i, v in enumerate(table.numbers(col)):
                if v is not None and v < 0:
                    return f"row {i}, column {col!r}: stacked values must be non-negative, got {v}"
    if ck.data == "boxes":
        if len(enc.y) != 5:
            return (
                f"a {kind} chart needs five columns (min, q1, median, q3, max), got {list(enc.y)}"
            )
        for i in range(table.n_rows):
            stats = [table.numbers(c)[i] or 0.0 for c in enc.y]
            if any(a > b for a, b in itertools.pairwise(stats)):
                return f"row {i}: five-number summary {stats} is not ordered min ≤ q1 ≤ median ≤ q3 ≤ max"
    return None


def _log_problem(spec: ChartSpec) -> str | None:
    enc, style, table = spec.encoding, spec.style, spec.table
    checks: list[str] = []
    if style.y_scale == "log":
        checks.extend(enc.y)
    if style.x_scale == "log":
        checks.append(enc.x)
    for col in checks:
        for i, v in enumerate(table.numbers(col)):
            if v is not None and v <= 0:
                return f"row {i}, column {col!r}: {v} cannot be drawn on a log axis (needs > 0)"
    return None


def _names(test: Callable[[ChartKind], bool]) -> str:
    """The kinds passing `test`, for messages: "line and scatter"."""
    names = [k.name for k in chart_kinds() if test(k)]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
