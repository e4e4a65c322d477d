"""Free-form chart questions (ChartQA style) mapped onto question programs by keywords and
the labels, series, colours and numbers they mention; used when no template fits."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from chartproof.questions import ArgValue, ChartView
from chartproof.questions.describe import ordinal_value
from chartproof.reader._colours import colour_in_question, series_of_colour_word
from chartproof.reader._text import (
    find_mentions,
    loose_mention,
    norm,
    numbers_written,
    similarity,
    words_to_numbers,
)

__all__ = ["CLOSEST", "Intent", "intents"]

CLOSEST = "closest_value"
"""Pseudo-program: the label (or series) whose value is nearest a number the question gives."""


@dataclass(frozen=True)
class Intent:
    """A program name with arguments guessed from a free-form question."""

    program: str
    """Registered program name (or `CLOSEST`)."""
    args: dict[str, ArgValue]
    """Its arguments."""
    why: str
    """Which cue chose it."""


def _has(q: str, *words: str) -> bool:
    return any(re.search(rf"\b{re.escape(w)}\b", q) for w in words)


_MAX = (
    "highest", "largest", "maximum", "max", "most", "biggest", "greatest", "peak", "top",
    "best", "main", "leading", "favorite", "favourite", "fastest", "dominant", "popular",
    "major", "primary", "tallest", "longest", "leader",
)  # fmt: skip
_MIN = ("lowest", "smallest", "minimum", "min", "least", "fewest", "worst", "shortest", "slowest")
_ABOVE = ("above", "more than", "greater than", "over", "exceed", "exceeds", "higher than")
_BELOW = ("below", "less than", "under", "lower than", "fewer than")
_LABEL_NOUNS = (
    "year", "country", "city", "company", "brand", "state", "region", "type", "month", "day",
    "group", "category", "sector", "age", "party", "team", "player", "platform", "industry",
    "product", "segment", "option", "response", "answer", "service", "provider", "ethnicity",
    "quarter", "period", "season", "chain", "store", "retailer", "bank", "airline", "app",
    "website", "club", "university", "source", "reason", "channel", "market", "device",
)  # fmt: skip
_ORD = r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"


_QUANTITY_NOUNS = frozenset((
    "value", "values", "number", "numbers", "percentage", "percent", "share", "shares",
    "amount", "count", "total", "sum", "average", "mean", "median", "rate", "level", "score",
    "price", "prices", "revenue", "revenues", "sales", "income", "cost", "costs", "gdp",
    "population", "growth", "spending", "profit", "profits", "size", "volume", "capacity",
    "gross", "index", "ratio", "figure", "proportion", "salary", "salaries", "budget", "debt",
    "turnover", "earnings", "expenditure", "expenditures", "consumption", "production",
    "output", "height", "weight", "temperature", "margin", "return", "yield", "loss", "losses",
    "attendance", "difference", "increase", "decrease", "change", "gap", "deficit", "surplus",
    "payroll", "worth", "valuation", "density", "distance", "speed", "duration", "time",
    "length", "age", "inflation", "interest", "demand", "supply", "exports", "imports",
    "emissions", "usage", "viewers", "users", "visitors", "subscribers", "members",
    "shipments", "deliveries", "units", "employees", "workers", "jobs", "cases", "deaths",
    "births", "tons",
))  # fmt: skip
"""Head nouns of a quantity: "the highest unemployment rate" asks for a number, "the most
popular model" for a label (`names_a_thing`)."""

_RANKED = re.compile(
    r"^(?:in |during |for )?what (?:is|was|are|were) (?:the |\w+s )?(?:\w+ )?"
    rf"(?:{'|'.join(_MAX + _MIN)})\b(?P<rest>.*)$"
)
_PHRASE_END = re.compile(
    r"\b(?:in|of|for|on|at|by|among|to|from|between|during|as|that|which|who|based|with|"
    r"according|since|until|after|before|than|worldwide|globally|ever)\b"
)


