"""Operations over many cells that ChartQA's human questions compute: how many values equal
a number, which value a list leaves out, how many label totals pass a threshold, a total
leaving labels out, the series holding the chart's extreme, the label (or series) whose value
is nearest a number, whether the mark showing a value is drawn in a named colour, and
whether a cell shows a claimed value, whether a series is drawn in a named colour (NC, VC,
VE, CI). Missing cells are skipped, as a reader of a recovered table skips them."""

from __future__ import annotations

from collections.abc import Sequence

from chartproof.questions.colours import same_colour
from chartproof.questions.describe import mark_name, series_mark
from chartproof.questions.labels import labels_listed, norm, similarity
from chartproof.questions.ops.compare import superlative, word
from chartproof.questions.ops.extract import color_of
from chartproof.questions.ops.extract import read as ops_read
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "cells_of",
    "closest",
    "color_is",
    "count_equal",
    "count_totals",
    "key_color_is",
    "missing_value",
    "nearest",
    "series_extreme",
    "shown_extreme",
    "total_excluding",
    "value_is",
]

Cell = tuple[str, str, float]
"""(x label, series, value) of one shown value."""

_SAME = 0.005
"""Relative gap within which a value counts as the number a question names."""


def cells_of(view: ChartView, series: Sequence[str]) -> list[Cell]:
    """The shown values of the given series, missing cells skipped."""
    out = []
    for s in series:
        for x, v in zip(view.x_labels, view.values.get(s, ()), strict=False):
            if v is not None:
                out.append((x, s, v))
    return out


def _same(v: float, target: float) -> bool:
    return abs(v - target) <= 1e-9 + _SAME * abs(target)


def _clear(view: ChartView, values: Sequence[float], target: float) -> bool:
    """Every value is either the target or one a reader tells apart from it."""
    return all(_same(v, target) or view.distinct(v, target) for v in values)


def count_equal(tr: Tracer, value: float, series: Sequence[str] | None = None) -> Op | None:
    """How many shown values (of the given series, or of all) equal `value` (NC)."""
    view = tr.view
    if series is not None and (not series or any(s not in view.values for s in series)):
        return None
    cells = cells_of(view, series if series is not None else view.series)
    if not cells or not _clear(view, [v for *_, v in cells], value):
        return None
    n = sum(_same(v, value) for *_, v in cells)
    named = labels_listed(list(series)) if series is not None else None
    where = f" of {named}" if named is not None else ""
    return tr.add(
        "count_equal",
        "NC",
        f"How many values{where} equal {view.fmt(value)}?",
        float(n),
        "number",
        cells=tuple((x, s) for x, s, _ in cells),
        args={"value": value, "series": named},
        note=f"{n} of the {len(cells)} values{where} equal {view.fmt(value)}",
        exact=True,
    )


def missing_value(tr: Tracer, listed: Sequence[float]) -> Op | None:
    """The one value of the one series holding every listed number that the list leaves out
    (NC); the listed numbers are printed values, so they are matched exactly."""
    view = tr.view
    fits = []
    for s in view.series:
        rest = [v for v in view.values.get(s, ()) if v is not None]
        for x in listed:
            j = next((i for i, v in enumerate(rest) if abs(v - x) <= 1e-9), None)
            if j is None:
                break
            rest.pop(j)
        else:
            if len(rest) == 1:
                fits.append((s, rest[0]))
    if len(fits) != 1:
        return None
    s, v = fits[0]
    shown = ", ".join(view.fmt(x) for x in listed)
    return tr.add(
        "missing_value",
        "NC",
        f"Which value of the chart do {shown} leave out?",
        v,
        "number",
        cells=tuple((x, s) for x in view.x_labels),
        args={"listed": list(listed)},
        note=f"{s} shows {shown} and {view.fmt(v)}; the list leaves out {view.fmt(v)}",
        err=view.read_error(v),
        unit=view.unit,
    )


