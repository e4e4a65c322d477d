"""Operations that compare and order values: extremes, pairwise comparisons, ranks and
sorted lists (ChartR VC and SO)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from chartproof.questions.describe import mark_name, ordinal, series_mark
from chartproof.questions.ops.steps import StepRun, combining, given, step_question, step_slot
from chartproof.questions.program import ArgValue
from chartproof.questions.trace import Op, Tracer, ref
from chartproof.questions.view import ChartView

__all__ = [
    "compare",
    "extreme",
    "extreme_series",
    "extreme_value",
    "kth",
    "kth_value",
    "larger",
    "order_series",
    "rank_of",
    "sort",
]


def superlative(view: ChartView, which: str) -> str:
    """ "tallest" / "shortest" for vertical bars, "longest" for horizontal ones, and so on."""
    high = which == "max"
    family = view.kind.family
    if family == "pie":
        return "largest" if high else "smallest"
    if family == "bar" and view.orientation == "horizontal":
        return "longest" if high else "shortest"
    if family == "bar":
        return "tallest" if high else "shortest"
    return "highest" if high else "lowest"


def word(which: str) -> str:
    """ "max" → "highest", "min" → "lowest"."""
    return "highest" if which == "max" else "lowest"


def labelled_values(
    view: ChartView, series: str, among: Sequence[str] | None = None
) -> list[tuple[str, float]] | None:
    """(label, value) of a series, restricted to `among`; None when any is missing."""
    col = view.values.get(series)
    if col is None or not view.x_unique:
        return None
    keep = None if among is None else set(among)
    out: list[tuple[str, float]] = []
    for lab, v in zip(view.x_labels, col, strict=True):
        if keep is not None and lab not in keep:
            continue
        if v is None:
            return None
        out.append((lab, v))
    return out


def _ordered(view: ChartView, pairs: list[tuple[str, float]], descending: bool) -> bool:
    """Whether neighbours in the sorted order are all distinguishable."""
    return bool(pairs) and all(view.distinct(a[1], b[1]) for a, b in itertools.pairwise(pairs))


def _extreme_among(which: str) -> StepRun:
    def run(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
        among = given(tr, args, "a", kind="list")
        return None if among is None else extreme(tr, str(args["series"]), which, among[0])

    return run


_AMONG_Q = {
    which: step_question(
        "extreme",
        f"Among the {{x_title}} values of {step_slot('a')}, which has the {word(which)} "
        "{series}?",
        _extreme_among(which),
        a="number",
        series="series",
    )
    for which in ("max", "min")
}


def extreme(tr: Tracer, series: str, which: str, among: Op | None = None) -> Op | None:
    """The x label where `series` is largest ("max") or smallest ("min"), optionally among
    the labels an earlier operation selected (VC)."""
    view = tr.view
    subset = None
    if among is not None:
        if not isinstance(among.value, tuple):
            return None
        subset = [str(v) for v in among.value]
    pairs = labelled_values(view, series, subset)
    if not pairs:
        return None
    pairs.sort(key=lambda p: p[1], reverse=which == "max")
    if len(pairs) > 1 and not view.distinct(pairs[0][1], pairs[1][1]):
        return None
    best = pairs[0][0]
    if among is None:
        q = f"Which {view.x_label} has the {word(which)} {series}?"
        scope = series_mark(view, series)
    else:
        q = _AMONG_Q[which].format(x_title=view.x_label, a=among.id + 1, series=series)
        scope = f"those {len(pairs)}"
    return tr.add(
        "extreme",
        "VC",
        q,
        best,
        "text",
        depends_on=(among,) if among is not None else (),
        cells=tuple((lab, series) for lab, _ in pairs),
        args={"series": series, "which": which, "among": ref(among) if among else None},
        note=f"{mark_name(view, series, best)} is the {superlative(view, which)} of {scope}",
    )


def extreme_value(tr: Tracer, series: str, which: str) -> Op | None:
    """The largest or smallest value of `series` (VC)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs:
        return None
    lab, v = (max if which == "max" else min)(pairs, key=lambda p: p[1])
    return tr.add(
        "extreme_value",
        "VC",
        f"What is the {word(which)} value of {series}?",
        v,
        "number",
        cells=tuple((la, series) for la, _ in pairs),
        args={"series": series, "which": which},
        note=f"the {superlative(view, which)} of {series_mark(view, series)} is "
        f"{mark_name(view, series, lab)} at {view.fmt(v)}",
        err=view.read_error(v),
        unit=view.unit,
    )


