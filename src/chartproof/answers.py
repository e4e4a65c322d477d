"""Answer comparison: the one place that decides whether two answers are the same.

Scoring (`metrics.accuracy`), preference pairs (`variants.preference`), the reply parser
(`models.parsing`, for list items) and everything that asks "was this right?" read and
compare answers here, so a rule changes in one place and every stage agrees. The rules:

* text — equal after `normalize_text`: case, runs of whitespace, surrounding quotes and
  trailing punctuation do not count ("Asia." is "Asia").
* number — within the gold's relative tolerance of |target| (inclusive, with a tiny float
  slack), read from the text by `numbers_in` ("1,234", "12%", "$3.4bn", "about 12 kg"); a
  target that looks like a calendar year (an integer from 1800 to 2100 without a unit) must
  match exactly (2019 is not 2020, although it is within 5 %).
* bool — yes/no/true/false, also as the first word ("Yes, it is").
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
    r"(?:\s*(?P<scale>thousand|million|billion|trillion|bn|k|m|b)\b)?"
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
_YES = frozenset({"yes", "true", "y"})
_NO = frozenset({"no", "false", "n"})


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
    word after it adds the scaled reading: "12 million" → (12.0, 12000000.0).
    """
    s = text.strip().strip(_QUOTES).rstrip(_TRAILING).strip()
    whole = parse_number(s)
    if whole is not None:
        return (whole,)
    readings: dict[float, tuple[float, ...]] = {}
    for m in _NUMBER.finditer(s):
        token = m.group(0)
        scale = m.group("scale")
        if scale:
            token = token[: m.start("scale") - m.start()]
        value = parse_number(token.replace(" ", ""))
        if value is None:
            continue
        scaled = value * _SCALES[scale.casefold()] if scale else None
        readings[value] = (value,) if scaled is None else (value, scaled)
    if len(readings) != 1:
        return ()
    return next(iter(readings.values()))


def parse_bool(text: str) -> bool | None:
    """Read yes/no/true/false (also as the first word: "Yes, it is"); None otherwise."""
    s = normalize_text(text)
    if s in _YES:
        return True
    if s in _NO:
        return False
    first = re.split(r"[\s,.;:!]+", s, maxsplit=1)[0]
    if first in {"yes", "true"}:
        return True
    if first in {"no", "false"}:
        return False
    return None


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
    """Whether a number read from the prediction text is close to the target."""
    return any(number_close(p, target, tolerance, unit) for p in numbers_in(prediction))


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
