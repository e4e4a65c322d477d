"""Where the plot sits in the image and which dark layers are filled marks: charts rendered
on a canvas much wider than their plot (Vega-Lite leaves the right half blank) and areas
filled in dark grey (ggplot's default) are otherwise mistaken for no chart at all."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.pixels import components
from chartproof.reader.perception.scene import Scene

__all__ = ["filled_band", "plot_columns", "solid_fill"]


def plot_columns(scene: Scene, straight: Sequence[bool]) -> tuple[int, int]:
    """First and last column of the plot: the span of the gridlines and frame (the layers
    `straight` marks as rules, one flag per layer of the scene) when they cover a fifth of
    the width, else the span of every coloured pixel outside the text boxes, else the whole
    image."""
    w = scene.size[0]
    rules = [lay.mask for lay, rule in zip(scene.layers, straight, strict=True) if rule]
    for masks in (rules, [lay.mask & ~scene.text for lay in scene.layers]):
        if not masks:
            continue
        cols = np.nonzero(np.any(np.stack(masks), axis=0).any(axis=0))[0]
        if len(cols) and cols[-1] - cols[0] >= 0.2 * w:
            return int(cols[0]), int(cols[-1])
    return 0, w - 1


def solid_fill(lay: ColorLayer, size: tuple[int, int]) -> bool:
    """A dark grey layer that is one filled region (an area drawn in the text's colour): its
    largest piece covers 2 % of the image, fills 40 % of its box and is thick everywhere
    but its edges, which no text, axis or gridline is."""
    import cv2

    w, h = size
    n, labels, stats, _ = components(lay.mask, 8)
    if n < 2:
        return False
    big = int(np.argmax(stats[1:, 4])) + 1
    bw, bh, area = int(stats[big][2]), int(stats[big][3]), int(stats[big][4])
    if area < 0.02 * w * h or area < 0.4 * bw * bh:
        return False
    piece = (labels == big).astype(np.uint8)
    core = cv2.erode(piece, np.ones((7, 7), np.uint8))
    return bool(core.sum() >= 0.6 * area)


def filled_band(piece: np.ndarray) -> bool:
    """A filled region, not a stroke: its columns hold more than 9 px in the median (a line
    drawn thick holds fewer, `thick_lines.thick_stroke`)."""
    per_col = piece.sum(axis=0)
    cols = per_col[per_col > 0]
    return bool(len(cols)) and float(np.median(cols)) > 9
