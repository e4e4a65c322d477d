"""Colours the way people name them: a read series colour gets chartproof's palette name when
it is one of the palette's colours, else a basic colour term ("blue", "gray", "green"); a
colour a question mentions ("the navy blue bars", "the light green line") is matched to the
series drawn in that family of colours."""

from __future__ import annotations

import colorsys
import re
from collections.abc import Mapping

from chartproof.charts.colors import NAMED_COLORS, color_name, hex_to_rgb

__all__ = ["colour_in_question", "human_colour_name", "same_colour", "series_of_colour_word"]

_PALETTE_MATCH = 24.0
"""Largest RGB distance at which a colour is taken to be a palette colour."""

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


def _rgb_name(rgb: tuple[int, int, int]) -> tuple[str, float]:
    """(family, lightness) of an RGB colour, by hue, saturation and value."""
    r, g, b = (c / 255.0 for c in rgb)
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    light = (max(r, g, b) + min(r, g, b)) / 2
    if max(rgb) - min(rgb) < 30 or s < 0.15:
        if v < 0.2:
            return "black", light
        return ("white" if v > 0.96 else "gray"), light
    hue = h * 360
    if hue < 12 or hue >= 340:
        family = "red" if v > 0.45 or s > 0.6 else "brown"
    elif hue < 42:
        family = "orange" if v > 0.7 else "brown"
    elif hue < 62:
        family = "yellow" if v > 0.75 else ("brown" if hue < 50 else "green")
    elif hue < 160:
        family = "green"
    elif hue < 195:
        family = "teal"
    elif hue < 255:
        family = "blue"
    elif hue < 290:
        family = "purple"
    else:
        family = "pink"
    return family, light


def human_colour_name(hex_colour: str) -> str:
    """The name a reader gives a series colour: the palette's own name when the chart uses a
    chartproof palette colour (questions generated for it use that name), else the basic
    colour term ("blue", "light gray" for a near-white grey)."""
    rgb = hex_to_rgb(hex_colour)
    nearest = min(
        NAMED_COLORS,
        key=lambda h: sum((p - q) ** 2 for p, q in zip(hex_to_rgb(h), rgb, strict=True)),
    )
    dist = sum((p - q) ** 2 for p, q in zip(hex_to_rgb(nearest), rgb, strict=True)) ** 0.5
    if dist <= _PALETTE_MATCH:
        return color_name(hex_colour)
    family, _ = _rgb_name(rgb)
    return family


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


def lightness_of(hex_colour: str) -> float:
    """HSL lightness (0..1) of a #rrggbb colour."""
    return _rgb_name(hex_to_rgb(hex_colour))[1]
