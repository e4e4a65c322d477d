"""Value comparison (ChartR VC): extremes and pairwise comparisons."""

from __future__ import annotations

import random
import re

from chartproof.questions import ops
from chartproof.questions.cues import Cue, fills, least, most, series, x1, x2
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, MULTI, PIES, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "ArgmaxSeriesAtX",
    "ArgmaxX",
    "ArgminX",
    "CompareLess",
    "LargerOfTwo",
    "MaxValue",
    "MinValue",
]


_THAN = re.compile(r"\b(greater|more|higher|larger|bigger) than\b")
"""A comparison of two labels ("Is A greater than B")."""


class _SeriesProgram(Program):
    """Programs that need one series of a category chart."""

    slots = slot_kinds(series="series")
    chart_types = CATEGORY

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None or not view.x_unique else {"series": ss[0]}


@register
class ArgmaxX(_SeriesProgram):
    """The x label with the highest value (ChartQA: "Which year recorded the highest ...?")."""

    name = "argmax_x"
    family = "comparison"
    task_type = "VC"
    question_type = "descriptive"
    templates = (
        "Which {x_title} has the highest {series}?",
        "In which {x_title} is {series} the largest?",
        "Which {x_title} recorded the highest value of {series}?",
    )
    cues = (Cue(630, "label of the extreme", lambda m: most(m) and m.label, fills(series=series)),)

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.extreme(tr, str(args["series"]), "max")


@register
class ArgminX(_SeriesProgram):
    """The x label with the lowest value."""

    name = "argmin_x"
    family = "comparison"
    task_type = "VC"
    question_type = "descriptive"
    templates = (
        "Which {x_title} has the lowest {series}?",
        "In which {x_title} is {series} the smallest?",
        "Which {x_title} recorded the lowest value of {series}?",
    )
    cues = (
        Cue(
            631,
            "label of the extreme",
            lambda m: least(m) and not most(m) and m.label,
            fills(series=series),
        ),
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.extreme(tr, str(args["series"]), "min")


@register
class MaxValue(_SeriesProgram):
    """The highest value of a series."""

    name = "max_value"
    family = "comparison"
    task_type = "VC"
    question_type = "descriptive"
    templates = (
        "What is the highest value of {series}?",
        "What is the peak value of {series} in the chart?",
        "How high does {series} get at most?",
    )
    cues = (Cue(640, "extreme value", most, fills(series=series)),)

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.extreme_value(tr, str(args["series"]), "max")


@register
class MinValue(_SeriesProgram):
    """The lowest value of a series (ChartQA: "What's the lowest value of green line?")."""

    name = "min_value"
    family = "comparison"
    task_type = "VC"
    question_type = "descriptive"
    templates = (
        "What is the lowest value of {series}?",
        "What is the smallest value {series} takes in the chart?",
        "How low does {series} get at its minimum?",
    )
    cues = (Cue(641, "extreme value", lambda m: least(m) and not most(m), fills(series=series)),)

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.extreme_value(tr, str(args["series"]), "min")


@register
class CompareLess(Program):
    """RealCQA 59 / 62: is the value at one x tick less than at another (per series when the
    chart has several)?"""

    name = "compare_less"
    family = "comparison"
    task_type = "VC"
    question_type = "reasoning"
    chart_types = CATEGORY - PIES
    templates = (
        "Is the value of {series} at {x} less than that at {x2}?",
        "Is {series} lower in {x} than in {x2}?",
        "Does {series} have a smaller value at {x} than at {x2}?",
    )
    slots = slot_kinds(series="series", x="x", x2="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0], "x2": xs[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        a, b = ops.read(tr, s, str(args["x"])), ops.read(tr, s, str(args["x2"]))
        return None if a is None or b is None else ops.compare(tr, a, b, "lt")


@register
class LargerOfTwo(Program):
    """Which of two x labels has the larger value (answer: the label)."""

    name = "larger_of_two"
    family = "comparison"
    task_type = "VC"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "Which is greater for {series}, {x} or {x2}?",
        "Between {x} and {x2}, which has the higher {series}?",
        "Does {x} or {x2} have more {series}?",
    )
    slots = slot_kinds(series="series", x="x", x2="x")
    cues = (
        Cue(
            660,
            "compare two labels",
            lambda m: len(m.xs) >= 2 and bool(_THAN.search(m.q)),
            fills(series=series, x=x1, x2=x2),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng, 2), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0], "x2": xs[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        a, b = ops.read(tr, s, str(args["x"])), ops.read(tr, s, str(args["x2"]))
        return None if a is None or b is None else ops.larger(tr, a, b)


@register
class ArgmaxSeriesAtX(Program):
    """The series with the highest value at one x label (ChartQA: "Which answer response has
    the highest value?")."""

    name = "argmax_series_at_x"
    family = "comparison"
    task_type = "VC"
    question_type = "descriptive"
    chart_types = MULTI
    min_series = 2
    templates = (
        "Which series has the highest value in {x}?",
        "In {x}, which series is the largest?",
        "What is the top series in {x}?",
    )
    slots = slot_kinds(x="x")
    cues = (
        Cue(
            620,
            "series extreme at a label",
            lambda m: most(m) and m.label and bool(m.xs) and len(m.view.series) > 1 and not m.ss,
            fills(x=x1),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.extreme_series(tr, str(args["x"]), "max")
