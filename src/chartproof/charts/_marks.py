"""Small helpers the chart builders share: table columns as numbers, label text and colour.

Kept apart from the builders so each chart-type module stays a short list of marks.
"""

from __future__ import annotations

import math

from chartproof.charts.colors import hex_to_rgb
from chartproof.types import ChartSpec

__all__ = ["categories", "color_of", "column_values", "label_color", "value_text"]


def categories(spec: ChartSpec) -> tuple[str, ...]:
    """The x column as display labels."""
    return spec.table.labels(spec.encoding.x)


def column_values(spec: ChartSpec, column: str) -> list[float]:
    """A number column as floats, missing cells as NaN (validation keeps them out of bars)."""
    return [math.nan if v is None else v for v in spec.table.numbers(column)]


def color_of(spec: ChartSpec, index: int) -> str:
    """The palette colour of series (or wedge) `index`, lower-case #rrggbb."""
    palette = spec.style.palette
    return palette[index % len(palette)].lower()


def value_text(spec: ChartSpec, value: float) -> str:
    """A value label's text, with the spec's format."""
    return spec.style.value_format.format(value)


def label_color(background: str) -> str:
    """Black or white, whichever reads better on a fill colour (WCAG relative luminance)."""

    def lin(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in hex_to_rgb(background))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if luminance > 0.18 else "#ffffff"