def count_totals(tr: Tracer, cond: str, threshold: float) -> Op | None:
    """How many x labels' totals across every series lie above (`cond` "above") or below
    ("below") the threshold (NC)."""
    view = tr.view
    totals: list[tuple[str, float, float]] = []
    for i, x in enumerate(view.x_labels):
        row = [v for s in view.series if (v := view.values[s][i]) is not None]
        if row:
            totals.append((x, sum(row), sum(view.read_error(v) for v in row)))
    # a printed total equal to the threshold is plainly not above (below) it
    clear = all(
        view.distinct(t, threshold, err_a=e) or (view.value_labels and t == threshold)
        for _, t, e in totals
    )
    if len(view.series) < 2 or not totals or not clear:
        return None
    n = sum(t > threshold if cond == "above" else t < threshold for _, t, _ in totals)
    return tr.add(
        "count_totals",
        "NC",
        f"For how many {view.x_label} values is the total of all series {cond} "
        f"{view.fmt(threshold)}?",
        float(n),
        "number",
        cells=tuple((x, s) for x, *_ in totals for s in view.series),
        args={"cond": cond, "threshold": threshold},
        note=f"Adding the {len(view.series)} series for each of the {len(totals)} labels, {n} "
        f"totals lie {cond} {view.fmt(threshold)}",
        exact=True,
    )


def total_excluding(tr: Tracer, series: str, left_out: Sequence[str]) -> Op | None:
    """The sum of `series` over every x label but those left out (NC)."""
    view = tr.view
    col = view.values.get(series)
    if col is None or not left_out or any(view.xi(x) is None for x in left_out):
        return None
    kept = [(x, v) for x, v in zip(view.x_labels, col, strict=False) if v is not None]
    kept = [(x, v) for x, v in kept if x not in left_out]
    if not kept:
        return None
    total = sum(v for _, v in kept)
    names = labels_listed(list(left_out))
    return tr.add(
        "total_excluding",
        "NC",
        f"What is the total of {series} excluding {names}?",
        total,
        "number",
        cells=tuple((x, series) for x, _ in kept),
        args={"series": series, "left_out": list(left_out)},
        note=f"Adding {series} over the {len(kept)} label{'s' if len(kept) != 1 else ''} "
        f"other than {names} "
        f"gives {view.fmt(total)}",
        err=sum(view.read_error(v) for _, v in kept),
        unit=view.unit,
    )


def shown_extreme(tr: Tracer, series: str, which: str) -> Op | None:
    """The largest ("max") or smallest ("min") shown value of `series`, missing cells
    skipped (VC; `extreme_value` refuses a series with a missing cell)."""
    view = tr.view
    cells = cells_of(view, (series,))
    if not cells:
        return None
    lab, _, v = (max if which == "max" else min)(cells, key=lambda c: c[2])
    return tr.add(
        "extreme_value",
        "VC",
        f"What is the {word(which)} value of {series}?",
        v,
        "number",
        cells=tuple((c[0], series) for c in cells),
        args={"series": series, "which": which},
        note=f"the {superlative(view, which)} of {series_mark(view, series)} is "
        f"{mark_name(view, series, lab)} at {view.fmt(v)}",
        err=view.read_error(v),
        unit=view.unit,
    )


def series_extreme(tr: Tracer, which: str) -> Op | None:
    """The series showing the chart's largest ("max") or smallest ("min") value (VC)."""
    view = tr.view
    cells = sorted(cells_of(view, view.series), key=lambda c: c[2], reverse=which == "max")
    if len(view.series) < 2 or not cells:
        return None
    x, s, v = cells[0]
    if any(c[1] != s and not view.distinct(c[2], v) for c in cells[1:]):
        return None
    word = "highest" if which == "max" else "lowest"
    return tr.add(
        "series_extreme",
        "VC",
        f"Which series shows the {word} value on the chart?",
        s,
        "text",
        cells=tuple((c[0], c[1]) for c in cells),
        args={"which": which},
        note=f"The {word} value on the chart is {view.fmt(v)}, shown by {s} at {x}",
    )


