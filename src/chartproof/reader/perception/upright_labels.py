"""Category labels turned 90° under the plot (Vega-Lite's vertical year labels): the OCR
reads them as vertical text, which the label rows of the line and area readers leave out, so
the axis title under them ("Year") was taken as the only category."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.records import AxisFit, OcrToken

__all__ = ["hangs_below", "one_number", "sparse_numbers", "top_edge", "upright_row"]


def upright_row(
    tokens: Sequence[OcrToken], bottom: float, x_lo: float, x_hi: float
) -> list[OcrToken]:
    """The vertical tokens hanging just under `bottom` (the lowest mark pixel) within columns
    [x_lo, x_hi], left to right; empty unless at least two do and they sit above every
    horizontal token between them and the plot (then those are the labels instead)."""
    upright = [
        t
        for t in tokens
        if t.vertical and t.box[2] >= x_lo and t.box[0] <= x_hi and t.box[1] >= bottom - 2
    ]
    if len(upright) < 2:
        return []
    # one text line wide: the gap allowed between the axis and the labels' top ends
    thick = float(np.median([t.width for t in upright]))
    top = min(t.box[1] for t in upright)
    # the lowest mark may sit far above the axis (a line that never nears 0): the labels
    # are the first row of upright text under it, whatever the distance
    row = [t for t in upright if t.box[1] <= top + 1.5 * thick]
    if len(row) < 2:
        return []
    flat_above = [
        t
        for t in tokens
        if not t.vertical and bottom - 2 <= t.box[1] < top and x_lo <= t.cx <= x_hi
    ]
    if len(flat_above) >= 2:
        return []
    return sorted(row, key=lambda t: t.cx)


def hangs_below(tok: OcrToken, value_axis: AxisFit | None) -> bool:
    """Whether a vertical token starts below the value axis's lowest tick: a category label
    turned 90°, not the axis title running beside the plot."""
    if not tok.vertical or value_axis is None or value_axis.direction != "y":
        return False
    return tok.box[1] > max(t.cy for t in value_axis.ticks)


def sparse_numbers(texts: Sequence[str | None], slots: int) -> bool:
    """Upright labels on a dense axis that names every k-th position: at least two, one
    per six `slots` (the coarsest labelling the line reader's lattice infers), all numbers
    (years), which `fill_skipped_labels` completes."""
    known = [t for t in texts if t]
    return len(known) >= max(2, slots / 6) and all(parse_label_number(t) is not None for t in known)


def top_edge(mask: np.ndarray) -> np.ndarray:
    """The top pixel of every column of a filled band: the polyline an area chart's data
    draw, as thin as a line series' stroke."""
    out = np.zeros_like(mask, dtype=bool)
    cols = np.nonzero(mask.any(axis=0))[0]
    out[np.argmax(mask[:, cols], axis=0), cols] = True
    return out


def one_number(text: str) -> bool:
    """A label that is a single number ("2005", "1,500"): wider than the slots of a dense
    axis that labels every k-th category, yet never two labels the OCR merged (those are
    apart by a space)."""
    t = text.strip()
    return bool(t) and " " not in t and parse_label_number(t) is not None
