"""Arithmetic on values read from the chart: sums, differences, ratios, averages, medians,
stack totals and counts of chart elements (ChartR NC)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from chartproof.questions.describe import marks_of, series_mark
from chartproof.questions.ops.compare import labelled_values
from chartproof.questions.ops.extract import Label, refs, resolve
from chartproof.questions.ops.steps import (
    StepRun,
    combining,
    given,
    name_steps,
    named_steps,
    step_question,
    step_slot,
)
from chartproof.questions.program import ArgValue
from chartproof.questions.trace import Op, Tracer, ref
from chartproof.questions.view import ChartView

__all__ = [
    "AGGREGATES",
    "ARITH",
    "aggregate",
    "arith",
    "best_of",
    "count_items",
    "equal",
    "stack_total",
    "widest_gap",
]

ARITH = ("add", "sub", "absdiff", "div", "mean", "percent")
"""Binary operations `arith` knows."""

AGGREGATES = ("sum", "mean", "median", "range")
"""Whole-series aggregates `aggregate` knows."""

_COUNTABLE = ("lines", "legend_labels", "series", "marks", "labels")


_A, _B = step_slot("a"), step_slot("b")


def _arith_of(fn: str) -> StepRun:
    return combining(lambda tr, a, b: arith(tr, fn, a, b))


_ARITH_Q = {
    fn: step_question("arith", template, _arith_of(fn), a="number", b="number")
    for fn, template in (
        ("add", f"What is {_A} plus {_B}?"),
        ("sub", f"What is {_A} minus {_B}?"),
        ("absdiff", f"What is the difference between {_A} and {_B}?"),
        ("mean", f"What is the average of {_A} and {_B}?"),
        ("div", f"What is the ratio of {_A} to {_B}?"),
        ("percent", f"What percentage of {_B} is {_A}?"),
    )
}
"""The question `arith` writes for each operation (the steps of `a` and `b` as slots)."""
step_question("arith", f"What is {_A} divided by {_B}?", _arith_of("div"), a="number", b="number")


def arith(tr: Tracer, fn: str, a: Op, b: Op) -> Op | None:
    """`a` plus / minus / absolute difference / divided by `b` (NC)."""
    view = tr.view
    x, y = a.number(), b.number()
    err = a.err + b.err
    free = fn in ("div", "percent") or (a.free and b.free)
    if fn == "add":
        v, note = x + y, "plus"
    elif fn == "sub":
        v, note = x - y, "minus"
    elif fn == "absdiff":
        v, note = abs(x - y), "minus"
        if x < y:
            x, y = y, x
    elif fn == "mean":
        v, err, note = (x + y) / 2, err / 2, "averaged with"
    elif fn in ("div", "percent"):
        if y == 0 or b.err >= abs(y):
            return None
        v = x / y
        err = abs(v) * ((a.err / abs(x) if x else 0.0) + b.err / abs(y))
        note = "divided by"
        if fn == "percent":
            v, err, note = v * 100, err * 100, "as a percentage of"
    else:
        raise ValueError(f"unknown arithmetic {fn!r}; known: {ARITH}")
    return tr.add(
        "arith",
        "NC",
        _ARITH_Q[fn].format(a=a.id + 1, b=b.id + 1),
        float(v),
        "number",
        depends_on=(a, b),
        args={"fn": fn, "a": ref(a), "b": ref(b)},
        note=f"{view.fmt(x, free=a.free)} {note} {view.fmt(y, free=b.free)} is "
        f"{view.fmt(v, free=free)}",
        err=err,
        unit={"div": None, "percent": "%"}.get(fn, a.unit),
        free=free,
    )


def widest_gap(tr: Tracer, series: str, exclude: tuple[str, str]) -> Op | None:
    """The largest difference between the values at any two x labels other than the pair
    `exclude` (NC)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs or len(pairs) < 3:
        return None
    skip = set(exclude)
    best: tuple[float, str, str] | None = None
    for i, (la, va) in enumerate(pairs):
        for lb, vb in pairs[i + 1 :]:
            if {la, lb} == skip:
                continue
            gap = abs(va - vb)
            if best is None or gap > best[0]:
                best = (gap, la, lb)
    if best is None:
        return None
    gap, la, lb = best
    return tr.add(
        "widest_gap",
        "NC",
        f"What is the largest difference in {series} between any two {view.x_label} values "
        f"other than {exclude[0]} and {exclude[1]}?",
        gap,
        "number",
        cells=tuple((lab, series) for lab, _ in pairs),
        args={"series": series, "exclude": list(exclude)},
        note=f"apart from {exclude[0]} and {exclude[1]}, the widest gap of {series} is between "
        f"{la} and {lb}, {view.fmt(gap)}",
        err=2 * max(view.read_error(v) for _, v in pairs),
        unit=view.unit,
    )


