"""ChartR reasoning chains over box plots: spread, reach, positions, skew, whiskers and
interquartile range of the boxes, each read off them in steps the final one combines. What
every chain must be, and their base class: `chartproof.questions.programs.chains`.
"""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.program import Args, ArgValue, register, slot_kinds
from chartproof.questions.programs._pick import BOXES
from chartproof.questions.programs.chains import _Chain
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import BOX_STATS, ChartView

__all__ = [
    "ChainBoxIqr",
    "ChainBoxPositions",
    "ChainBoxReach",
    "ChainBoxSkew",
    "ChainBoxWhiskers",
    "ChainBoxWidth",
]


class _BoxSpread(_Chain):
    """Is the box with the highest median also more spread out than the box with the
    lowest median?  VC, VC → VE×4 → NC×2 → VC."""

    task_type = "VC"
    chart_types = BOXES
    min_series = 0
    ends: tuple[str, str]
    """The two statistics whose difference is the spread: quartiles or whisker ends."""

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and len(view.boxes) >= 2 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        top, bottom = ops.box_extreme(tr, "median", "max"), ops.box_extreme(tr, "median", "min")
        if top is None or bottom is None:
            return None
        low, high = self.ends
        spans: list[Op] = []
        for who in (top, bottom):
            a, b = ops.read_box(tr, low, who), ops.read_box(tr, high, who)
            if a is None or b is None:
                return None
            width = ops.arith(tr, "sub", b, a)
            if width is None:
                return None
            spans.append(width)
        return ops.compare(tr, spans[0], spans[1], "gt")


@register
class ChainBoxWidth(_BoxSpread):
    """Between the quartiles."""

    name = "chain_box_width"
    ends = ("q1", "q3")
    templates = (
        "Is the interquartile range of the {x_title} with the highest median larger than "
        "that of the box with the lowest median?",
        "Does the box with the highest median span more between its quartiles than the box "
        "with the lowest median?",
        "Comparing the {x_title} with the highest and the lowest median, is the first one's "
        "box taller between the quartiles?",
    )


@register
class ChainBoxReach(_BoxSpread):
    """Between the whisker ends."""

    name = "chain_box_reach"
    ends = ("min", "max")
    templates = (
        "Is the distance from minimum to maximum of the {x_title} with the highest median "
        "larger than that of the box with the lowest median?",
        "Do the whiskers of the box with the highest median reach further apart than those "
        "of the box with the lowest median?",
        "Comparing the {x_title} with the highest and the lowest median, does the first one "
        "have the wider range between its minimum and maximum?",
    )


