"""Answer comparison: the one place that decides whether two answers are the same.

Scoring (`metrics.accuracy`), preference pairs (`variants.preference`), the reply parser
(`models.parsing`, for list items) and everything that asks "was this right?" read and
compare answers here, so a rule changes in one place and every stage agrees. The rules:

* text — equal after `normalize_text`: case, runs of whitespace, surrounding quotes and
  trailing punctuation do not count ("Asia." is "Asia").
* number — within the gold's relative tolerance of |target| (inclusive, with a tiny float
  slack), read from the text by `numbers_in` ("1,234", "12%", "$3.4bn", "about 12 kg"); a
  target that looks like a calendar year (an integer from 1800 to 2100 without a unit) must
  match exactly (2019 is not 2020, although it is within 5 %). A scale word multiplies
  ("12 million" is 12,000,000, not 12, unless the gold's unit is that scale); a "%" reads
  as the printed number and as its fraction ("3%" is 3 and 0.03), a bare number is never
  multiplied by 100 (0.12 is not "12%").
* bool — yes/no/true/false/1/0 (FigureQA's and RealCQA's official spellings), also as the
  first word when a mark or a clause follows ("Yes, it is", "No it is not"); "No idea",
  "No data" and hedges ("Yes and no", "yes/no") are no answer.
* list — the same items in any order, paired one to one; ranked list — in the same order.
  Items that are numbers follow the number rule.

`tests/metrics/cases/answers_same.json` pins the cases where the three former rules
disagreed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from chartproof.numeric import format_number, parse_number
from chartproof.types import Answer

__all__ = [
    "list_right",
    "matches",
    "normalize_text",
    "number_close",
    "number_right",
    "numbers_in",
    "parse_bool",
    "same_answer",
    "split_items",
]

_YEAR_RANGE = (1800, 2100)
_FLOAT_SLACK = 1e-9
_TRAILING = ".,;:!?"
_QUOTES = "\"'`“”‘’«»"

_NUMBER = re.compile(
    r"(?<![\w.,])"  # not inside a word or another number
    r"[-−+]?[$€£¥]?"  # U+2212 is the typographic minus
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    r"(?:\s*%)?"
    r"(?:\s*(?P<scale>thousand|million|billion|trillion|bn)\b|(?P<letter>[kmb])\b)?"
    r"|(?<![\w.,])[-−]?\.\d+",
    re.IGNORECASE,
)
_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}
_ITEM_SEP = re.compile(r"\s*(?:;|\n|,(?!\d{3}(?!\d))|\band\b|&)\s*", re.IGNORECASE)
_MARK_SEP = re.compile(r"\s*(?:;|\n|,(?!\d{3}(?!\d)))\s*")
_WORD_SEP = re.compile(r"\band\b|&", re.IGNORECASE)
_LEADING_OR = re.compile(r"^or\s+", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_YES = frozenset({"yes", "true", "y", "1"})
_NO = frozenset({"no", "false", "n", "0"})
_LEADING_BOOL = re.compile(
    r"(?P<word>yes|no|true|false)(?:(?P<mark>\s*[,.;:!—–]|$)|\s+(?P<next>[\w']+))"
)
_HEDGE = re.compile(r"(yes|no|true|false)\s*(?:,|/|\band\b|\bor\b|&)?\s*(yes|no|true|false)\b")
# a leading yes/no followed by a clause ("No it is not"), not by a noun ("No idea")
_CLAUSE_START = frozenset(
    [
        "it",
        "it's",
        "its",
        "they",
        "there",
        "that",
        "this",
        "these",
        "those",
        "the",
        "i",
        "we",
        "he",
        "she",
        "you",
        "which",
    ]
)


# --------------------------------------------------------------------------- reading


def normalize_text(text: str) -> str:
    """Casefold, collapse whitespace, drop surrounding quotes and trailing punctuation."""
    s = " ".join(text.split()).casefold()
    prev = None
    while s != prev:
        prev = s
        s = s.strip().strip(_QUOTES).rstrip(_TRAILING)
    return s


def numbers_in(text: str) -> tuple[float, ...]:
    """The values a prediction can mean as a number; empty when it holds none or several.

    The whole text is tried first with `parse_number` ("1,234", "12%", "$3.4", "1e5");
    otherwise exactly one distinct number must appear among words ("about 12 kg"). A scale
    word multiplies ("12 million" → 12000000.0, "$3.4bn", "1.2k"; a lone letter only when
    written against the number, as "12 m" is twelve metres); a "%" adds the fraction as a
    second reading: "3%" → (3.0, 0.03).
    """
    return tuple(value for value, _ in _readings(text))


def _readings(text: str) -> tuple[tuple[float, str | None], ...]:
    """(value, scale word the value was multiplied by) for each reading of `numbers_in`."""
    s = text.strip().strip(_QUOTES).rstrip(_TRAILING).strip()
    whole = parse_number(s)
    if whole is not None:
        return _percent_readings(whole, s, None)
    readings: dict[float, tuple[tuple[float, str | None], ...]] = {}
    for m in _NUMBER.finditer(s):
        token = m.group(0)
        scale = m.group("scale") or m.group("letter")
        if scale:
            token = token[: m.start("scale" if m.group("scale") else "letter") - m.start()]
        value = parse_number(token.replace(" ", ""))
        if value is None:
            continue
        if scale:
            readings[value] = ((value * _SCALES[scale.casefold()], scale.casefold()),)
        else:
            readings[value] = _percent_readings(value, token, None)
    if len(readings) != 1:
        return ()
    return next(iter(readings.values()))


def _percent_readings(
    value: float, token: str, scale: str | None
) -> tuple[tuple[float, str | None], ...]:
    if token.rstrip().endswith("%") and value != 0:
        return ((value, scale), (value / 100, scale))
    return ((value, scale),)


def parse_bool(text: str) -> bool | None:
    """Read yes/no/true/false/1/0, also as the first word when a mark or a clause follows
    ("Yes, it is", "No it is not"); None otherwise ("No idea", "Yes and no", "yes/no")."""
    s = normalize_text(text)
    if s in _YES:
        return True
    if s in _NO:
        return False
    hedge = _HEDGE.match(s)
    if hedge and (hedge.group(1) in _YES) != (hedge.group(2) in _YES):
        return None
    m = _LEADING_BOOL.match(s)
    if m is None or (m.group("mark") is None and m.group("next") not in _CLAUSE_START):
        return None
    return m.group("word") in _YES


def split_items(text: str, *, words: bool = True) -> tuple[str, ...]:
    """Split a list answer on commas (not thousands separators: "1,234" stays one item),
    semicolons, newlines and (with `words`) "and" and "&"; one pair of brackets around the whole list, bullets,
    quotes and a leading "or" of the last item are dropped: "A, B, or C" → ("A", "B", "C")."""
    s = text.strip()
    # drop one pair of brackets around the whole list, never an item's own parenthesis
    for opening, closing in ("[]", "()", "{}"):
        if s.startswith(opening) and s.endswith(closing):
            s = s[1:-1].strip()
            break
    items = [
        _LEADING_OR.sub("", _BULLET.sub("", p.strip()).strip()).strip().strip(_QUOTES)
        for p in (_ITEM_SEP if words else _MARK_SEP).split(s)
    ]
    return tuple(i for i in items if i)


# --------------------------------------------------------------------------- comparing


def _is_year(target: float, unit: str | None) -> bool:
    return unit is None and target.is_integer() and _YEAR_RANGE[0] <= target <= _YEAR_RANGE[1]


def number_close(value: float, target: float, tolerance: float, unit: str | None = None) -> bool:
    """Whether `value` is within `tolerance` of |target| (a year-like target: exactly)."""
    if _is_year(target, unit):
        return value == target
    return abs(value - target) <= tolerance * abs(target) * (1 + _FLOAT_SLACK)


def number_right(prediction: str, target: float, tolerance: float, unit: str | None) -> bool:
    """Whether a number read from the prediction text is close to the target. A scaled
    reading ("12 million") also counts unscaled when the gold's unit is that scale word
    (gold 12 with unit "million")."""
    scale_unit = _scale_of(unit)
    for value, scale in _readings(prediction):
        if scale is not None and scale_unit is not None and _SCALES[scale] == scale_unit:
            value /= scale_unit
        if number_close(value, target, tolerance, unit):
            return True
    return False


def _scale_of(unit: str | None) -> float | None:
    if unit is None:
        return None
    word = unit.strip().casefold()
    return _SCALES.get(word) or _SCALES.get(word.removesuffix("s"))


def matches(prediction: str, gold: Answer) -> bool:
    """Whether a prediction text is the gold answer, by `gold.kind` (see the module rules);
    numbers use `gold.tolerance`."""
    if gold.kind == "number":
        assert isinstance(gold.value, float)
        return number_right(prediction, gold.value, gold.tolerance, gold.unit)
    if gold.kind in ("text", "choice"):
        # a choice prediction is the picked option's text (the parser maps letters to it)
        return normalize_text(prediction) == normalize_text(gold.text())
    if gold.kind == "bool":
        return parse_bool(prediction) is gold.value
    assert isinstance(gold.value, tuple)
    splits = [split_items(prediction)]
    if any(isinstance(t, str) and _WORD_SEP.search(t) for t in gold.value):
        # labels such as "Wind and solar": "and" inside an item is no separator
        splits.insert(0, split_items(prediction, words=False))
    return any(list_right(items, gold, gold.tolerance) for items in splits)


def same_answer(a: Answer, b: Answer) -> bool:
    """Whether answer `a` would be marked right against gold `b` (the `matches` rules).

    Lists are compared item by item (not through their joined text), so an item holding a
    comma stays one item.
    """
    if isinstance(a.value, tuple) and b.kind in ("list", "ranked_list"):
        return list_right(tuple(_item_text(x) for x in a.value), b, b.tolerance)
    return matches(a.text(), b)


def _item_text(x: str | float) -> str:
    return x if isinstance(x, str) else format_number(x)


def list_right(items: Sequence[str], gold: Answer, tolerance: float) -> bool:
    """Whether predicted list items are the gold list: the same items in any order (ranked
    lists: in order), numbers within `tolerance`."""
    assert isinstance(gold.value, tuple)
    if len(items) != len(gold.value):
        return False

    def match(item: str, target: str | float) -> bool:
        if isinstance(target, str):
            return normalize_text(item) == normalize_text(target)
        return number_right(item, target, tolerance, gold.unit)

    if gold.kind == "ranked_list":
        return all(match(i, t) for i, t in zip(items, gold.value, strict=True))
    return _perfect_matching(items, gold.value, match)


def _perfect_matching(
    items: Sequence[str],
    targets: Sequence[str | float],
    match: Callable[[str, str | float], bool],
) -> bool:
    # Kuhn's augmenting paths: tolerant number matches can overlap, so greedy pairing
    # could miss a valid one-to-one assignment.
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j, target in enumerate(targets):
            if j in seen or not match(items[i], target):
                continue
            seen.add(j)
            if j not in owner or place(owner[j], seen):
                owner[j] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(items)))
