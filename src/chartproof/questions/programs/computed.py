"""ChartQA human questions computed over many cells, which readers meet in free-form wording:
counts of a value, the value a list leaves out, gaps between two series' extremes, counts of
label totals past a threshold, totals leaving a label out, the series holding the chart's
extreme, the label nearest a number, the number of labels, the colour of the mark showing a
value. Family "computed": `make_questions` draws it only when asked by name (so the suites
draw what they drew before); its `cues` read the free-form wordings the templates miss.
Claims checked on the chart ("Is the value of X 12?") are in `claims.py`, same family."""

from __future__ import annotations

import random
import re

from chartproof.numeric import format_number, parse_number
from chartproof.questions import ops
from chartproof.questions.colours import colour_in_question, same_colour, series_of_colour_word
from chartproof.questions.cues import NAMED_VALUE, PATTERN, Cue, reads
from chartproof.questions.labels import (
    find_mentions,
    labels_listed,
    labels_written,
    norm,
    numbers_written,
)
from chartproof.questions.ops.computed import cells_of, nearest
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, pick_series, threshold_between
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView
from chartproof.questions.wording import ABOVE, BELOW, MAX_PLAIN, MIN_PLAIN, has

__all__ = [
    "ClosestSeriesAt",
    "ClosestValue",
    "ClosestValueIn",
    "ColorOfValue",
    "CountEqual",
    "CountEqualAll",
    "CountLabels",
    "CountTotalsAbove",
    "CountTotalsBelow",
    "GapOfMaxima",
    "GapOfMinima",
    "MissingValue",
    "SeriesOfMax",
    "SeriesOfMin",
    "TotalExcluding",
]

FAMILY = "computed"

_DIFF = ("difference", "deduct", "subtract", "minus", "gap")


def _named_series(question: str, view: ChartView) -> list[str]:
    """Series the question names, by name or by the colour family they are drawn in."""
    found = find_mentions(question, view.series)
    if not found and (phrase := colour_in_question(question)) is not None:
        keyed = series_of_colour_word(phrase, view.colors)
        if keyed is not None and keyed in view.series:
            found = [keyed]
    return found


class _Computed(Program):
    family = FAMILY
    question_type = "reasoning"
    chart_types = CATEGORY


# ---------------------------------------------------------------- counts of one value

# The value must be called one ("24 value", "a value of 24", "24%"): a bare number after
# "with" is as often a label ("with 18-29").
_HAVE_VALUE = re.compile(
    r"\bhow many\b.*\b(?:have|has|with|show|shows|showing|equal to|of)\b(?: a| the)?"
    r"(?: value(?: of)? (-?\d+(?:\.\d+)?)\b| (-?\d+(?:\.\d+)?)(?: value\b|%| percent\b))"
)
_OCCURRENCES = re.compile(r"\boccurr?ences?\b.*\bvalue (?:of )?(-?\d+(?:\.\d+)?)\b")


