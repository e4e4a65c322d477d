"""Computed human questions no single question program asks (ChartQA's human split): how
many cells show a given value, which value of a listed run is missing, the gap between the
extremes of two series, how many rows' totals pass a threshold. Each returns the answer and
a sentence saying what was computed."""

from __future__ import annotations

import re
from collections.abc import Sequence

from chartproof.numeric import format_number
from chartproof.questions import ChartView
from chartproof.reader._colours import colour_in_question, series_of_colour_word
from chartproof.reader._text import find_mentions, norm, numbers_written

__all__ = ["Computed", "colour_check", "computed"]

Computed = tuple[str, str, str]
"""(answer, explanation, program name)."""

_MAX = ("highest", "largest", "maximum", "most", "biggest", "greatest", "peak", "top")
_MIN = ("lowest", "smallest", "minimum", "least", "fewest")
_DIFF = ("difference", "deduct", "subtract", "minus", "gap")
_ABOVE = ("above", "more than", "greater than", "over", "exceed", "exceeds", "higher than")
_BELOW = ("below", "less than", "under", "lower than", "fewer than")


def _has(q: str, *words: str) -> bool:
    return any(re.search(rf"\b{re.escape(w)}\b", q) for w in words)


def _series(question: str, view: ChartView) -> list[str]:
    """Series the question names, by name or by colour."""
    found = find_mentions(question, view.series)
    if not found and (phrase := colour_in_question(question)) is not None:
        keyed = series_of_colour_word(phrase, view.colors)
        if keyed is not None and keyed in view.series:
            found = [keyed]
    return found


def _cells(view: ChartView, series: Sequence[str]) -> list[tuple[str, str, float]]:
    out = []
    for s in series:
        for x, v in zip(view.x_labels, view.values.get(s, ()), strict=False):
            if v is not None:
                out.append((x, s, v))
    return out


def computed(question: str, view: ChartView) -> Computed | None:
    """The answer to a computed question, or None when none of these applies."""
    q = norm(question)
    for solver in (
        _count_equal,
        _missing,
        _extreme_gap,
        _rows_passing,
        _total_excluding,
        _series_extreme,
    ):
        got = solver(question, q, view)
        if got is not None:
            return got
    return None


# The value must be called one ("24 value", "a value of 24", "24%"): a bare number after
# "with" is as often a label ("with 18-29").
_HAVE_VALUE = re.compile(
    r"\bhow many\b.*\b(?:have|has|with|show|shows|showing|equal to|of)\b(?: a| the)?"
    r"(?: value(?: of)? (-?\d+(?:\.\d+)?)\b| (-?\d+(?:\.\d+)?)(?: value\b|%| percent\b))"
)
_OCCURRENCES = re.compile(r"\boccurr?ences?\b.*\bvalue (?:of )?(-?\d+(?:\.\d+)?)\b")


def _count_equal(question: str, q: str, view: ChartView) -> Computed | None:
    """ "How many navy blue bars have 24 value?", "the occurrences of bar with value 5"."""
    m = _HAVE_VALUE.search(question.lower()) or _OCCURRENCES.search(q)
    if m is None or _has(q, *_ABOVE, *_BELOW):
        return None
    number = next(g for g in m.groups() if g is not None)
    target = float(number)
    if any(norm(x) == norm(number) for x in view.x_labels):
        return None  # a label, not a value
    named = _series(question, view)
    cells = _cells(view, named or view.series)
    if not cells:
        return None
    hits = [c for c in cells if abs(c[2] - target) <= 1e-9 + 0.005 * abs(target)]
    where = f" of {named[0]}" if named else ""
    n = len(hits)
    return (
        str(n),
        f"{n} of the {len(cells)} values{where} equal {format_number(target)}, so the answer "
        f"is {n}.",
        "count_equal",
    )


def _missing(question: str, q: str, view: ChartView) -> Computed | None:
    """ "46, 43, 41 which data is missed?": the one value of the series holding all the
    listed numbers that the list leaves out."""
    if not re.search(r"\bmiss(ed|ing)?\b|\bnot (listed|mentioned|given)\b|\bleft out\b", q):
        return None
    listed = numbers_written(question)
    if len(listed) < 2:
        return None
    fits = []
    for s in view.series:
        col = [v for v in view.values.get(s, ()) if v is not None]
        rest = list(col)
        ok = True
        for x in listed:
            j = next((i for i, v in enumerate(rest) if abs(v - x) <= 1e-9), None)
            if j is None:
                ok = False
                break
            rest.pop(j)
        if ok and len(rest) == 1:
            fits.append((s, rest[0]))
    if len(fits) != 1:
        return None
    s, v = fits[0]
    text = format_number(v)
    shown = ", ".join(format_number(x) for x in listed)
    return (
        text,
        f"{s} shows {shown} and {text}; the list leaves out {text}, so the answer is {text}.",
        "missing_value",
    )


