"""ChartR reasoning chains: composite questions decomposed into 4 to 10 dependent
sub-questions (VE, CI, PR, VC, CP, TI, SO, NC), whose answers the final question aggregates.

Each program records its sub-questions as operations; `depends_on` links make the DAG.
"""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import (
    BARS,
    CATEGORY,
    LINES,
    MULTI,
    charts,
    pick_series,
    pick_x,
    threshold_between,
)
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "ChainBoxIqr",
    "ChainColorTotal",
    "ChainGrowth",
    "ChainPieTopShare",
    "ChainPositionAverage",
    "ChainRangeTrend",
    "ChainThresholdSum",
    "ChainTopGaps",
]


class _Chain(Program):
    family = "chain"
    chain = True
    question_type = "reasoning"


def _reads(tr: Tracer, series: str, after: Op | None = None) -> list[Op] | None:
    """One VE step per x label of a series."""
    out: list[Op] = []
    for x in tr.view.x_labels:
        op = tr.link(ops.read(tr, series, x), *(after,) if after else ())
        if op is None:
            return None
        out.append(op)
    return out


@register
class ChainRangeTrend(_Chain):
    """ChartR's worked example: among the x labels whose value lies in a band, is the trend
    from the lowest to the highest value increasing?  CI → VE… → CP → VC, VC → TI."""

    name = "chain_range_trend"
    task_type = "TI"
    chart_types = LINES | charts("vbar", "grouped_bar")
    templates = (
        "Among the {x_title} values where {series} is between {lo} and {hi}, is the trend "
        "from the one with the lowest {series} to the one with the highest increasing or "
        "decreasing?",
        "Considering only {x_title} values with {series} between {lo} and {hi}, does "
        "{series} rise or fall from its lowest to its highest point?",
        "Restricted to {series} values between {lo} and {hi}, is the change from the "
        "smallest to the largest value over the {x_title} increasing or decreasing?",
    )
    slots = slot_kinds(series="series", lo="number", hi="number")

    def applies(self, view: ChartView) -> bool:
        ordered = view.chart_type in LINES or view.x_kind == "time"
        return super().applies(view) and ordered and 3 <= view.n <= 6

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        col = view.column(ss[0]) if ss else None
        if ss is None or col is None:
            return None
        vals = sorted(set(col))
        pad = 0.1 * view.span
        edges = [vals[0] - pad, *vals, vals[-1] + pad]
        # the band keeps sorted values i..j (at least two of them)
        i = rng.randrange(1, len(edges) - 2)
        j = rng.randrange(i + 1, len(edges) - 1)
        lo = threshold_between(view, edges[i - 1], edges[i])
        hi = threshold_between(view, edges[j], edges[j + 1])
        if lo is None or hi is None:
            return None
        return {"series": ss[0], "lo": lo, "hi": hi}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        color = ops.color_of(tr, s) if len(tr.view.series) > 1 else None
        reads = _reads(tr, s, color)
        if reads is None:
            return None
        band = tr.link(ops.select(tr, s, "between", float(args["lo"]), float(args["hi"])), *reads)
        if band is None or not isinstance(band.value, tuple) or len(band.value) < 2:
            return None
        low, high = ops.extreme(tr, s, "min", among=band), ops.extreme(tr, s, "max", among=band)
        if low is None or high is None:
            return None
        return ops.trend_between(tr, s, low, high)


