"""Colour identification (ChartR CI): which colour encodes what."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import Cue, asks_colour, color1, fills, most, named_series, x1
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, MULTI, PIES, SCATTERS, pick_series, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["ColorOfMaxSeries", "ColorOfSeries", "ColorOfWedge", "CountColors", "SeriesOfColor"]


_MEANS_SHOWN = ("represent", "represents", "stand", "indicate", "show", "mean")
"""Words asking what a colour stands for, in a question about colours."""
_MEANS = ("represent", "represents", "stand", "indicate", "denote", "depict")
"""Words asking what a colour stands for, in a question naming one."""


@register
class ColorOfSeries(Program):
    """The colour of a named series."""

    name = "color_of_series"
    family = "color"
    task_type = "CI"
    question_type = "descriptive"
    chart_types = MULTI | SCATTERS
    min_series = 2
    templates = (
        "What colour represents {series}?",
        "Which colour is used for {series} in the chart?",
        "In what colour is {series} drawn?",
    )
    slots = slot_kinds(series="series")
    cues = (Cue(140, "colour of a series", asks_colour, fills(series=named_series), final=True),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None or not view.colors else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.color_of(tr, str(args["series"]))


@register
class ColorOfWedge(Program):
    """The colour of a named pie segment (ChartQA: "What is the color of Don't know?")."""

    name = "color_of_wedge"
    family = "color"
    task_type = "CI"
    question_type = "descriptive"
    chart_types = PIES
    templates = (
        "What is the colour of the {x} segment?",
        "Which colour does the wedge for {x} have?",
        "In what colour is {x} shown in the pie?",
    )
    slots = slot_kinds(x="x")
    cues = (
        Cue(
            120, "colour of a wedge", lambda m: asks_colour(m) and m.pie and bool(m.xs), fills(x=x1)
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None or not view.colors else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.color_of(tr, str(args["x"]))


@register
class SeriesOfColor(Program):
    """The series (pie: wedge) drawn in a named colour (ChartQA: "What does dark blue bar
    represent?")."""

    name = "series_of_color"
    family = "color"
    task_type = "CI"
    question_type = "descriptive"
    chart_types = MULTI | SCATTERS | PIES
    templates = (
        "What does the {color} colour represent?",
        "Which category is shown in {color}?",
        "What is drawn in {color} in this chart?",
    )
    slots = slot_kinds(color="color")
    cues = (
        Cue(
            110,
            "colour meaning",
            lambda m: asks_colour(m) and bool(m.colors) and m.has(*_MEANS_SHOWN),
            fills(color=color1),
        ),
        Cue(
            200, "colour meaning", lambda m: bool(m.colors) and m.has(*_MEANS), fills(color=color1)
        ),
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and (len(view.series) > 1 or view.kind.color_keys == "x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        if not view.colors:
            return None
        return {"color": rng.choice(sorted(view.colors.values()))}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.key_of_color(tr, str(args["color"]))


@register
class CountColors(Program):
    """How many colours the marks use (ChartQA: "How many colors are used to represent all
    the bars?")."""

    name = "count_colors"
    family = "color"
    task_type = "CI"
    question_type = "descriptive"
    chart_types = MULTI | PIES | SCATTERS
    templates = (
        "How many colours are used to represent the {marks}?",
        "How many different colours do the {marks} have?",
        "Count the colours used for the {marks}. How many are there?",
    )
    slots = slot_kinds()
    cues = (Cue(100, "how many colours", lambda m: asks_colour(m) and m.has("how many"), fills()),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {} if view.colors else None

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.count_colors(tr)


@register
class ColorOfMaxSeries(Program):
    """The colour of the series with the highest value at one x label: compare, then name
    the colour."""

    name = "color_of_max_series"
    family = "color"
    task_type = "CI"
    question_type = "reasoning"
    chart_types = CATEGORY & MULTI
    min_series = 2
    templates = (
        "What is the colour of the series with the highest value in {x}?",
        "In {x}, which colour does the largest series have?",
        "Which colour marks the highest value in {x}?",
    )
    slots = slot_kinds(x="x")
    cues = (
        Cue(
            130,
            "colour of the largest series",
            lambda m: asks_colour(m) and bool(m.xs) and most(m),
            fills(x=x1),
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None or not view.colors else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        top = ops.extreme_series(tr, str(args["x"]), "max")
        if top is None:
            return None
        return tr.link(ops.color_of(tr, str(top.value)), top)