def _extreme_gap(question: str, q: str, view: ChartView) -> Computed | None:
    """ "Deduct the most unfavorable view from the most favorable view": the gap between
    the extremes of two named series."""
    if not _has(q, *_DIFF) and not re.search(r"\bhow (much|many) (more|less|higher|lower)\b", q):
        return None
    named = find_mentions(question, view.series)
    if len(named) != 2 or (view.x_labels and find_mentions(question, view.x_labels)):
        return None
    top, low = _has(q, *_MAX), _has(q, *_MIN)
    if top == low:
        return None
    pick = max if top else min
    word = "highest" if top else "lowest"
    vals = []
    for s in named:
        col = [v for v in view.values.get(s, ()) if v is not None]
        if not col:
            return None
        vals.append(pick(col))
    gap = abs(vals[0] - vals[1])
    text = format_number(round(gap, 6))
    return (
        text,
        f"The {word} value of {named[0]} is {format_number(vals[0])} and of {named[1]} "
        f"{format_number(vals[1])}; the difference is {text}.",
        "extreme_gap",
    )


def _rows_passing(question: str, q: str, view: ChartView) -> Computed | None:
    """ "How many groups have net support over 40%?": rows whose total across the series
    (stacked segments, a NET column) passes a threshold."""
    if not _has(q, "how many") or not _has(q, "net", "total", "combined", "overall", "sum"):
        return None
    above, below = _has(q, *_ABOVE), _has(q, *_BELOW)
    if above == below or len(view.series) < 2 or _series(question, view):
        return None
    nums = numbers_written(question)
    if len(nums) != 1:
        return None
    t = nums[0]
    totals = []
    for i, x in enumerate(view.x_labels):
        row = [view.values[s][i] for s in view.series if view.values[s][i] is not None]
        if row:
            totals.append((x, sum(v for v in row if v is not None)))
    hits = [x for x, v in totals if (v > t if above else v < t)]
    n = len(hits)
    rel = "above" if above else "below"
    return (
        str(n),
        f"Adding the {len(view.series)} series for each of the {len(totals)} labels, {n} "
        f"totals lie {rel} {format_number(t)}, so the answer is {n}.",
        "count_totals",
    )


_EXCEPT = re.compile(
    r"\b(?:excluding|except(?: for)?|other than|apart from|besides|without)\b (.+)$"
)


def _total_excluding(question: str, q: str, view: ChartView) -> Computed | None:
    """ "What is the total number of programs excluding the national average?": the sum of
    one series over every label but the ones named after "excluding"."""
    m = _EXCEPT.search(q)
    if m is None or not _has(q, "total", "sum", "combined", "altogether"):
        return None
    left_out = find_mentions(m.group(1), view.x_labels)
    if not left_out:
        return None
    named = _series(q[: m.start()], view)
    series = named[0] if named else (view.series[0] if view.series else None)
    if series is None:
        return None
    kept = [
        (x, v)
        for x, v in zip(view.x_labels, view.values.get(series, ()), strict=False)
        if v is not None and x not in left_out
    ]
    if not kept:
        return None
    total = sum(v for _, v in kept)
    text = format_number(round(total, 6))
    return (
        text,
        f"Adding {series} over the {len(kept)} labels other than {', '.join(left_out)} gives "
        f"{text}.",
        "total_excluding",
    )


_VALUE_COLOUR = re.compile(
    r"\bcolou?r of the (?:\w+ )?(?:with|of|showing|at) (?:a |the )?(?:value (?:of )?)?"
    r"(-?\d+(?:\.\d+)?)%?(?: value)?\b"
)


def colour_check(question: str, view: ChartView) -> tuple[bool, str] | None:
    """ "Is the color of the segment with 22% value gray?": the colour of the mark showing
    that value against the colour the question says."""
    q = norm(question)
    m = _VALUE_COLOUR.search(q)
    said = colour_in_question(q[m.end() :]) if m else None
    if m is None or said is None:
        return None
    target = float(m.group(1))
    hits = [
        (x, s)
        for x, s, v in _cells(view, view.series)
        if abs(v - target) <= 1e-9 + 0.005 * abs(target)
    ]
    if len(hits) != 1:
        return None
    x, s = hits[0]
    key = x if x in view.colors else s
    name = view.colors.get(key)
    if name is None:
        return None
    from chartproof.reader._colours import same_colour

    same = same_colour(said, name)
    return same, f"the mark showing {format_number(target)} ({key}) is drawn in {name}"


_TIME_WORDS = frozenset(
    {"year", "years", "month", "months", "day", "date", "time", "period", "when"}
)
_MONTH = re.compile(r"^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)


def _time_axis(view: ChartView) -> bool:
    return bool(view.x_labels) and all(
        re.search(r"(19|20)\d\d", x) or _MONTH.match(x) for x in view.x_labels
    )


def _series_extreme(question: str, q: str, view: ChartView) -> Computed | None:
    """ "Which answer response has the highest value on this graph?" over years: the series
    holding the chart's largest (smallest) value, when the question names no series, no
    label and asks for something other than a time."""
    m = re.match(r"^(?:which|what) (\w+)", q)
    if m is None or m.group(1) in _TIME_WORDS or len(view.series) < 2 or not _time_axis(view):
        return None
    top, low = _has(q, *_MAX), _has(q, *_MIN)
    if top == low or find_mentions(question, view.series) or find_mentions(question, view.x_labels):
        return None
    cells = _cells(view, view.series)
    if not cells:
        return None
    x, s, v = (max if top else min)(cells, key=lambda c: c[2])
    word = "highest" if top else "lowest"
    return (
        s,
        f"The {word} value on the chart is {format_number(v)}, shown by {s} at {x}, so the "
        f"answer is {s}.",
        "series_extreme",
    )
