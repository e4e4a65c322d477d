"""What a new chart kind's `draw` function builds its plan from: axes, the frame that lays
them out, plan calls with their mark and text records, and the spec helpers the shipped
kinds use. Importing it loads matplotlib (text is measured while planning)."""

from __future__ import annotations

from chartproof.charts._frame import CategoryAxis, NumberAxis, cartesian_ops
from chartproof.charts._legend import LegendItems
from chartproof.charts._marks import categories, color_of, column_values, label_color, value_text
from chartproof.charts._plan import MarkInfo, Op, Tag, TextInfo, Var, op

__all__ = [
    "CategoryAxis",
    "LegendItems",
    "MarkInfo",
    "NumberAxis",
    "Op",
    "Tag",
    "TextInfo",
    "Var",
    "cartesian_ops",
    "categories",
    "color_of",
    "column_values",
    "label_color",
    "op",
    "value_text",
]
