"""Operations that keep the marks meeting a condition: above, below or between thresholds
(ChartR CP)."""

from __future__ import annotations

from chartproof.questions.describe import mark_name, series_mark
from chartproof.questions.ops.compare import labelled_values
from chartproof.questions.ops.extract import Label, refs, resolve
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["condition_text", "count", "first_where", "forall_sum_gt", "select", "sum_where"]


def condition_text(view: ChartView, cond: str, lo: float, hi: float | None = None) -> str:
    """ "above 12", "below 3", "between 10 and 20"."""
    if cond == "between":
        return f"between {view.fmt(lo)} and {view.fmt(hi if hi is not None else lo)}"
    return f"{cond} {view.fmt(lo)}"


def _holds(cond: str, v: float, lo: float, hi: float | None) -> bool:
    if cond == "above":
        return v > lo
    if cond == "below":
        return v < lo
    return lo < v < (hi if hi is not None else lo)


def _clear(view: ChartView, values: list[float], lo: float, hi: float | None) -> bool:
    """No value sits so close to a bound that a reader could place it on either side."""
    bounds = [lo] if hi is None else [lo, hi]
    return all(view.distinct(v, b) for v in values for b in bounds)


def _matches(
    view: ChartView, series: str, cond: str, lo: float, hi: float | None
) -> list[tuple[str, float]] | None:
    pairs = labelled_values(view, series)
    if not pairs or not _clear(view, [v for _, v in pairs], lo, hi):
        return None
    return [(lab, v) for lab, v in pairs if _holds(cond, v, lo, hi)]


def _args(series: str, cond: str, lo: float, hi: float | None) -> dict[str, object]:
    return {"series": series, "cond": cond, "lo": lo, "hi": hi}


def select(tr: Tracer, series: Label, cond: str, lo: float, hi: float | None = None) -> Op | None:
    """The x labels whose `series` value meets the condition, in display order (CP);
    `series` may be an earlier step's answer (a series name or its colour)."""
    view = tr.view
    series, s_text, deps = resolve(tr, series, "series")
    hits = _matches(view, series, cond, lo, hi)
    if hits is None or not hits:
        return None
    text = condition_text(view, cond, lo, hi)
    return tr.add(
        "select",
        "CP",
        f"Which {view.x_label} values have {s_text} {text}?",
        tuple(lab for lab, _ in hits),
        "list",
        depends_on=deps,
        cells=tuple((lab, series) for lab in view.x_labels),
        args={**_args(series, cond, lo, hi), **refs("series", deps)},  # type: ignore[dict-item]
        note=f"of {series_mark(view, series)}, those {text} are at "
        + ", ".join(f"{lab} ({view.fmt(v)})" for lab, v in hits),
    )


def count(tr: Tracer, series: str, cond: str, lo: float, hi: float | None = None) -> Op | None:
    """How many marks of `series` meet the condition (CP)."""
    view = tr.view
    hits = _matches(view, series, cond, lo, hi)
    if hits is None:
        return None
    text = condition_text(view, cond, lo, hi)
    listing = ", ".join(lab for lab, _ in hits) if hits else "none of them"
    return tr.add(
        "count",
        "CP",
        f"How many {view.x_label} values have {series} {text}?",
        float(len(hits)),
        "number",
        cells=tuple((lab, series) for lab in view.x_labels),
        args=_args(series, cond, lo, hi),  # type: ignore[arg-type]
        note=f"of {series_mark(view, series)}, {len(hits)} lie {text}: {listing}",
        exact=True,
    )


def first_where(tr: Tracer, series: str, cond: str, lo: float) -> Op | None:
    """The first x label (display order) whose `series` value meets the condition (CP)."""
    view = tr.view
    hits = _matches(view, series, cond, lo, None)
    if not hits:
        return None
    lab, v = hits[0]
    text = condition_text(view, cond, lo)
    return tr.add(
        "first_where",
        "CP",
        f"In which {view.x_label} is {series} {text} for the first time?",
        lab,
        "text",
        cells=tuple((la, series) for la in view.x_labels),
        args=_args(series, cond, lo, None),  # type: ignore[arg-type]
        note=f"moving along {series_mark(view, series)}, {mark_name(view, series, lab)} "
        f"({view.fmt(v)}) is the first {text}",
    )


def sum_where(tr: Tracer, series: str, cond: str, lo: float) -> Op | None:
    """The sum of the `series` values meeting the condition (CP)."""
    view = tr.view
    hits = _matches(view, series, cond, lo, None)
    if not hits:
        return None
    total = sum(v for _, v in hits)
    text = condition_text(view, cond, lo)
    return tr.add(
        "sum_where",
        "CP",
        f"What is the sum of the {series} values {text}?",
        total,
        "number",
        cells=tuple((la, series) for la in view.x_labels),
        args=_args(series, cond, lo, None),  # type: ignore[arg-type]
        note=f"of {series_mark(view, series)}, those {text} show "
        + ", ".join(view.fmt(v) for _, v in hits)
        + f", which add up to {view.fmt(total)}",
        err=sum(view.read_error(v) for _, v in hits),
        unit=view.unit,
    )


def forall_sum_gt(tr: Tracer, first: str, second: str, third: str) -> Op | None:
    """Whether at every x the values of `first` and `second` add up to more than that of
    `third` (CP)."""
    view = tr.view
    a, b, c = view.column(first), view.column(second), view.column(third)
    if a is None or b is None or c is None or not view.x_unique:
        return None
    failures: list[str] = []
    for lab, x, y, z in zip(view.x_labels, a, b, c, strict=True):
        err = view.read_error(x) + view.read_error(y)
        if not view.distinct(x + y, z, err_a=err):
            return None
        if x + y <= z:
            failures.append(lab)
    truth = not failures
    if truth:
        note = (
            f"at every {view.x_label}, {series_mark(view, first)} plus "
            f"{series_mark(view, second)} reach above {series_mark(view, third)}"
        )
    else:
        at = failures[0]
        note = (
            f"at {at}, {mark_name(view, first, at)} plus {mark_name(view, second, at)} do not "
            f"reach above {mark_name(view, third, at)}"
        )
    return tr.add(
        "forall_sum_gt",
        "CP",
        f"At every {view.x_label}, is {first} plus {second} greater than {third}?",
        truth,
        "bool",
        cells=tuple((lab, s) for lab in view.x_labels for s in (first, second, third)),
        args={"first": first, "second": second, "third": third},
        note=note,
    )
