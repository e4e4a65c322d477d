"""The page a chart is laid out on: figure size in pixels, text extents, fixed paddings and
the rcParams every chart is drawn with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chartproof.charts._layout import FONT_FAMILY, MATH_FONTSET, text_extent
from chartproof.types import Style

__all__ = [
    "EDGE_PT",
    "LABELPAD_PT",
    "TICK_PT",
    "TITLEPAD_PT",
    "VALUE_LABEL_PAD_PT",
    "VALUE_LABEL_SCALE",
    "Page",
    "rc_for",
]

EDGE_PT = 6.0  # blank border around the figure content
TICK_PT = 7.0  # major tick length plus tick-label pad (matplotlib defaults 3.5 + 3.5)
LABELPAD_PT = 4.0  # matplotlib's default axis-title pad
TITLEPAD_PT = 6.0  # matplotlib's default title pad
VALUE_LABEL_SCALE = 0.9
"""Value labels use this fraction of the base font size."""
VALUE_LABEL_PAD_PT = 3.0
"""Gap between a mark and its value label."""


def rc_for(style: Style) -> tuple[tuple[str, Any], ...]:
    """rcParams every chart is drawn with, on top of matplotlib's defaults."""
    return (
        ("font.family", [FONT_FAMILY]),
        ("font.size", style.font_size),
        ("mathtext.fontset", MATH_FONTSET),
        ("axes.linewidth", 0.8),
        ("legend.framealpha", 0.9),
        # unhinted glyphs look the same at chart sizes and draw about 12 % faster
        ("text.hinting", "no_hinting"),
    )


@dataclass(frozen=True)
class Page:
    """Figure size in pixels and the point-to-pixel factor."""

    width: float
    """Figure width in pixels."""
    height: float
    """Figure height in pixels."""
    dpi: float
    """Dots per inch."""
    font: float
    """Base font size in points."""

    @classmethod
    def of(cls, style: Style) -> Page:
        """The page a style describes."""
        return cls(style.width * style.dpi, style.height * style.dpi, style.dpi, style.font_size)

    def px(self, points: float) -> float:
        """Points to pixels."""
        return points * self.dpi / 72.0

    def text(self, text: str, scale: float = 1.0, rotation: float = 0.0) -> tuple[float, float]:
        """Pixel width and height of text at `scale` times the base font size."""
        return text_extent(text, self.font * scale, self.dpi, rotation)
