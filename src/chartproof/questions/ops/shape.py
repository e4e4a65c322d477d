"""Operations about the shape of the data: monotonic runs, trends, crossings, correlation
bands of scatter plots and the spread of box plots (ChartR TI, plus box-plot VC/NC)."""

from __future__ import annotations

import itertools
import math

from chartproof.questions.describe import box_stat_name, mark_name, series_mark
from chartproof.questions.ops.compare import labelled_values, superlative, word
from chartproof.questions.ops.extract import Label, refs, resolve, x_noun
from chartproof.questions.trace import Op, Tracer, ref
from chartproof.questions.view import BOX_STATS, ChartView

__all__ = [
    "CORRELATION_BANDS",
    "band_of",
    "box_extreme",
    "corr_band",
    "corr_class",
    "cross",
    "equal_iqr",
    "iqr",
    "largest_change",
    "monotone",
    "pearson",
    "trend",
    "trend_between",
]

CORRELATION_BANDS: dict[str, tuple[float, float]] = {
    "high negative": (-1.0, -0.5),
    "low negative": (-0.5, 0.0),
    "low positive": (0.0, 0.5),
    "high positive": (0.5, 1.0),
}
"""RealCQA correlation bands (templates 121-124): name → (low, high) bounds of Pearson's r."""

_BAND_MARGIN = 0.05
"""How far r must lie from a band boundary for the band to be unambiguous."""


