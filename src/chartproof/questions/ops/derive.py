"""Operations computed from earlier steps' results rather than from the chart: filtering,
summing values read in earlier steps, picking from an earlier ranking, trends
from earlier positions and values, and the points of scatter plots (ChartR chains).

Because they use only their inputs' values, a chain built from them has real
dependencies: change an earlier answer and every later step that uses it changes too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chartproof.numeric import parse_number
from chartproof.questions.describe import ordinal, series_mark
from chartproof.questions.ops.extract import Label, refs, resolve, x_noun
from chartproof.questions.ops.filter import condition_text
from chartproof.questions.ops.shape import pearson
from chartproof.questions.ops.steps import StepRun, given, step_question, step_slot
from chartproof.questions.program import ArgValue
from chartproof.questions.trace import Op, Tracer, ref

__all__ = [
    "corr_direction",
    "extent_slope",
    "nth_of",
    "point_extreme",
    "point_spread",
    "select_of",
    "slope_agrees",
    "total_of",
    "trend_of",
]


def _steps(ops: Sequence[Op]) -> str:
    nums = [str(op.id + 1) for op in ops]
    return nums[0] if len(nums) == 1 else ", ".join(nums[:-1]) + f" and {nums[-1]}"


def _read_labels(reads: Sequence[Op]) -> list[str] | None:
    """The x label each read step looked at; None unless all are distinct reads."""
    labels = [r.args.get("x") for r in reads]
    if not all(isinstance(x, str) for x in labels) or len(set(labels)) != len(labels):
        return None
    return [str(x) for x in labels]


def _recalled(tr: Tracer, listed: ArgValue) -> tuple[Op, ...] | None:
    """The recalled answers of the steps a "numbers" slot lists ("1, 2, 3"), all numbers."""
    steps = [parse_number(s) for s in str(listed).split(",")]
    numbered = {str(i): s for i, s in enumerate(steps) if s is not None}
    return None if len(numbered) < len(steps) else given(tr, numbered, *numbered)


def _label_list(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
    """The recalled answer of step `a` as labels: a list, or one label ("Italy", "2019")."""
    for kind in ("list", "text", "number"):
        found = given(tr, args, "a", kind=kind)
        if found is not None:
            return found[0]
    return None


def _select(cond: str) -> StepRun:
    def run(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
        reads = _recalled(tr, args["values"])
        hi = float(args["hi"]) if "hi" in args else None
        if reads is None:
            return None
        return select_of(tr, str(args["series"]), reads, cond, float(args["lo"]), hi)

    return run


def _total(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
    reads = _recalled(tr, args["values"])
    among = _label_list(tr, args) if "a" in args else None
    if reads is None or ("a" in args and among is None):
        return None
    return total_of(tr, "", reads, among)


_SELECT_Q = {
    cond: step_question(
        "select",
        f"Of the {{x_title}} values read in steps {{values}}, which have {{series}} {text}?",
        _select(cond),
        values="numbers",
        series="series",
        lo="number",
        **({"hi": "number"} if cond == "between" else {}),
    )
    for cond, text in (
        ("above", "above {lo}"),
        ("below", "below {lo}"),
        ("between", "between {lo} and {hi}"),
    )
}
_SUM_Q = step_question(
    "total_of", "What is the sum of the values from steps {values}?", _total, values="numbers"
)
_SUM_AMONG_Q = step_question(
    "total_of",
    "What is the sum of the values from steps {values} at the {x_title} values of "
    + step_slot("a")
    + "?",
    _total,
    values="numbers",
    a="number",
)


def select_of(
    tr: Tracer, series: str, reads: Sequence[Op], cond: str, lo: float, hi: float | None = None
) -> Op | None:
    """The x labels among earlier reads whose value is above, below or between thresholds
    (CP), in display order."""
    view = tr.view
    labels = _read_labels(reads)
    if labels is None or len(reads) < 2:
        return None
    bounds = [lo] if hi is None else [lo, hi]
    # as `select` does: no value so close to a bound that a reader could put it either side
    if any(not view.distinct(r.number(), b) for r in reads for b in bounds):
        return None
    top = hi if hi is not None else lo

    def holds(v: float) -> bool:
        if cond == "above":
            return v > lo
        if cond == "below":
            return v < lo
        return lo < v < top

    kept = [(lab, r) for lab, r in zip(labels, reads, strict=True) if holds(r.number())]
    if not kept:
        return None
    text = condition_text(view, cond, lo, hi)
    return tr.add(
        "select",
        "CP",
        _SELECT_Q[cond].format(
            x_title=view.x_label,
            values=_steps(reads),
            series=series,
            lo=view.fmt(lo),
            hi=view.fmt(top),
        ),
        tuple(lab for lab, _ in kept),
        "list",
        depends_on=tuple(reads),
        cells=tuple((lab, series) for lab in labels),
        args={
            "series": series,
            "cond": cond,
            "lo": lo,
            "hi": hi,
            "values": [ref(r) for r in reads],
        },
        note=f"of the values read, those {text} are at "
        + ", ".join(f"{lab} ({view.fmt(r.number())})" for lab, r in kept),
    )


def total_of(tr: Tracer, series: str, reads: Sequence[Op], among: Op | None = None) -> Op | None:
    """The sum of earlier reads, optionally only of those at the labels an earlier step
    kept (NC)."""
    view = tr.view
    labels = _read_labels(reads)
    if labels is None:
        return None
    keep = set(labels)
    if among is not None:
        chosen = set(map(str, among.value)) if isinstance(among.value, tuple) else {among.text()}
        if not chosen <= keep:
            return None
        keep = chosen
    used = [r for lab, r in zip(labels, reads, strict=True) if lab in keep]
    if not used:
        return None
    total = sum(r.number() for r in used)
    q = (_SUM_Q if among is None else _SUM_AMONG_Q).format(
        values=_steps(reads), x_title=view.x_label, a=among.id + 1 if among else 0
    )
    return tr.add(
        "total_of",
        "NC",
        q,
        float(total),
        "number",
        depends_on=tuple(reads) + ((among,) if among is not None else ()),
        cells=tuple((str(r.args["x"]), series) for r in used),
        args={
            "series": series,
            "values": [ref(r) for r in reads],
            "among": ref(among) if among is not None else None,
        },
        note=" + ".join(view.fmt(r.number()) for r in used) + f" = {view.fmt(total)}",
        err=sum(r.err for r in used),
        unit=view.unit,
    )


def _nth(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
    ranking = given(tr, args, "a", kind="list")
    return None if ranking is None else nth_of(tr, ranking[0], int(args["k"]))


_NTH_Q = step_question(
    "nth_of", f"Which {{noun}} comes {{k}} in the order of {step_slot('a')}?", _nth, k="ordinal",
    a="number",
)  # fmt: skip


def nth_of(tr: Tracer, ranking: Op, k: int) -> Op | None:
    """The label in place k of an earlier ranked list (SO)."""
    items = ranking.value
    if not isinstance(items, tuple) or not 1 <= k <= len(items):
        return None
    label = str(items[k - 1])
    noun = x_noun(tr.view)
    return tr.add(
        "nth_of",
        "SO",
        _NTH_Q.format(noun=noun, k=ordinal(k), a=ranking.id + 1),
        label,
        "text",
        depends_on=(ranking,),
        args={"ranking": ref(ranking), "k": k},
        note=f"{label} comes {ordinal(k)} in that order",
    )


def trend_of(tr: Tracer, series: str, pos_a: Op, val_a: Op, pos_b: Op, val_b: Op) -> Op | None:
    """ "increasing" or "decreasing": from the earlier to the later of two marks, given their
    positions and values found in earlier steps (TI)."""
    view = tr.view
    pa, pb = pos_a.number(), pos_b.number()
    if pa == pb or not view.distinct(
        val_a.number(), val_b.number(), err_a=val_a.err, err_b=val_b.err
    ):
        return None
    (_, first), (_, last) = sorted(((pa, val_a), (pb, val_b)), key=lambda p: p[0])
    value = "increasing" if last.number() > first.number() else "decreasing"
    return tr.add(
        "trend_of",
        "TI",
        f"Going from the earlier to the later of the positions in {tr.step_ref(pos_a)} and "
        f"{tr.step_ref(pos_b)}, is {series} (steps {val_a.id + 1} and {val_b.id + 1}) "
        "increasing or decreasing?",
        value,
        "text",
        depends_on=(pos_a, val_a, pos_b, val_b),
        args={
            "series": series,
            "pos_a": ref(pos_a),
            "val_a": ref(val_a),
            "pos_b": ref(pos_b),
            "val_b": ref(val_b),
        },
        note=f"{series} goes from {view.fmt(first.number())} to {view.fmt(last.number())}, "
        f"{'an' if value == 'increasing' else 'a'} {value} trend",
    )


def point_extreme(
    tr: Tracer, series: Label, which: str, axis: str = "y", by: str = "y"
) -> Op | None:
    """Scatter plots: the `axis` coordinate of the point of a series that is highest or
    lowest (`by` "y"), or rightmost or leftmost (`by` "x") (VE); `series` may be an earlier
    step's answer."""
    view = tr.view
    s, s_text, deps = resolve(tr, series, "group")
    pts = view.points.get(s)
    if not pts or len(pts) < 2:
        return None
    k = 1 if by == "y" else 0
    ranked = sorted(pts, key=lambda p: p[k], reverse=which == "max")
    xs = [p[0] for p in pts]
    # x values are not in value-axis units: a reader places them to about 1.5 % of their span
    x_err = 0.015 * (max(xs) - min(xs))
    # two points about as high (or as far right) are a problem only for the other
    # coordinate: either one gives the same answer for the one that picks them
    if axis != by and by == "y" and not view.distinct(ranked[0][1], ranked[1][1]):
        return None
    if axis != by and by == "x" and abs(ranked[0][0] - ranked[1][0]) <= 2 * x_err:
        return None
    x, y = ranked[0]
    if by == "y":
        end = "highest" if which == "max" else "lowest"
    else:
        end = "rightmost" if which == "max" else "leftmost"
    if axis == "y":
        v, q = y, f"What is the {view.y_label} of the {end} point of {s_text}?"
        err, free = view.read_error(y), False
    else:
        v, q = x, f"What is the {view.x_label} of the {end} point of {s_text}?"
        err, free = x_err, True
    return tr.add(
        "point_extreme",
        "VE",
        q,
        float(v),
        "number",
        depends_on=deps,
        cells=((s, s),),
        args={"series": s, "which": which, "axis": axis, "by": by, **refs("series", deps)},
        note=f"the {end} of {series_mark(view, s)} sits at {view.x_label} "
        f"{view.fmt(x, free=True)}, {view.y_label} {view.fmt(y)}",
        err=err,
        unit=None if axis == "x" else view.unit,
        free=free,
    )


