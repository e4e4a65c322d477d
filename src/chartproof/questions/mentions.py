"""What a question mentions: the chart's labels, series and colours it names (exactly, by
an alias or loosely: `questions.labels`, `questions.colours`), the numbers it writes, a
position it counts, and a guess at the series it is about. `Mentions` works each out when a
cue first reads it and keeps it; the programs' free-form cues (`questions.cues`) read them."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from chartproof.questions.colours import colour_in_question, series_of_colour_word
from chartproof.questions.describe import ordinal_value
from chartproof.questions.labels import (
    find_mentions,
    loose_mention,
    norm,
    numbers_written,
    similarity,
)
from chartproof.questions.view import ChartView
from chartproof.questions.wording import MAX, asks_label, has

__all__ = [
    "NUMBER_WORDS",
    "ORDINAL_WORD",
    "Mentions",
    "mentions",
    "words_to_numbers",
]

NUMBER_WORDS = {
    w: i
    for i, w in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ))
}  # fmt: skip
"""Small whole numbers written as words ("three" → 3)."""


def words_to_numbers(text: str) -> str:
    """ "three percent" → "3 percent" (small numbers written as words)."""
    return re.sub(
        r"\b(" + "|".join(NUMBER_WORDS) + r")\b(?=\s+(?:percent|%|per cent))",
        lambda m: str(NUMBER_WORDS[m.group(1).lower()]),
        text,
        flags=re.I,
    )


ORDINAL_WORD = (
    r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"
)
"""An ordinal as a question writes it, captured ("third", "3rd")."""
_ONE_WORD = re.compile(r"\w+")
_SIDE_MOST = re.compile(r"\b(leftmost|rightmost|topmost|bottommost)\b")
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
_WHOLE = frozenset(("total", "average", "overall", "all", "all respondents", "total population"))
"""Bar labels that stand for the whole of what the others split (`Mentions.whole`)."""


@dataclass(frozen=True)
class Mentions:
    """What one question says about one chart (`mentions` builds it). Each part is worked
    out when first read and kept: a cue that reads the question itself (`questions.cues.
    reads`) costs no label search."""

    text: str
    """The question as written."""
    view: ChartView
    """The chart."""

    @functools.cached_property
    def question(self) -> str:
        """The question, small numbers written as words turned to digits."""
        return words_to_numbers(self.text)

    @functools.cached_property
    def q(self) -> str:
        """The question normalised (`norm`): lower case, no punctuation."""
        return norm(self.question)

    @property
    def xs(self) -> tuple[str, ...]:
        """x labels it names, in order (else a country by its adjective, a recent year, or
        the label whose words it shares most)."""
        return self._named[0]

    @property
    def ss(self) -> tuple[str, ...]:
        """Series it names (directly, loosely, or by the colour they are drawn in)."""
        return self._named[1]

    @property
    def series(self) -> str | None:
        """The series it is most likely about (`ss`'s first, the only one, or the one whose
        words it shares most)."""
        return self._named[2]

    @property
    def colors(self) -> tuple[str, ...]:
        """Colour names of the chart it names (or the family of one series' colour)."""
        return self._named[3]

    @functools.cached_property
    def label(self) -> bool:
        """Whether it asks for a label rather than a number (`asks_label`)."""
        return asks_label(self.q)

    @functools.cached_property
    def threshold(self) -> float | None:
        """The first number it writes that is neither a label nor a year."""
        return _threshold(self.question, list(self.xs))

    @functools.cached_property
    def position(self) -> int | None:
        """The display position it counts ("the third bar", "second from the right",
        "leftmost"), from the start side, when on the chart."""
        return _position(self.q, self.view)

    @functools.cached_property
    def ranked(self) -> int | None:
        """k of "the k-th largest" (k ≥ 2) it asks for."""
        return _ranked(self.q)

    @functools.cached_property
    def _tokens(self) -> frozenset[str]:
        return frozenset(re.findall(r"\w+", self.q))

    @functools.cached_property
    def _named(self) -> tuple[tuple[str, ...], tuple[str, ...], str | None, tuple[str, ...]]:
        return _find_named(self.question, self.q, self.view)

    def has(self, *words: str) -> bool:
        """Whether the question has one of the words or phrases as whole words."""
        return any(w in self._tokens if _ONE_WORD.fullmatch(w) else has(self.q, w) for w in words)

    def says(self, *parts: str) -> bool:
        """Whether the question has one of the texts anywhere (inside words too)."""
        return any(p in self.q for p in parts)

    @property
    def pie(self) -> bool:
        """Whether each label is its own mark (a wedge)."""
        return self.view.kind.color_keys == "x"

    @property
    def stacked_bars(self) -> bool:
        """Whether the chart stacks bars."""
        return self.view.kind.family == "bar" and bool(self.view.kind.stacks)

    @property
    def whole(self) -> str | None:
        """The one label of the chart that stands for the whole (`_WHOLE`: "Total",
        "Average"), or None when there is none or more than one."""
        found = [x for x in self.view.x_labels if norm(x) in _WHOLE]
        return found[0] if len(found) == 1 else None


def mentions(question: str, view: ChartView) -> Mentions:
    """What the question mentions on this chart."""
    return Mentions(question, view)


def _find_named(
    question: str, q: str, view: ChartView
) -> tuple[tuple[str, ...], tuple[str, ...], str | None, tuple[str, ...]]:
    """The labels, series and colours the question names, and the series it is about."""
    xs = find_mentions(question, view.x_labels)
    for guess in (_country_of, _recent):
        if not xs and (found := guess(q, view)) is not None:
            xs = [found]
    if not xs and (loose := loose_mention(question, view.x_labels)) is not None:
        xs = [loose]
    ss = find_mentions(question, view.series)
    if not ss and len(view.series) > 1 and (loose := loose_mention(question, view.series)):
        ss = [loose]
    series = _series_guess(question, view, ss)
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
            ss, series = [keyed], keyed
    return tuple(xs), tuple(ss), series, tuple(colors)


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


def _country_of(q: str, view: ChartView) -> str | None:
    """The chart's label for the one country the (normalised) question names by its
    adjective ("Spanish customers" on a chart with a bar "Spain"), or None."""
    named = {c for word, c in _DEMONYMS.items() if re.search(rf"\b{word}\b", q)}
    found = [x for x in view.x_labels if norm(x) in named]
    return found[0] if len(found) == 1 else None


def _position(q: str, view: ChartView) -> int | None:
    """The position "the 3rd bar", "the last bar" (one series only), "second from the
    right" or "leftmost" names, counted from the start side; None when none is on the
    chart. Programs count from the start side; the far side counts backwards."""
    n = len(view.x_labels)
    pos = re.search(rf"\b{ORDINAL_WORD} (?:\w+ )?from the (left|right|top|bottom)\b", q)
    nth = re.search(
        rf"\b(?:the )?({ORDINAL_WORD[1:-1]}|last) (bar|column|point|segment|slice|wedge)\b", q
    )
    side_most = _SIDE_MOST.search(q)
    if nth and not pos and not side_most:
        # "the 1st bar", "the last bar": counted in display order.
        k = n if nth.group(1) == "last" else ordinal_value(nth.group(1))
        ok = k is not None and 1 <= k <= n and len(view.series) == 1
        return k if ok else None
    if pos is None and side_most is None:
        return None
    start = "top" if view.orientation == "horizontal" and view.kind.axes else "left"
    if pos is not None:
        k, side = ordinal_value(pos.group(1)), pos.group(2)
    else:
        k, side = 1, side_most.group(1)[:-4] if side_most else start
    if k is None:
        return None
    if side != start:
        k = n - k + 1
    return k if 1 <= k <= n else None


def _ranked(q: str) -> int | None:
    """k of "the second most popular", "the third largest" (k ≥ 2), or None."""
    kth = re.search(rf"\b{ORDINAL_WORD} (?:most |largest |highest |biggest |best )?(\w+)", q)
    k = ordinal_value(kth.group(1)) if kth else None
    if k is None or k < 2 or kth is None:
        return None
    return k if has(q, *MAX) or kth.group(2) in MAX else None
