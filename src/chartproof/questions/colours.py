"""Colour words in questions: the colour phrase a question names ("navy blue", "light
green"), whether it names a colour called so on the chart (same basic family), and the series
drawn in that family of colours."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["colour_in_question", "same_colour", "series_of_colour_word"]

# Basic colour terms and the family each belongs to (the family decides matches).
_FAMILY: dict[str, str] = {
    "red": "red", "crimson": "red", "scarlet": "red", "vermilion": "red", "maroon": "red",
    "orange": "orange", "amber": "orange",
    "yellow": "yellow", "gold": "yellow", "golden": "yellow", "khaki": "yellow",
    "beige": "yellow", "mustard": "yellow", "tan": "brown",
    "green": "green", "olive": "green", "lime": "green",
    "teal": "teal", "cyan": "teal", "turquoise": "teal", "aqua": "teal",
    "blue": "blue", "navy": "blue", "azure": "blue",
    "purple": "purple", "violet": "purple", "indigo": "purple", "lavender": "purple",
    "pink": "pink", "magenta": "pink", "mauve": "pink", "orchid": "pink", "rose": "pink",
    "brown": "brown", "taupe": "brown",
    "gray": "gray", "grey": "gray", "silver": "gray",
    "black": "black", "white": "white",
}  # fmt: skip
_NEAR = {
    "green": {"teal", "yellow"},
    "teal": {"green", "blue"},
    "yellow": {"orange", "green"},
    "orange": {"yellow", "brown", "red"},
    "brown": {"orange", "red"},
    "red": {"orange", "pink", "brown"},
    "pink": {"red", "purple"},
    "purple": {"pink", "blue"},
    "blue": {"teal", "purple"},
    "gray": {"black", "white"},
    "black": {"gray"},
    "white": {"gray"},
}
_DARK = ("dark", "navy", "deep")
_LIGHT = ("light", "pale", "pastel", "lighter")
_WORDS = re.compile(
    r"\b((?:(?:light|dark|pale|deep|bright|navy|pastel|lighter|darker)[ -])?(?:"
    + "|".join(sorted(_FAMILY, key=len, reverse=True))
    + r"))(?:ish)?\b",
    re.I,
)


def _family(name: str) -> str | None:
    words = re.findall(r"[a-z]+", name.lower())
    for w in reversed(words):
        if w in _FAMILY:
            return _FAMILY[w]
    return None


def _shade(name: str) -> int:
    low = name.lower()
    if any(w in low for w in _DARK):
        return -1
    if any(w in low for w in _LIGHT):
        return 1
    return 0


def colour_in_question(question: str) -> str | None:
    """The first colour phrase a question names ("navy blue", "light green"), or None."""
    m = _WORDS.search(question)
    return m.group(1).lower() if m else None


def same_colour(phrase: str, name: str) -> bool:
    """Whether a colour phrase from a question names a colour called `name` (same basic
    family; "dark"/"light" are not required to agree: people call #1f4e79 "blue")."""
    a, b = _family(phrase), _family(name)
    return a is not None and a == b


def series_of_colour_word(
    phrase: str, colours: Mapping[str, str], lightness: Mapping[str, float] | None = None
) -> str | None:
    """The series (key of `colours`, series → colour name) a colour phrase names: the one
    in the phrase's family, else in a neighbouring family ("green" for an olive line);
    several in the family are told apart by "dark"/"light" and `lightness` (0..1 per
    series). None when no series or several fit."""
    fam = _family(phrase)
    if fam is None:
        return None
    exact = [s for s, n in colours.items() if _family(n) == fam]
    cands = exact or [s for s, n in colours.items() if _family(n) in _NEAR.get(fam, set())]
    if len(cands) == 1:
        return cands[0]
    if len(cands) < 2:
        return None
    shade = _shade(phrase)
    named = [s for s in cands if _shade(colours[s]) == shade and shade != 0]
    if len(named) == 1:
        return named[0]
    if shade != 0 and lightness is not None and all(s in lightness for s in cands):
        pick = min if shade < 0 else max
        return pick(cands, key=lambda s: lightness[s])
    return None
