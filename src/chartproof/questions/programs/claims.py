"""Yes/no claims checked on the chart: about one cell or one key ("Is the value of X 12?",
within 5 %, at least 0.5; "Is the color of X green?", a series or, on a pie, a wedge) and
about two quantities named in words ("Is A greater than B?", "Is A 3 times B?", each side a
number, a label or any question's subject: "the median of the green bars"). Family
"computed" (not drawn by the suites). Their cues find what the claim names with the one
parser (the cell by parsing "What is the value of X?"; a quantity is answered as "What is
the A?" when the program runs, `ops.quantity`) and take the last ranks of `PATTERNS`
(`CLAIM`, then `TIMES`, then `COMPARED`): the solver meets them after every other
own-pattern cue."""

from __future__ import annotations

import itertools
import random
import re
import statistics

from chartproof.numeric import format_number, parse_number
from chartproof.questions import ops
from chartproof.questions.colours import colour_in_question, same_colour
from chartproof.questions.cues import PATTERNS, Cue, reads
from chartproof.questions.labels import find_mentions, norm, norm_question
from chartproof.questions.mentions import NUMBER_WORDS
from chartproof.questions.ops.computed import cells_of
from chartproof.questions.ops.quantities import number_of, written_number
from chartproof.questions.program import (
    ALL_CHARTS,
    Args,
    ArgValue,
    register,
    render_slots,
    slot_kinds,
)
from chartproof.questions.programs._pick import CATEGORY, PIES
from chartproof.questions.programs.computed import _Computed
from chartproof.questions.programs.figureqa import BIGGER, COMPARISON
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = [
    "CLAIM",
    "COMPARED",
    "TIMES",
    "QuantityGreater",
    "QuantityLess",
    "QuantityTimes",
    "SeriesColorIs",
    "ValueIs",
    "WedgeColorIs",
]


# ---------------------------------------------------------------- a claimed value

_IS_VALUE = (
    # "Is the value of X in Y (equal to) 12?": the number that ends the claim.
    re.compile(
        r"^(?:is|was|are|were) (?:the )?(?:value of (?:the )?)?(.+?) (?:(?:exactly |about |"
        r"around |approximately )?(?:equal to|equals|at) )?(-?\d+(?:\.\d+)?) ?(?:%|percent)?()$"
    ),
    re.compile(
        r"^(?:is|was|are|were) (?:the )?(.+?) (\d+(?:\.\d+)?) ?(?:%|percent)?(?: in (.+))?$"
    ),
)
_OTHER_CLAIM = re.compile(r"^(?:is|was) the colou?r of | times ")
CLAIM = PATTERNS.stop - 3
"""The rank of the cues of claims about a cell or a key: after every other pattern cue, as
the reader checked claims once no program's own pattern had answered."""
TIMES = PATTERNS.stop - 2
"""The rank of "Is A k times B?": after the claims about a cell or a key."""
COMPARED = PATTERNS.stop - 1
"""The rank of "Is A greater than B?": the last of `PATTERNS` (a "k times" claim that
cannot be checked may still read as a comparison: "3 times more than")."""


def _value_claim_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    """ "Is the value of Germany in 2015 34?", "Is the value of 2015 337.8?": the claimed
    value is the number that is not a label or a series of the chart, the cell is what the
    rest names, read through the one parser as "What is the value of ...?"."""
    from chartproof.questions.matching import parse  # the parser walks this registry

    q = norm_question(question)
    if COMPARISON.match(q) or _OTHER_CLAIM.search(q):
        return None  # the claims of other programs: "greater than", "k times", a colour
    names = {norm(x) for x in (*view.x_labels, *view.series)}
    found = [m for rx in _IS_VALUE if (m := rx.match(q))]
    m = next((m for m in found if m.group(2) not in names), found[0] if found else None)
    if m is None:
        return None
    where = f" in {m.group(3)}" if m.group(3) else ""
    for p in parse(f"What is the value of {m.group(1)}{where}?", view):
        op = p.program.run(Tracer(view), p.args)
        if op is not None and op.kind == "number":
            if op.op != "read":
                return None
            value = float(m.group(2))
            return {"series": str(op.args["series"]), "x": str(op.args["x"]), "value": value}
    return None


@register
class ValueIs(_Computed):
    """Whether one cell shows the value a question claims (within 5 %)."""

    name = "value_is"
    task_type = "VE"
    question_type = "descriptive"
    templates = (
        "Is the value of {series} in {x} {value}?",
        "Is the value of {series} in {x} equal to {value}?",
        "Does {series} show {value} in {x}?",
    )
    slots = slot_kinds(series="series", x="x", value="number")
    cues = (reads(_value_claim_cue, CLAIM, "a claimed value"),)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        cells = cells_of(view, view.series)
        if not cells:
            return None
        x, s, v = rng.choice(cells)
        # Half the claims are the shown value, half one clearly off it.
        claimed = v if rng.random() < 0.5 else v * rng.choice((0.5, 0.7, 1.4, 2.0))
        shown = parse_number(view.fmt(claimed))
        return None if shown is None else {"series": s, "x": x, "value": shown}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.value_is(tr, str(args["series"]), str(args["x"]), float(args["value"]))


