"""ChartQA-style human questions: ratios and differences of extremes, averages of pairs,
gaps between the top two, shares of a pie."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import Cue, asks_difference, fills, least, most, series, x1, x2
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, PIES, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["AverageOfTwo", "PieShare", "RatioMaxMin", "TopTwoGap"]


@register
class RatioMaxMin(Program):
    """The ratio of the largest to the smallest value."""

    name = "ratio_max_min"
    family = "human"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "What is the ratio of the highest to the lowest {series}?",
        "How many times larger is the biggest {series} than the smallest?",
        "Divide the maximum {series} by the minimum {series}. What is the result?",
    )
    slots = slot_kinds(series="series")
    cues = (
        Cue(
            540,
            "ratio of extremes",
            lambda m: m.has("ratio", "times") and most(m) and least(m),
            fills(series=series),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        hi, lo = ops.extreme_value(tr, s, "max"), ops.extreme_value(tr, s, "min")
        return (
            None if hi is None or lo is None or lo.number() <= 0 else ops.arith(tr, "div", hi, lo)
        )


@register
class TopTwoGap(Program):
    """The difference between the two largest values."""

    name = "top_two_gap"
    family = "human"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "What is the difference between the two largest values of {series}?",
        "By how much does the highest {series} exceed the second highest?",
        "How far is the largest {series} ahead of the runner-up?",
    )
    slots = slot_kinds(series="series")
    cues = (
        Cue(
            450,
            "gap of the top two",
            lambda m: asks_difference(m) and m.has("two largest", "top two", "two highest"),
            fills(series=series),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None or view.n < 3 else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        first, second = ops.kth_value(tr, s, 1), ops.kth_value(tr, s, 2)
        return None if first is None or second is None else ops.arith(tr, "sub", first, second)


@register
class AverageOfTwo(Program):
    """The average of the values at two x labels (ChartQA: "What is the average of ...
    in ages 50-64 and 65+?")."""

    name = "average_of_two"
    family = "human"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "What is the average of {series} in {x} and {x2}?",
        "Taking {x} and {x2} together, what is the mean {series}?",
        "What is the mean of the {series} values for {x} and {x2}?",
    )
    slots = slot_kinds(series="series", x="x", x2="x")
    cues = (
        Cue(
            510,
            "average of two labels",
            lambda m: m.has("average", "mean") and len(m.xs) >= 2,
            fills(series=series, x=x1, x2=x2),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0], "x2": xs[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        a, b = ops.read(tr, s, str(args["x"])), ops.read(tr, s, str(args["x2"]))
        return None if a is None or b is None else ops.arith(tr, "mean", a, b)


@register
class PieShare(Program):
    """The share of one wedge in the whole pie, in percent."""

    name = "pie_share"
    family = "human"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = PIES
    templates = (
        "What percentage of the whole pie does {x} make up?",
        "What share of the total, in percent, belongs to {x}?",
        "How many percent of the pie is taken by {x}?",
    )
    slots = slot_kinds(x="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = tr.view.series[0]
        part = ops.read(tr, s, str(args["x"]))
        whole = ops.aggregate(tr, s, "sum")
        if part is None or whole is None:
            return None
        return ops.arith(tr, "percent", part, whole)