def _count_cue(named: bool) -> Cue:
    """ "How many navy blue bars have 24 value?" (`named`: of the series it names, every
    one), "the occurrences of bar with value 5" (of every series)."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        q = norm(question)
        m = _HAVE_VALUE.search(question.lower()) or _OCCURRENCES.search(q)
        if m is None or has(q, *ABOVE, *BELOW):
            return None
        number = next(g for g in m.groups() if g is not None)
        if any(norm(x) == norm(number) for x in view.x_labels):
            return None  # a label, not a value
        series = _named_series(question, view)
        if bool(series) != named:
            return None
        value = float(number)
        return {"series": labels_listed(series), "value": value} if named else {"value": value}

    return reads(
        cue, PATTERN, "how many of one series have a value" if named else "how many have a value"
    )


def _sample_value(view: ChartView, rng: random.Random, series: str | None) -> float | None:
    values = [v for *_, v in cells_of(view, (series,) if series else view.series)]
    return rng.choice(values) if values else None


@register
class CountEqual(_Computed):
    """How many values of one or more series equal a number."""

    name = "count_equal"
    task_type = "NC"
    templates = (
        "How many {marks} of {series} have a value of {value}?",
        "How many times does {series} show the value {value}?",
        "In how many places is {series} equal to {value}?",
    )
    slots = slot_kinds(series="series_list", value="number")
    cues = (_count_cue(named=True),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        v = _sample_value(view, rng, ss[0]) if ss else None
        return None if ss is None or v is None else {"series": ss[0], "value": v}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        series = labels_written(str(args["series"]), tr.view.series)
        return None if series is None else ops.count_equal(tr, float(args["value"]), series)


@register
class CountEqualAll(_Computed):
    """How many values of the chart, over every series, equal a number."""

    name = "count_equal_all"
    task_type = "NC"
    templates = (
        "How many values on the chart equal {value}?",
        "How often does the value {value} appear on the chart?",
        "What is the number of occurrences of the value {value}?",
    )
    slots = slot_kinds(value="number")
    cues = (_count_cue(named=False),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        v = _sample_value(view, rng, None)
        return None if v is None else {"value": v}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.count_equal(tr, float(args["value"]))


# ---------------------------------------------------------------- the value a list leaves out

_MISSED = re.compile(r"\bmiss(ed|ing)?\b|\bnot (listed|mentioned|given)\b|\bleft out\b")


def _missing_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    """ "46, 43, 41 which data is missed?"."""
    if not _MISSED.search(norm(question)):
        return None
    listed = numbers_written(question)
    return {"values": _listed(listed)} if len(listed) >= 2 else None


def _listed(values: list[float]) -> str:
    return ", ".join(format_number(v) for v in values)


@register
class MissingValue(_Computed):
    """The one value of a series that a list of its other values leaves out (the list is
    of printed values, so only charts with value labels are asked)."""

    name = "missing_value"
    task_type = "NC"
    templates = (
        "{values}: which value is missing?",
        "Which value is missing from the list {values}?",
        "Which value of the chart is not listed in {values}?",
    )
    slots = slot_kinds(values="numbers")
    cues = (reads(_missing_cue, PATTERN, "a value missing from a list"),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None or not view.value_labels:
            return None
        values = [v for *_, v in cells_of(view, ss)]
        if len(values) < 3:
            return None
        values.pop(rng.randrange(len(values)))
        return {"values": _listed(values)}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        listed = numbers_written(str(args["values"]))
        return ops.missing_value(tr, listed) if len(listed) >= 2 else None


# ---------------------------------------------------------------- gap between two extremes


def _gap_cue(which: str) -> Cue:
    """ "Deduct the most unfavorable view from the most favorable view": two named series
    and one extreme word, no x label."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        q = norm(question)
        if not has(q, *_DIFF) and not re.search(r"\bhow (much|many) (more|less|higher|lower)\b", q):
            return None
        named = find_mentions(question, view.series)
        if len(named) != 2 or (view.x_labels and find_mentions(question, view.x_labels)):
            return None
        top, low = has(q, *MAX_PLAIN), has(q, *MIN_PLAIN)
        if top == low or top != (which == "max"):
            return None
        return {"series": named[0], "series2": named[1]}

    return reads(cue, PATTERN, f"gap between the {which}ima of two series")


