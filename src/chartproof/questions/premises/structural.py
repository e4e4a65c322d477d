"""Structural premises (RealCQA-V2 SP0-SP9): chart type, axis titles, value and x ranges,
categorical axis and its labels, x ticks, y ticks, number of series, legend labels.

Built once per chart; every question's sequence starts with some of them.
"""

from __future__ import annotations

import random

from chartproof.questions.labels import norm
from chartproof.questions.ops.structure import CHART_TYPE_NAMES, value_range
from chartproof.questions.premises.claims import (
    Claim,
    Statement,
    claim,
    far_numbers,
    foreign_labels,
    number_text,
    other_labels,
    tolerance,
)
from chartproof.questions.premises.judging import Judge, Ruling, Slots, judged, listed, number
from chartproof.questions.premises.logic import fn, lab, num, pred, seq
from chartproof.questions.view import ChartView

__all__ = ["STRUCTURAL_KINDS", "fact_claim", "structural_claims", "x_tick_claim"]

STRUCTURAL_KINDS = ("SP0", "SP1", "SP2", "SP3", "SP4", "SP5", "SP6", "SP7", "SP8", "SP9")
"""The ten structural premise kinds of RealCQA-V2 §3.2."""

_GENERIC_TITLES = ("Value", "Count", "Percentage", "Frequency", "Amount", "Index", "Share")


def _joined(items: list[str]) -> str:
    return ", ".join(items)


def _titles_pool(view: ChartView, exclude: str) -> list[str]:
    """Wrong titles for an axis: the other axis title, legend labels where an axis title
    belongs, the chart title, x labels, generic words."""
    pool = [t for t in (view.x_title, view.y_title, view.title) if t]
    pool += list(view.series) + list(view.x_labels[:3]) + list(_GENERIC_TITLES)
    return other_labels(exclude, [], pool)


def _chart_type(view: ChartView, rng: random.Random) -> Claim | None:
    true_name = CHART_TYPE_NAMES[view.chart_type]
    others = [n for t, n in CHART_TYPE_NAMES.items() if t != view.chart_type]
    rng.shuffle(others)
    term = fn("ChartType")
    return claim(
        "SP0",
        Statement("SP0", {"chart_type": true_name}, pred("Eq", term, lab(true_name))),
        (Statement("SP0", {"chart_type": o}, pred("Eq", term, lab(o))) for o in others),
    )


def _title(view: ChartView, which: str) -> Claim | None:
    title = view.y_title if which == "SP1" else view.x_title
    if not title or not view.kind.axes:
        return None
    term = fn("YTitle" if which == "SP1" else "XTitle")
    return claim(
        which,
        Statement(which, {"title": title}, pred("Eq", term, lab(title))),
        (
            Statement(which, {"title": t}, pred("Eq", term, lab(t)))
            for t in _titles_pool(view, title)
        ),
    )


def _y_ticks(view: ChartView) -> Claim | None:
    title = view.y_title
    if not title or not view.kind.axes:
        return None
    term = fn("YTitle")
    return claim(
        "SP7",
        Statement("SP7", {"title": title}, pred("Eq", term, lab(title))),
        (
            Statement("SP7", {"title": t}, pred("Eq", term, lab(t)))
            for t in _titles_pool(view, title)
        ),
    )


def _range_statement(view: ChartView, title: str, lo: float, hi: float, tol: float) -> Statement:
    lo_t, lo_v = number_text(view, lo)
    hi_t, hi_v = number_text(view, hi)
    logic = {
        "and": [
            pred("Eq", fn("ValueMin"), num(lo_v), tol=tol),
            pred("Eq", fn("ValueMax"), num(hi_v), tol=tol),
        ]
    }
    return Statement("SP3", {"title": title, "lo": lo_t, "hi": hi_t}, logic)


def _y_range(view: ChartView) -> Claim | None:
    rng_ = value_range(view)
    if rng_ is None or not view.kind.axes:
        return None
    lo, hi = rng_
    title = view.y_label
    tol = tolerance(view, max(abs(lo), abs(hi)), view.read_error(hi))
    pool = sorted({v for col in view.values.values() for v in col if v is not None})
    pool += sorted({v for b in view.boxes.values() for v in b})
    los = far_numbers(view, lo, tol, sorted(pool), k=2)
    his = far_numbers(view, hi, tol, sorted(pool, reverse=True), k=2)
    cands = [_range_statement(view, title, c, hi, tol) for _, c in los]
    cands += [_range_statement(view, title, lo, c, tol) for _, c in his]
    return claim("SP3", _range_statement(view, title, lo, hi, tol), cands)


