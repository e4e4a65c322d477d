"""Text helpers of the reader's solver: label comparison (`questions.labels`) and the labels
a question mentions (`questions.mentions`)."""

from __future__ import annotations

from chartproof.questions.labels import best_label, norm, numbers_written, plain_math, similarity
from chartproof.questions.mentions import aliases, find_mentions, loose_mention, words_to_numbers

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