def slope_agrees(tr: Tracer, dx: Op, dy: Op, band: Op) -> Op | None:
    """Whether the line from the lowest to the highest point slopes the way the named
    correlation band says (positive bands rise, negative ones fall) (TI)."""
    view = tr.view
    bname = band.value
    if not isinstance(bname, str) or not bname.endswith(("positive", "negative")):
        return None
    if abs(dx.number()) <= dx.err or abs(dy.number()) <= dy.err:
        return None  # a reader could not tell which way the two points lie
    rising = (dx.number() > 0) == (dy.number() > 0)
    truth = rising == bname.endswith("positive")
    slope = "rises" if rising else "falls"
    return tr.add(
        "slope_agrees",
        "TI",
        f"Does the line through the points of {tr.step_ref(dx)} and {tr.step_ref(dy)} slope "
        f"the way {tr.step_ref(band)} says?",
        truth,
        "bool",
        depends_on=(dx, dy, band),
        args={"dx": ref(dx), "dy": ref(dy), "band": ref(band)},
        note=f"between the two points the cloud {slope} "
        f"({view.x_label} changes by {view.fmt(dx.number(), free=True)}), which "
        f"{'matches' if truth else 'contradicts'} a {bname} correlation",
    )


def extent_slope(tr: Tracer, dy: Op, dx: Op, band: Op) -> Op | None:
    """The rise of y per unit of x across the extent of a point cloud, signed by the
    direction of its correlation band: ±(y range / x range) (NC)."""
    view = tr.view
    bname = band.value
    if not isinstance(bname, str) or not bname.endswith(("positive", "negative")):
        return None
    y, x = dy.number(), dx.number()
    if x <= dx.err or y <= 0:
        return None
    sign = 1.0 if bname.endswith("positive") else -1.0
    v = sign * y / x
    err = abs(v) * (dy.err / y + dx.err / x)
    return tr.add(
        "extent_slope",
        "NC",
        f"With the spread of {tr.step_ref(dy)} over the spread of {tr.step_ref(dx)}, signed "
        f"by the direction of {tr.step_ref(band)}, what is the change per unit?",
        float(v),
        "number",
        depends_on=(dy, dx, band),
        args={"dy": ref(dy), "dx": ref(dx), "band": ref(band)},
        note=f"{view.fmt(y)} over {view.fmt(x, free=True)}, "
        f"{'rising' if sign > 0 else 'falling'} with the {bname} correlation, is "
        f"{view.fmt(v, free=True)} per unit",
        err=err,
        free=True,
    )