def extreme_series(tr: Tracer, x: str, which: str) -> Op | None:
    """The series with the largest or smallest value at `x` (VC)."""
    view = tr.view
    if len(view.series) < 2:
        return None
    vals = [(s, view.value(s, x)) for s in view.series]
    if any(v is None for _, v in vals):
        return None
    pairs = sorted(((s, float(v)) for s, v in vals if v is not None), key=lambda p: p[1])
    if which == "max":
        pairs.reverse()
    if not view.distinct(pairs[0][1], pairs[1][1]):
        return None
    best = pairs[0][0]
    return tr.add(
        "extreme_series",
        "VC",
        f"Which series has the {word(which)} value in {x}?",
        best,
        "text",
        cells=tuple((x, s) for s, _ in pairs),
        args={"x": x, "which": which},
        note=f"{mark_name(view, best, x)} is the {superlative(view, which)} of the "
        f"{len(pairs)} series there",
    )


_A, _B = step_slot("a"), step_slot("b")


def _comparing(rel: str) -> StepRun:
    return combining(lambda tr, a, b: compare(tr, a, b, rel))


_COMPARE_Q = {
    rel: step_question("compare", f"Is {_A} {w} than {_B}?", _comparing(rel), a="number", b="number")
    for rel, w in (("lt", "less"), ("gt", "greater"))
}  # fmt: skip
_LARGER_Q = step_question(
    "larger",
    f"Which is larger, {_A} or {_B}?",
    combining(lambda tr, a, b: larger(tr, a, b)),
    a="number",
    b="number",
)


def compare(tr: Tracer, a: Op, b: Op, rel: str) -> Op | None:
    """Whether the value of `a` is less ("lt") or greater ("gt") than that of `b` (VC)."""
    view = tr.view
    x, y = a.number(), b.number()
    if not view.distinct(x, y, err_a=a.err, err_b=b.err):
        return None
    truth = x < y if rel == "lt" else x > y
    rel_word = "less" if rel == "lt" else "greater"
    verdict = "is" if truth else "is not"
    return tr.add(
        "compare",
        "VC",
        _COMPARE_Q[rel].format(a=a.id + 1, b=b.id + 1),
        truth,
        "bool",
        depends_on=(a, b),
        args={"a": ref(a), "b": ref(b), "rel": rel},
        note=f"{a.text()} {verdict} {rel_word} than {b.text()}",
    )


def larger(tr: Tracer, a: Op, b: Op) -> Op | None:
    """The x label of whichever of two reads shows the larger value (VC)."""
    view = tr.view
    la, lb = a.args.get("x"), b.args.get("x")
    if not (isinstance(la, str) and isinstance(lb, str)) or la == lb:
        return None
    x, y = a.number(), b.number()
    if not view.distinct(x, y, err_a=a.err, err_b=b.err):
        return None
    best, other = (la, lb) if x > y else (lb, la)
    return tr.add(
        "larger",
        "VC",
        _LARGER_Q.format(a=a.id + 1, b=b.id + 1),
        best,
        "text",
        depends_on=(a, b),
        args={"a": ref(a), "b": ref(b)},
        note=f"{view.fmt(max(x, y))} at {best} is larger than {view.fmt(min(x, y))} at {other}",
    )


def kth(tr: Tracer, series: str, k: int, which: str) -> Op | None:
    """The x label with the k-th highest ("max") or lowest ("min") value (SO)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs or not 1 <= k <= len(pairs):
        return None
    pairs.sort(key=lambda p: p[1], reverse=which == "max")
    window = pairs[max(k - 2, 0) : k + 1]
    if not _ordered(view, window, which == "max"):
        return None
    lab, v = pairs[k - 1]
    return tr.add(
        "kth",
        "SO",
        f"Which {view.x_label} has the {ordinal(k)} {word(which)} {series}?",
        lab,
        "text",
        cells=tuple((la, series) for la, _ in pairs),
        args={"series": series, "k": k, "which": which},
        note=f"ranking {series_mark(view, series)}, {mark_name(view, series, lab)} "
        f"({view.fmt(v)}) comes {ordinal(k)} from the {word(which)}",
    )


def _nth_largest(k: int) -> str:
    return "largest" if k == 1 else f"{ordinal(k)} largest"


def _kth_from(top: bool) -> StepRun:
    """The k-th value from the top, or from the bottom (the (n+1-k)-th from the top)."""

    def run(tr: Tracer, a: Mapping[str, ArgValue]) -> Op | None:
        series, k = str(a["series"]), int(a["k"])
        if not top:
            k = len(labelled_values(tr.view, series) or ()) + 1 - k
        return kth_value(tr, series, k)

    return run


_KTH_VALUE_QS = tuple(
    step_question("kth_value", f"What is the {{k}} {w} value of {{series}}?", _kth_from(top),
                  k="ordinal", series="series")
    for w, top in (("largest", True), ("highest", True), ("smallest", False), ("lowest", False))
)  # fmt: skip
"""The first is what the op writes; the others parse ("lowest": the (n+1-k)-th largest)."""


def kth_value(tr: Tracer, series: str, k: int) -> Op | None:
    """The k-th largest value of `series` (SO)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs or not 1 <= k <= len(pairs):
        return None
    pairs.sort(key=lambda p: p[1], reverse=True)
    window = pairs[max(k - 2, 0) : k + 1]
    if not _ordered(view, window, True):
        return None
    lab, v = pairs[k - 1]
    return tr.add(
        "kth_value",
        "SO",
        _KTH_VALUE_QS[0].format(k=ordinal(k), series=series),
        v,
        "number",
        cells=tuple((la, series) for la, _ in pairs),
        args={"series": series, "k": k},
        note=f"ranking {series_mark(view, series)}, the {_nth_largest(k)} is "
        f"{mark_name(view, series, lab)} at {view.fmt(v)}",
        err=view.read_error(v),
        unit=view.unit,
    )


