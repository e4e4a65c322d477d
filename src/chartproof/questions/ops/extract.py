"""Operations that read one thing off the chart: a value, a box statistic, a colour, a
position (ChartR VE, CI and PR)."""

from __future__ import annotations

from chartproof.questions.describe import (
    box_part,
    box_stat_name,
    mark_name,
    marks_of,
    ordinal,
    position_word,
    read_verb,
    series_mark,
)
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import BOX_STATS

__all__ = [
    "color_of",
    "count_colors",
    "find_value",
    "key_of_color",
    "label_at",
    "position_of",
    "read",
    "read_box",
]


def read(tr: Tracer, series: str, x: str) -> Op | None:
    """The shown value of `series` at `x` (VE)."""
    view = tr.view
    v = view.value(series, x)
    if v is None:
        return None
    return tr.add(
        "read",
        "VE",
        f"What is the value of {series} in {x}?",
        v,
        "number",
        cells=((x, series),),
        args={"series": series, "x": x},
        note=f"{mark_name(view, series, x)} {read_verb(view)} {view.fmt(v)}",
        # an unlabelled stacked segment or area band is read as the difference of its ends
        err=view.read_error(v) * (2 if view.chart_type in ("stacked_bar", "area") else 1),
        unit=view.unit,
    )


def read_box(tr: Tracer, stat: str, x: str) -> Op | None:
    """One statistic (min, q1, median, q3, max) of the box at `x` (VE)."""
    view = tr.view
    box = view.boxes.get(x)
    if box is None or stat not in BOX_STATS or view.xi(x) is None:
        return None
    v = box[BOX_STATS.index(stat)]
    name = box_stat_name(stat)
    return tr.add(
        "read_box",
        "VE",
        f"What is the {name} of {x}?",
        v,
        "number",
        cells=((x, stat),),
        args={"stat": stat, "x": x},
        note=f"{box_part(view, stat, x)} {read_verb(view)} {view.fmt(v)}",
        err=view.read_error(v),
        unit=view.unit,
    )


def color_of(tr: Tracer, key: str) -> Op | None:
    """The colour name of a series (pie: of a wedge) (CI)."""
    view = tr.view
    name = view.colors.get(key)
    if name is None or (view.chart_type == "pie" and view.xi(key) is None):
        return None
    if view.chart_type == "pie":
        note = f"the wedge for {key} is drawn in {name}"
    elif view.legend:
        note = f"the legend shows {key} in {name}"
    else:
        note = f"{series_mark(view, key)} is drawn in {name}"
    return tr.add(
        "color_of",
        "CI",
        f"What colour is used for {key}?",
        name,
        "text",
        args={"key": key},
        note=note,
    )


def key_of_color(tr: Tracer, color: str) -> Op | None:
    """The series (pie: wedge label) drawn in colour `color` (CI)."""
    view = tr.view
    keys = [k for k, c in view.colors.items() if c == color]
    if len(keys) != 1:
        return None
    key = keys[0]
    kind = "wedge" if view.chart_type == "pie" else "series"
    return tr.add(
        "key_of_color",
        "CI",
        f"Which {kind} is drawn in {color}?",
        key,
        "text",
        args={"color": color},
        note=f"the {color} {kind} belongs to {key}",
    )


def count_colors(tr: Tracer) -> Op | None:
    """How many distinct colours the marks use (CI)."""
    view = tr.view
    if not view.colors:
        return None
    n = len(set(view.colors.values()))
    return tr.add(
        "count_colors",
        "CI",
        f"How many colours are used for the {marks_of(view)}?",
        float(n),
        "number",
        args={},
        note=f"the {marks_of(view)} use {n} colour{'s' if n != 1 else ''}: "
        + ", ".join(sorted(set(view.colors.values()))),
        exact=True,
    )


def label_at(tr: Tracer, k: int) -> Op | None:
    """The label of the k-th mark counted from the left (top for horizontal bars) (PR)."""
    view = tr.view
    if not 1 <= k <= view.n or not view.x_unique:
        return None
    side = position_word(view)
    label = view.x_labels[k - 1]
    return tr.add(
        "label_at",
        "PR",
        f"What is the label of the {ordinal(k)} {view.mark} from the {side}?",
        label,
        "text",
        args={"k": k},
        note=f"the {ordinal(k)} {view.mark} from the {side} is labelled {label}",
    )


def position_of(tr: Tracer, x: str) -> Op | None:
    """The 1-based position of label `x` counted from the left (top) (PR)."""
    view = tr.view
    i = view.xi(x)
    if i is None:
        return None
    side = position_word(view)
    return tr.add(
        "position_of",
        "PR",
        f"Counting from the {side}, at which position is the {view.mark} for {x}?",
        float(i + 1),
        "number",
        args={"x": x},
        note=f"the {view.mark} for {x} is the {ordinal(i + 1)} from the {side}",
        exact=True,
    )


def find_value(tr: Tracer, series: str, value: float) -> Op | None:
    """The x label at which `series` shows `value` (PR); unique and distinguishable."""
    view = tr.view
    col = view.values.get(series)
    if col is None or not view.x_unique:
        return None
    hits = [i for i, v in enumerate(col) if v is not None and not view.distinct(v, value)]
    if len(hits) != 1:
        return None
    x = view.x_labels[hits[0]]
    return tr.add(
        "find_value",
        "PR",
        f"In which {view.x_label} does {series} show {view.fmt(value)}?",
        x,
        "text",
        cells=tuple((lab, series) for lab in view.x_labels),
        args={"series": series, "value": value},
        note=f"among {series_mark(view, series)} only {mark_name(view, series, x)} shows "
        f"{view.fmt(value)}",
    )