def _ranked_thing(q: str) -> str | None:
    """The head noun of "what was the (second) most popular model in 2019" ("model"), or
    None when the question does not ask so: the last word before a preposition that is not
    a past participle ("the most popular hashtag used by" gives "hashtag")."""
    m = _RANKED.match(q)
    if m is None:
        return None
    phrase = _PHRASE_END.split(m.group("rest"), maxsplit=1)[0].split()
    words = [w for w in phrase if not w.endswith("ed") and w not in _MAX + _MIN]
    return words[-1] if words else None


def asks_label(q: str) -> bool:
    """Whether the (normalised) question wants a label (a name) rather than a number:
    "which", "who", "where" or "when" in it, "what company ...", or `names_a_thing`."""
    if re.search(r"\b(which|who|where)\b", q) or q.startswith("when "):
        return True
    m = re.match(r"^(?:in |during |by |for )?what (\w+)", q)
    return bool(m and m.group(1).rstrip("s") in _LABEL_NOUNS) or names_a_thing(q)


def names_a_thing(q: str) -> bool:
    """Whether a (normalised) "what" question asks for the name of a thing: "what is the
    name of ...", "what movie had the highest lifetime gross", "what was the most popular
    model" (a ranked thing that is no quantity, `_ranked_thing`); not "what was the highest
    unemployment rate", nor "what percentage had ...".
    """
    if re.match(r"^(?:in |during |for )?what (?:is|was|are|were) the name\b", q):
        return True
    m = re.match(
        r"^(?:in |during |by |for )?what ((?:\w+ ){1,3}?)"
        r"(?:had|has|have|did|does|do|received|ranked|led)\b",
        q,
    )
    if m and m.group(1).split()[0] not in ("is", "was", "are", "were"):
        return m.group(1).split()[-1] not in _QUANTITY_NOUNS
    thing = _ranked_thing(q)
    return thing is not None and thing not in _QUANTITY_NOUNS


def _series_guess(q: str, view: ChartView, mentioned: list[str]) -> str | None:
    if mentioned:
        return mentioned[0]
    if len(view.series) == 1:
        return view.series[0]
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
    hits = sum(1 for w in lw if w in words or any(similarity(w, x) > 0.85 for x in words))
    return hits / len(lw)


def _threshold(question: str, xs: list[str]) -> float | None:
    named = {norm(x) for x in xs}
    for x in numbers_written(question):
        if norm(f"{x:g}") not in named and not (1900 <= x <= 2100 and float(x).is_integer()):
            return x
    return None


def _recent(q: str, view: ChartView) -> str | None:
    """ "the most recent year" → the latest year label; "the previous year" → the one before."""
    years = [(int(m.group(0)), x) for x in view.x_labels if (m := re.search(r"(19|20)\d\d", x))]
    if len(years) < 2:
        return None
    years.sort()
    if re.search(r"\b(most recent|latest|last|current)\b", q):
        return years[-1][1]
    if re.search(r"\b(previous|prior)\b", q):
        return years[-2][1]
    return None