@register
class ChainColorTotal(_Chain):
    """The colour of the series with the largest total: NC per series → VC → CI."""

    name = "chain_color_total"
    task_type = "CI"
    chart_types = MULTI
    min_series = 3
    templates = (
        "What is the colour of the series with the largest total across all {x_title} values?",
        "Which colour belongs to the series whose values add up to the most?",
        "Summing each series over every {x_title}, what colour is the series with the biggest sum?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and len(view.series) <= 9 and bool(view.colors)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        totals: list[tuple[str, Op]] = []
        for s in tr.view.series:
            total = ops.aggregate(tr, s, "sum")
            if total is None:
                return None
            totals.append((s, total))
        top = ops.best_of(tr, tuple(totals), "max", "series")
        if top is None:
            return None
        return tr.link(ops.color_of(tr, str(top.value)), top)


@register
class ChainThresholdSum(_Chain):
    """The total of the values above a threshold: VE per label → CP → NC."""

    name = "chain_threshold_sum"
    task_type = "NC"
    chart_types = CATEGORY
    templates = (
        "What is the total of {series} over the {x_title} values where it is above {threshold}?",
        "Adding {series} only where it exceeds {threshold}, what is the sum?",
        "What do the {series} values higher than {threshold} add up to across the chart?",
    )
    slots = slot_kinds(series="series", threshold="number")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 3 <= view.n <= 9

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        from chartproof.questions.programs._pick import pick_threshold

        ss = pick_series(view, rng)
        t = pick_threshold(view, ss[0], rng) if ss else None
        return None if ss is None or t is None else {"series": ss[0], "threshold": t}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s, t = str(args["series"]), float(args["threshold"])
        reads = _reads(tr, s)
        if reads is None:
            return None
        kept = tr.link(ops.select(tr, s, "above", t), *reads)
        if kept is None:
            return None
        return tr.link(ops.sum_where(tr, s, "above", t), kept)


@register
class ChainTopGaps(_Chain):
    """Is the lead of the largest value over the second bigger than that of the second
    over the third?  SO → SO×3 → NC×2 → VC."""

    name = "chain_top_gaps"
    task_type = "VC"
    chart_types = CATEGORY
    templates = (
        "Is the gap between the largest and the second largest {series} bigger than the gap "
        "between the second and the third largest?",
        "Does the top {series} lead the runner-up by more than the runner-up leads the third?",
        "Comparing the three highest {series} values, is the first gap wider than the second?",
    )
    slots = slot_kinds(series="series")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 3 <= view.n <= 8

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        order = ops.sort(tr, s, True)
        if order is None:
            return None
        top = [tr.link(ops.kth_value(tr, s, k), order) for k in (1, 2, 3)]
        if any(t is None for t in top):
            return None
        a, b, c = (t for t in top if t is not None)
        first, second = ops.arith(tr, "sub", a, b), ops.arith(tr, "sub", b, c)
        return None if first is None or second is None else ops.compare(tr, first, second, "gt")


@register
class ChainPositionAverage(_Chain):
    """Is the k-th mark from the left higher than the average of two named marks?
    PR → VE, VE, VE → NC → VC."""

    name = "chain_position_average"
    task_type = "VC"
    chart_types = (BARS - {"stacked_bar", "grouped_bar"}) | charts("line")
    templates = (
        "Is the {k} {mark} from the {side} higher than the average of {x} and {x2}?",
        "Does the {k} {mark} counted from the {side} exceed the mean of {x} and {x2}?",
        "Compared with the average of {x} and {x2}, is the {k} {mark} from the {side} larger?",
    )
    slots = slot_kinds(k="ordinal", x="x", x2="x")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and len(view.series) == 1 and view.n >= 3

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng, 3)
        if xs is None:
            return None
        return {"k": view.x_labels.index(xs[0]) + 1, "x": xs[1], "x2": xs[2]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = tr.view.series[0]
        where = ops.label_at(tr, int(args["k"]))
        if where is None:
            return None
        target = tr.link(ops.read(tr, s, str(where.value)), where)
        a, b = ops.read(tr, s, str(args["x"])), ops.read(tr, s, str(args["x2"]))
        if target is None or a is None or b is None:
            return None
        mean = ops.arith(tr, "mean", a, b)
        return None if mean is None else ops.compare(tr, target, mean, "gt")


@register
class ChainGrowth(_Chain):
    """Which series changed the most between two x labels?  (VE, VE → NC) per series → VC."""

    name = "chain_growth"
    task_type = "VC"
    chart_types = MULTI
    min_series = 2
    templates = (
        "Which series grew the most from {x} to {x2}?",
        "Between {x} and {x2}, which series shows the largest increase?",
        "From {x} to {x2}, which series gains the most?",
    )
    slots = slot_kinds(x="x", x2="x")

    def applies(self, view: ChartView) -> bool:
        ordered = view.chart_type in LINES or view.x_kind == "time"
        return super().applies(view) and ordered and len(view.series) <= 3

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        xs = pick_x(view, rng, 2)
        if xs is None:
            return None
        a, b = sorted(xs, key=view.x_labels.index)
        return {"x": a, "x2": b}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        x, x2 = str(args["x"]), str(args["x2"])
        changes: list[tuple[str, Op]] = []
        for s in tr.view.series:
            a, b = ops.read(tr, s, x), ops.read(tr, s, x2)
            if a is None or b is None:
                return None
            change = ops.arith(tr, "sub", b, a)
            if change is None:
                return None
            changes.append((s, change))
        return ops.best_of(tr, tuple(changes), "max", "series")


@register
class ChainBoxIqr(_Chain):
    """Which box has the widest interquartile range?  (VE q1, VE q3 → NC) per box, or NC per
    box when there are many → VC."""

    name = "chain_box_iqr"
    task_type = "VC"
    chart_types = charts("box")
    min_series = 0
    templates = (
        "Which {x_title} has the largest interquartile range?",
        "Whose box is the tallest between its lower and upper quartile?",
        "Which {x_title} shows the widest spread between its quartiles?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 2 <= len(view.boxes) <= 10 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        spans: list[tuple[str, Op]] = []
        detailed = len(tr.view.boxes) <= 3
        for x in tr.view.boxes:
            if detailed:
                q1, q3 = ops.read_box(tr, "q1", x), ops.read_box(tr, "q3", x)
                span = None if q1 is None or q3 is None else ops.arith(tr, "sub", q3, q1)
            else:
                span = ops.iqr(tr, x)
            if span is None:
                return None
            spans.append((x, span))
        return ops.best_of(tr, tuple(spans), "max", tr.view.x_label)


@register
class ChainPieTopShare(_Chain):
    """The share of the pie taken by its two largest wedges: SO → SO, SO → NC, NC → NC."""

    name = "chain_pie_top_share"
    task_type = "NC"
    chart_types = charts("pie")
    templates = (
        "What percentage of the pie do the two largest wedges make up together?",
        "Together, what share of the whole, in percent, do the two biggest wedges take?",
        "How many percent of the total belong to the two largest segments combined?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 3 <= view.n <= 8

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = tr.view.series[0]
        order = ops.sort(tr, s, True)
        if order is None:
            return None
        first = tr.link(ops.kth_value(tr, s, 1), order)
        second = tr.link(ops.kth_value(tr, s, 2), order)
        if first is None or second is None:
            return None
        both = ops.arith(tr, "add", first, second)
        whole = ops.aggregate(tr, s, "sum")
        if both is None or whole is None:
            return None
        return ops.arith(tr, "percent", both, whole)
