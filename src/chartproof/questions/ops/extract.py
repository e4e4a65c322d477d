"""Operations that read one thing off the chart: a value, a box statistic, a colour, a
position (ChartR VE, CI and PR)."""

from __future__ import annotations

from pydantic import JsonValue

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
from chartproof.questions.ops.steps import StepRun, step_question
from chartproof.questions.trace import Op, Tracer, ref
from chartproof.questions.view import BOX_STATS, ChartView

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


Label = str | Op
"""A label named in the question, or the earlier step whose answer is that label."""


def x_noun(view: ChartView) -> str:
    """How a step names one x label: "year", "country", "wedge", "box"."""
    if view.kind.color_keys == "x":
        return view.mark
    title = view.x_label
    return title if title.isupper() else title.lower()


def resolve(tr: Tracer, arg: Label, noun: str) -> tuple[str, str, tuple[Op, ...]]:
    """(label, how the question names it, steps it comes from) of a label argument: an
    earlier step's answer is named by its step ("the year from step 3") and becomes a
    dependency, so a different earlier answer makes the step ask about another label."""
    if not isinstance(arg, Op):
        return arg, arg, ()
    if arg.op == "color_of":
        # a colour found earlier names the series drawn in it (ChartR's colour-first reads)
        keys = [k for k, c in tr.view.colors.items() if c == arg.value]
        label = keys[0] if len(keys) == 1 else ""
        return label, f"the {noun} drawn in the colour from step {arg.id + 1}", (arg,)
    return str(arg.value), tr.named(arg, noun), (arg,)


def refs(name: str, deps: tuple[Op, ...]) -> dict[str, JsonValue]:
    """The `<name>_ref` argument recording which step a resolved label came from."""
    return {f"{name}_ref": ref(deps[0])} if deps else {}


def read(tr: Tracer, series: Label, x: Label) -> Op | None:
    """The shown value of `series` at `x` (VE); either may be an earlier step's answer."""
    view = tr.view
    s, s_text, s_deps = resolve(tr, series, "series")
    lab, x_text, x_deps = resolve(tr, x, x_noun(view))
    v = view.value(s, lab)
    if v is None:
        return None
    series, x = s, lab
    return tr.add(
        "read",
        "VE",
        f"What is the value of {s_text} in {x_text}?",
        v,
        "number",
        depends_on=s_deps + x_deps,
        cells=((x, series),),
        args={"series": series, "x": x, **refs("series", s_deps), **refs("x", x_deps)},
        note=f"{mark_name(view, series, x)} {read_verb(view)} {view.fmt(v)}",
        # an unlabelled stacked segment or area band is read as the difference of its ends
        err=view.read_error(v) * (2 if view.kind.stacks else 1),
        unit=view.unit,
    )


def _reading_box(stat: str) -> StepRun:
    return lambda tr, a: read_box(tr, stat, str(a["x"]))


_READ_BOX_Q = {
    stat: step_question(
        "read_box", f"What is the {box_stat_name(stat)} of {{x}}?", _reading_box(stat), x="x"
    )
    for stat in BOX_STATS
}


def read_box(tr: Tracer, stat: str, x: Label) -> Op | None:
    """One statistic (min, q1, median, q3, max) of the box at `x` (VE); `x` may be an
    earlier step's answer."""
    view = tr.view
    x, x_text, deps = resolve(tr, x, x_noun(view))
    box = view.boxes.get(x)
    if box is None or stat not in BOX_STATS or view.xi(x) is None:
        return None
    v = box[BOX_STATS.index(stat)]
    return tr.add(
        "read_box",
        "VE",
        _READ_BOX_Q[stat].format(x=x_text),
        v,
        "number",
        depends_on=deps,
        cells=((x, stat),),
        args={"stat": stat, "x": x, **refs("x", deps)},
        note=f"{box_part(view, stat, x)} {read_verb(view)} {view.fmt(v)}",
        err=view.read_error(v),
        unit=view.unit,
    )


def color_of(tr: Tracer, key: Label) -> Op | None:
    """The colour name of a series (pie: of a wedge) (CI); `key` may be an earlier step's
    answer."""
    view = tr.view
    by_x = view.kind.color_keys == "x"
    key, key_text, deps = resolve(tr, key, view.mark if by_x else "series")
    name = view.colors.get(key)
    if name is None or (by_x and view.xi(key) is None):
        return None
    if by_x:
        note = f"the {view.mark} for {key} is drawn in {name}"
    elif view.legend:
        note = f"the legend shows {key} in {name}"
    else:
        note = f"{series_mark(view, key)} is drawn in {name}"
    return tr.add(
        "color_of",
        "CI",
        f"What colour is used for {key_text}?",
        name,
        "text",
        depends_on=deps,
        args={"key": key, **refs("key", deps)},
        note=note,
    )


def key_of_color(tr: Tracer, color: str) -> Op | None:
    """The series (pie: wedge label) drawn in colour `color` (CI)."""
    view = tr.view
    keys = [k for k, c in view.colors.items() if c == color]
    if len(keys) != 1:
        return None
    key = keys[0]
    kind = view.mark if view.kind.color_keys == "x" else "series"
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


def position_of(tr: Tracer, x: Label) -> Op | None:
    """The 1-based position of label `x` counted from the left (top) (PR); `x` may be an
    earlier step's answer."""
    view = tr.view
    x, x_text, deps = resolve(tr, x, x_noun(view))
    i = view.xi(x)
    if i is None:
        return None
    side = position_word(view)
    return tr.add(
        "position_of",
        "PR",
        f"Counting from the {side}, at which position is the {view.mark} for {x_text}?",
        float(i + 1),
        "number",
        depends_on=deps,
        args={"x": x, **refs("x", deps)},
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
