"""Free-form cues: how a program recognises a question written in words none of its
templates has ("Which year had the most sales?" → `argmax_x`), declared on the program
(`Program.cues`) and read by the one parser (`questions.matching.parse`).

A `Cue` says when the question signals the program (`when`, over the question's `Mentions`:
its words, the labels, series, colours, numbers and positions it names) and how its slots
are filled from those mentions (`fill`, usually `fills(...)` of the generic fillers below).
The parser walks every cue in `rank` order, lower first, and offers each program whose cue
holds with every slot filled; a `final` cue that holds ends the walk. The ranks place the
cues by how specific their signal is:

| ranks | cues |
|---|---|
| 0-99 | a program's own pattern (`reads`, rank `PATTERN`: equal ranks keep program-name order); the reader tries these before loose templates (`PATTERNS`) |
| 100-140 | a question about colours ("what colour is ...": the last one is final) |
| 200-210 | a question naming a colour ("the green bar") |
| 300-310 | a position ("the third bar", "second from the right"; final) |
| 400-430 | a value named, counts over a threshold |
| 440-490 | differences; the value of the one label named |
| 500-580 | sums, averages, medians, ratios, totals |
| 600-641 | the k-th largest, extremes |
| 650-660 | the trend or comparison of two labels |
| 700-730 | the value of a label named, of the only label, of the whole |
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from chartproof.questions.mentions import Mentions
from chartproof.questions.program import ArgValue
from chartproof.questions.view import ChartView
from chartproof.questions.wording import MAX, MIN

__all__ = [
    "MENTIONS",
    "NAMED_VALUE",
    "PATTERN",
    "PATTERNS",
    "Cue",
    "Fill",
    "Filler",
    "asks_colour",
    "asks_difference",
    "asks_sum",
    "color1",
    "each_series",
    "fills",
    "least",
    "most",
    "named_series",
    "one_label",
    "only_x",
    "position",
    "ranked",
    "reads",
    "s1",
    "s2",
    "series",
    "threshold",
    "walk",
    "whole",
    "x1",
    "x2",
    "x_or_only",
]

Filler = Callable[[Mentions], ArgValue | None]
"""One slot's value from the question's mentions (None: the question gives none)."""
Fill = Callable[[Mentions], Sequence[Mapping[str, ArgValue | None]]]
"""A program's arguments from the mentions: every reading, most likely first."""


@dataclass(frozen=True)
class Cue:
    """How a program recognises a free-form question (see the module's rank table)."""

    rank: int
    """Place in the parser's walk, lower first."""
    why: str
    """What the cue recognises, said in the parse ("highest minus lowest")."""
    when: Callable[[Mentions], bool]
    """Whether the question signals the program."""
    fill: Fill
    """Its arguments (a reading with a slot left None is not offered)."""
    final: bool = False
    """Whether the walk ends here when `when` holds (the question is surely this kind)."""


def fills(**fillers: Filler) -> Fill:
    """One reading: each slot from its filler."""

    def fill(m: Mentions) -> Sequence[Mapping[str, ArgValue | None]]:
        return ({name: f(m) for name, f in fillers.items()},)

    return fill


PATTERNS = range(0, 100)
"""The ranks of cues that read their own pattern: specific wordings ("have 24 value",
"missed") that the reader tries before loose templates, the other cues after them."""
MENTIONS = range(100, sys.maxsize)
"""The ranks of the cues over the question's mentions (the rank table's other rows)."""
PATTERN = 50
"""The rank a program's `reads` cues take: one rank, so they are walked in program-name
order."""


def reads(
    read: Callable[[str, ChartView], Mapping[str, ArgValue] | None], rank: int, why: str
) -> Cue:
    """A cue whose own pattern reads the arguments from the question as written and the
    chart (`read` returns None when the wording is not its program's): for a wording no
    mention filler covers ("46, 43, 41: which value is missing?")."""

    def fill(m: Mentions) -> Sequence[Mapping[str, ArgValue | None]]:
        found = read(m.text, m.view)
        return () if found is None else (found,)

    return Cue(rank, why, lambda m: True, fill)


def each_series(**fillers: Filler) -> Fill:
    """One reading per series the question names (else the series it is about), the
    `series` slot that series, the others from their fillers."""

    def fill(m: Mentions) -> Sequence[Mapping[str, ArgValue | None]]:
        names = m.ss or ((m.series,) if m.series else ())
        return tuple({"series": s, **{n: f(m) for n, f in fillers.items()}} for s in names)

    return fill