def monotone(tr: Tracer, series: str, direction: str) -> Op | None:
    """Whether `series` rises ("increase") or falls ("decrease") at every step (TI)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs or len(pairs) < 3:
        return None
    up = direction == "increase"
    against: list[str] = []
    unclear = False
    for (_, a), (lab, b) in itertools.pairwise(pairs):
        if view.distinct(a, b):
            if (b > a) != up:
                against.append(lab)
        elif view.value_labels:
            against.append(lab)
        else:
            unclear = True
    if not against and unclear:
        return None
    truth = not against
    verb = "rises" if up else "falls"
    if truth:
        note = (
            f"{series_mark(view, series)} {verb} at every step from {pairs[0][0]} to {pairs[-1][0]}"
        )
    else:
        note = f"{series_mark(view, series)} does not {verb[:-1]} at {against[0]}"
    return tr.add(
        "monotone",
        "TI",
        f"Does {series} {direction} at every step along the {view.x_label} axis?",
        truth,
        "bool",
        cells=tuple((lab, series) for lab, _ in pairs),
        args={"series": series, "direction": direction},
        note=note,
    )


def trend(tr: Tracer, series: str, start: str, end: str) -> Op | None:
    """ "increasing" or "decreasing": how `series` changes from label `start` to `end` (TI)."""
    view = tr.view
    a, b = view.value(series, start), view.value(series, end)
    if a is None or b is None or start == end or not view.distinct(a, b):
        return None
    value = "increasing" if b > a else "decreasing"
    return tr.add(
        "trend",
        "TI",
        f"Is {series} increasing or decreasing from {start} to {end}?",
        value,
        "text",
        cells=((start, series), (end, series)),
        args={"series": series, "start": start, "end": end},
        note=f"{mark_name(view, series, start)} {_at(view, a)} and "
        f"{mark_name(view, series, end)} {_at(view, b)}: {_article(value)} {value} trend",
    )


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _at(view: ChartView, v: float) -> str:
    return f"sits at {view.fmt(v)}"


def trend_between(tr: Tracer, series: str, a: Op, b: Op) -> Op | None:
    """ "increasing" or "decreasing": how `series` changes from the earlier to the later of
    two labels found by earlier operations (TI)."""
    view = tr.view
    la, lb = a.value, b.value
    if not (isinstance(la, str) and isinstance(lb, str)) or la == lb:
        return None
    ia, ib = view.xi(la), view.xi(lb)
    va, vb = view.value(series, la), view.value(series, lb)
    if ia is None or ib is None or va is None or vb is None or not view.distinct(va, vb):
        return None
    (first, v1), (last, v2) = sorted(((la, va), (lb, vb)), key=lambda p: view.xi(p[0]) or 0)
    value = "increasing" if v2 > v1 else "decreasing"
    return tr.add(
        "trend_between",
        "TI",
        f"From the earlier to the later of {tr.step_ref(a)} and {tr.step_ref(b)}, "
        f"is {series} increasing or decreasing?",
        value,
        "text",
        depends_on=(a, b),
        cells=((first, series), (last, series)),
        args={"series": series, "a": ref(a), "b": ref(b)},
        note=f"{series} goes from {view.fmt(v1)} at {first} to {view.fmt(v2)} at {last}: "
        f"{_article(value)} {value} trend",
    )


def largest_change(tr: Tracer, series: str, direction: str) -> Op | None:
    """The x label where `series` rises ("rise") or falls ("fall") the most since the
    previous label (TI)."""
    view = tr.view
    pairs = labelled_values(view, series)
    if not pairs or len(pairs) < 3:
        return None
    sign = 1.0 if direction == "rise" else -1.0
    deltas = [
        (lab, sign * (b - a), view.read_error(a) + view.read_error(b))
        for (_, a), (lab, b) in itertools.pairwise(pairs)
    ]
    deltas.sort(key=lambda d: d[1], reverse=True)
    best, second = deltas[0], deltas[1]
    if best[1] <= best[2] or not view.distinct(best[1], second[1], err_a=best[2], err_b=second[2]):
        return None
    verb = "rises" if direction == "rise" else "falls"
    i = view.x_labels.index(best[0])
    prev = view.x_labels[i - 1]
    return tr.add(
        "largest_change",
        "TI",
        f"In which {view.x_label} does {series} {direction} the most compared with the "
        f"previous one?",
        best[0],
        "text",
        cells=tuple((lab, series) for lab, _ in pairs),
        args={"series": series, "direction": direction},
        note=f"{series_mark(view, series)} {verb} most from {prev} to {best[0]}, "
        f"by {view.fmt(best[1])}",
    )


def cross(tr: Tracer, first: str, second: str) -> Op | None:
    """Whether the lines of two series cross (their order flips somewhere) (TI)."""
    view = tr.view
    a, b = view.column(first), view.column(second)
    if a is None or b is None or first == second or len(a) < 2:
        return None
    if not all(view.distinct(x, y) for x, y in zip(a, b, strict=True)):
        return None
    signs = [x > y for x, y in zip(a, b, strict=True)]
    flips = [view.x_labels[i] for i in range(1, len(signs)) if signs[i] != signs[i - 1]]
    truth = bool(flips)
    if truth:
        note = (
            f"{series_mark(view, first)} and {series_mark(view, second)} swap order at {flips[0]}"
        )
    else:
        upper = first if signs[0] else second
        note = f"{series_mark(view, upper)} stays above the other at every {view.x_label}"
    return tr.add(
        "cross",
        "TI",
        f"Do the lines of {first} and {second} cross?",
        truth,
        "bool",
        cells=tuple((lab, s) for lab in view.x_labels for s in (first, second)),
        args={"first": first, "second": second},
        note=note,
    )


def pearson(points: tuple[tuple[float, float], ...]) -> float | None:
    """Pearson's r of (x, y) points; None with fewer than 3 points or no spread."""
    n = len(points)
    if n < 3:
        return None
    mx = math.fsum(p[0] for p in points) / n
    my = math.fsum(p[1] for p in points) / n
    sxy = math.fsum((x - mx) * (y - my) for x, y in points)
    sxx = math.fsum((x - mx) ** 2 for x, _ in points)
    syy = math.fsum((y - my) ** 2 for _, y in points)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def band_of(r: float) -> str | None:
    """The correlation band r falls in; None when r lies within 0.05 of a band boundary."""
    if any(abs(r - b) <= _BAND_MARGIN for b in (-0.5, 0.0, 0.5)):
        return None
    for name, (lo, hi) in CORRELATION_BANDS.items():
        if lo <= r <= hi:
            return name
    return None


def corr_class(tr: Tracer, series: Label) -> Op | None:
    """The correlation band of a scatter series: "high positive", "low negative", ... (TI);
    `series` may be an earlier step's answer."""
    view = tr.view
    series, s_text, deps = resolve(tr, series, "group")
    pts = view.points.get(series)
    r = pearson(pts) if pts else None
    band = band_of(r) if r is not None else None
    if band is None or r is None:
        return None
    return tr.add(
        "corr_class",
        "TI",
        f"What kind of correlation does {s_text} show?",
        band,
        "text",
        depends_on=deps,
        cells=((series, series),),
        args={"series": series, **refs("series", deps)},
        note=f"{series_mark(view, series)} follow a {band} correlation (Pearson r about {r:.2f})",
    )


