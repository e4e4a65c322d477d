"""FigureQA's yes/no checks as operations (VC, TI): whether a named thing is the maximum,
minimum, low or high median, the smoothest or roughest curve, has the highest or lowest value
or area under the curve, whether two curves intersect, whether one lies strictly above or
below another. The things are the series of a chart with several (a line: one curve each),
else the labels of its one series."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

from chartproof.numeric import format_number
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "RANKS",
    "area_under",
    "crossing",
    "entities",
    "has_extreme",
    "lies_beyond",
    "rank_is",
    "roughness",
]

RANKS = ("maximum", "minimum", "low median", "high median", "smoothest", "roughest")
"""The ranks "Is X the ...?" asks about."""


def entities(view: ChartView) -> dict[str, list[float]]:
    """The things a FigureQA question names, with their shown values: the series of a chart
    with several, else the labels of its one series."""
    if len(view.series) > 1:
        return {s: [v for v in view.values.get(s, ()) if v is not None] for s in view.series}
    if len(view.series) == 1:
        col = view.values.get(view.series[0], ())
        return {x: [v] for x, v in zip(view.x_labels, col, strict=False) if v is not None}
    return {}


def roughness(vals: Sequence[float]) -> float:
    """Mean absolute change of slope between neighbouring points (0 for a straight line)."""
    if len(vals) < 3:
        return 0.0
    d2 = [abs(vals[i + 1] - 2 * vals[i] + vals[i - 1]) for i in range(1, len(vals) - 1)]
    return sum(d2) / len(d2)


def area_under(vals: Sequence[float]) -> float:
    """Trapezoid area under evenly spaced points."""
    if len(vals) < 2:
        return vals[0] if vals else 0.0
    return sum((a + b) / 2 for a, b in itertools.pairwise(vals))


def rank_scores(view: ChartView, what: str) -> dict[str, float]:
    """What `rank_is` orders the things by: roughness for "smoothest"/"roughest", else the
    value (a series: its mean)."""
    values = entities(view)
    if what in ("smoothest", "roughest"):
        return {n: roughness(v) for n, v in values.items() if len(v) >= 3}
    single = len(view.series) <= 1
    return {n: (statistics.fmean(v) if not single else v[0]) for n, v in values.items() if v}


def rank_pick(score: dict[str, float], what: str) -> str:
    """The thing holding the rank (the first of equals)."""
    if what in ("smoothest", "roughest"):
        return (min if what == "smoothest" else max)(score, key=lambda n: score[n])
    order = sorted(score, key=lambda n: score[n])
    k = len(order)
    return {
        "maximum": order[-1],
        "minimum": order[0],
        "low median": order[(k - 1) // 2],
        "high median": order[k // 2],
    }[what]


def rank_is(tr: Tracer, name: str, what: str) -> Op | None:
    """Whether `name` is the maximum, minimum, low or high median (by value), or the
    smoothest or roughest curve (VC)."""
    score = rank_scores(tr.view, what)
    if name not in score:
        return None
    pick = rank_pick(score, what)
    if what in ("smoothest", "roughest"):
        note = (
            f"the mean change of slope is {format_number(score[name])} for {name}; the "
            f"{what} curve is {pick} ({format_number(score[pick])})"
        )
    else:
        note = (
            f"{name} is {format_number(score[name])}; ordered by value, the {what} is {pick} "
            f"({format_number(score[pick])})"
        )
    return tr.add(
        "rank_is",
        "VC",
        f"Is {name} the {what}?",
        pick == name,
        "bool",
        args={"name": name, "what": what},
        note=note,
    )


def extreme_scores(view: ChartView, top: bool, area: bool) -> dict[str, float]:
    """Each thing's highest (lowest) value, or its area under the curve."""
    values = entities(view)
    if area:
        return {n: area_under(v) for n, v in values.items() if v}
    return {n: (max(v) if top else min(v)) for n, v in values.items() if v}


def has_extreme(tr: Tracer, name: str, top: bool, area: bool) -> Op | None:
    """Whether `name` has the highest (lowest) value, or the largest (smallest) area under
    the curve (VC)."""
    score = extreme_scores(tr.view, top, area)
    if name not in score:
        return None
    pick = (max if top else min)(score, key=lambda n: score[n])
    what = "area under the curve" if area else "value"
    word = ("largest" if top else "smallest") if area else ("highest" if top else "lowest")
    return tr.add(
        "has_extreme",
        "VC",
        f"Does {name} have the {'highest' if top else 'lowest'} {what}?",
        pick == name,
        "bool",
        args={"name": name, "top": top, "area": area},
        note=f"{name} reaches {format_number(score[name])}; the {word} {what} belongs to {pick} "
        f"({format_number(score[pick])})",
    )


def crossing(tr: Tracer, a: str, b: str, start: str | None = None) -> Op | None:
    """Whether the curves of `a` and `b` intersect (after the label `start`) (TI): their
    difference changes sign, or is zero somewhere it is also non-zero."""
    view = tr.view
    if a == b or len(view.series) < 2:
        return None
    xs = list(view.x_labels)
    i = xs.index(start) if start in xs else 0
    va, vb = view.values.get(a, ()), view.values.get(b, ())
    diffs = [
        p - r for p, r in list(zip(va, vb, strict=False))[i:] if p is not None and r is not None
    ]
    signs = [d > 0 for d in diffs if d != 0]
    crossed = any(s != t for s, t in itertools.pairwise(signs)) or (0 in diffs and len(signs) > 0)
    where = f" after {xs[i]}" if i else ""
    return tr.add(
        "crossing",
        "TI",
        f"Does {a} intersect {b}{where}?",
        crossed,
        "bool",
        args={"a": a, "b": b, "start": xs[i] if i else None},
        note=f"{a} minus {b} {'changes sign' if crossed else 'keeps one sign'}{where} over "
        f"{len(diffs)} shared points",
    )


def lies_beyond(tr: Tracer, a: str, b: str, bigger: bool) -> Op | None:
    """Whether the curve of `a` lies strictly above (`bigger`) or below that of `b` at every
    point both reach (VC)."""
    view = tr.view
    pairs = [
        (p, r)
        for p, r in zip(view.values.get(a, ()), view.values.get(b, ()), strict=False)
        if p is not None and r is not None
    ]
    if a == b or len(pairs) < 2:
        return None
    held = [p > r if bigger else p < r for p, r in pairs]
    word = "above" if bigger else "below"
    return tr.add(
        "lies_beyond",
        "VC",
        f"Is {a} {'greater' if bigger else 'less'} than {b}?",
        all(held),
        "bool",
        args={"a": a, "b": b, "bigger": bigger},
        note=f"{a} lies {word} {b} at {sum(held)} of the {len(pairs)} points both reach",
    )
