"""Text helpers of the reader's solver: the label helpers (mentions, aliases, comparison) come
from `questions.labels`, numbers written as words from `questions.mentions`."""

from __future__ import annotations

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
from chartproof.questions.mentions import words_to_numbers

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
