"""Typing of gold answers read from real datasets: the one place a raw answer string
becomes a typed `Answer` (number, yes/no, or text)."""

from __future__ import annotations

import re

from chartproof.numeric import parse_number
from chartproof.types import Answer

__all__ = ["type_answer"]

_YES = frozenset({"yes", "true"})
_NO = frozenset({"no", "false"})


def type_answer(raw: str, *, tolerance: float = 0.05) -> Answer:
    """Type a gold answer string: a number, a yes/no boolean, or else text.

    "1,234" → number 1234; "12%" → number 12 with unit "%"; "Yes" / "false." → bool;
    a bracketed list "[10, 12]" or "['a', 'b']" → an unordered list of numbers and texts;
    anything else → text (stripped). A number keeps `tolerance` (ChartQA's 5 % by default).
    Loaders keep the original string in `Sample.source["answer_raw"]`, since typing drops its
    spelling ("12%" and "12" both become 12).
    """
    text = raw.strip()
    word = text.rstrip(".").strip().casefold()
    if word in _YES:
        return Answer.boolean(True)
    if word in _NO:
        return Answer.boolean(False)
    # a trailing sentence period is punctuation, not a decimal point ("12." is 12)
    number_text = text[:-1] if text.endswith(".") and not text.endswith("..") else text
    if len(text) > 2 and text[0] == "[" and text[-1] == "]":
        items = _list_items(text[1:-1])
        if items:
            return Answer(kind="list", value=items, tolerance=tolerance)
    value = parse_number(number_text)
    if value is not None:
        unit = "%" if number_text.rstrip().endswith("%") else None
        return Answer.number(value, unit=unit, tolerance=tolerance)
    return Answer.of_text(text)


def _list_items(inner: str) -> tuple[str | float, ...]:
    # ChartQA writes list answers as Python lists: "[1, 3, 14]", "['a', 'b']"
    items: list[str | float] = []
    for part in re.split(r",(?!\d{3}(?!\d))", inner):
        item = part.strip().strip("'\"").strip()
        if not item:
            return ()
        number = parse_number(item)
        items.append(item if number is None else number)
    return tuple(items)
