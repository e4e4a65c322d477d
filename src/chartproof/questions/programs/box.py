"""Box plots: RealCQA 166-170 (median, upper and lower quartile, maximum and minimum
comparisons), 146 (equal interquartile range), and reads of box statistics."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import BOXES, pick_x
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "BoxEqualIqr",
    "BoxHighestMedian",
    "BoxIqr",
    "BoxMaxLess",
    "BoxMedianLess",
    "BoxMedianValue",
    "BoxMinLess",
    "BoxQ1Less",
    "BoxQ3Less",
]

_BOX = BOXES


class _BoxCompare(Program):
    """Is one statistic of the box at x less than that at x2?"""

    family = "box"
    task_type = "VC"
    question_type = "reasoning"
    chart_types = _BOX
    min_series = 0
    slots = slot_kinds(x="x", x2="x")
    stat: str

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng, 2)
        return None if xs is None else {"x": xs[0], "x2": xs[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        a, b = (
            ops.read_box(tr, self.stat, str(args["x"])),
            ops.read_box(tr, self.stat, str(args["x2"])),
        )
        return None if a is None or b is None else ops.compare(tr, a, b, "lt")


@register
class BoxMedianLess(_BoxCompare):
    """RealCQA 166."""

    name = "box_median_less"
    stat = "median"
    templates = (
        "Is the median of {y_title} at {x} less than that at {x2}?",
        "Does {x} have a lower median than {x2}?",
        "Is the median line of {x} below the median line of {x2}?",
    )


@register
class BoxQ3Less(_BoxCompare):
    """RealCQA 167."""

    name = "box_q3_less"
    stat = "q3"
    templates = (
        "Is the upper quartile of {y_title} at {x} less than that at {x2}?",
        "Does {x} have a lower upper quartile than {x2}?",
        "Is the top edge of the box for {x} below that of {x2}?",
    )


@register
class BoxQ1Less(_BoxCompare):
    """RealCQA 168."""

    name = "box_q1_less"
    stat = "q1"
    templates = (
        "Is the lower quartile of {y_title} at {x} less than that at {x2}?",
        "Does {x} have a lower lower quartile than {x2}?",
        "Is the bottom edge of the box for {x} below that of {x2}?",
    )


@register
class BoxMaxLess(_BoxCompare):
    """RealCQA 169."""

    name = "box_max_less"
    stat = "max"
    templates = (
        "Is the maximum of {y_title} at {x} less than that at {x2}?",
        "Does {x} reach a lower maximum than {x2}?",
        "Is the upper whisker of {x} below the upper whisker of {x2}?",
    )


@register
class BoxMinLess(_BoxCompare):
    """RealCQA 170."""

    name = "box_min_less"
    stat = "min"
    templates = (
        "Is the minimum of {y_title} at {x} less than that at {x2}?",
        "Does {x} reach a lower minimum than {x2}?",
        "Is the lower whisker of {x} below the lower whisker of {x2}?",
    )


@register
class BoxEqualIqr(Program):
    """RealCQA 146: does any pair of boxes share the same interquartile range?"""

    name = "box_equal_iqr"
    family = "box"
    task_type = "VC"
    question_type = "reasoning"
    chart_types = _BOX
    min_series = 0
    templates = (
        "Does any {x_title} have an equal interquartile range to another?",
        "Do two of the boxes have the same interquartile range?",
        "Is there a pair of {x_title} values with equal interquartile ranges?",
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {} if len(view.boxes) >= 2 else None

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.equal_iqr(tr)


@register
class BoxMedianValue(Program):
    """The median of one box."""

    name = "box_median_value"
    family = "box"
    task_type = "VE"
    question_type = "descriptive"
    chart_types = _BOX
    min_series = 0
    templates = (
        "What is the median of {x}?",
        "Where does the median line of the box for {x} sit?",
        "What median {y_title} does {x} show?",
    )
    slots = slot_kinds(x="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.read_box(tr, "median", str(args["x"]))


@register
class BoxIqr(Program):
    """The interquartile range of one box."""

    name = "box_iqr"
    family = "box"
    task_type = "NC"
    question_type = "reasoning"
    chart_types = _BOX
    min_series = 0
    templates = (
        "What is the interquartile range of {x}?",
        "How far apart are the quartiles of {x}?",
        "What is the upper quartile minus the lower quartile for {x}?",
    )
    slots = slot_kinds(x="x")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng)
        return None if xs is None else {"x": xs[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.iqr(tr, str(args["x"]))


@register
class BoxHighestMedian(Program):
    """The box with the highest median."""

    name = "box_highest_median"
    family = "box"
    task_type = "VC"
    question_type = "descriptive"
    chart_types = _BOX
    min_series = 0
    templates = (
        "Which {x_title} has the highest median?",
        "Whose median line sits highest among the boxes?",
        "Which {x_title} shows the largest median {y_title}?",
    )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {} if len(view.boxes) >= 2 else None

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.box_extreme(tr, "median", "max")
