"""Line series drawn thicker than the 5 px the stroke test calls thin (Power BI and Vega-Lite
themes draw 4–6 px lines): one long connected curve whose vertical extent per column stays a
few pixels, which is what a line is whatever its width."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.pixels import components
from chartproof.reader.perception.scene import Scene

__all__ = ["thick_stroke", "thin_stroke", "thinned"]


def thick_stroke(mask: np.ndarray, width: int, straight: bool) -> bool:
    """Whether `mask` is one line series drawn thick: a single piece holding 90 % of its
    pixels, spanning 15 % of the image `width` with no column gaps, at most 9 px tall per
    column in the median (and never a straight rule)."""
    total = int(mask.sum())
    if straight or total < 30:
        return False
    n, labels, stats, _ = components(mask, 8)
    if n < 2:
        return False
    big = int(np.argmax(stats[1:, 4])) + 1
    if stats[big][4] < 0.9 * total:
        return False
    piece = labels == big
    per_col = piece.sum(axis=0)
    cols = np.nonzero(per_col)[0]
    span = int(cols[-1] - cols[0] + 1)
    if span < 0.15 * width or len(cols) < 0.95 * span:
        return False
    return bool(2 <= float(np.median(per_col[cols])) <= 9)


def _median_run(mask: np.ndarray) -> float:
    per_col = mask.sum(axis=0)
    cols = per_col[per_col > 0]
    return float(np.median(cols)) if len(cols) else 0.0


def thin_stroke(mask: np.ndarray) -> np.ndarray:
    """The mask eroded (3×3, at most three times) until its median column is at most 2 px
    tall, stopping before it would lose a tenth of its columns: the vertex and marker
    finders expect a thin stroke, and read a thick one's every stretch as a marker."""
    import cv2

    out = mask
    cols = int(np.count_nonzero(mask.any(axis=0)))
    for _ in range(3):
        if _median_run(out) <= 2:
            break
        nxt = cv2.erode(out.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if np.count_nonzero(nxt.any(axis=0)) < 0.9 * cols:
            break
        out = nxt
    return out


def thinned(scene: Scene, line_ids: Sequence[int]) -> Scene:
    """`scene` with the line layers among `line_ids` drawn thicker than 4 px (median column)
    narrowed to thin strokes; the scene itself when there are none."""
    layers = list(scene.layers)
    changed = False
    for i in line_ids:
        lay = layers[i]
        if _median_run(lay.mask) > 4:
            m = thin_stroke(lay.mask)
            layers[i] = ColorLayer(rgb=lay.rgb, mask=m, count=int(m.sum()))
            changed = True
    return replace(scene, layers=tuple(layers)) if changed else scene
