"""RealCQA reasoning templates (RealCQA-V2 §6.3): 63 (difference between two ticks vs any
other two), 65 (sum vs maximum), 68 (per-series differences), 72 (sum of two series vs a
third at every tick) and 18 (number of lines vs legend labels)."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, MULTI, PIES, charts, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["DiffVsAnyTwo", "LinesVsLegend", "SeriesDiffCompare", "SumTwoSeriesVsThird", "SumVsMax"]


class _TwoTickProgram(Program):
    chart_types = CATEGORY - PIES
    slots = slot_kinds(series="series", x="x", x2="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0], "x2": xs[1]}


@register
class DiffVsAnyTwo(_TwoTickProgram):
    """RealCQA 63: is the difference between the values at two ticks greater than the
    difference between any other two ticks?"""

    name = "diff_vs_any_two"
    family = "realcqa"
    task_type = "VC"
    question_type = "reasoning"
    templates = (
        "Is the difference in {series} between {x} and {x2} greater than the difference "
        "between any other two {x_title} values?",
        "Do {x} and {x2} differ in {series} by more than any other pair of {x_title} values?",
        "Is the gap in {series} between {x} and {x2} the widest of all pairs of {x_title} values?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s, x, x2 = str(args["series"]), str(args["x"]), str(args["x2"])
        a, b = ops.read(tr, s, x), ops.read(tr, s, x2)
        if a is None or b is None:
            return None
        gap = ops.arith(tr, "absdiff", a, b)
        other = ops.widest_gap(tr, s, (x, x2))
        return None if gap is None or other is None else ops.compare(tr, gap, other, "gt")


@register
class SumVsMax(_TwoTickProgram):
    """RealCQA 65: is the sum of the values at two ticks greater than the maximum value?"""

    name = "sum_vs_max"
    family = "realcqa"
    task_type = "VC"
    question_type = "reasoning"
    templates = (
        "Is the sum of {series} in {x} and {x2} greater than the maximum {series} across "
        "all {x_title} values?",
        "Do {x} and {x2} together exceed the highest {series} in the chart?",
        "Is {series} at {x} plus {series} at {x2} more than the peak value of {series}?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        a, b = ops.read(tr, s, str(args["x"])), ops.read(tr, s, str(args["x2"]))
        if a is None or b is None:
            return None
        total = ops.arith(tr, "add", a, b)
        peak = ops.extreme_value(tr, s, "max")
        return None if total is None or peak is None else ops.compare(tr, total, peak, "gt")


@register
class SeriesDiffCompare(Program):
    """RealCQA 68: is the change of one series between two ticks greater than that of
    another series?"""

    name = "series_diff_compare"
    family = "realcqa"
    task_type = "VC"
    question_type = "reasoning"
    chart_types = MULTI
    min_series = 2
    templates = (
        "Is the difference in {series} between {x} and {x2} greater than the difference in "
        "{series2} between {x} and {x2}?",
        "From {x} to {x2}, does {series} change by more than {series2}?",
        "Is the gap between {x} and {x2} wider for {series} than for {series2}?",
    )
    slots = slot_kinds(series="series", series2="series", x="x", x2="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng, 2)
        if xs is None or ss is None:
            return None
        return {"series": ss[0], "series2": ss[1], "x": xs[0], "x2": xs[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        x, x2 = str(args["x"]), str(args["x2"])
        gaps: list[Op] = []
        for key in ("series", "series2"):
            a, b = ops.read(tr, str(args[key]), x), ops.read(tr, str(args[key]), x2)
            if a is None or b is None:
                return None
            gap = ops.arith(tr, "absdiff", a, b)
            if gap is None:
                return None
            gaps.append(gap)
        return ops.compare(tr, gaps[0], gaps[1], "gt")


@register
class SumTwoSeriesVsThird(Program):
    """RealCQA 72: at every tick, do two series add up to more than a third?"""

    name = "sum_two_series_vs_third"
    family = "realcqa"
    task_type = "CP"
    question_type = "reasoning"
    chart_types = MULTI
    min_series = 3
    templates = (
        "Is it the case that in every {x_title}, {series} plus {series2} is greater than "
        "{series3}?",
        "Do {series} and {series2} together exceed {series3} at every {x_title}?",
        "At each {x_title}, is the sum of {series} and {series2} above {series3}?",
    )
    slots = slot_kinds(series="series", series2="series", series3="series")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng, 3)
        if ss is None:
            return None
        return {"series": ss[0], "series2": ss[1], "series3": ss[2]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.forall_sum_gt(
            tr, str(args["series"]), str(args["series2"]), str(args["series3"])
        )


@register
class LinesVsLegend(Program):
    """RealCQA 18: is the number of lines equal to the number of legend labels?"""

    name = "lines_vs_legend"
    family = "realcqa"
    task_type = "VC"
    question_type = "reasoning"
    chart_types = charts("line")
    templates = (
        "Is the number of lines equal to the number of legend labels?",
        "Does the chart have as many lines as legend entries?",
        "Do the lines and the legend labels come in equal numbers?",
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        lines, labels = ops.count_items(tr, "lines"), ops.count_items(tr, "legend_labels")
        return None if lines is None or labels is None else ops.equal(tr, lines, labels)
