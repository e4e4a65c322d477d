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
    return "top" if view.orientation == "horizontal" and view.chart_type != "pie" else "left"


def _color(view: ChartView, key: str) -> str:
    name = view.colors.get(key)
    return f"{name} " if name else ""


def mark_name(view: ChartView, series: str | None, x: str) -> str:
    """The mark showing `series` at `x`, e.g. "the blue bar for 2019"."""
    ct = view.chart_type
    if ct == "pie":
        return f"the {_color(view, x)}wedge for {x}"
    single = len(view.series) <= 1 or series is None
    if ct in ("vbar", "hbar"):
        return f"the {_color(view, series or '')}bar for {x}"
    if ct == "grouped_bar":
        return f"the {_color(view, series or '')}{series} bar at {x}"
    if ct == "stacked_bar":
        return f"the {_color(view, series or '')}{series} segment of the {x} bar"
    if ct in ("line", "area"):
        if single:
            return f"the {_color(view, series or '')}line at {x}"
        return f"the {_color(view, series or '')}{series} line at {x}"
    if ct == "box":
        return f"the box for {x}"
    return f"the {_color(view, series or '')}points of {series}"


def box_part(view: ChartView, stat: str, x: str) -> str:
    """The part of a box showing one statistic, e.g. "the median line of the box for B"."""
    return f"the {_BOX_PARTS[stat]} of the box for {x}"


def series_mark(view: ChartView, series: str) -> str:
    """All marks of one series, e.g. "the orange line of Exports" or "the bars"."""
    ct = view.chart_type
    color = _color(view, series)
    if ct in ("line", "area"):
        return f"the {color}{series} line" if len(view.series) > 1 else f"the {color}line"
    if ct == "scatter":
        return f"the {color}points of {series}"
    if ct == "pie":
        return "the wedges"
    if len(view.series) > 1:
        word = "segments" if ct == "stacked_bar" else "bars"
        return f"the {color}{series} {word}"
    return f"the {color}bars"


def marks_of(view: ChartView) -> str:
    """The plural word for the chart's marks: "bars", "points", "wedges", "boxes"."""
    return {
        "bar": "bars",
        "segment": "segments",
        "point": "points",
        "wedge": "wedges",
        "box": "boxes",
    }[view.mark]


def read_verb(view: ChartView) -> str:
    """How a mark shows its value: "is labelled", "reaches", "sits at", "covers"."""
    if view.value_labels:
        return "is labelled"
    ct = view.chart_type
    if ct == "hbar" or (ct in ("grouped_bar", "stacked_bar") and view.orientation == "horizontal"):
        return "extends to"
    if ct in ("vbar", "grouped_bar", "stacked_bar"):
        return "reaches"
    if ct == "pie":
        return "covers"
    return "sits at"
