"""Text helpers of the reader's solver: numbers written as words; the label helpers (mentions,
aliases, comparison) come from `questions.labels`."""

from __future__ import annotations

import re

from chartproof.questions.labels import (
    aliases,
    best_label,
    find_mentions,
    loose_mention,
    norm,
    numbers_written,
    plain_math,
    similarity,
)

__all__ = [
    "aliases",
    "best_label",
    "find_mentions",
    "loose_mention",
    "norm",
    "numbers_written",
    "plain_math",
    "similarity",
    "words_to_numbers",
]

_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}


def words_to_numbers(text: str) -> str:
    """ "three percent" → "3 percent" (small numbers written as words)."""
    return re.sub(
        r"\b(" + "|".join(_NUMBER_WORDS) + r")\b(?=\s+(?:percent|%|per cent))",
        lambda m: str(_NUMBER_WORDS[m.group(1).lower()]),
        text,
        flags=re.I,
    )
