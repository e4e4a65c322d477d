"""Free-form chart questions (ChartQA style) mapped onto question programs by keywords and
the labels, series, colours and numbers they mention; used when no template fits."""

from __future__ import annotations

import re
from dataclasses import dataclass

from chartproof.models.reader._text import find_mentions, norm, numbers_in, similarity
from chartproof.numeric import parse_number
from chartproof.questions import ChartView
from chartproof.questions.program import ArgValue

__all__ = ["Intent", "intents"]


@dataclass(frozen=True)
class Intent:
    """A program name with arguments guessed from a free-form question."""

    program: str
    """Registered program name."""
    args: dict[str, ArgValue]
    """Its arguments."""
    why: str
    """Which cue chose it (for the explanation of a refusal or a debug trace)."""


def _has(q: str, *words: str) -> bool:
    return any(re.search(rf"\b{re.escape(w)}\b", q) for w in words)


_MAX = (
    "highest",
    "largest",
    "maximum",
    "max",
    "most",
    "biggest",
    "greatest",
    "peak",
    "top",
    "best",
)
_MIN = ("lowest", "smallest", "minimum", "min", "least", "fewest", "worst", "bottom")
_ABOVE = ("above", "more than", "greater than", "over", "exceed", "exceeds", "higher than")
_BELOW = ("below", "less than", "under", "lower than", "fewer than")
_WHICH = ("which", "what", "who", "where", "when", "in which", "in what")


def _series_guess(q: str, view: ChartView, mentioned: list[str]) -> str | None:
    if mentioned:
        return mentioned[0]
    if len(view.series) == 1:
        return view.series[0]
    # No series named: the one whose words the question shares most.
    scored = [(_overlap(q, s), s) for s in view.series]
    scored.sort(key=lambda p: -p[0])
    if scored and scored[0][0] > 0 and (len(scored) == 1 or scored[0][0] > scored[1][0]):
        return scored[0][1]
    return view.series[0] if view.series else None


def _overlap(q: str, label: str) -> float:
    words = set(norm(q).split())
    lw = [w for w in norm(label).split() if len(w) > 2]
    if not lw:
        return 0.0
    return sum(1 for w in lw if w in words or any(similarity(w, x) > 0.85 for x in words)) / len(lw)


def _threshold(q: str, view: ChartView, xs: list[str]) -> float | None:
    years = {norm(x) for x in xs}
    for x in numbers_in(q):
        if norm(f"{x:g}") not in years:
            return x
    return None


