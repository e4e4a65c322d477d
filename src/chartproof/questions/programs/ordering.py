"""Sequence ordering (ChartR SO): sorted lists, ranks, the k-th largest."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import Cue, fills, ranked, series
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, MULTI, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "KthLargestLabel",
    "OrderSeriesAtX",
    "RankOfLabel",
    "SecondLargestValue",
    "SortAscending",
    "SortDescending",
]


class _SortProgram(Program):
    chart_types = CATEGORY
    slots = slot_kinds(series="series")
    descending: bool

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None or view.n > 8 else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.sort(tr, str(args["series"]), self.descending)


@register
class SortDescending(_SortProgram):
    """The x labels from the highest to the lowest value."""

    name = "sort_descending"
    family = "ordering"
    task_type = "SO"
    question_type = "reasoning"
    descending = True
    templates = (
        "List the {x_title} values from the highest to the lowest {series}.",
        "Sort the {x_title} values by {series} in descending order.",
        "Rank the {x_title} values by {series}, largest first.",
    )


@register
class SortAscending(_SortProgram):
    """The x labels from the lowest to the highest value."""

    name = "sort_ascending"
    family = "ordering"
    task_type = "SO"
    question_type = "reasoning"
    descending = False
    templates = (
        "List the {x_title} values from the lowest to the highest {series}.",
        "Sort the {x_title} values by {series} in ascending order.",
        "Rank the {x_title} values by {series}, smallest first.",
    )


@register
class KthLargestLabel(Program):
    """Which x label has the k-th highest value (ChartR: "the 9th largest bar")."""

    name = "kth_largest_label"
    family = "ordering"
    task_type = "SO"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "Which {x_title} has the {k} highest {series}?",
        "Ranked from the top, which {x_title} comes {k} in {series}?",
        "What is the {x_title} with the {k} largest value of {series}?",
    )
    slots = slot_kinds(series="series", k="ordinal")
    cues = (
        Cue(
            600,
            "k-th largest label",
            lambda m: m.ranked is not None and m.label,
            fills(series=series, k=ranked),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None or view.n < 3:
            return None
        return {"series": ss[0], "k": rng.randint(2, view.n)}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.kth(tr, str(args["series"]), int(args["k"]), "max")


@register
class SecondLargestValue(Program):
    """The second largest value (ChartQA human questions)."""

    name = "second_largest_value"
    family = "ordering"
    task_type = "SO"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "What is the second largest value of {series}?",
        "Which value of {series} is the second highest?",
        "What is the runner-up value of {series}, just below the maximum?",
    )
    slots = slot_kinds(series="series")
    cues = (Cue(610, "second largest value", lambda m: m.ranked == 2, fills(series=series)),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None or view.n < 3 else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.kth_value(tr, str(args["series"]), 2)


@register
class RankOfLabel(Program):
    """The rank of one x label by value, counting from the highest."""

    name = "rank_of_label"
    family = "ordering"
    task_type = "SO"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "Counting from the highest, what is the rank of {x} by {series}?",
        "Where does {x} rank in {series}, with the highest ranked first?",
        "What position does {x} take when {series} is sorted from highest to lowest?",
    )
    slots = slot_kinds(series="series", x="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.rank_of(tr, str(args["series"]), str(args["x"]), True)


@register
class OrderSeriesAtX(Program):
    """The series ordered by their value at one x label."""

    name = "order_series_at_x"
    family = "ordering"
    task_type = "SO"
    question_type = "reasoning"
    chart_types = MULTI
    min_series = 3
    templates = (
        "Order the series by their value in {x}, from highest to lowest.",
        "In {x}, rank the series from the largest to the smallest value.",
        "Sort the series in {x} in descending order of value.",
    )
    slots = slot_kinds(x="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.order_series(tr, str(args["x"]), True)