# ---------------------------------------------------------------- a claimed colour

_COLOUR_CLAIM = re.compile(r"^(?:is|was) the colou?r of (?:the )?(.+?) (\w+(?: \w+)?)$")


def _key_colour_cue(slot: str) -> Cue:
    """ "Is the color of Yes graph green?": what the rest names is found by parsing "What is
    the color of ...?" with the one parser, taken when that reading is a series' (pie: a
    wedge's) colour; `slot` is "series", or "x" for charts coloured by label."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        from chartproof.questions.matching import parse  # the parser walks this registry

        m = _COLOUR_CLAIM.match(norm_question(question))
        if m is None or (view.kind.color_keys == "x") != (slot == "x"):
            return None
        said = colour_in_question(m.group(2)) or m.group(2)  # "graph green": green
        for p in parse(f"What is the color of {m.group(1)}?", view):
            op = p.program.run(Tracer(view), p.args)
            if op is not None and op.kind == "text":
                return None if op.op != "color_of" else {slot: str(op.args["key"]), "color": said}
        return None

    return reads(cue, CLAIM, "a claimed colour")


class _KeyColorIs(_Computed):
    task_type = "CI"
    question_type = "descriptive"

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        slot = "x" if "x" in self.slots else "series"
        keys = [k for k in (view.x_labels if slot == "x" else view.series) if k in view.colors]
        if not keys:
            return None
        key = rng.choice(keys)
        shown = view.colors[key]
        if not same_colour(shown, shown):
            return None  # a colour of no basic family ("coral") cannot be told by its word
        others = sorted(
            {c for c in view.colors.values() if same_colour(c, c) and not same_colour(c, shown)}
        )
        # Half the claims name the key's colour, half a colour of another family.
        colour = shown if not others or rng.random() < 0.5 else rng.choice(others)
        return {slot: key, "color": colour}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        key = args["x"] if "x" in self.slots else args["series"]
        return ops.key_color_is(tr, str(key), str(args["color"]))


@register
class SeriesColorIs(_KeyColorIs):
    """Whether a series is drawn in a named colour."""

    name = "series_color_is"
    chart_types = CATEGORY - PIES
    templates = (
        "Is {series} drawn in {color}?",
        "Is the color of {series} {color}?",
        "Is {series} shown in {color}?",
    )
    slots = slot_kinds(series="series", color="color")
    cues = (_key_colour_cue("series"),)


@register
class WedgeColorIs(_KeyColorIs):
    """Whether a pie's wedge is drawn in a named colour."""

    name = "wedge_color_is"
    chart_types = PIES
    templates = (
        "Is the {x} wedge drawn in {color}?",
        "Is the color of the {x} segment {color}?",
        "Is {x} shown in {color} in the pie?",
    )
    slots = slot_kinds(x="x", color="color")
    cues = (_key_colour_cue("x"),)


# ---------------------------------------------------------------- two quantities compared

_TIMES = re.compile(
    r"^(?:is|are|was|were) ((?:the )?.+?) (?:is |are )?(?:(\w+|\d+(?:\.\d+)?) times|"
    r"(twice|half)) (?:as \w+ as |of )?((?:the )?.+?)$"
)
"""A claim that one quantity is k times another, normalised text: a, k as written (a
number or a number word), "twice" or "half", b ("is a 3 times as large as the b")."""
_HALF_OR_TWICE = {"twice": 2.0, "half": 0.5}


def _share_series(left: str, right: str, view: ChartView) -> tuple[str, str]:
    """ "A in fairly well more than B": the series one side names holds for the other side
    too, when that side names none and is no number as written ("70")."""
    if len(view.series) < 2:
        return left, right
    sl, sr = find_mentions(left, view.series), find_mentions(right, view.series)
    if sl and not sr and written_number(right) is None:
        return left, f"{right} in {sl[0]}"
    if sr and not sl and written_number(left) is None:
        return f"{left} in {sr[0]}", right
    return left, right


def _compared_cue(bigger: bool) -> Cue:
    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        m = COMPARISON.match(norm_question(question))
        if m is None or (m.group(2) in BIGGER) != bigger:
            return None
        a, b = _share_series(m.group(1), m.group(3), view)
        return {"a": a, "b": b}

    return reads(cue, COMPARED, "two quantities compared")


def _times_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    m = _TIMES.match(norm_question(question))
    if m is None:
        return None
    said = m.group(2)
    k = _HALF_OR_TWICE.get(m.group(3) or "") or (
        NUMBER_WORDS.get(said) if said in NUMBER_WORDS else parse_number(said or "")
    )
    return None if not k or k <= 0 else {"a": m.group(1), "k": float(k), "b": m.group(4)}