def _x_range(view: ChartView) -> Claim | None:
    if not view.kind.axes:
        return None
    if view.kind.data == "points":
        xs = [p[0] for pts in view.points.values() for p in pts]
        if not xs:
            return None
        lo, hi = min(xs), max(xs)
        tol = tolerance(view, max(abs(lo), abs(hi)), 0.0) + 0.015 * (hi - lo)

        def stmt(a: float, b: float) -> Statement:
            at, av = number_text(view, a)
            bt, bv = number_text(view, b)
            logic = {
                "and": [
                    pred("Eq", fn("XMin"), num(av), tol=tol),
                    pred("Eq", fn("XMax"), num(bv), tol=tol),
                ]
            }
            return Statement("SP4", {"first": at, "last": bt}, logic)

        pool = sorted(set(xs))
        cands = [stmt(c, hi) for _, c in far_numbers(view, lo, tol, pool, k=2)]
        cands += [stmt(lo, c) for _, c in far_numbers(view, hi, tol, pool[::-1], k=2)]
        return claim("SP4", stmt(lo, hi), cands)
    if view.n < 2 or not view.x_unique:
        return None
    ticks = fn("XTicks")

    def ends(a: str, b: str) -> Statement:
        logic = {
            "and": [
                pred("Eq", fn("LabelAt", num(1)), lab(a)),
                pred("Eq", fn("Length", ticks), num(float(view.n)), tol=0.0),
                pred("Eq", fn("LabelAt", num(float(view.n))), lab(b)),
            ]
        }
        return Statement("SP4", {"first": a, "last": b}, logic)

    first, last = view.x_labels[0], view.x_labels[-1]
    cands = [ends(last, first)]
    cands += [ends(view.x_labels[1], last), ends(first, view.x_labels[-2])]
    cands += [ends(first, o) for o in foreign_labels(view)[:2]]
    return claim("SP4", ends(first, last), cands)


def _categorical(view: ChartView) -> Claim | None:
    if not view.kind.axes:
        return None
    kind = fn("XKind")
    numeric = Statement("SP5_numeric", {}, pred("Eq", kind, lab("number")))

    def labelled(items: list[str]) -> Statement:
        return Statement(
            "SP5",
            {"ticks": _joined(items)},
            pred("SeqEq", fn("XTicks"), seq([lab(i) for i in items])),
        )

    foreign = foreign_labels(view)
    if view.x_kind == "number":
        fakes = [list(view.series), foreign[:3], [t for t in (view.y_title, view.x_title) if t]]
        return claim("SP5", numeric, (labelled(f) for f in fakes if f))
    xs = list(view.x_labels)
    if len(xs) < 2 or not view.x_unique:
        return None
    cands = [numeric]
    if foreign:
        cands.append(labelled([*xs[:-1], foreign[0]]))
        cands.append(labelled([*xs, foreign[-1]]))
    cands.append(labelled(xs[:-1]))
    cands.append(labelled(xs[1:]))
    return claim("SP5", labelled(xs), cands)


def x_tick_claim(view: ChartView, tick: str) -> Claim | None:
    """SP6 for one x label: it is a tick; out-of-range ticks and legend labels are not."""
    if not view.kind.axes or view.kind.data == "points" or tick not in view.x_labels:
        return None
    ticks = fn("XTicks")
    return claim(
        f"SP6:{tick}",
        Statement("SP6", {"tick": tick}, pred("In", lab(tick), ticks)),
        (Statement("SP6", {"tick": t}, pred("In", lab(t), ticks)) for t in foreign_labels(view)),
    )


def _n_series(view: ChartView) -> Claim | None:
    if view.kind.data == "boxes":
        return None
    n = len(view.series)
    term = fn("NSeries")
    wrong = [m for m in (n + 1, n + 2, n - 1, n + 3) if m >= 1 and m != n]
    return claim(
        "SP8",
        Statement("SP8", {"n": str(n)}, pred("Eq", term, num(n), tol=0.0)),
        (Statement("SP8", {"n": str(m)}, pred("Eq", term, num(m), tol=0.0)) for m in wrong),
    )


