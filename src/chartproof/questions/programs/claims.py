"""Yes/no claims about one cell or one key of the chart, checked on the chart: "Is the value
of X 12?" (within 5 %, at least 0.5), "Is the color of X green?" (a series or, on a pie, a
wedge). Family "computed" (not drawn by the suites). Their cues find what the claim names by
parsing a question about it ("What is the value of X?") with the one parser, and take rank
`CLAIM`, the last of `PATTERNS`: the solver meets them after every other own-pattern cue."""

from __future__ import annotations

import random
import re

from chartproof.numeric import parse_number
from chartproof.questions import ops
from chartproof.questions.colours import colour_in_question, same_colour
from chartproof.questions.cues import PATTERNS, Cue, reads
from chartproof.questions.labels import norm
from chartproof.questions.ops.computed import cells_of
from chartproof.questions.program import Args, ArgValue, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, PIES
from chartproof.questions.programs.computed import _Computed
from chartproof.questions.programs.figureqa import COMPARISON
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["CLAIM", "SeriesColorIs", "ValueIs", "WedgeColorIs"]


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
CLAIM = PATTERNS.stop - 1
"""The rank of the claim cues: after every other pattern cue, as the reader checked claims
once no program's own pattern had answered."""


def _claim_text(question: str) -> str:
    return " ".join(norm(question.replace("?", " ")).split())


def _value_claim_cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
    """ "Is the value of Germany in 2015 34?", "Is the value of 2015 337.8?": the claimed
    value is the number that is not a label or a series of the chart, the cell is what the
    rest names, read through the one parser as "What is the value of ...?"."""
    from chartproof.questions.matching import parse  # the parser walks this registry

    q = _claim_text(question)
    if COMPARISON.match(q) or _OTHER_CLAIM.search(q):
        return None  # the claims the reader checks first: "greater than", "k times", a colour
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

        m = _COLOUR_CLAIM.match(_claim_text(question))
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
