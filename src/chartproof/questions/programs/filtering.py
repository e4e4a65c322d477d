"""Conditional processing (ChartR CP): counts, lists and sums of the marks past a threshold
(ChartQA: "How many bars exceed X?", "sum of all the gray bars whose value exceeds 15")."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import Cue, asks_sum, fills, series, threshold
from chartproof.questions.mentions import Mentions
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import (
    CATEGORY,
    ORDERED,
    pick_series,
    pick_threshold,
    threshold_between,
)
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView
from chartproof.questions.wording import ABOVE, BELOW

__all__ = [
    "CountAbove",
    "CountAboveAverage",
    "CountBelow",
    "FirstAbove",
    "LabelsAbove",
    "LabelsBetween",
    "SumAbove",
]


def _counts(m: Mentions) -> bool:
    """ "How many ..." with a threshold written."""
    return m.has("how many") and m.threshold is not None


class _ThresholdProgram(Program):
    """A condition on one series against a round threshold."""

    chart_types = CATEGORY
    slots = slot_kinds(series="series", threshold="number")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None:
            return None
        t = pick_threshold(view, ss[0], rng)
        return None if t is None else {"series": ss[0], "threshold": t}


@register
class CountAbove(_ThresholdProgram):
    """How many marks of a series exceed a threshold."""

    name = "count_above"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    templates = (
        "How many {x_title} values have {series} above {threshold}?",
        "For how many {x_title} values does {series} exceed {threshold}?",
        "How many {marks} of {series} are higher than {threshold}?",
    )
    cues = (
        Cue(
            410,
            "how many above",
            lambda m: _counts(m) and m.says(*ABOVE),
            fills(series=series, threshold=threshold),
        ),
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.count(tr, str(args["series"]), "above", float(args["threshold"]))


@register
class CountBelow(_ThresholdProgram):
    """How many marks of a series fall below a threshold (ChartQA: "How many values are
    below 40 in Unfavorable graph?")."""

    name = "count_below"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    templates = (
        "How many {x_title} values have {series} below {threshold}?",
        "For how many {x_title} values does {series} stay under {threshold}?",
        "How many {marks} of {series} are lower than {threshold}?",
    )
    cues = (
        Cue(
            420,
            "how many below",
            lambda m: _counts(m) and m.says(*BELOW),
            fills(series=series, threshold=threshold),
        ),
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.count(tr, str(args["series"]), "below", float(args["threshold"]))


@register
class LabelsAbove(_ThresholdProgram):
    """Which x labels have a series above a threshold (ChartQA: "Which year the blue bar is
    above 5?")."""

    name = "labels_above"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    templates = (
        "Which {x_title} values have {series} above {threshold}?",
        "In which {x_title} values does {series} exceed {threshold}?",
        "List every {x_title} where {series} is higher than {threshold}.",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.select(tr, str(args["series"]), "above", float(args["threshold"]))


@register
class SumAbove(_ThresholdProgram):
    """The sum of the values past a threshold."""

    name = "sum_above"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    templates = (
        "What is the sum of all {series} values above {threshold}?",
        "Adding up only the {series} values that exceed {threshold}, what do you get?",
        "What do the {series} values greater than {threshold} add up to?",
    )
    cues = (
        Cue(
            570,
            "sum above a threshold",
            lambda m: asks_sum(m) and m.threshold is not None and m.says(*ABOVE),
            fills(series=series, threshold=threshold),
        ),
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.sum_where(tr, str(args["series"]), "above", float(args["threshold"]))


@register
class FirstAbove(_ThresholdProgram):
    """The first x label where a series exceeds a threshold."""

    name = "first_above"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    chart_types = ORDERED
    templates = (
        "In which {x_title} does {series} exceed {threshold} for the first time?",
        "What is the first {x_title} with {series} above {threshold}?",
        "Where does {series} first rise above {threshold}?",
    )

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.first_where(tr, str(args["series"]), "above", float(args["threshold"]))


@register
class LabelsBetween(Program):
    """Which x labels have a series between two thresholds."""

    name = "labels_between"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "Which {x_title} values have {series} between {lo} and {hi}?",
        "For which {x_title} values does {series} lie between {lo} and {hi}?",
        "List the {x_title} values where {series} is more than {lo} but less than {hi}.",
    )
    slots = slot_kinds(series="series", lo="number", hi="number")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None:
            return None
        col = view.column(ss[0])
        if col is None:
            return None
        vals = sorted(set(col))
        if len(vals) < 4:
            return None
        i = rng.randrange(0, len(vals) - 3)
        j = rng.randrange(i + 2, len(vals) - 1)
        lo = threshold_between(view, vals[i], vals[i + 1])
        hi = threshold_between(view, vals[j], vals[j + 1])
        if lo is None or hi is None or hi <= lo:
            return None
        return {"series": ss[0], "lo": lo, "hi": hi}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.select(tr, str(args["series"]), "between", float(args["lo"]), float(args["hi"]))


@register
class CountAboveAverage(Program):
    """How many marks are above the series average: compute the mean, then count."""

    name = "count_above_average"
    family = "filtering"
    task_type = "CP"
    question_type = "reasoning"
    chart_types = CATEGORY
    templates = (
        "How many {x_title} values have {series} above its average?",
        "For how many {x_title} values is {series} higher than the mean of {series}?",
        "How many {marks} of {series} exceed the average of all of them?",
    )
    slots = slot_kinds(series="series")
    cues = (
        Cue(
            430,
            "how many above average",
            lambda m: m.has("how many") and m.says("average") and m.says(*ABOVE),
            fills(series=series),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        mean = ops.aggregate(tr, s, "mean")
        if mean is None:
            return None
        return tr.link(ops.count(tr, s, "above", mean.number()), mean)