def _legend(view: ChartView) -> Claim | None:
    legend = fn("Legend")
    labels = list(view.x_labels if view.kind.color_keys == "x" else view.series)

    def lists(items: list[str]) -> Statement:
        return Statement(
            "SP9", {"labels": _joined(items)}, pred("SeqEq", legend, seq([lab(i) for i in items]))
        )

    none = Statement("SP9_none", {}, pred("SeqEq", legend, seq([])))
    extras = [t for t in (view.x_title, view.y_title) if t] + list(view.x_labels[:2])
    extras = other_labels("", [], [e for e in extras if e not in labels])
    if not view.legend:
        fakes = [labels, labels[:1] + extras[:1], extras[:2]]
        return claim("SP9", none, (lists(f) for f in fakes if f))
    cands = [none]
    if extras:
        cands.append(lists([*labels[:-1], extras[0]]))
        cands.append(lists([*labels, extras[-1]]))
    if len(labels) > 1:
        cands.append(lists(labels[:-1]))
        cands.append(lists(labels[1:]))
    return claim("SP9", lists(labels), cands)


def structural_claims(view: ChartView, rng: random.Random) -> list[Claim]:
    """The chart's structural claims in SP order (kinds that do not apply are left out,
    e.g. axis titles of a pie)."""
    ticks = [x for x in view.x_labels if x] if view.x_unique else []
    made = [
        _chart_type(view, rng),
        _title(view, "SP1"),
        _title(view, "SP2"),
        _y_range(view),
        _x_range(view),
        _categorical(view),
        x_tick_claim(view, rng.choice(ticks)) if ticks else None,
        _y_ticks(view),
        _n_series(view),
        _legend(view),
    ]
    return [c for c in made if c is not None]


def fact_claim(view: ChartView, fact: str) -> Claim | None:
    """The structural claim behind one dense chart-parsing fact (None for facts without a
    premise kind, e.g. the log scale, which has a single alternative)."""
    builders = {
        "chart_type": lambda: _chart_type(view, random.Random(0)),
        "y_title": lambda: _title(view, "SP1"),
        "x_title": lambda: _title(view, "SP2"),
        "y_range": lambda: _y_range(view),
        "categorical": lambda: _categorical(view),
        "x_ticks": lambda: _categorical(view),
        "legend": lambda: _legend(view),
        "legend_labels": lambda: _legend(view),
        "n_series": lambda: _n_series(view),
    }
    build = builders.get(fact)
    return build() if build else None


@judged("SP0")
def _judge_chart_type(s: Slots, view: ChartView, rel: float) -> Ruling:
    name = CHART_TYPE_NAMES.get(view.chart_type, view.chart_type)
    return norm(s["chart_type"]) == norm(name), f"the chart is a {name}"


def _title_judge(key: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> Ruling:
        shown = view.y_title if key == "y" else view.x_title
        if not shown:
            return None
        return norm(s["title"]) == norm(shown), f"the axis title reads {shown}"

    return judge


judged("SP1")(_title_judge("y"))
judged("SP2")(_title_judge("x"))


@judged("SP6")
def _judge_tick(s: Slots, view: ChartView, rel: float) -> Ruling:
    t, n = s["tick"], number(s["tick"])

    def same(x: str) -> bool:  # norm drops a minus sign: "-1" is no tick "1"
        shown = number(x)
        return norm(t) == norm(x) and (n is None or shown is None or n == shown)

    hit = any(same(x) for x in view.x_labels)
    return hit, "the independent axis shows the ticks " + ", ".join(view.x_labels)


@judged("SP8")
def _judge_n_series(s: Slots, view: ChartView, rel: float) -> Ruling:
    n = number(s["n"])
    if n is None:
        return None
    count = len(view.series)
    return int(n) == count, f"{count} series are drawn"


@judged("SP9")
def _judge_legend(s: Slots, view: ChartView, rel: float) -> Ruling:
    if not view.legend:
        return False, "there is no legend"
    names = view.x_labels if view.kind.color_keys == "x" else view.series
    said = sorted(norm(i) for i in listed(s["labels"], names))
    shown = sorted(norm(i) for i in names)
    return said == shown, "the legend lists " + ", ".join(names)


@judged("SP9_none")
def _judge_no_legend(s: Slots, view: ChartView, rel: float) -> Ruling:
    return not view.legend, "a legend is drawn" if view.legend else "no legend is drawn"
