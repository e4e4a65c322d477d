"""Legend entries: a text label with a small, self-contained colour swatch just to its left
(a patch, a dot or a short line), which ties a series name to the colour of its marks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.models.reader.perception.palette import ColorLayer
from chartproof.models.reader.perception.records import Box, LegendEntry, OcrToken

__all__ = ["find_legend", "legend_region"]


def find_legend(
    tokens: Sequence[OcrToken], layers: Sequence[ColorLayer], text: np.ndarray
) -> tuple[LegendEntry, ...]:
    """Legend entries in reading order (top to bottom, left to right)."""
    import cv2

    if not layers:
        return ()
    h_img, w_img = text.shape
    # Gridlines cut bars into short pieces that look like swatches; closing re-joins them.
    kernel = np.ones((5, 5), np.uint8)
    closed = [
        cv2.morphologyEx(lay.mask.astype(np.uint8), cv2.MORPH_CLOSE, kernel).astype(bool)
        for lay in layers
    ]
    entries: list[tuple[LegendEntry, int]] = []
    for tok in tokens:
        if tok.vertical or not tok.text.strip():
            continue
        th = max(6.0, tok.height)
        x1 = int(tok.box[0]) - 1
        x0 = max(0, int(tok.box[0] - 2.8 * th))
        y0 = max(0, int(tok.cy - 0.6 * th))
        y1 = min(h_img, int(tok.cy + 0.6 * th) + 1)
        if x1 - x0 < 4 or y1 - y0 < 3:
            continue
        free = ~text[y0:y1, x0:x1]
        best: tuple[int, int, ColorLayer, Box] | None = None
        for li, lay in enumerate(layers):
            n = int((lay.mask[y0:y1, x0:x1] & free).sum())
            if n < 6 or (best is not None and n <= best[0]):
                continue
            sw = _swatch_box(closed[li], (x0, y0, x1, y1), th)
            if sw is not None:
                best = (n, li, lay, sw)
        if best is None:
            continue
        _, li, lay, sw = best
        box = (sw[0], min(sw[1], tok.box[1]), tok.box[2], max(sw[3], tok.box[3]))
        entries.append((LegendEntry(label=tok.text.strip(), color=lay.hex, box=box), li))
    entries = _aligned(_coherent(entries))
    entries.sort(key=lambda e: (round(e[0].box[1] / 6), e[0].box[0]))
    return tuple(e for e, _ in entries)


def _swatch_box(mask: np.ndarray, strip: tuple[int, int, int, int], th: float) -> Box | None:
    """Box of the swatch inside `strip`, or None when its colour blob runs out of the strip
    (then it is a bar or a line next to a label, not a legend swatch)."""
    import cv2

    x0, y0, x1, y1 = strip
    h, w = mask.shape
    pad = int(2 * th)
    wx0, wy0 = max(0, x0 - pad), max(0, y0 - pad)
    wx1, wy1 = min(w, x1 + pad), min(h, y1 + pad)
    win = mask[wy0:wy1, wx0:wx1].astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(win, connectivity=8)
    inner = lab[y0 - wy0 : y1 - wy0, x0 - wx0 : x1 - wx0]
    counts = np.bincount(inner.ravel(), minlength=n)
    counts[0] = 0
    if counts.max() < 6:
        return None
    k = int(np.argmax(counts))
    bx, by, bw, bh = (int(v) for v in stats[k][:4])
    bx0, by0 = wx0 + bx, wy0 + by
    bx1, by1 = bx0 + bw, by0 + bh
    slack = max(2, int(0.25 * th))
    if bx0 < x0 - slack and x0 > 0:
        return None
    if by0 < y0 - slack or by1 > y1 + slack or bx1 > x1 + slack:
        return None
    return float(bx0), float(by0), float(bx1), float(by1)


def _coherent(entries: list[tuple[LegendEntry, int]]) -> list[tuple[LegendEntry, int]]:
    """Keep one entry per colour; a legend names each series once."""
    by_color: dict[int, tuple[LegendEntry, int]] = {}
    for e in entries:
        prev = by_color.get(e[1])
        # Prefer the entry whose swatch sits closest to its text.
        if prev is None or (e[0].box[2] - e[0].box[0]) < (prev[0].box[2] - prev[0].box[0]):
            by_color[e[1]] = e
    return list(by_color.values())


def _aligned(entries: list[tuple[LegendEntry, int]]) -> list[tuple[LegendEntry, int]]:
    """Entries of a legend line up in a column (same swatch left edge) or a row (same centre
    line); a lone swatch-like patch elsewhere is a mark next to a label."""
    if len(entries) < 3:
        return entries

    def lined_up(a: LegendEntry, b: LegendEntry) -> bool:
        same_col = abs(a.box[0] - b.box[0]) <= 4
        same_row = abs((a.box[1] + a.box[3]) - (b.box[1] + b.box[3])) <= 8
        return same_col or same_row

    return [e for e in entries if any(lined_up(e[0], o[0]) for o in entries if o is not e)]


def legend_region(entries: Sequence[LegendEntry], pad: float = 6.0) -> Box | None:
    """Box around all legend entries (where marks must not be looked for)."""
    if not entries:
        return None
    x0 = min(e.box[0] for e in entries) - pad
    y0 = min(e.box[1] for e in entries) - pad
    x1 = max(e.box[2] for e in entries) + pad
    y1 = max(e.box[3] for e in entries) + pad
    return x0, y0, x1, y1