def intents(question: str, view: ChartView) -> list[Intent]:
    """Candidate programs for a free-form question, most likely first."""
    question = words_to_numbers(question)
    q = norm(question)
    xs = find_mentions(question, view.x_labels)
    if not xs and (country := _country_of(q, view)) is not None:
        xs = [country]
    if not xs and (recent := _recent(q, view)) is not None:
        xs = [recent]
    if not xs and (loose := loose_mention(question, view.x_labels)) is not None:
        xs = [loose]
    ss = find_mentions(question, view.series)
    if not ss and len(view.series) > 1 and (loose := loose_mention(question, view.series)):
        ss = [loose]
    out: list[Intent] = []
    series = _series_guess(question, view, ss)
    pie = view.kind.color_keys == "x"  # each label is its own mark (a wedge)
    label = asks_label(q)

    def add(program: str, why: str, **args: ArgValue | None) -> None:
        if all(v is not None for v in args.values()):
            out.append(Intent(program, {k: v for k, v in args.items() if v is not None}, why))

    colors = find_mentions(question, sorted(set(view.colors.values())))
    if not colors and (phrase := colour_in_question(question)) is not None:
        # "the navy blue bars", "the green line": the series drawn in that colour family.
        keyed = series_of_colour_word(phrase, view.colors)
        if keyed is not None:
            colors = [view.colors[keyed]]
    if colors and not ss:
        # A series named by its colour is the series the question is about.
        keyed = next((k for k, n in view.colors.items() if n == colors[0]), None)
        if keyed is not None and keyed in view.series:
            ss = [keyed]
            series = keyed
    if _has(q, "color", "colour", "colors", "colours"):
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
    if colors:
        if _has(q, "represent", "represents", "stand", "indicate", "denote", "depict"):
            add("series_of_color", "colour meaning", color=colors[0])
        if xs:
            add("value_of_color", "value of a coloured series", color=colors[0], x=xs[0])
    pos = re.search(rf"\b{_ORD} (?:\w+ )?from the (left|right|top|bottom)\b", q)
    nth = re.search(rf"\b(?:the )?({_ORD[1:-1]}|last) (bar|column|point|segment|slice|wedge)\b", q)
    if nth and not pos and not re.search(r"\b(leftmost|rightmost|topmost|bottommost)\b", q):
        # "the 1st bar", "the last bar": counted in display order.
        k = len(view.x_labels) if nth.group(1) == "last" else ordinal_value(nth.group(1))
        if k is not None and 1 <= k <= len(view.x_labels) and len(view.series) == 1:
            add("label_at_position" if label else "value_at_position", "position", k=k)
            return out
    if pos or re.search(r"\b(leftmost|rightmost|topmost|bottommost)\b", q):
        k, _ = _position(q, pos, view)
        if k is not None:
            add("label_at_position" if label else "value_at_position", "position", k=k)
            return out
    _computed(question, q, view, xs, ss, series, label, pie, add)
    return out


def _computed(
    question: str,
    q: str,
    view: ChartView,
    xs: list[str],
    ss: list[str],
    series: str | None,
    label: bool,
    pie: bool,
    add: Callable[..., None],
) -> None:
    """The intents that compute over the chart's values (thresholds, differences, sums,
    averages, ratios, extremes, trends, lookups), added in order of likelihood."""
    threshold = _threshold(question, xs)
    if threshold is not None and label and not _has(q, "how many", "above", "below", "more than"):
        # "What company captured about 69 percent?" names a value and asks whose it is.
        args: dict[str, ArgValue | None] = {"value": threshold}
        if xs and len(view.series) > 1:
            args["x"] = xs[0]
        elif ss:
            args["series"] = ss[0]
        add(CLOSEST, "label with a value", **args)
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
        if len(ss) >= 2:
            x = xs[0] if xs else (view.x_labels[0] if len(view.x_labels) == 1 else None)
            add("diff_series_at_x", "difference of two series", series=ss[0], series2=ss[1], x=x)
    stacked_bars = view.kind.family == "bar" and view.kind.stacks
    one_label = len(xs) == 1 and not stacked_bars
    if one_label and not _has(q, "all", "across", "overall", "every"):
        # "What was the average ticket price in 2019?": the measure's name, one bar's value.
        _lookup(add, view, xs, ss, series, pie)
    if len(xs) >= 2 and _has(q, "make up", "combined", "together", "sum", "total", "add"):
        add("sum_two", "sum of two labels", series=series, x=xs[0], x2=xs[1])
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
        if stacked_bars and xs:
            add("stack_total", "total of a stack", x=xs[0])
        if threshold is not None and any(w in q for w in _ABOVE):
            add("sum_above", "sum above a threshold", series=series, threshold=threshold)
        add("total", "total", series=series)
    kth = re.search(rf"\b{_ORD} (?:most |largest |highest |biggest |best )?(\w+)", q)
    k = ordinal_value(kth.group(1)) if kth else None
    if k is not None and k >= 2 and (_has(q, *_MAX) or (kth and kth.group(2) in _MAX)):
        if label:
            add("kth_largest_label", "k-th largest label", series=series, k=k)
        if k == 2:
            add("second_largest_value", "second largest value", series=series)
    if _has(q, *_MAX) or _has(q, *_MIN):
        fn = "argmax" if _has(q, *_MAX) else "argmin"
        if label and xs and len(view.series) > 1 and not ss:
            add(f"{fn}_series_at_x", "series extreme at a label", x=xs[0])
        if label:
            add(f"{fn}_x", "label of the extreme", series=series)
        add("max_value" if fn == "argmax" else "min_value", "extreme value", series=series)
    if re.search(r"\b(increas|decreas|grow|declin|ris|fall)", q) and len(xs) >= 2:
        add("trend_from_to", "trend between two labels", series=series, x=xs[0], x2=xs[1])
    if len(xs) >= 2 and re.search(r"\b(greater|more|higher|larger|bigger) than\b", q):
        add("larger_of_two", "compare two labels", series=series, x=xs[0], x2=xs[1])
    if xs:
        _lookup(add, view, xs, ss, series, pie)
    elif ss and len(view.x_labels) == 1:
        add("value_at", "value of the only label", series=ss[0], x=view.x_labels[0])
    elif not label and (whole := _whole(view)) is not None:
        # "What was the youth literacy rate in Latin America in 2016?" over bars "Female",
        # "Male" and "Average": a question naming no bar asks about the whole.
        add("value_at", "value of the bar for the whole", series=series, x=whole)


