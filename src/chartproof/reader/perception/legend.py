"""Legend entries: a text label with a small, self-contained colour swatch just to its left
(a patch, a dot or a short line), which ties a series name to the colour of its marks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.ocr import UNREAD_FOOTNOTE, parse_label_number
from chartproof.reader.perception.geometry import iou_matrix
from chartproof.reader.perception.palette import ColorLayer, text_mask
from chartproof.reader.perception.pixels import components
from chartproof.reader.perception.records import Box, LegendEntry, OcrToken

__all__ = ["find_legend", "legend_region"]


def find_legend(
    tokens: Sequence[OcrToken],
    layers: Sequence[ColorLayer],
    text: np.ndarray,
    bars: Sequence[Box] = (),
) -> tuple[LegendEntry, ...]:
    """Legend entries in reading order (top to bottom, left to right); a swatch that is one
    of the chart's `bars` is not a swatch."""
    if not layers:
        return ()
    h_img, _w_img = text.shape
    entries: list[tuple[LegendEntry, int]] = []
    # Glyphs of neighbouring text are not swatches; a token box that reaches left over its
    # own swatch (the OCR took the dot for the start of the line) is cut to its letters.
    text = text_mask(text.shape, [_letters_only(t) for t in tokens])
    masks = [lay.mask & ~text for lay in layers]
    # A faint grey names a series only where bars are drawn in it (Pew's "Don't know").
    faint = [
        lay.chroma < 25 and lay.luma > _SWATCH_GREY and not _fills_a_bar(lay.mask, bars)
        for lay in layers
    ]
    flat = [t.height for t in tokens if not t.vertical and abs(t.angle) <= 5]
    line_h = float(np.median(flat or [12.0]))
    for tok in tokens:
        # Legend labels are single horizontal lines: skip vertical and rotated text, and the
        # footnote lines the OCR left unread (a mark at a line's start took one for a label).
        if tok.vertical or abs(tok.angle) > 10 or not tok.text.strip():
            continue
        if tok.text == UNREAD_FOOTNOTE:
            continue
        if tok.height > 1.6 * line_h:
            continue
        th = max(6.0, tok.height)
        x1 = int(_letters_only(tok).box[0]) - 1
        x0 = max(0, int(tok.box[0] - 2.8 * th))
        y0 = max(0, int(tok.cy - 0.6 * th))
        y1 = min(h_img, int(tok.cy + 0.6 * th) + 1)
        if x1 - x0 < 4 or y1 - y0 < 3:
            continue
        best: tuple[tuple[bool, int], int, ColorLayer, Box] | None = None
        for li, lay in enumerate(layers):
            if faint[li]:
                continue  # faint grey: blurred glyph edges, frames, gridlines
            n = int(masks[li][y0:y1, x0:x1].sum())
            # Coloured swatches first: a grey one is more often a frame or a gridline.
            key = (lay.chroma >= 25, n)
            if n < 6 or (best is not None and key <= best[0]):
                continue
            sw = _swatch_box(masks[li], (x0, y0, x1, y1), th)
            if sw is not None:
                best = (key, li, lay, sw)
        if best is None:
            continue
        _, li, lay, sw = best
        box = (min(sw[0], tok.box[0]), min(sw[1], tok.box[1]), tok.box[2], max(sw[3], tok.box[3]))
        entries.append(
            (
                LegendEntry(
                    label=tok.text.strip(),
                    color=lay.hex,
                    box=box,
                    label_box=tok.box,
                    swatch_box=sw,
                ),
                li,
            )
        )
    # Swatches that are bars of the chart are value labels beside short bars, unless most
    # "bars" are swatches (a legend column looks like bars on a common edge).
    iou = iou_matrix([e[0].swatch_box or e[0].box for e in entries], bars)
    on_bars = [e for e, row in zip(entries, iou, strict=True) if (row > 0.6).any()]
    # (Counted over the "bars": a row of line swatches, each a short bar, is a legend even
    # where some swatch boxes, grown by their dots, overlap their bar less.)
    swatches = [b for b, col in zip(bars, iou.T, strict=True) if (col > 0.3).any()]
    if on_bars and len(on_bars) <= len(bars) / 2 and len(swatches) <= len(bars) / 2:
        entries = [e for e in entries if e not in on_bars]
    entries = _aligned(_coherent(entries))
    entries.sort(key=lambda e: (round(e[0].box[1] / 6), e[0].box[0]))
    return tuple(e for e, _ in entries)


_SWATCH_GREY = 200
"""Lightest grey a swatch may have: mid greys name series (Statista's grey bars), lighter
ones are blurred glyph edges, frames and gridlines, unless bars are drawn in them."""


def _fills_a_bar(mask: np.ndarray, bars: Sequence[Box]) -> bool:
    """Whether the layer covers most of one of the chart's bars."""
    for x0, y0, x1, y1 in bars:
        patch = mask[int(y0) : int(np.ceil(y1)), int(x0) : int(np.ceil(x1))]
        if patch.size and float(patch.mean()) >= 0.8:
            return True
    return False


