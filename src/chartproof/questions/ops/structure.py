"""Facts about the chart's structure (RealCQA dense chart parsing): type, axis titles,
ranges, ticks, scale, legend and series."""

from __future__ import annotations

from chartproof.charts.kinds import kind_titles
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView
from chartproof.types import AnswerKind, AnswerValue

__all__ = ["CHART_TYPE_NAMES", "FACTS", "chart_fact", "value_range"]

CHART_TYPE_NAMES = kind_titles()
"""How questions and premises name each chart type (`ChartKind.title`, read live)."""

FACTS = (
    "chart_type",
    "y_title",
    "x_title",
    "y_range",
    "categorical",
    "log_scale",
    "legend",
    "n_series",
    "legend_labels",
    "x_ticks",
)
"""Facts `chart_fact` can report."""


def value_range(view: ChartView) -> tuple[float, float] | None:
    """Smallest and largest plotted value (box plots: whisker ends; scatter: y values)."""
    if view.kind.data == "boxes":
        vals = [v for b in view.boxes.values() for v in (b[0], b[4])]
    elif view.kind.data == "points":
        vals = [p[1] for pts in view.points.values() for p in pts]
    else:
        vals = [v for col in view.values.values() for v in col if v is not None]
    return (min(vals), max(vals)) if vals else None


def _fact(view: ChartView, fact: str) -> tuple[str, AnswerValue, AnswerKind, str] | None:
    """(question, value, kind, note) of one fact, None when the chart does not show it."""
    axes = view.kind.axes
    if fact == "chart_type":
        name = CHART_TYPE_NAMES[view.chart_type]
        return "What type of chart is this?", name, "text", f"the marks form a {name}"
    if fact == "y_title":
        if not axes or not view.y_title:
            return None
        return (
            "What is the title of the dependent axis?",
            view.y_title,
            "text",
            f"the dependent axis is titled {view.y_title}",
        )
    if fact == "x_title":
        if not axes or not view.x_title:
            return None
        return (
            "What is the title of the independent axis?",
            view.x_title,
            "text",
            f"the independent axis is titled {view.x_title}",
        )
    if fact == "y_range":
        rng = value_range(view)
        if rng is None or not axes:
            return None
        lo, hi = rng
        return (
            "What are the smallest and the largest plotted values?",
            (lo, hi),
            "ranked_list",
            f"the plotted values run from {view.fmt(lo)} to {view.fmt(hi)}",
        )
    if fact == "categorical":
        if not axes:
            return None
        cat = view.x_kind != "number"
        kind = "category labels" if cat else "a numeric scale"
        return (
            "Is the independent axis categorical?",
            cat,
            "bool",
            f"the independent axis shows {kind}",
        )
    if fact == "log_scale":
        if not axes:
            return None
        log = view.y_scale == "log"
        return (
            "Is the dependent axis logarithmic?",
            log,
            "bool",
            f"the dependent axis uses a {view.y_scale} scale",
        )
    if fact == "legend":
        note = "a legend lists the series" if view.legend else "no legend is drawn"
        return "Is there a legend in the chart?", view.legend, "bool", note
    if fact == "n_series":
        if view.kind.data == "boxes":
            return None  # a box plot's boxes are categories; it has no series to count
        n = len(view.series)
        return (
            "How many data series are plotted?",
            float(n),
            "number",
            f"the chart shows {n} data series",
        )
    if fact == "legend_labels":
        if not view.legend:
            return None
        labels = view.x_labels if view.kind.color_keys == "x" else view.series
        return (
            "What are the labels in the legend?",
            tuple(labels),
            "list",
            "the legend lists " + ", ".join(labels),
        )
    if fact == "x_ticks":
        if not axes or view.x_kind == "number" or not view.x_labels:
            return None
        return (
            "What are the tick labels of the independent axis?",
            tuple(view.x_labels),
            "ranked_list",
            "the independent axis is labelled " + ", ".join(view.x_labels),
        )
    raise ValueError(f"unknown chart fact {fact!r}; known: {FACTS}")


def chart_fact(tr: Tracer, fact: str) -> Op | None:
    """One structural fact of the chart, as a dense chart-parsing answer."""
    found = _fact(tr.view, fact)
    if found is None:
        return None
    question, value, kind, note = found
    return tr.add(
        "chart_fact",
        None,
        question,
        value,
        kind,
        args={"fact": fact},
        note=note,
        exact=kind == "number",
    )