def _best_of_run(which: str) -> StepRun:
    def run(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
        named = named_steps(str(args["results"]))
        if named is None:
            return None
        slots = {str(i): n for i, (_, n) in enumerate(named)}
        found = given(tr, slots, *slots)
        if found is None:
            return None
        return best_of(tr, tuple(zip([n for n, _ in named], found, strict=True)), which, "")

    return run


_BEST_Q = {
    which: step_question(
        "best_of",
        f"Which {{kind}} has the {word} result: {{results}}?",
        _best_of_run(which),
        results="named_steps",
    )
    for which, word in (("max", "largest"), ("min", "smallest"))
}
"""What `best_of` asks: every candidate named with the step of its result."""


def best_of(tr: Tracer, results: tuple[tuple[Label, Op], ...], which: str, kind: str) -> Op | None:
    """Which of several earlier numeric results, each named (e.g. by its series), is
    largest ("max") or smallest ("min") (VC). The question names every candidate with the
    step of its result ("Berlin (step 3), Amsterdam (step 6) or Vienna (step 9)"); a name
    an earlier step found is named by that step ("the series from step 1 (step 3)") and
    becomes a dependency, so the step's request carries every name it needs."""
    view = tr.view
    named = [(resolve(tr, label, kind), op) for label, op in results]
    names = [n for (n, _, _), _ in named]
    if len(results) < 2 or len(set(names)) != len(names) or not all(names):
        return None
    ranked = sorted(named, key=lambda p: p[1].number(), reverse=which == "max")
    ((top, _, _), a), (_, b) = ranked[0], ranked[1]
    if not view.distinct(a.number(), b.number(), err_a=a.err, err_b=b.err):
        return None
    word = "largest" if which == "max" else "smallest"
    cands = name_steps([(text, op.id + 1) for (_, text, _), op in named])
    deps = {d.id: d for (_, _, found), op in named for d in (*found, op)}
    return tr.add(
        "best_of",
        "VC",
        _BEST_Q[which].format(kind=kind, results=cands),
        top,
        "text",
        depends_on=tuple(deps[i] for i in sorted(deps)),
        args={
            "results": [
                {"label": n, "ref": op.id, **refs("label", found)} for (n, _, found), op in named
            ],
            "which": which,
            "kind": kind,
        },
        note=f"{top} has the {word} result, {view.fmt(a.number(), free=a.free)}",
    )


def aggregate(tr: Tracer, series: Label, fn: str) -> Op | None:
    """Sum, mean, median or range (highest minus lowest) of all values of `series` (NC);
    `series` may be an earlier step's answer (a series name or its colour)."""
    view = tr.view
    series, s_text, deps = resolve(tr, series, "series")
    pairs = labelled_values(view, series)
    if not pairs:
        return None
    vals = [v for _, v in pairs]
    errs = [view.read_error(v) for v in vals]
    listing = _listing(view, vals)
    if fn == "sum":
        v, err = sum(vals), sum(errs)
        q, tail = f"What is the total of {s_text}?", f"add up to {view.fmt(v)}"
    elif fn == "mean":
        v, err = statistics.fmean(vals), statistics.fmean(errs)
        q, tail = f"What is the average of {s_text}?", f"average {view.fmt(v)}"
    elif fn == "median":
        v, err = statistics.median(vals), max(errs)
        q, tail = f"What is the median of {s_text}?", f"have the median {view.fmt(v)}"
    elif fn == "range":
        hi, lo = max(vals), min(vals)
        v, err = hi - lo, view.read_error(hi) + view.read_error(lo)
        q = f"What is the difference between the highest and the lowest {s_text}?"
        tail = f"run from {view.fmt(lo)} to {view.fmt(hi)}, a difference of {view.fmt(v)}"
    else:
        raise ValueError(f"unknown aggregate {fn!r}; known: {AGGREGATES}")
    return tr.add(
        "aggregate",
        "NC",
        q,
        float(v),
        "number",
        depends_on=deps,
        cells=tuple((lab, series) for lab, _ in pairs),
        args={"series": series, "fn": fn, **refs("series", deps)},
        note=f"the values of {series_mark(view, series)} are {listing}, which {tail}",
        err=err,
        unit=view.unit,
    )


def _listing(view: ChartView, vals: list[float]) -> str:
    shown = [view.fmt(v) for v in vals]
    if len(shown) > 8:
        return f"{len(shown)} numbers from {min(vals)} to {max(vals)}"
    return ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else shown[0]


def stack_total(tr: Tracer, x: str) -> Op | None:
    """The total height of the stacked bar at `x`: the sum of its segments (NC)."""
    view = tr.view
    vals = [view.value(s, x) for s in view.series]
    if any(v is None for v in vals) or len(vals) < 2:
        return None
    nums = [float(v) for v in vals if v is not None]
    total = sum(nums)
    if view.value_labels:
        note = f"the segments of the {x} bar, " + " + ".join(view.fmt(v) for v in nums)
        note += f", stack up to {view.fmt(total)}"
    else:
        note = f"the top of the stacked bar for {x} reaches {view.fmt(total)}"
    return tr.add(
        "stack_total",
        "NC",
        f"What is the total of all segments in {x}?",
        total,
        "number",
        cells=tuple((x, s) for s in view.series),
        args={"x": x},
        note=note,
        err=view.read_error(total),
        unit=view.unit,
    )


def count_items(tr: Tracer, what: str) -> Op | None:
    """How many lines, legend labels, series, marks or x labels the chart shows (NC)."""
    view = tr.view
    if what == "lines":
        if view.chart_type != "line":
            return None
        n, q = len(view.series), "How many lines does the chart show?"
        note = f"the plot draws {n} line{'s' if n != 1 else ''}"
    elif what == "legend_labels":
        n = len(view.x_labels if view.kind.color_keys == "x" else view.series) if view.legend else 0
        q = "How many labels does the legend list?"
        note = f"the legend lists {n} label{'s' if n != 1 else ''}" if n else "no legend is drawn"
    elif what == "series":
        if view.kind.data == "boxes":
            return None  # a box plot's boxes are categories, not series
        n, q = len(view.series), "How many data series does the chart show?"
        note = f"the chart shows {n} data series"
    elif what == "marks":
        if view.kind.data == "points":
            return None
        n = view.n * (1 if view.kind.color_keys == "x" else len(view.series))
        q = f"How many {marks_of(view)} does the chart show?"
        note = f"the chart shows {n} {marks_of(view)}"
    elif what == "labels":
        if view.kind.data == "points" or not view.x_labels:
            return None
        n, q = view.n, f"How many {view.x_label} values does the chart show?"
        shown = ", ".join(view.x_labels[:6]) + (", …" if n > 6 else "")
        note = f"the chart shows {n} {view.x_label} labels ({shown})"
    else:
        raise ValueError(f"unknown count {what!r}; known: {_COUNTABLE}")
    return tr.add(
        "count_items",
        "NC",
        q,
        float(n),
        "number",
        args={"what": what},
        note=note,
        exact=True,
    )


_EQUAL_Q = step_question(
    "equal",
    f"Is {_A} equal to {_B}?",
    combining(lambda tr, a, b: equal(tr, a, b)),
    a="number",
    b="number",
)


def equal(tr: Tracer, a: Op, b: Op) -> Op | None:
    """Whether two results are equal (VC); for exact results such as counts."""
    if not (a.exact and b.exact):
        return None
    truth = a.value == b.value
    return tr.add(
        "equal",
        "VC",
        _EQUAL_Q.format(a=a.id + 1, b=b.id + 1),
        truth,
        "bool",
        depends_on=(a, b),
        args={"a": ref(a), "b": ref(b)},
        note=f"{a.text()} {'equals' if truth else 'differs from'} {b.text()}",
    )
