"""Trend identification (ChartR TI) and RealCQA monotonicity (templates 35, 116, 117)."""

from __future__ import annotations

import random
import re

from chartproof.questions import ops
from chartproof.questions.cues import Cue, fills, series, x1, x2
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import LINES, ORDERED, charts, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "LargestFall",
    "LargestRise",
    "LinesCross",
    "MonotoneDecrease",
    "MonotoneIncrease",
    "TrendFromTo",
]


_CHANGE = re.compile(r"\b(increas|decreas|grow|declin|ris|fall)")
"""Words of a change between two labels."""


class _OrderedProgram(Program):
    """Programs that read a series along an ordered x axis: lines, areas, or bars over
    time."""

    chart_types = ORDERED
    slots = slot_kinds(series="series")

    def applies(self, view: ChartView) -> bool:
        ordered = view.chart_type in LINES or view.x_kind == "time"
        return super().applies(view) and ordered and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}


@register
class MonotoneIncrease(_OrderedProgram):
    """RealCQA 35 / 116: does the series increase monotonically?"""

    name = "monotone_increase"
    family = "trend"
    task_type = "TI"
    question_type = "reasoning"
    templates = (
        "Does {series} increase monotonically over the {x_title}?",
        "Is {series} monotonically increasing?",
        "Does every {x_title} show a higher {series} than the one before?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.monotone(tr, str(args["series"]), "increase")


@register
class MonotoneDecrease(_OrderedProgram):
    """RealCQA 117: does the series decrease monotonically?"""

    name = "monotone_decrease"
    family = "trend"
    task_type = "TI"
    question_type = "reasoning"
    templates = (
        "Does {series} decrease monotonically over the {x_title}?",
        "Is {series} monotonically decreasing?",
        "Does every {x_title} show a lower {series} than the one before?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.monotone(tr, str(args["series"]), "decrease")


@register
class TrendFromTo(_OrderedProgram):
    """Whether a series went up or down between two x labels."""

    name = "trend_from_to"
    family = "trend"
    task_type = "TI"
    question_type = "reasoning"
    templates = (
        "Is {series} increasing or decreasing from {x} to {x2}?",
        "From {x} to {x2}, did {series} go up or down?",
        "What is the trend of {series} between {x} and {x2}, increasing or decreasing?",
    )
    slots = slot_kinds(series="series", x="x", x2="x")
    cues = (
        Cue(
            650,
            "trend between two labels",
            lambda m: len(m.xs) >= 2 and bool(_CHANGE.search(m.q)),
            fills(series=series, x=x1, x2=x2),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng)
        if xs is None or ss is None:
            return None
        a, b = sorted(xs, key=view.x_labels.index)
        return {"series": ss[0], "x": a, "x2": b}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.trend(tr, str(args["series"]), str(args["x"]), str(args["x2"]))


@register
class LargestRise(_OrderedProgram):
    """Where a series rose the most from one x label to the next."""

    name = "largest_rise"
    family = "trend"
    task_type = "TI"
    question_type = "reasoning"
    templates = (
        "In which {x_title} did {series} rise the most compared with the previous one?",
        "Which {x_title} saw the biggest increase in {series} over the one before?",
        "Where does {series} show its largest step up?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.largest_change(tr, str(args["series"]), "rise")


@register
class LargestFall(_OrderedProgram):
    """Where a series fell the most from one x label to the next."""

    name = "largest_fall"
    family = "trend"
    task_type = "TI"
    question_type = "reasoning"
    templates = (
        "In which {x_title} did {series} fall the most compared with the previous one?",
        "Which {x_title} saw the biggest drop in {series} from the one before?",
        "Where does {series} show its largest step down?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.largest_change(tr, str(args["series"]), "fall")


@register
class LinesCross(Program):
    """Whether two lines cross (ChartQA: "Is Bad and Good graph crossed each other?")."""

    name = "lines_cross"
    family = "trend"
    task_type = "TI"
    question_type = "reasoning"
    chart_types = charts("line")
    min_series = 2
    templates = (
        "Do the lines of {series} and {series2} cross each other?",
        "Do {series} and {series2} intersect anywhere in the chart?",
        "Does the order of {series} and {series2} ever flip?",
    )
    slots = slot_kinds(series="series", series2="series")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng, 2)
        return None if ss is None else {"series": ss[0], "series2": ss[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.cross(tr, str(args["series"]), str(args["series2"]))
