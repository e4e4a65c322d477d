"""Names of the visual elements a reader looks at: "the blue bar for 2019", "the red
wedge for Asia", "the median line of the box for Group B".

Sub-questions, explanations and premises all describe marks through these functions, so the
same chart element is always named the same way.
"""

from __future__ import annotations

from chartproof.questions.view import ChartView

__all__ = [
    "box_stat_name",
    "mark_name",
    "marks_of",
    "position_word",
    "read_verb",
    "series_mark",
]

_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth",
)  # fmt: skip

_BOX_PARTS = {
    "min": "lower whisker end",
    "q1": "lower edge",
    "median": "median line",
    "q3": "upper edge",
    "max": "upper whisker end",
}

_BOX_NAMES = {
    "min": "minimum",
    "q1": "lower quartile",
    "median": "median",
    "q3": "upper quartile",
    "max": "maximum",
}


def ordinal(k: int) -> str:
    """1 → "first", 2 → "second"; beyond twenty, "21st" style."""
    if 1 <= k <= len(_ORDINALS):
        return _ORDINALS[k - 1]
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def ordinal_value(word: str) -> int | None:
    """ "second" → 2, "21st" → 21; None when the word is no ordinal."""
    w = word.strip().lower()
    if w in _ORDINALS:
        return _ORDINALS.index(w) + 1
    digits = w[:-2]
    if digits.isdigit() and w[-2:] in ("st", "nd", "rd", "th"):
        return int(digits)
    return None


def box_stat_name(stat: str) -> str:
    """ "q3" → "upper quartile"."""
    return _BOX_NAMES[stat]


def position_word(view: ChartView) -> str:
    """Where counting starts: "left" for vertical layouts, "top" for horizontal bars."""
    return "top" if view.orientation == "horizontal" and view.kind.axes else "left"


def _color(view: ChartView, key: str) -> str:
    name = view.colors.get(key)
    return f"{name} " if name else ""


def mark_name(view: ChartView, series: str | None, x: str) -> str:
    """The mark showing `series` at `x`, e.g. "the blue bar for 2019"."""
    kind = view.kind
    color = _color(view, x) if kind.color_keys == "x" else _color(view, series or "")
    single = len(view.series) <= 1 or series is None
    return kind.phrase(color=color, series=f"{series}", x=x, single=single)


def box_part(view: ChartView, stat: str, x: str) -> str:
    """The part of a box showing one statistic, e.g. "the median line of the box for B"."""
    return f"the {_BOX_PARTS[stat]} of the box for {x}"


def series_mark(view: ChartView, series: str) -> str:
    """All marks of one series, e.g. "the orange line of Exports" or "the bars"."""
    kind = view.kind
    color = _color(view, series)
    if kind.family == "line":
        return f"the {color}{series} line" if len(view.series) > 1 else f"the {color}line"
    if kind.data == "points":
        return f"the {color}points of {series}"
    if kind.color_keys == "x":
        return f"the {marks_of(view)}"
    if len(view.series) > 1:
        return f"the {color}{series} {marks_of(view)}"
    return f"the {color}{marks_of(view)}"


def marks_of(view: ChartView) -> str:
    """The plural word for the chart's marks: "bars", "points", "wedges", "boxes"."""
    return {
        "bar": "bars",
        "segment": "segments",
        "point": "points",
        "wedge": "wedges",
        "box": "boxes",
    }.get(view.mark, view.mark + "s")


def read_verb(view: ChartView) -> str:
    """How a mark shows its value: "is labelled", "reaches", "sits at", "covers"."""
    if view.value_labels:
        return "is labelled"
    family = view.kind.family
    if family == "bar":
        return "extends to" if view.orientation == "horizontal" else "reaches"
    if family == "pie":
        return "covers"
    return "sits at"