class _ExtremeGap(_Computed):
    """The difference between the largest (smallest) values of two series."""

    task_type = "NC"
    min_series = 2
    slots = slot_kinds(series="series", series2="series")
    which = "max"

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng, 2)
        return None if ss is None else {"series": ss[0], "series2": ss[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        a = ops.shown_extreme(tr, str(args["series"]), self.which)
        b = ops.shown_extreme(tr, str(args["series2"]), self.which) if a else None
        return None if a is None or b is None else ops.arith(tr, "absdiff", a, b)


@register
class GapOfMaxima(_ExtremeGap):
    """The difference between the largest values of two series."""

    name = "gap_of_maxima"
    templates = (
        "What is the difference between the highest {series} and the highest {series2}?",
        "What is the gap between the maximum of {series} and the maximum of {series2}?",
        "By how much do the largest values of {series} and {series2} differ?",
    )
    cues = (_gap_cue("max"),)


@register
class GapOfMinima(_ExtremeGap):
    """The difference between the smallest values of two series."""

    name = "gap_of_minima"
    which = "min"
    templates = (
        "What is the difference between the lowest {series} and the lowest {series2}?",
        "What is the gap between the minimum of {series} and the minimum of {series2}?",
        "By how much do the smallest values of {series} and {series2} differ?",
    )
    cues = (_gap_cue("min"),)


# ---------------------------------------------------------------- totals past a threshold


def _totals_cue(cond: str) -> Cue:
    """ "How many groups have net support over 40%?": totals across the series."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        q = norm(question)
        if not has(q, "how many") or not has(q, "net", "total", "combined", "overall", "sum"):
            return None
        above, below = has(q, *ABOVE), has(q, *BELOW)
        if above == below or above != (cond == "above") or _named_series(question, view):
            return None
        nums = numbers_written(question)
        return {"threshold": nums[0]} if len(nums) == 1 else None

    return reads(cue, PATTERN, f"how many totals {cond} a number")


class _CountTotals(_Computed):
    """How many x labels' totals across every series lie past a threshold."""

    task_type = "NC"
    min_series = 2
    slots = slot_kinds(threshold="number")
    cond = "above"

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        totals = sorted(
            sum(v for s in view.series if (v := view.value(s, x)) is not None)
            for x in view.x_labels
        )
        if len(totals) < 3:
            return None
        i = rng.randrange(len(totals) - 1)
        t = threshold_between(view, totals[i], totals[i + 1])
        return None if t is None else {"threshold": t}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.count_totals(tr, self.cond, float(args["threshold"]))


@register
class CountTotalsAbove(_CountTotals):
    """How many x labels' totals lie above a threshold."""

    name = "count_totals_above"
    templates = (
        "In how many {x_title} values is the total of all series above {threshold}?",
        "How many {x_title} values have a combined total over {threshold}?",
        "For how many {x_title} values does the sum of all series exceed {threshold}?",
    )
    cues = (_totals_cue("above"),)


@register
class CountTotalsBelow(_CountTotals):
    """How many x labels' totals lie below a threshold."""

    name = "count_totals_below"
    cond = "below"
    templates = (
        "In how many {x_title} values is the total of all series below {threshold}?",
        "How many {x_title} values have a combined total under {threshold}?",
        "For how many {x_title} values is the sum of all series less than {threshold}?",
    )
    cues = (_totals_cue("below"),)


# ---------------------------------------------------------------- a total leaving labels out

_EXCEPT = re.compile(
    r"\b(?:excluding|except(?: for)?|other than|apart from|besides|without)\b (.+)$"
)


def _excluding_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    """ "What is the total number of programs excluding the national average?": the sum of
    one series (the one named before "excluding", else the first) over the other labels;
    every label named after "excluding" left out ("excluding A, B and C")."""
    q = norm(question)
    m = _EXCEPT.search(q)
    if m is None or not has(q, "total", "sum", "combined", "altogether"):
        return None
    left_out = find_mentions(m.group(1), view.x_labels)
    named = _named_series(q[: m.start()], view)
    series = named[0] if named else (view.series[0] if view.series else None)
    if not left_out or series is None:
        return None
    return {"series": series, "x": labels_listed(left_out)}


@register
class TotalExcluding(_Computed):
    """The sum of a series over every x label but those left out (one or more)."""

    name = "total_excluding"
    task_type = "NC"
    templates = (
        "What is the total {series} excluding {x}?",
        "What is the sum of {series} over every {x_title} value except {x}?",
        "Adding up {series}, what is the total without {x}?",
    )
    slots = slot_kinds(series="series", x="x_list")
    cues = (reads(_excluding_cue, PATTERN, "total excluding labels"),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None or view.n < 3 or not view.x_unique:
            return None
        return {"series": ss[0], "x": rng.sample(list(view.x_labels), 1)[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        left_out = labels_written(str(args["x"]), tr.view.x_labels)
        return None if left_out is None else ops.total_excluding(tr, str(args["series"]), left_out)


# ---------------------------------------------------------------- the series of the extreme

_TIME_WORDS = frozenset(
    {"year", "years", "month", "months", "day", "date", "time", "period", "when"}
)
_MONTH = re.compile(r"^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)


def _time_axis(view: ChartView) -> bool:
    return bool(view.x_labels) and all(
        re.search(r"(19|20)\d\d", x) or _MONTH.match(x) for x in view.x_labels
    )


def _series_extreme_cue(which: str) -> Cue:
    """ "Which answer response has the highest value on this graph?" over years: a question
    naming no series and no label, asking for something other than a time."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        q = norm(question)
        m = re.match(r"^(?:which|what) (\w+)", q)
        if m is None or m.group(1) in _TIME_WORDS or not _time_axis(view):
            return None
        top, low = has(q, *MAX_PLAIN), has(q, *MIN_PLAIN)
        if top == low or top != (which == "max"):
            return None
        if find_mentions(question, view.series) or find_mentions(question, view.x_labels):
            return None
        return {}

    return reads(cue, PATTERN, f"series of the {which}imum")


class _SeriesExtreme(_Computed):
    """The series showing the chart's largest (smallest) value."""

    task_type = "VC"
    min_series = 2
    which = "max"

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.series_extreme(tr, self.which)


@register
class SeriesOfMax(_SeriesExtreme):
    """The series showing the chart's largest value."""

    name = "series_of_max"
    templates = (
        "Which series reaches the highest value on the chart?",
        "Which series shows the largest value of all?",
        "Which of the series holds the chart's maximum value?",
    )
    cues = (_series_extreme_cue("max"),)


@register
class SeriesOfMin(_SeriesExtreme):
    """The series showing the chart's smallest value."""

    name = "series_of_min"
    which = "min"
    templates = (
        "Which series reaches the lowest value on the chart?",
        "Which series shows the smallest value of all?",
        "Which of the series holds the chart's minimum value?",
    )
    cues = (_series_extreme_cue("min"),)


# ---------------------------------------------------------------- the label nearest a number


def _near(
    view: ChartView, rng: random.Random, series: str | None = None, x: str | None = None
) -> float | None:
    """A number near a shown value (within 4 %, as a question would round it) with one
    nearest answer a reader can tell."""
    cells = nearest(view, 0.0, series, x)
    if not cells:
        return None
    v = rng.choice(cells)[2]
    target = parse_number(view.fmt(v * (1 + rng.uniform(-0.04, 0.04)))) or v
    ranked = nearest(view, target, series, x)
    k = 1 if x is not None else 0  # the answer: the series at x, else the label
    best = abs(ranked[0][2] - target)
    rivals = [c for c in ranked[1:] if c[k] != ranked[0][k]]
    if rivals and not view.distinct(abs(rivals[0][2] - target), best):
        return None
    return target


@register
class ClosestValue(_Computed):
    """The x label whose value, over every series, is nearest a number ("What company
    captured about 69 percent?")."""

    name = "closest_value"
    task_type = "VC"
    templates = (
        "Which {x_title} shows the value closest to {value}?",
        "Which {x_title} has a value of about {value}?",
        "What {x_title} comes nearest to {value}?",
    )
    slots = slot_kinds(value="number")
    variants = ("closest_value_in", "closest_series_at")
    cues = (NAMED_VALUE,)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        v = _near(view, rng) if view.x_unique else None
        return None if v is None else {"value": v}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.closest(tr, float(args["value"]))


@register
class ClosestValueIn(_Computed):
    """The x label whose value of one series is nearest a number."""

    name = "closest_value_in"
    task_type = "VC"
    templates = (
        "Which {x_title} has the {series} value closest to {value}?",
        "In {series}, which {x_title} is nearest to {value}?",
        "Which {x_title} has about {value} in {series}?",
    )
    slots = slot_kinds(series="series", value="number")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        v = _near(view, rng, series=ss[0]) if ss and view.x_unique else None
        return None if ss is None or v is None else {"series": ss[0], "value": v}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.closest(tr, float(args["value"]), series=str(args["series"]))


@register
class ClosestSeriesAt(_Computed):
    """The series whose value at one x label is nearest a number."""

    name = "closest_series_at"
    task_type = "VC"
    min_series = 2
    templates = (
        "In {x}, which series is closest to {value}?",
        "Which series has a value near {value} in {x}?",
        "At {x}, which series shows about {value}?",
    )
    slots = slot_kinds(x="x", value="number")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        if not view.x_unique or not view.x_labels:
            return None
        x = rng.choice(view.x_labels)
        v = _near(view, rng, x=x)
        return None if v is None else {"x": x, "value": v}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.closest(tr, float(args["value"]), x=str(args["x"]))


# ---------------------------------------------------------------- how many labels

_COUNT = re.compile(
    r"^how many (?:different |distinct )?(years|countries|categories|bars|groups|months|"
    r"companies|regions|states|cities|brands|data points|labels|items|options|responses)\b.*?"
    r"\b(shown|represented|represent|displayed|presented|included|covered|are there|in the "
    r"(?:chart|graph|plot)|does the (?:chart|graph) (?:show|represent|cover))\b",
    re.I,
)


def _count_labels_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    """ "How many countries are represented in the chart?"."""
    match = _COUNT.match(question) and view.x_labels and not numbers_written(question)
    return {} if match else None


@register
class CountLabels(_Computed):
    """How many x labels the chart shows."""

    name = "count_labels"
    task_type = "NC"
    question_type = "structural"
    templates = (
        "How many {x_title} values does the chart show?",
        "How many different {x_title} values are represented in the chart?",
        "How many {x_title} categories are there in the chart?",
    )
    cues = (reads(_count_labels_cue, PATTERN, "how many labels"),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.count_items(tr, "labels")


# ---------------------------------------------------------------- the colour showing a value

_VALUE_COLOUR = re.compile(
    r"\bcolou?r of the (?:\w+ )?(?:with|of|showing|at) (?:a |the )?(?:value (?:of )?)?"
    r"(-?\d+(?:\.\d+)?)%?(?: value)?\b"
)


def _colour_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    """ "Is the color of the segment with 22% value gray?"."""
    q = norm(question)
    m = _VALUE_COLOUR.search(q)
    said = colour_in_question(q[m.end() :]) if m else None
    return None if m is None or said is None else {"value": float(m.group(1)), "color": said}


@register
class ColorOfValue(_Computed):
    """Whether the one mark showing a value is drawn in a named colour."""

    name = "color_of_value_is"
    task_type = "CI"
    question_type = "descriptive"
    templates = (
        "Is the {mark} showing {value} drawn in {color}?",
        "Is the color of the {mark} with a value of {value} {color}?",
        "Is {value} shown by a {color} {mark}?",
    )
    slots = slot_kinds(value="number", color="color")
    cues = (reads(_colour_cue, PATTERN, "colour of a value"),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        cells = cells_of(view, view.series)
        values = [v for *_, v in cells]
        unique = [c for c in cells if values.count(c[2]) == 1]
        if not unique or not view.colors:
            return None
        x, s, v = rng.choice(unique)
        shown = view.colors.get(x if x in view.colors else s)
        if shown is None or not same_colour(shown, shown):
            return None  # a colour of no basic family ("coral") cannot be told by its word
        others = sorted(
            {c for c in view.colors.values() if same_colour(c, c) and not same_colour(c, shown)}
        )
        # Half the questions name the mark's colour, half a colour of another family.
        color = shown if not others or rng.random() < 0.5 else rng.choice(others)
        return {"value": v, "color": color}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.color_is(tr, float(args["value"]), str(args["color"]))