def corr_band(tr: Tracer, series: str, band: str) -> Op | None:
    """Whether a scatter series has a correlation in the named band (TI)."""
    view = tr.view
    if band not in CORRELATION_BANDS:
        raise ValueError(f"unknown correlation band {band!r}; known: {list(CORRELATION_BANDS)}")
    pts = view.points.get(series)
    r = pearson(pts) if pts else None
    actual = band_of(r) if r is not None else None
    if actual is None or r is None:
        return None
    truth = actual == band
    return tr.add(
        "corr_band",
        "TI",
        f"Does {series} have a {band} correlation?",
        truth,
        "bool",
        cells=((series, series),),
        args={"series": series, "band": band},
        note=f"{series_mark(view, series)} follow a {actual} correlation (Pearson r about {r:.2f})",
    )


def iqr(tr: Tracer, x: Label) -> Op | None:
    """The interquartile range (upper minus lower quartile) of the box at `x` (NC); `x` may
    be an earlier step's answer."""
    view = tr.view
    x, x_text, deps = resolve(tr, x, x_noun(view))
    box = view.boxes.get(x)
    if box is None or view.xi(x) is None:
        return None
    q1, q3 = box[1], box[3]
    return tr.add(
        "iqr",
        "NC",
        f"What is the interquartile range of {x_text}?",
        q3 - q1,
        "number",
        depends_on=deps,
        cells=((x, "q1"), (x, "q3")),
        args={"x": x, **refs("x", deps)},
        note=f"the box for {x} spans from {view.fmt(q1)} to {view.fmt(q3)}, an interquartile "
        f"range of {view.fmt(q3 - q1)}",
        err=view.read_error(q1) + view.read_error(q3),
        unit=view.unit,
    )


def equal_iqr(tr: Tracer) -> Op | None:
    """Whether two boxes have the same interquartile range (VC)."""
    view = tr.view
    if len(view.boxes) < 2 or not view.x_unique:
        return None
    spans = [(x, round(b[3] - b[1], 9), b) for x, b in view.boxes.items()]
    same: tuple[str, str] | None = None
    for (xa, ra, ba), (xb, rb, bb) in itertools.combinations(spans, 2):
        if ra == rb:
            same = (xa, xb)
            break
        err_a = view.read_error(ba[1]) + view.read_error(ba[3])
        err_b = view.read_error(bb[1]) + view.read_error(bb[3])
        if not view.distinct(ra, rb, err_a=err_a, err_b=err_b):
            return None
    truth = same is not None
    if same is not None:
        note = f"the boxes for {same[0]} and {same[1]} have the same height between their quartiles"
    else:
        note = "no two boxes have the same height between their quartiles"
    return tr.add(
        "equal_iqr",
        "VC",
        f"Do any two {view.x_label} values have an equal interquartile range?",
        truth,
        "bool",
        cells=tuple((x, s) for x in view.boxes for s in ("q1", "q3")),
        args={},
        note=note,
    )


def box_extreme(tr: Tracer, stat: str, which: str) -> Op | None:
    """The box label with the highest or lowest value of one statistic (VC)."""
    view = tr.view
    if stat not in BOX_STATS or len(view.boxes) < 2 or not view.x_unique:
        return None
    i = BOX_STATS.index(stat)
    pairs = sorted(((x, b[i]) for x, b in view.boxes.items()), key=lambda p: p[1])
    if which == "max":
        pairs.reverse()
    if not view.distinct(pairs[0][1], pairs[1][1]):
        return None
    best = pairs[0][0]
    name = box_stat_name(stat)
    return tr.add(
        "box_extreme",
        "VC",
        f"Which {view.x_label} has the {word(which)} {name}?",
        best,
        "text",
        cells=tuple((x, stat) for x, _ in pairs),
        args={"stat": stat, "which": which},
        note=f"the {name} of the box for {best} ({view.fmt(pairs[0][1])}) is the "
        f"{superlative(view, which)} of the {len(pairs)} boxes",
    )
