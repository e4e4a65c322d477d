"""ChartR reasoning chains: composite questions decomposed into 4 to 10 dependent
sub-questions that span both task categories (VE, CI, PR and VC, CP, TI, SO, NC) and at
least three task types; the final question's answer is computed from the sub-answers.

Every later step takes its inputs from earlier steps' results (a label found, a colour
identified, values read), so the `depends_on` links are the real data flow: replaying a
chain with another answer for a step changes what the steps after it derive
(`chartproof.questions.program.replay`). `execute` rejects a run whose steps do not form
such a chain (`chartproof.questions.chains.chain_problem`).

Chains over box plots are in `chartproof.questions.programs.chains_box`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from chartproof.questions import ops
from chartproof.questions.ops.extract import Label
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import (
    BARS,
    CATEGORY,
    LINES,
    MULTI,
    PIES,
    SCATTERS,
    STACKED_BARS,
    charts,
    pick_series,
    pick_threshold,
    pick_x,
    threshold_between,
)
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "ChainColorTotal",
    "ChainGrowth",
    "ChainPieTopShare",
    "ChainPositionAverage",
    "ChainPositionShare",
    "ChainRangeTrend",
    "ChainScatterEnds",
    "ChainScatterExtent",
    "ChainScatterGroups",
    "ChainScatterSlope",
    "ChainSeriesAverage",
    "ChainThresholdShare",
    "ChainTopGaps",
]


class _Chain(Program):
    family = "chain"
    chain = True
    question_type = "reasoning"


def _ordered(view: ChartView) -> bool:
    return view.chart_type in LINES or view.x_kind == "time"


def _colour_keyed(view: ChartView, k_max: int) -> bool:
    """Several series, each with its own colour name (so a colour identifies a series)."""
    return (
        2 <= len(view.series) <= k_max
        and set(view.series) <= set(view.colors)
        and len({view.colors[s] for s in view.series}) == len(view.series)
    )


def _series_by_colour(tr: Tracer) -> list[Op] | None:
    """One CI step per series: which series the legend shows in each colour."""
    out = []
    for s in tr.view.series:
        op = ops.key_of_color(tr, tr.view.colors[s])
        if op is None:
            return None
        out.append(op)
    return out


def _best_by_colour(tr: Tracer, per_series: Callable[[Op], Op | None], label: str) -> Op | None:
    """The series (found by its colour, one CI step each) whose `per_series` step is the
    largest: CI per colour → one step per series → VC."""
    keyed = _series_by_colour(tr)
    if keyed is None:
        return None
    found: list[tuple[Label, Op]] = []
    for who in keyed:
        step = per_series(who)
        if step is None:
            return None
        found.append((who, step))  # named by its CI step ("the series from step 1")
    return ops.best_of(tr, tuple(found), "max", label)


@register
class ChainRangeTrend(_Chain):
    """ChartR's worked example: among the x labels whose value lies in a band, is the trend
    from the one with the lowest to the one with the highest value increasing?
    [CI →] CP → VC, VC → VE, VE, PR, PR → TI."""

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
        return super().applies(view) and _ordered(view) and view.n >= 3 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        col = view.column(ss[0]) if ss else None
        if ss is None or col is None:
            return None
        vals = sorted(set(col))
        if len(vals) < 2:
            return None
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
        key: str | Op = s
        if len(tr.view.series) > 1 and s in tr.view.colors:
            colour = ops.color_of(tr, s)
            if colour is None:
                return None
            key = colour
        band = ops.select(tr, key, "between", float(args["lo"]), float(args["hi"]))
        if band is None or not isinstance(band.value, tuple) or len(band.value) < 2:
            return None
        low, high = ops.extreme(tr, s, "min", among=band), ops.extreme(tr, s, "max", among=band)
        if low is None or high is None:
            return None
        v_low, v_high = ops.read(tr, s, low), ops.read(tr, s, high)
        p_low, p_high = ops.position_of(tr, low), ops.position_of(tr, high)
        if v_low is None or v_high is None or p_low is None or p_high is None:
            return None
        return ops.trend_of(tr, s, p_low, v_low, p_high, v_high)


@register
class ChainColorTotal(_Chain):
    """The colour of the series with the largest total: CI per colour → NC per series →
    VC → CI."""

    name = "chain_color_total"
    task_type = "CI"
    chart_types = MULTI
    min_series = 2
    templates = (
        "What is the colour of the series with the largest total across all {x_title} values?",
        "Which colour belongs to the series whose values add up to the most?",
        "Summing each series over every {x_title}, what colour is the series with the biggest sum?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and _colour_keyed(view, 4)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        top = _best_by_colour(tr, lambda who: ops.aggregate(tr, who, "sum"), "series")
        return None if top is None else ops.color_of(tr, top)


@register
class ChainThresholdShare(_Chain):
    """The share of the total that the values above a threshold make up:
    VE per label → CP → NC (their sum), NC (the total) → NC."""

    name = "chain_threshold_share"
    task_type = "NC"
    chart_types = CATEGORY
    templates = (
        "What percentage of the total {series} over all {x_title} values comes from those "
        "where it is above {threshold}?",
        "Of the sum of {series} across the chart, what share in percent do the values higher "
        "than {threshold} make up?",
        "Taking only the {series} values above {threshold}, what percentage of the whole do "
        "they add up to?",
    )
    slots = slot_kinds(series="series", threshold="number")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 3 <= view.n <= 7 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        t = pick_threshold(view, ss[0], rng) if ss else None
        return None if ss is None or t is None else {"series": ss[0], "threshold": t}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s, t = str(args["series"]), float(args["threshold"])
        reads = [ops.read(tr, s, x) for x in tr.view.x_labels]
        if any(r is None for r in reads):
            return None
        got = [r for r in reads if r is not None]
        if any(r.number() <= 0 for r in got):
            return None  # a share of a total with negative parts means nothing
        kept = ops.select_of(tr, s, got, "above", t)
        if kept is None:
            return None
        part, whole = ops.total_of(tr, s, got, among=kept), ops.total_of(tr, s, got)
        if part is None or whole is None:
            return None
        return ops.arith(tr, "percent", part, whole)


@register
class ChainTopGaps(_Chain):
    """Is the lead of the largest value over the second bigger than that of the second
    over the third?  SO×3 → VE×3 → NC×2 → VC."""

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
        return super().applies(view) and view.n >= 3 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        places = [ops.kth(tr, s, k, "max") for k in (1, 2, 3)]
        if any(p is None for p in places):
            return None
        reads = [ops.read(tr, s, p) for p in places if p is not None]
        if any(r is None for r in reads):
            return None
        a, b, c = (r for r in reads if r is not None)
        first, second = ops.arith(tr, "sub", a, b), ops.arith(tr, "sub", b, c)
        return None if first is None or second is None else ops.compare(tr, first, second, "gt")


def _position_average(tr: Tracer, series: str | Op, args: Args) -> Op | None:
    """PR×3 → VE×3 → NC → VC: the mark at one position against the mean of two others."""
    places = [ops.label_at(tr, int(args[k])) for k in ("k", "k2", "k3")]
    if any(p is None for p in places):
        return None
    reads = [ops.read(tr, series, p) for p in places if p is not None]
    if any(r is None for r in reads):
        return None
    target, a, b = (r for r in reads if r is not None)
    mean = ops.arith(tr, "mean", a, b)
    return None if mean is None else ops.compare(tr, target, mean, "gt")


def _three_positions(
    view: ChartView, rng: random.Random, series: str | None = None
) -> dict[str, ArgValue] | None:
    """Three distinct positions; with a series, preferably ones whose values a reader can
    get within tolerance and whose comparison is clear (the chain is asked only then)."""
    if not view.x_unique or view.n < 3:
        return None
    col = view.values.get(series) if series is not None else None
    for _ in range(8):
        k, k2, k3 = rng.sample(range(1, view.n + 1), 3)
        if col is None:
            break
        vals = [col[i - 1] for i in (k, k2, k3)]
        if any(v is None or v == 0 or view.read_error(v) > 0.2 * abs(v) for v in vals):
            continue
        target, a, b = (float(v) for v in vals if v is not None)
        err = view.read_error(target)
        if view.distinct(target, (a + b) / 2, err_a=err, err_b=err):
            break
    return {"k": k, "k2": k2, "k3": k3}


@register
class ChainPositionAverage(_Chain):
    """Is the k-th mark from the left higher than the average of two other marks given by
    position?  PR×3 → VE×3 → NC → VC."""

    name = "chain_position_average"
    task_type = "VC"
    chart_types = (BARS - MULTI) | LINES
    templates = (
        "Is the {k} {mark} from the {side} higher than the average of the {k2} and the {k3} "
        "{marks}?",
        "Does the {k} {mark} counted from the {side} exceed the mean of the {k2} and the "
        "{k3} {marks}?",
        "Compared with the average of the {k2} and the {k3} {marks} from the {side}, is the "
        "{k} {mark} larger?",
    )
    slots = slot_kinds(k="ordinal", k2="ordinal", k3="ordinal")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and len(view.series) == 1 and view.n >= 3

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return _three_positions(view, rng, view.series[0])

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return _position_average(tr, tr.view.series[0], args)


@register
class ChainSeriesAverage(_Chain):
    """For one of several series, found by its colour: is its value at the k-th label from
    the left higher than its average at two other positions?  CI, PR×3 → VE×3 → NC → VC."""

    name = "chain_series_average"
    task_type = "VC"
    chart_types = BARS | LINES
    min_series = 2
    templates = (
        "For {series}, is the value at the {k} {x_title} from the {side} higher than the "
        "average of its values at the {k2} and the {k3}?",
        "Does {series} at the {k} {x_title} counted from the {side} exceed its mean over the "
        "{k2} and the {k3}?",
        "Compared with its average at the {k2} and the {k3} {x_title} from the {side}, is "
        "{series} larger at the {k}?",
    )
    slots = slot_kinds(series="series", k="ordinal", k2="ordinal", k3="ordinal")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and _colour_keyed(view, 8) and view.n >= 3

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        ks = _three_positions(view, rng, ss[0]) if ss else None
        return None if ks is None or ss is None else {"series": ss[0], **ks}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        colour = ops.color_of(tr, str(args["series"]))
        return None if colour is None else _position_average(tr, colour, args)


@register
class ChainPositionShare(_Chain):
    """What share of the whole do the marks at two positions make up together?
    [CI →] PR, PR → VE, VE → NC; NC (the whole) → NC.  No step compares values, so the
    chain stays answerable on charts whose values are too close to rank."""

    name = "chain_position_share"
    task_type = "NC"
    fallback = True
    chart_types = CATEGORY - STACKED_BARS
    templates = (
        "What percentage of the total {series} over all {x_title} values do the {k} and the "
        "{k2} {mark} from the {side} make up together?",
        "Together, what share in percent of the sum of {series} do the {k} and the {k2} "
        "{marks} counted from the {side} hold?",
        "Adding the {k} and the {k2} {mark} from the {side}, how many percent of the whole "
        "{series} is that?",
    )
    slots = slot_kinds(series="series", k="ordinal", k2="ordinal")

    def applies(self, view: ChartView) -> bool:
        multi = len(view.series) > 1
        return (
            super().applies(view)
            and view.n >= 3
            and view.x_unique
            and (not multi or _colour_keyed(view, 8))
        )

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        col = view.column(ss[0]) if ss else None
        if ss is None or col is None or any(v <= 0 for v in col):
            return None  # shares of a total with negative parts mean nothing
        # positions whose values a reader gets within tolerance
        ok = [i + 1 for i, v in enumerate(col) if view.read_error(v) <= 0.2 * v]
        if len(ok) < 2:
            return None
        k, k2 = rng.sample(ok, 2)
        return {"series": ss[0], "k": k, "k2": k2}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = str(args["series"])
        key: str | Op = s
        if len(tr.view.series) > 1:
            colour = ops.color_of(tr, s)
            if colour is None:
                return None
            key = colour
        a, b = ops.label_at(tr, int(args["k"])), ops.label_at(tr, int(args["k2"]))
        if a is None or b is None:
            return None
        va, vb = ops.read(tr, key, a), ops.read(tr, key, b)
        if va is None or vb is None:
            return None
        both, whole = ops.arith(tr, "add", va, vb), ops.aggregate(tr, key, "sum")
        if both is None or whole is None:
            return None
        return ops.arith(tr, "percent", both, whole)


@register
class ChainGrowth(_Chain):
    """The colour of the series that grew the most between two x labels:
    (VE, VE → NC) per series → VC → CI."""

    name = "chain_growth"
    task_type = "CI"
    chart_types = MULTI
    min_series = 2
    templates = (
        "What colour is the series that grew the most from {x} to {x2}?",
        "Between {x} and {x2}, which colour has the series with the largest increase?",
        "From {x} to {x2}, in what colour is the series that gains the most drawn?",
    )
    slots = slot_kinds(x="x", x2="x")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and _ordered(view) and _colour_keyed(view, 3)

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
        top = ops.best_of(tr, tuple(changes), "max", "series")
        return None if top is None else ops.color_of(tr, top)


@register
class ChainPieTopShare(_Chain):
    """The share of the pie taken by its two largest wedges:
    SO → SO, SO → VE, VE → NC; NC (the whole) → NC."""

    name = "chain_pie_top_share"
    task_type = "NC"
    chart_types = PIES
    templates = (
        "What percentage of the pie do the two largest wedges make up together?",
        "Together, what share of the whole, in percent, do the two biggest wedges take?",
        "How many percent of the total belong to the two largest segments combined?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and 3 <= view.n <= 10 and view.x_unique

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s = tr.view.series[0]
        order = ops.sort(tr, s, True)
        if order is None:
            return None
        first, second = ops.nth_of(tr, order, 1), ops.nth_of(tr, order, 2)
        if first is None or second is None:
            return None
        a, b = ops.read(tr, s, first), ops.read(tr, s, second)
        if a is None or b is None:
            return None
        both = ops.arith(tr, "add", a, b)
        whole = ops.aggregate(tr, s, "sum")
        if both is None or whole is None:
            return None
        return ops.arith(tr, "percent", both, whole)


class _ScatterSlope(_Chain):
    """Does the line between two extreme points slope the way the correlation goes?
    VE×4 → NC×2 (left to right: VE×2 → NC; NC); TI → TI."""

    task_type = "TI"
    chart_types = SCATTERS
    slots = slot_kinds(series="series")
    by: str
    """Which coordinate picks the two points: "y" (lowest, highest) or "x" (leftmost,
    rightmost)."""

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        s, by = str(args["series"]), self.by
        y_hi, y_lo = ops.point_extreme(tr, s, "max", by=by), ops.point_extreme(tr, s, "min", by=by)
        if y_hi is None or y_lo is None:
            return None
        dy = ops.arith(tr, "sub", y_hi, y_lo)
        if by == "x":
            # left to right is the x spread itself (single x coordinates near zero could
            # not be held to a relative tolerance)
            dx = ops.point_spread(tr, s, "x")
        else:
            x_hi, x_lo = ops.point_extreme(tr, s, "max", "x"), ops.point_extreme(tr, s, "min", "x")
            dx = None if x_hi is None or x_lo is None else ops.arith(tr, "sub", x_hi, x_lo)
        band = ops.corr_direction(tr, s)
        if dx is None or dy is None or band is None:
            return None
        return ops.slope_agrees(tr, dx, dy, band)


@register
class ChainScatterSlope(_ScatterSlope):
    """From the lowest to the highest point."""

    name = "chain_scatter_slope"
    by = "y"
    templates = (
        "For {series}, does the line from the lowest to the highest point slope the same way "
        "as the overall correlation?",
        "Does going from the lowest to the highest point of {series} agree in direction with "
        "the correlation the points show?",
        "Is the direction from the bottom-most to the top-most point of {series} the same as "
        "that of its correlation?",
    )


@register
class ChainScatterEnds(_ScatterSlope):
    """From the leftmost to the rightmost point."""

    name = "chain_scatter_ends"
    by = "x"
    templates = (
        "For {series}, does the line from the leftmost to the rightmost point slope the same "
        "way as the overall correlation?",
        "Does going from the leftmost to the rightmost point of {series} agree in direction "
        "with the correlation the points show?",
        "Is the direction from the first to the last point of {series} along the "
        "{x_title} axis the same as that of its correlation?",
    )


@register
class ChainScatterExtent(_Chain):
    """How steep is the point cloud from corner to corner of its extent, in the direction
    its correlation goes?  CI → NC, NC, TI → NC."""

    name = "chain_scatter_extent"
    task_type = "NC"
    chart_types = SCATTERS
    templates = (
        "Going across the points of {series} in the direction of their correlation, how much "
        "does {y_title} change per unit of {x_title} from one corner of their extent to the "
        "other?",
        "If {series} ran from corner to corner of the range of its points, following its "
        "correlation, what would the change in {y_title} per unit of {x_title} be?",
        "From the extent of the points of {series} and the sign of their correlation, what "
        "is the corner-to-corner slope of {y_title} per unit of {x_title}?",
    )
    slots = slot_kinds(series="series")

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and bool(view.colors)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        colour = ops.color_of(tr, str(args["series"]))
        if colour is None:
            return None
        # spreads rather than single points: the lowest point often sits near zero, where
        # no relative tolerance could hold a reading of it
        dy, dx = ops.point_spread(tr, colour, "y"), ops.point_spread(tr, colour, "x")
        band = ops.corr_direction(tr, colour)
        if dy is None or dx is None or band is None:
            return None
        return ops.extent_slope(tr, dy, dx, band)


@register
class ChainScatterGroups(_Chain):
    """What correlation does the group with the highest point show?
    CI per colour → VE per group → VC → TI."""

    name = "chain_scatter_groups"
    task_type = "TI"
    chart_types = SCATTERS
    min_series = 2
    templates = (
        "What kind of correlation does the group with the highest point show?",
        "Which correlation band describes the group that reaches the highest {y_title}?",
        "The group whose top point is highest: what kind of correlation do its points follow?",
    )

    def applies(self, view: ChartView) -> bool:
        return super().applies(view) and _colour_keyed(view, 4)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        best = _best_by_colour(tr, lambda who: ops.point_extreme(tr, who, "max"), "group")
        return None if best is None else ops.corr_class(tr, best)