def nearest(
    view: ChartView, value: float, series: str | None = None, x: str | None = None
) -> list[tuple[str, str, float]]:
    """The shown values (of `series`, at `x`) nearest `value` first; among equally near ones
    the first shown."""
    cells = [
        c
        for c in cells_of(view, view.series)
        if (series is None or c[1] == series) and (x is None or c[0] == x)
    ]
    return sorted(cells, key=lambda c: abs(c[2] - value))


def closest(
    tr: Tracer, value: float, *, series: str | None = None, x: str | None = None
) -> Op | None:
    """The x label (of `series`, or of any series) whose value is nearest `value`, or with
    `x` the series nearest it there, when that value lies within 10 % of it (VC). Of values
    as near, the first shown answers and the note names the others (programs draw no such
    question: `programs.computed` samples only numbers with one nearest answer)."""
    view = tr.view
    cells = nearest(view, value, series, x)
    if not cells:
        return None
    lab, s, v = cells[0]
    if abs(v - value) > 0.1 * max(abs(value), 1e-9):
        return None
    name = s if x is not None else lab
    k = 1 if x is not None else 0  # the answer: the series at x, else the label
    ties = list(dict.fromkeys(str(c[k]) for c in cells[1:] if c[2] == v and c[k] != name))
    tied = f", as is {', '.join(ties)}" if ties else ""
    return tr.add(
        "closest",
        "VC",
        f"Which {'series' if x is not None else view.x_label} shows the value closest to "
        f"{view.fmt(value)}?",
        name,
        "text",
        cells=tuple((c[0], c[1]) for c in cells),
        args={"value": value, "series": series, "x": x},
        note=f"The value closest to {view.fmt(value)} is {view.fmt(v)}, shown for {s} at "
        f"{lab}{tied}",
    )


def color_is(tr: Tracer, value: float, colour: str) -> Op | None:
    """Whether the one mark showing `value` is drawn in the colour a question names (a
    colour word: "gray" matches "dark gray") (CI)."""
    view = tr.view
    cells = cells_of(view, view.series)
    hits = [(x, s) for x, s, v in cells if _same(v, value)]
    if len(hits) != 1 or not _clear(view, [v for *_, v in cells], value):
        return None
    x, s = hits[0]
    key = x if x in view.colors else s
    name = view.colors.get(key)
    if name is None:
        return None
    truth = colour.lower() == name.lower() or same_colour(colour, name)
    return tr.add(
        "color_is",
        "CI",
        f"Is the mark showing {view.fmt(value)} drawn in {colour}?",
        truth,
        "bool",
        cells=((x, s),),
        args={"value": value, "colour": colour},
        note=f"the mark showing {view.fmt(value)} ({key}) is drawn in {name}",
    )


def value_is(tr: Tracer, series: str, x: str, value: float) -> Op | None:
    """Whether `series` at `x` shows the value a question claims, within 5 % of it (at
    least 0.5, for claims rounded to whole numbers) (VE)."""
    read = ops_read(tr, series, x)
    if read is None:
        return None
    v = read.number()
    truth = abs(v - value) <= max(0.05 * abs(value), 0.5)
    return tr.add(
        "value_is",
        "VE",
        f"Is the value of {series} in {x} {tr.view.fmt(value)}?",
        truth,
        "bool",
        depends_on=(read,),
        cells=((x, series),),
        args={"series": series, "x": x, "value": value},
        note=f"{tr.view.fmt(v)} is{'' if truth else ' not'} within 5 % (at least 0.5) of "
        f"{tr.view.fmt(value)}",
    )


def key_color_is(tr: Tracer, key: str, colour: str) -> Op | None:
    """Whether a series (pie: a wedge) is drawn in the colour a question names: the same
    colour word, a word of its name ("blue" of "dark blue") or the same colour family (CI)."""
    shown = color_of(tr, key)
    if shown is None:
        return None
    name = str(shown.value)
    truth = (
        similarity(colour, name) >= 0.8
        or norm(colour) in norm(name).split()
        or same_colour(colour, name)
    )
    return tr.add(
        "key_color_is",
        "CI",
        f"Is {key} drawn in {colour}?",
        truth,
        "bool",
        depends_on=(shown,),
        args={"key": key, "colour": colour},
        note=f"{key} is drawn in {name}",
    )