_DEMONYMS = {
    "american": "united states", "australian": "australia", "austrian": "austria",
    "belgian": "belgium", "brazilian": "brazil", "british": "united kingdom",
    "canadian": "canada", "chinese": "china", "danish": "denmark", "dutch": "netherlands",
    "finnish": "finland", "french": "france", "german": "germany", "greek": "greece",
    "indian": "india", "irish": "ireland", "italian": "italy", "japanese": "japan",
    "korean": "south korea", "mexican": "mexico", "norwegian": "norway", "polish": "poland",
    "portuguese": "portugal", "russian": "russia", "spanish": "spain", "swedish": "sweden",
    "swiss": "switzerland", "turkish": "turkey",
}  # fmt: skip
"""Country adjectives and the country each names (`_country_of`)."""


def _country_of(q: str, view: ChartView) -> str | None:
    """The chart's label for the one country the (normalised) question names by its
    adjective ("Spanish customers" on a chart with a bar "Spain"), or None."""
    named = {c for word, c in _DEMONYMS.items() if re.search(rf"\b{word}\b", q)}
    found = [x for x in view.x_labels if norm(x) in named]
    return found[0] if len(found) == 1 else None


_WHOLE = frozenset(("total", "average", "overall", "all", "all respondents", "total population"))
"""Bar labels that stand for the whole of what the others split (`_whole`)."""


def _whole(view: ChartView) -> str | None:
    """The one label of the chart that stands for the whole (`_WHOLE`: "Total", "Average"),
    or None when there is none or more than one."""
    found = [x for x in view.x_labels if norm(x) in _WHOLE]
    return found[0] if len(found) == 1 else None


def _lookup(
    add: object, view: ChartView, xs: list[str], ss: list[str], series: str | None, pie: bool
) -> None:
    assert callable(add)
    if pie:
        add("pie_value", "value of a wedge", x=xs[0])
    for s in ss or ([series] if series else []):
        add("value_at", "value at a label", series=s, x=xs[0])


def _position(q: str, pos: re.Match[str] | None, view: ChartView) -> tuple[int | None, str]:
    n = len(view.x_labels)
    start = "top" if view.orientation == "horizontal" and view.kind.axes else "left"
    if pos is not None:
        k = ordinal_value(pos.group(1))
        side = pos.group(2)
    else:
        m = re.search(r"\b(leftmost|rightmost|topmost|bottommost)\b", q)
        k, side = 1, (m.group(1)[:-4] if m else start)
    if k is None:
        return None, side
    # Programs count from the start side; the far side counts backwards.
    if side != start:
        k = n - k + 1
    return (k if 1 <= k <= n else None), side