@register
class ChainBoxPositions(_Chain):
    """Is the k-th box from the left wider between its quartiles than the j-th?
    (PR → VE, VE → NC) per box → VC."""

    name = "chain_box_positions"
    task_type = "VC"
    chart_types = BOXES
    min_series = 0
    templates = (
        "Is the interquartile range of the {k} box from the {side} larger than that of the "
        "{k2} box?",
        "Counting from the {side}, is the {k} box taller between its quartiles than the {k2}?",
        "Does the {k} box from the {side} span more between its quartiles than the {k2} box?",
    )
    slots = slot_kinds(k="ordinal", k2="ordinal")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 2 <= len(view.boxes) == view.n and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        # prefer two boxes whose quartile spans a reader can tell apart
        def width(k: int) -> tuple[float, float]:
            b = view.boxes[view.x_labels[k - 1]]
            return b[3] - b[1], view.read_error(b[1]) + view.read_error(b[3])

        pairs = [(a, b) for a in range(1, view.n + 1) for b in range(1, view.n + 1) if a != b]
        rng.shuffle(pairs)
        for a, b in pairs:
            (wa, ea), (wb, eb) = width(a), width(b)
            if view.distinct(wa, wb, err_a=ea, err_b=eb):
                return {"k": a, "k2": b}
        return {"k": pairs[0][0], "k2": pairs[0][1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        widths: list[Op] = []
        for k in (int(args["k"]), int(args["k2"])):
            where = ops.label_at(tr, k)
            if where is None:
                return None
            q1, q3 = ops.read_box(tr, "q1", where), ops.read_box(tr, "q3", where)
            width = None if q1 is None or q3 is None else ops.arith(tr, "sub", q3, q1)
            if width is None:
                return None
            widths.append(width)
        return ops.compare(tr, widths[0], widths[1], "gt")


class _BoxSkew(_Chain):
    """Is the median of the k-th box closer to one end of its box than to the other?
    PR → VE×3 → NC×2 → VC."""

    task_type = "VC"
    chart_types = BOXES
    min_series = 0
    slots = slot_kinds(k="ordinal")
    ends: tuple[str, str]
    """The statistics below and above the median that the two distances run to."""

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 1 <= len(view.boxes) == view.n and view.x_unique

    def _halves(self, view: ChartView, x: str) -> tuple[float, float, float, float]:
        b = view.boxes[x]
        lo, mid, hi = (b[BOX_STATS.index(k)] for k in (self.ends[0], "median", self.ends[1]))
        e = view.read_error(mid)
        return mid - lo, hi - mid, view.read_error(lo) + e, view.read_error(hi) + e

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ks = list(range(1, view.n + 1))
        rng.shuffle(ks)
        for k in ks:  # prefer a box whose two distances a reader can tell apart
            below, above, eb, ea = self._halves(view, view.x_labels[k - 1])
            if view.distinct(below, above, err_a=eb, err_b=ea):
                return {"k": k}
        return {"k": ks[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        where = ops.label_at(tr, int(args["k"]))
        if where is None:
            return None
        low, high = self.ends
        a, m, b = (ops.read_box(tr, stat, where) for stat in (low, "median", high))
        if a is None or m is None or b is None:
            return None
        below, above = ops.arith(tr, "sub", m, a), ops.arith(tr, "sub", b, m)
        if below is None or above is None:
            return None
        return ops.compare(tr, above, below, "lt")


@register
class ChainBoxSkew(_BoxSkew):
    """Within the quartiles."""

    name = "chain_box_skew"
    ends = ("q1", "q3")
    templates = (
        "Is the median of the {k} box from the {side} closer to its upper quartile than to "
        "its lower quartile?",
        "In the {k} box counted from the {side}, does the median sit nearer the upper "
        "quartile than the lower one?",
        "For the {k} box from the {side}, is the distance from median to upper quartile "
        "smaller than from lower quartile to median?",
    )


@register
class ChainBoxWhiskers(_BoxSkew):
    """Between the whisker ends."""

    name = "chain_box_whiskers"
    ends = ("min", "max")
    templates = (
        "Is the median of the {k} box from the {side} closer to its maximum than to its minimum?",
        "In the {k} box counted from the {side}, does the median sit nearer the top whisker "
        "end than the bottom one?",
        "For the {k} box from the {side}, is the distance from median to maximum smaller "
        "than from minimum to median?",
    )


@register
class ChainBoxIqr(_Chain):
    """How much wider is the box with the highest median than the box with the lowest?
    VE (median) per box → VC, VC → NC, NC → NC."""

    name = "chain_box_iqr"
    task_type = "NC"
    chart_types = BOXES
    min_series = 0
    templates = (
        "By how much does the interquartile range of the {x_title} with the highest median "
        "differ from that of the box with the lowest median?",
        "What is the difference between the interquartile ranges of the boxes with the "
        "highest and the lowest median?",
        "How far apart are the interquartile ranges of the {x_title} values with the largest "
        "and the smallest median?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 2 <= len(view.boxes) <= 6 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        medians: list[tuple[str, Op]] = []
        for x in tr.view.boxes:
            m = ops.read_box(tr, "median", x)
            if m is None:
                return None
            medians.append((x, m))
        label = tr.view.x_label
        top = ops.best_of(tr, tuple(medians), "max", label)
        bottom = ops.best_of(tr, tuple(medians), "min", label)
        if top is None or bottom is None:
            return None
        a, b = ops.iqr(tr, top), ops.iqr(tr, bottom)
        return None if a is None or b is None else ops.arith(tr, "absdiff", a, b)
