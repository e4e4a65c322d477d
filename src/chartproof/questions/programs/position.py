"""Position identification (ChartR PR): which mark sits where, and where a value is."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.cues import Cue, fills, position
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import (
    BARS,
    CATEGORY,
    STACKED_BARS,
    charts,
    pick_series,
    pick_x,
)
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["LabelAtPosition", "PositionOfLabel", "ValueAtPosition", "XWithValue"]

_POSITIONAL = (BARS - STACKED_BARS) | charts("line")


@register
class LabelAtPosition(Program):
    """The label of the k-th mark from the left (top)."""

    name = "label_at_position"
    family = "position"
    task_type = "PR"
    question_type = "descriptive"
    chart_types = _POSITIONAL
    templates = (
        "What is the label of the {k} {mark} from the {side}?",
        "Which {x_title} does the {k} {mark} from the {side} show?",
        "Counting from the {side}, which label belongs to the {k} {mark}?",
    )
    slots = slot_kinds(k="ordinal")
    cues = (
        Cue(
            300,
            "position",
            lambda m: m.position is not None and m.label,
            fills(k=position),
            final=True,
        ),
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return None if view.n < 2 else {"k": rng.randint(1, view.n)}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.label_at(tr, int(args["k"]))


@register
class PositionOfLabel(Program):
    """Where a labelled mark sits, counted from the left (top)."""

    name = "position_of_label"
    family = "position"
    task_type = "PR"
    question_type = "descriptive"
    chart_types = _POSITIONAL
    templates = (
        "Counting from the {side}, at which position is {x}?",
        "What is the position of {x} counted from the {side}?",
        "Starting from the {side}, which position does {x} take?",
    )
    slots = slot_kinds(x="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.position_of(tr, str(args["x"]))


@register
class ValueAtPosition(Program):
    """The value of the k-th mark from the left (ChartQA: "What's the value of the 1st
    bar?"): locate, then read."""

    name = "value_at_position"
    family = "position"
    task_type = "PR"
    question_type = "descriptive"
    chart_types = _POSITIONAL
    templates = (
        "What is the value of the {k} {mark} from the {side}?",
        "How much does the {k} {mark} from the {side} show?",
        "Counting from the {side}, what value does the {k} {mark} have?",
    )
    slots = slot_kinds(k="ordinal")
    cues = (
        Cue(
            310,
            "position",
            lambda m: m.position is not None and not m.label,
            fills(k=position),
            final=True,
        ),
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and len(view.series) == 1

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return None if view.n < 2 else {"k": rng.randint(1, view.n)}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        where = ops.label_at(tr, int(args["k"]))
        if where is None:
            return None
        return tr.link(ops.read(tr, tr.view.series[0], str(where.value)), where)


@register
class XWithValue(Program):
    """The x label at which a series shows a given value (ChartQA: "In which year the value
    was 51?")."""

    name = "x_with_value"
    family = "position"
    task_type = "PR"
    question_type = "descriptive"
    chart_types = CATEGORY
    templates = (
        "In which {x_title} does {series} reach {value}?",
        "Which {x_title} has a {series} of {value}?",
        "For which {x_title} is {series} equal to {value}?",
    )
    slots = slot_kinds(series="series", value="number")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None or not view.value_labels:
            return None
        col = view.column(ss[0])
        if not col:
            return None
        return {"series": ss[0], "value": rng.choice(col)}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.find_value(tr, str(args["series"]), float(args["value"]))