def point_spread(tr: Tracer, series: Label, axis: str = "x") -> Op | None:
    """Scatter plots: how far the points of a series spread along one axis, from the
    leftmost to the rightmost (or the lowest to the highest) point (NC)."""
    view = tr.view
    s, s_text, deps = resolve(tr, series, "group")
    pts = view.points.get(s)
    if not pts or len(pts) < 2:
        return None
    k = 0 if axis == "x" else 1
    vals = [p[k] for p in pts]
    v = max(vals) - min(vals)
    if axis == "x":
        # two x coordinates, each placed to about 1.5 % of the x span
        title, ends, err = view.x_label, "leftmost and the rightmost", 0.03 * v
    else:
        title, ends = view.y_label, "lowest and the highest"
        err = view.read_error(max(vals)) + view.read_error(min(vals))
    return tr.add(
        "point_spread",
        "NC",
        f"How far apart in {title} are the {ends} point of {s_text}?",
        float(v),
        "number",
        depends_on=deps,
        cells=((s, s),),
        args={"series": s, "axis": axis, **refs("series", deps)},
        note=f"the points of {series_mark(view, s)} run over {view.fmt(v, free=axis == 'x')} "
        f"of {title}",
        err=err,
        unit=None if axis == "x" else view.unit,
        free=axis == "x",
    )


def corr_direction(tr: Tracer, series: Label) -> Op | None:
    """Scatter plots: whether the points of a series go up ("positive") or down
    ("negative") with x, by the sign of Pearson's r (TI); None when |r| < 0.2, too weak
    for a reader to see a direction."""
    view = tr.view
    s, s_text, deps = resolve(tr, series, "group")
    pts = view.points.get(s)
    r = pearson(pts) if pts else None
    if r is None or abs(r) < 0.2:
        return None
    value = "positive" if r > 0 else "negative"
    return tr.add(
        "corr_direction",
        "TI",
        f"Is the correlation that {s_text} show positive or negative?",
        value,
        "text",
        depends_on=deps,
        cells=((s, s),),
        args={"series": s, **refs("series", deps)},
        note=f"{series_mark(view, s)} {'rise' if r > 0 else 'fall'} as {view.x_label} grows "
        f"(Pearson r about {r:.2f}), a {value} correlation",
    )