def _letters_only(tok: OcrToken) -> OcrToken:
    """The token with its box starting at its first character (by the OCR's character
    centres) when the box reaches further left: over a swatch the OCR took for the start of
    the line, or over part of a small one (the OCR pads its boxes by half a line height)."""
    if not tok.char_x or tok.vertical:
        return tok
    start = tok.char_x[0] - 0.4 * tok.height
    if start <= tok.box[0] + 1:
        return tok
    b = tok.box
    return tok.model_copy(update={"box": (start, b[1], b[2], b[3])})


def _swatch_box(mask: np.ndarray, strip: tuple[int, int, int, int], th: float) -> Box | None:
    """Box of the swatch inside `strip`, or None when its colour blob runs out of the strip
    (then it is a bar or a line next to a label, not a legend swatch)."""
    x0, y0, x1, y1 = strip
    h, w = mask.shape
    pad = int(2 * th)
    wx0, wy0 = max(0, x0 - pad), max(0, y0 - pad)
    wx1, wy1 = min(w, x1 + pad), min(h, y1 + pad)
    n, lab, stats, _ = components(mask[wy0:wy1, wx0:wx1], 8)
    inner = lab[y0 - wy0 : y1 - wy0, x0 - wx0 : x1 - wx0]
    counts = np.bincount(inner.ravel(), minlength=n)
    counts[0] = 0
    # Only blobs that end before the text can be its swatch.
    blobs = [k for k in range(1, n) if counts[k] >= 6 and wx0 + stats[k][0] + stats[k][2] <= x1 + 3]
    if not blobs:
        return None
    # The blob nearest the text is the swatch candidate (a bar further left is not).
    k = max(blobs, key=lambda k: int(stats[k][0] + stats[k][2]))
    bx, by, bw, bh = (int(v) for v in stats[k][:4])
    bx0, by0 = wx0 + bx, wy0 + by
    bx1, by1 = bx0 + bw, by0 + bh
    # A swatch is a patch, a dot or a short line: wide enough to see, not a tick mark,
    # and solid, not the stray antialiased edge of a neighbouring glyph. (Four pixels: a
    # small square set close to its label shows only that much beside the label's box.)
    if bw < max(4, int(0.3 * th)):
        return None
    # A thin swatch is a short line, as long as a couple of letters at least; a thin
    # scrap is a piece of an icon (the "i" of an information link).
    if bh < 0.25 * th and bw < 0.8 * th:
        return None
    if stats[k][4] < 0.25 * bw * bh:
        return None
    slack = max(2, int(0.25 * th))
    if bx0 < x0 - slack and x0 > 0:
        return None
    if by0 < y0 - slack or by1 > y1 + slack or bx1 > x1 + slack:
        return None
    return float(bx0), float(by0), float(bx1), float(by1)


def _coherent(entries: list[tuple[LegendEntry, int]]) -> list[tuple[LegendEntry, int]]:
    """Keep one entry per colour (a legend names each series once), preferring entries that
    line up with other entries, then word labels over numbers (value labels), then the
    swatch closest to its text."""

    def rank(e: tuple[LegendEntry, int]) -> tuple[int, int, float]:
        aligned = any(_lined_up(e[0], o[0]) for o in entries if o[1] != e[1])
        numeric = parse_label_number(e[0].label) is not None
        return (0 if aligned else 1, 1 if numeric else 0, e[0].box[2] - e[0].box[0])

    by_color: dict[int, tuple[LegendEntry, int]] = {}
    for e in sorted(entries, key=rank):
        by_color.setdefault(e[1], e)
    return list(by_color.values())


def _lined_up(a: LegendEntry, b: LegendEntry) -> bool:
    """Labels of one legend start at one x (a column) or share a centre line (a row)."""
    la, lb = a.label_box or a.box, b.label_box or b.box
    same_col = abs(la[0] - lb[0]) <= 5
    same_row = abs((la[1] + la[3]) - (lb[1] + lb[3])) <= 8
    return same_col or same_row


def _aligned(entries: list[tuple[LegendEntry, int]]) -> list[tuple[LegendEntry, int]]:
    """Entries of a legend line up in a column (same swatch left edge) or a row (same centre
    line); a lone swatch-like patch elsewhere (a piece of a bar cut by a gridline, next to a
    value label) is dropped."""
    if len(entries) < 2:
        # A lone "entry" named by a number is a value label beside a short bar.
        return [e for e in entries if parse_label_number(e[0].label) is None]

    kept = [e for e in entries if any(_lined_up(e[0], o[0]) for o in entries if o is not e)]
    if kept:
        return kept
    # Nothing lines up: numbers are value labels beside markers or short bars.
    return [e for e in entries if parse_label_number(e[0].label) is None]


def legend_region(entries: Sequence[LegendEntry], pad: float = 6.0) -> Box | None:
    """Box around all legend entries (where marks must not be looked for)."""
    if not entries:
        return None
    x0 = min(e.box[0] for e in entries) - pad
    y0 = min(e.box[1] for e in entries) - pad
    x1 = max(e.box[2] for e in entries) + pad
    y1 = max(e.box[3] for e in entries) + pad
    return x0, y0, x1, y1