def intents(question: str, view: ChartView) -> list[Intent]:
    """Candidate programs for a free-form question, most likely first."""
    q = norm(question)
    xs = find_mentions(question, view.x_labels)
    ss = find_mentions(question, view.series)
    out: list[Intent] = []
    series = _series_guess(question, view, ss)
    pie = view.chart_type == "pie"

    def add(program: str, why: str, **args: ArgValue | None) -> None:
        if all(v is not None for v in args.values()):
            out.append(Intent(program, {k: v for k, v in args.items() if v is not None}, why))

    if _has(q, "color", "colour"):
        colors = find_mentions(question, sorted(set(view.colors.values())))
        if _has(q, "how many"):
            add("count_colors", "how many colours")
        if colors and _has(q, "represent", "represents", "stand", "indicate", "show", "mean"):
            add("series_of_color", "colour meaning", color=colors[0])
        if pie and xs:
            add("color_of_wedge", "colour of a wedge", x=xs[0])
        if xs and _has(q, *_MAX):
            add("color_of_max_series", "colour of the largest series", x=xs[0])
        add("color_of_series", "colour of a series", series=ss[0] if ss else series)
        return out
    if colors := find_mentions(question, sorted(set(view.colors.values()))):
        if _has(q, "represent", "represents", "stand", "indicate", "denote"):
            add("series_of_color", "colour meaning", color=colors[0])
        if xs:
            add("value_of_color", "value of a coloured series", color=colors[0], x=xs[0])
    threshold = _threshold(question, view, xs)
    if _has(q, "how many") and threshold is not None:
        if any(w in q for w in _ABOVE):
            add("count_above", "how many above", series=series, threshold=threshold)
        if any(w in q for w in _BELOW):
            add("count_below", "how many below", series=series, threshold=threshold)
    if _has(q, "how many") and "average" in q and any(w in q for w in _ABOVE):
        add("count_above_average", "how many above average", series=series)
    diff = _has(q, "difference", "gap", "subtract", "deduct", "minus") or re.search(
        r"how (much|many) (more|less|fewer|higher|lower)", q
    )
    if diff:
        if _has(q, *_MAX) and _has(q, *_MIN):
            add("max_minus_min", "highest minus lowest", series=series)
        if _has(q, "two largest", "top two", "two highest"):
            add("top_two_gap", "gap of the top two", series=series)
        if len(xs) >= 2:
            add("diff_two", "difference of two labels", series=series, x=xs[0], x2=xs[1])
        if len(ss) >= 2 and xs:
            add(
                "diff_series_at_x", "difference of two series", series=ss[0], series2=ss[1], x=xs[0]
            )
        if len(ss) >= 2 and not xs and len(view.x_labels) == 1:
            add(
                "diff_series_at_x",
                "difference of two series",
                series=ss[0],
                series2=ss[1],
                x=view.x_labels[0],
            )
    if _has(q, "average", "mean"):
        if len(xs) >= 2:
            add("average_of_two", "average of two labels", series=series, x=xs[0], x2=xs[1])
        add("average", "average", series=series)
    if _has(q, "median"):
        add("median_series", "median", series=series)
    if _has(q, "ratio", "times"):
        if _has(q, *_MAX) and _has(q, *_MIN):
            add("ratio_max_min", "ratio of extremes", series=series)
        if len(xs) >= 2:
            add("ratio_two", "ratio of two labels", series=series, x=xs[0], x2=xs[1])
    if _has(q, "sum", "total", "combined", "together", "add", "altogether"):
        if view.chart_type == "stacked_bar" and xs:
            add("stack_total", "total of a stack", x=xs[0])
        if len(xs) >= 2:
            add("sum_two", "sum of two labels", series=series, x=xs[0], x2=xs[1])
        if threshold is not None and any(w in q for w in _ABOVE):
            add("sum_above", "sum above a threshold", series=series, threshold=threshold)
        add("total", "total", series=series)
    if _has(q, "second") and _has(q, *_MAX):
        if _has(q, *_WHICH) and not _has(q, "value"):
            add("kth_largest_label", "second largest label", series=series, k=2)
        add("second_largest_value", "second largest value", series=series)
    if _has(q, *_MAX) or _has(q, *_MIN):
        fn = "argmax" if _has(q, *_MAX) else "argmin"
        asks_label = _has(q, *_WHICH) and not re.search(
            r"\bwhat (is|was|are) the (highest|lowest|largest|smallest|maximum|minimum)\b", q
        )
        if asks_label and xs and len(view.series) > 1 and not ss:
            add(f"{fn}_series_at_x", "series extreme at a label", x=xs[0])
        if asks_label:
            add(f"{fn}_x", "label of the extreme", series=series)
        add("max_value" if fn == "argmax" else "min_value", "extreme value", series=series)
    if re.search(r"\b(increas|decreas|grow|declin|ris|fall)", q) and len(xs) >= 2:
        add("trend_from_to", "trend between two labels", series=series, x=xs[0], x2=xs[1])
    if len(xs) >= 2 and re.search(r"\b(greater|more|higher|larger|bigger) than\b", q):
        add("larger_of_two", "compare two labels", series=series, x=xs[0], x2=xs[1])
    if threshold is not None and _has(q, *_WHICH) and not xs:
        add("x_with_value", "label with a value", series=series, value=threshold)
    if xs:
        if pie:
            add("pie_value", "value of a wedge", x=xs[0])
        for s in ss or ([series] if series else []):
            add("value_at", "value at a label", series=s, x=xs[0])
    elif ss and len(view.x_labels) == 1:
        add("value_at", "value of the only label", series=ss[0], x=view.x_labels[0])
    return out


def answer_number(text: str) -> float | None:
    """A number in an earlier answer ("12.5", "12.5%", "1,234")."""
    return parse_number(text.strip().rstrip("."))
