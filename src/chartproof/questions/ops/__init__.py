"""The operations question programs are built from: reads, comparisons, filters, orderings,
arithmetic, trends. Each records itself on a `Tracer` with its cells and sub-question.

Every function returns the recorded `Op`, or None when the chart makes the result
ambiguous (missing cell, tie, values too close to tell apart); programs then skip the chart.
"""

from chartproof.questions.ops.compare import (
    compare,
    extreme,
    extreme_series,
    extreme_value,
    kth,
    kth_value,
    larger,
    order_series,
    rank_of,
    sort,
)
from chartproof.questions.ops.compute import (
    aggregate,
    arith,
    best_of,
    count_items,
    equal,
    stack_total,
    widest_gap,
)
from chartproof.questions.ops.extract import (
    color_of,
    count_colors,
    find_value,
    key_of_color,
    label_at,
    position_of,
    read,
    read_box,
)
from chartproof.questions.ops.filter import count, first_where, forall_sum_gt, select, sum_where
from chartproof.questions.ops.shape import (
    box_extreme,
    corr_band,
    corr_class,
    cross,
    equal_iqr,
    iqr,
    largest_change,
    monotone,
    pearson,
    trend,
    trend_between,
)
from chartproof.questions.ops.structure import chart_fact

__all__ = [
    "aggregate",
    "arith",
    "best_of",
    "box_extreme",
    "chart_fact",
    "color_of",
    "compare",
    "corr_band",
    "corr_class",
    "count",
    "count_colors",
    "count_items",
    "cross",
    "equal",
    "equal_iqr",
    "extreme",
    "extreme_series",
    "extreme_value",
    "find_value",
    "first_where",
    "forall_sum_gt",
    "iqr",
    "key_of_color",
    "kth",
    "kth_value",
    "label_at",
    "larger",
    "largest_change",
    "monotone",
    "order_series",
    "pearson",
    "position_of",
    "rank_of",
    "read",
    "read_box",
    "select",
    "sort",
    "stack_total",
    "sum_where",
    "trend",
    "trend_between",
    "widest_gap",
]
