"""Value extraction (ChartR VE): read one value off a mark."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import (
    Cue,
    color1,
    each_series,
    fills,
    one_label,
    only_x,
    s1,
    series,
    whole,
    x1,
)
from chartproof.questions.mentions import Mentions
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import MULTI, ORDERED, PIES, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["PieValue", "ValueAt", "ValueOfColor"]


def _one_label(m: Mentions) -> bool:
    """One label named, and not as the start of a range ("across all years")."""
    return one_label(m) and not m.has("all", "across", "overall", "every")


def _only_label(m: Mentions) -> bool:
    """No label named, a series named, on a chart of one label."""
    return not m.xs and bool(m.ss) and len(m.view.x_labels) == 1


def _the_whole(m: Mentions) -> bool:
    """A number asked of no label: of the label that stands for the whole, if any."""
    return not m.xs and not _only_label(m) and not m.label


@register
class ValueAt(Program):
    """The value of one series at one x label."""

    name = "value_at"
    family = "extraction"
    task_type = "VE"
    question_type = "descriptive"
    chart_types = ORDERED
    templates = (
        "What is the value of {series} in {x}?",
        "How much is {series} in {x}?",
        "What value does {series} show for {x}?",
        "According to the chart, what was {series} in {x}?",
    )
    slots = slot_kinds(series="series", x="x")
    cues = (
        Cue(490, "value at a label", _one_label, each_series(x=x1)),
        Cue(710, "value at a label", lambda m: bool(m.xs), each_series(x=x1)),
        Cue(720, "value of the only label", _only_label, fills(series=s1, x=only_x)),
        Cue(730, "value of the bar for the whole", _the_whole, fills(series=series, x=whole)),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs, ss = pick_x(view, rng), pick_series(view, rng)
        return None if xs is None or ss is None else {"series": ss[0], "x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.read(tr, str(args["series"]), str(args["x"]))


@register
class PieValue(Program):
    """The value of one wedge of a pie."""

    name = "pie_value"
    family = "extraction"
    task_type = "VE"
    question_type = "descriptive"
    chart_types = PIES
    templates = (
        "What value does the {x} wedge show?",
        "How large is the share of {x}?",
        "What is the value for {x} in the pie chart?",
    )
    slots = slot_kinds(x="x")
    cues = (
        Cue(480, "value of a wedge", lambda m: m.pie and _one_label(m), fills(x=x1)),
        Cue(700, "value of a wedge", lambda m: m.pie and bool(m.xs), fills(x=x1)),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.read(tr, tr.view.series[0], str(args["x"]))


@register
class ValueOfColor(Program):
    """The value of the series drawn in a given colour at one x label: find the series by
    its colour, then read."""

    name = "value_of_color"
    family = "extraction"
    task_type = "VE"
    question_type = "descriptive"
    chart_types = MULTI
    min_series = 2
    templates = (
        "What is the value of the {color} series in {x}?",
        "How much does the {color} series show for {x}?",
        "In {x}, what value does the {color} series reach?",
    )
    slots = slot_kinds(color="color", x="x")
    cues = (
        Cue(
            210,
            "value of a coloured series",
            lambda m: bool(m.colors and m.xs),
            fills(color=color1, x=x1),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        if xs is None or not view.colors:
            return None
        return {"color": rng.choice(sorted(view.colors.values())), "x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        found = ops.key_of_color(tr, str(args["color"]))
        if found is None:
            return None
        return tr.link(ops.read(tr, str(found.value), str(args["x"])), found)