def _quantities(view: ChartView, rng: random.Random) -> list[tuple[str, float]]:
    """Up to five phrases naming a number of the chart, each with the number: a cell ("the
    value of Sales in 2015"; a one-series chart's label, "Canada"), a series' highest,
    lowest, median or total; only those that the one parser answers with that number when
    asked as a question (`ops.quantity`), so a drawn question parses back to its sides."""
    found: list[tuple[str, float]] = []
    if view.chart_type not in CATEGORY:
        return found  # drawn on charts of categories (asked on any chart)
    for s in view.series:
        col = view.column(s)
        if col:
            found += [
                (f"the highest value of {s}", max(col)),
                (f"the lowest value of {s}", min(col)),
            ]
            found += [
                (f"the median of {s}", statistics.median(col)),
                (f"the total of {s}", sum(col)),
            ]
    one = len(view.series) == 1
    for x, s, v in cells_of(view, view.series) if view.x_unique else ():
        found.append((x if one else f"the value of {s} in {x}", v))
    out: list[tuple[str, float]] = []
    for phrase, want in rng.sample(found, len(found)):
        op = ops.quantity(Tracer(view), phrase)
        got = None if op is None else number_of(op)
        if got is not None and abs(got - want) <= 1e-4 * max(1.0, abs(want)):
            out.append((phrase, want))
        if len(out) == 5:
            break
    return out


class _Quantities(_Computed):
    """A claim about two quantities named in words, each answered as a question of its own
    (`ops.quantity`: its operations are the first steps of the explanation)."""

    task_type = "VC"
    chart_types = ALL_CHARTS


class _Compared(_Quantities):
    """Whether one quantity is greater (less) than another, by the numbers as answered."""

    bigger = True
    slots = slot_kinds(a="quantity", b="quantity")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        pairs = [
            (a, b)
            for a, b in itertools.permutations(_quantities(view, rng), 2)
            if view.distinct(a[1], b[1])
        ]
        if not pairs:
            return None
        a, b = rng.choice(pairs)
        return {"a": a[0], "b": b[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        phrases = (str(args["a"]), str(args["b"]))
        a = ops.quantity(tr, phrases[0])
        b = ops.quantity(tr, phrases[1]) if a is not None else None
        if a is None or b is None:
            return None
        return ops.compare_quantities(tr, a, b, self.bigger, phrases)


@register
class QuantityGreater(_Compared):
    """Whether one quantity named in words is greater than another."""

    name = "quantity_greater"
    templates = ("Is {a} greater than {b}?", "Is {a} larger than {b}?", "Is {a} more than {b}?")
    cues = (_compared_cue(True),)


@register
class QuantityLess(_Compared):
    """Whether one quantity named in words is less than another."""

    name = "quantity_less"
    bigger = False
    templates = ("Is {a} less than {b}?", "Is {a} smaller than {b}?", "Is {a} lower than {b}?")
    cues = (_compared_cue(False),)


@register
class QuantityTimes(_Quantities):
    """Whether one quantity named in words is k times another (within 5 % of k)."""

    name = "quantity_times"
    templates = (
        "Is {a} {k} times {b}?",
        "Is {a} {k} times as large as {b}?",
        "Is {a} {k} times as much as {b}?",
    )
    slots = slot_kinds(a="quantity", k="number", b="quantity")
    cues = (reads(_times_cue, TIMES, "one quantity k times another"),)

    def question(self, view: ChartView, args: Args, paraphrase: int) -> str:
        slots = render_slots(view, self, args)
        slots["k"] = format_number(float(args["k"]))  # a ratio, not a value of the axis
        return self.templates[paraphrase % len(self.templates)].format_map(slots)

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        named = _quantities(view, rng)
        pairs = [(a, b) for a, b in itertools.permutations(named, 2) if 0 < 1.2 * b[1] <= a[1]]
        if not pairs:
            return None
        a, b = rng.choice(pairs)
        ratio = a[1] / b[1]
        k = round(ratio, 1) if abs(ratio - round(ratio, 1)) <= 0.01 * ratio else round(ratio, 2)
        if rng.random() < 0.5:  # half the claims are off by far more than the 5 % allowed
            k = round(k * rng.choice((0.5, 1.5, 2.0)), 1)
        if k <= 0 or 0.01 * k < abs(ratio - k) < 0.1 * k:
            return None
        return {"a": a[0], "k": k, "b": b[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        phrases = (str(args["a"]), str(args["b"]))
        a = ops.quantity(tr, phrases[0])
        b = ops.quantity(tr, phrases[1]) if a is not None else None
        if a is None or b is None:
            return None
        return ops.times_of(tr, a, b, float(args["k"]), phrases)
