"""Colours the way people name them: a read series colour gets chartproof's palette name when
it is one of the palette's colours, else a basic colour term ("blue", "gray", "green"). The
colour words of questions ("the navy blue bars") live in `questions.colours`."""

from __future__ import annotations

import colorsys

from chartproof.charts.colors import NAMED_COLORS, color_name, hex_to_rgb

__all__ = ["human_colour_name", "lightness_of"]

_PALETTE_MATCH = 24.0
"""Largest RGB distance at which a colour is taken to be a palette colour."""


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


def lightness_of(hex_colour: str) -> float:
    """HSL lightness (0..1) of a #rrggbb colour."""
    return _rgb_name(hex_to_rgb(hex_colour))[1]