def _sorting(descending: bool) -> StepRun:
    return lambda tr, a: sort(tr, str(a["series"]), descending)


_SORT_Q = {
    desc: step_question(
        "sort",
        f"Order the {{x_title}} values by {{series}}, from {direction}.",
        _sorting(desc),
        series="series",
    )
    for desc, direction in ((True, "highest to lowest"), (False, "lowest to highest"))
}


def sort(tr: Tracer, series: str, descending: bool, among: Op | None = None) -> Op | None:
    """The x labels ordered by the value of `series` (SO)."""
    view = tr.view
    subset = None
    if among is not None:
        if not isinstance(among.value, tuple):
            return None
        subset = [str(v) for v in among.value]
    pairs = labelled_values(view, series, subset)
    if not pairs or len(pairs) < 2:
        return None
    pairs.sort(key=lambda p: p[1], reverse=descending)
    if not _ordered(view, pairs, descending):
        return None
    direction = "highest to lowest" if descending else "lowest to highest"
    return tr.add(
        "sort",
        "SO",
        _SORT_Q[descending].format(x_title=view.x_label, series=series),
        tuple(lab for lab, _ in pairs),
        "ranked_list",
        depends_on=(among,) if among is not None else (),
        cells=tuple((la, series) for la, _ in pairs),
        args={"series": series, "descending": descending, "among": ref(among) if among else None},
        note=f"ordering {series_mark(view, series)} from {direction} gives "
        + ", ".join(f"{lab} ({view.fmt(v)})" for lab, v in pairs),
    )


def rank_of(tr: Tracer, series: str, x: str, descending: bool) -> Op | None:
    """The rank (1 = highest, or lowest when not descending) of label `x` by `series` (SO)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs or view.xi(x) is None:
        return None
    pairs.sort(key=lambda p: p[1], reverse=descending)
    pos = [lab for lab, _ in pairs].index(x)
    if not _ordered(view, pairs[max(pos - 1, 0) : pos + 2], descending):
        return None
    end = "highest" if descending else "lowest"
    return tr.add(
        "rank_of",
        "SO",
        f"Counting from the {end}, what is the rank of {x} by {series}?",
        float(pos + 1),
        "number",
        cells=tuple((la, series) for la, _ in pairs),
        args={"series": series, "x": x, "descending": descending},
        note=f"{mark_name(view, series, x)} ranks {ordinal(pos + 1)} from the {end} of "
        f"{len(pairs)}",
        exact=True,
    )


def order_series(tr: Tracer, x: str, descending: bool) -> Op | None:
    """The series ordered by their value at `x` (SO)."""
    view = tr.view
    if len(view.series) < 2:
        return None
    vals = [(s, view.value(s, x)) for s in view.series]
    if any(v is None for _, v in vals):
        return None
    pairs = sorted(((s, float(v)) for s, v in vals if v is not None), key=lambda p: p[1])
    if descending:
        pairs.reverse()
    if not _ordered(view, pairs, descending):
        return None
    direction = "highest to lowest" if descending else "lowest to highest"
    return tr.add(
        "order_series",
        "SO",
        f"Order the series by their value in {x}, from {direction}.",
        tuple(s for s, _ in pairs),
        "ranked_list",
        cells=tuple((x, s) for s, _ in pairs),
        args={"x": x, "descending": descending},
        note=f"at {x} the series run from {direction}: "
        + ", ".join(f"{s} ({view.fmt(v)})" for s, v in pairs),
    )
