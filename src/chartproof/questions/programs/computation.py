"""Numerical computation (ChartR NC): sums, differences, ratios, averages, medians."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import (
    Cue,
    asks_difference,
    asks_sum,
    fills,
    least,
    most,
    s1,
    s2,
    series,
    x1,
    x2,
    x_or_only,
)
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import (
    CATEGORY,
    MULTI,
    PIES,
    STACKED_BARS,
    pick_series,
    pick_x,
)
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "Average",
    "DiffSeriesAtX",
    "DiffTwo",
    "MaxMinusMin",
    "MedianSeries",
    "RatioTwo",
    "StackTotal",
    "SumTwo",
    "Total",
]


class _PairProgram(Program):
    """Arithmetic on the values of one series at two x labels."""

    chart_types = CATEGORY
    slots = slot_kinds(series="series", x="x", x2="x")
    fn: str

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0], "x2": xs[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        a, b = ops.read(tr, s, str(args["x"])), ops.read(tr, s, str(args["x2"]))
        return None if a is None or b is None else ops.arith(tr, self.fn, a, b)


@register
class DiffTwo(_PairProgram):
    """The difference between the values at two x labels."""

    name = "diff_two"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "absdiff"
    templates = (
        "What is the difference in {series} between {x} and {x2}?",
        "By how much does {series} differ between {x} and {x2}?",
        "How big is the gap in {series} between {x} and {x2}?",
    )
    cues = (
        Cue(
            460,
            "difference of two labels",
            lambda m: asks_difference(m) and len(m.xs) >= 2,
            fills(series=series, x=x1, x2=x2),
        ),
    )


@register
class RatioTwo(_PairProgram):
    """The ratio of the values at two x labels (ChartQA: "What's the ratio of A and B?")."""

    name = "ratio_two"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "div"
    templates = (
        "What is the ratio of {series} in {x} to that in {x2}?",
        "What is {series} in {x} divided by {series} in {x2}?",
        "What ratio does {series} in {x} form with {series} in {x2}?",
    )
    cues = (
        Cue(
            550,
            "ratio of two labels",
            lambda m: m.has("ratio", "times") and len(m.xs) >= 2,
            fills(series=series, x=x1, x2=x2),
        ),
    )


@register
class SumTwo(_PairProgram):
    """The sum of the values at two x labels (ChartQA: "What is the sum favourable value in
    the year 2014 and 2015?")."""

    name = "sum_two"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "add"
    templates = (
        "What is the sum of {series} in {x} and {x2}?",
        "What do {x} and {x2} add up to for {series}?",
        "What is the combined {series} of {x} and {x2}?",
    )
    cues = (
        Cue(
            500,
            "sum of two labels",
            lambda m: (
                len(m.xs) >= 2 and m.has("make up", "combined", "together", "sum", "total", "add")
            ),
            fills(series=series, x=x1, x2=x2),
        ),
    )


class _AggregateProgram(Program):
    """An aggregate over every value of one series."""

    chart_types = CATEGORY
    slots = slot_kinds(series="series")
    fn: str

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.aggregate(tr, str(args["series"]), self.fn)


@register
class Average(_AggregateProgram):
    """The average of a series."""

    name = "average"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "mean"
    templates = (
        "What is the average {series} across all {x_title} values?",
        "What is the mean of {series}?",
        "On average, how much is {series}?",
    )
    cues = (Cue(520, "average", lambda m: m.has("average", "mean"), fills(series=series)),)


@register
class Total(_AggregateProgram):
    """The total of a series (ChartQA: "What is the sum of all blue bars?")."""

    name = "total"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "sum"
    templates = (
        "What is the total of {series} over all {x_title} values?",
        "What is the sum of all values of {series}?",
        "If you add up every {series} value, what do you get?",
    )
    cues = (Cue(580, "total", asks_sum, fills(series=series)),)


@register
class MedianSeries(_AggregateProgram):
    """The median of a series."""

    name = "median_series"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "median"
    chart_types = CATEGORY - PIES
    templates = (
        "What is the median of {series}?",
        "What is the median value of {series} across the {x_title} values?",
        "Which value is the median of {series}?",
    )
    cues = (Cue(530, "median", lambda m: m.has("median"), fills(series=series)),)


@register
class MaxMinusMin(_AggregateProgram):
    """The difference between the highest and lowest value (ChartQA: "What is the
    difference between maximum ... and minimum ...?")."""

    name = "max_minus_min"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    fn = "range"
    templates = (
        "What is the difference between the highest and the lowest {series}?",
        "How far apart are the largest and the smallest values of {series}?",
        "What is the range of {series}, from its lowest to its highest value?",
    )
    cues = (
        Cue(
            440,
            "highest minus lowest",
            lambda m: asks_difference(m) and most(m) and least(m),
            fills(series=series),
        ),
    )


@register
class DiffSeriesAtX(Program):
    """The gap between two series at one x label (ChartQA: "In which year the difference
    between blue and green graph ...")."""

    name = "diff_series_at_x"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = MULTI
    min_series = 2
    templates = (
        "What is the difference between {series} and {series2} in {x}?",
        "In {x}, by how much do {series} and {series2} differ?",
        "How large is the gap between {series} and {series2} in {x}?",
    )
    slots = slot_kinds(series="series", series2="series", x="x")
    cues = (
        Cue(
            470,
            "difference of two series",
            lambda m: asks_difference(m) and len(m.ss) >= 2,
            fills(series=s1, series2=s2, x=x_or_only),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng), pick_series(view, rng, 2)
        if xs is None or ss is None:
            return None
        return {"series": ss[0], "series2": ss[1], "x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        x = str(args["x"])
        a, b = ops.read(tr, str(args["series"]), x), ops.read(tr, str(args["series2"]), x)
        return None if a is None or b is None else ops.arith(tr, "absdiff", a, b)


@register
class StackTotal(Program):
    """The total of a stacked bar: the sum of its segments."""

    name = "stack_total"
    family = "computation"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = STACKED_BARS
    min_series = 2
    templates = (
        "What is the total of all segments in {x}?",
        "What do the segments of the {x} bar add up to?",
        "What value does the whole stacked bar for {x} reach?",
    )
    slots = slot_kinds(x="x")
    cues = (
        Cue(
            560,
            "total of a stack",
            lambda m: asks_sum(m) and m.stacked_bars and bool(m.xs),
            fills(x=x1),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.stack_total(tr, str(args["x"]))