def walk(
    m: Mentions, cues: Iterable[tuple[str, Cue]], offer: Callable[[str], bool] = lambda _: True
) -> list[tuple[str, dict[str, ArgValue], str]]:
    """(program name, arguments, why) of every cue that holds, in rank order, each reading
    once, for the programs `offer` accepts (e.g. those that apply to the chart); a final
    cue that holds ends the walk whether its program is offered or not."""
    out: list[tuple[str, dict[str, ArgValue], str]] = []
    for name, cue in sorted(cues, key=lambda nc: nc[1].rank):
        if not cue.when(m):
            continue
        for args in cue.fill(m) if offer(name) else ():
            if all(v is not None for v in args.values()):
                item = (name, {k: v for k, v in args.items() if v is not None}, cue.why)
                if item not in out:
                    out.append(item)
        if cue.final:
            break
    return out


# ------------------------------------------------------------------ generic slot fillers


def series(m: Mentions) -> str | None:
    """The series the question is about."""
    return m.series


def named_series(m: Mentions) -> str | None:
    """The first series the question names, else the one it is about."""
    return m.ss[0] if m.ss else m.series


def s1(m: Mentions) -> str | None:
    """The first series the question names."""
    return m.ss[0] if m.ss else None


def s2(m: Mentions) -> str | None:
    """The second series the question names."""
    return m.ss[1] if len(m.ss) > 1 else None


def x1(m: Mentions) -> str | None:
    """The first label the question names."""
    return m.xs[0] if m.xs else None


def x2(m: Mentions) -> str | None:
    """The second label the question names."""
    return m.xs[1] if len(m.xs) > 1 else None


def only_x(m: Mentions) -> str | None:
    """The chart's only label."""
    return m.view.x_labels[0] if len(m.view.x_labels) == 1 else None


def x_or_only(m: Mentions) -> str | None:
    """The first label the question names, else the chart's only label."""
    return x1(m) if m.xs else only_x(m)


def whole(m: Mentions) -> str | None:
    """The chart's label for the whole ("Total", "Average")."""
    return m.whole


def color1(m: Mentions) -> str | None:
    """The first colour the question names."""
    return m.colors[0] if m.colors else None


def threshold(m: Mentions) -> float | None:
    """The number the question writes (not a label, not a year)."""
    return m.threshold


def position(m: Mentions) -> int | None:
    """The display position the question counts."""
    return m.position


def ranked(m: Mentions) -> int | None:
    """k of the k-th largest the question asks for."""
    return m.ranked


# ------------------------------------------------------------------ shared signals


def asks_colour(m: Mentions) -> bool:
    """The question speaks of colours."""
    return m.has("color", "colour", "colors", "colours")


def asks_difference(m: Mentions) -> bool:
    """The question asks for a difference ("difference", "gap", "how much more")."""
    return m.has("difference", "gap", "subtract", "deduct", "minus") or bool(
        re.search(r"how (much|many) (more|less|fewer|higher|lower)", m.q)
    )


def asks_sum(m: Mentions) -> bool:
    """The question asks for a sum ("total", "combined", "altogether")."""
    return m.has("sum", "total", "combined", "together", "add", "altogether")


def most(m: Mentions) -> bool:
    """The question has a word of the largest."""
    return m.has(*MAX)


def least(m: Mentions) -> bool:
    """The question has a word of the smallest."""
    return m.has(*MIN)


def one_label(m: Mentions) -> bool:
    """The question names one label of a chart that does not stack its bars."""
    return len(m.xs) == 1 and not m.stacked_bars


def _names_value(m: Mentions) -> bool:
    return (
        m.threshold is not None and m.label and not m.has("how many", "above", "below", "more than")
    )


def _value_args(m: Mentions) -> Sequence[Mapping[str, ArgValue | None]]:
    args: dict[str, ArgValue | None] = {"value": m.threshold}
    if m.xs and len(m.view.series) > 1:
        args["x"] = m.xs[0]
    elif m.ss:
        args["series"] = m.ss[0]
    return (args,)


NAMED_VALUE = Cue(400, "label with a value", _names_value, _value_args)
"""A label question that names a value ("What company captured about 69 percent?"): the
label (at a named label, the series) whose value is nearest it."""
