"""Text printed on a mark: a number drawn inside a filled bar or segment is that mark's value
label, never an axis tick (tick labels stand on the background). Pew-style charts print
every value inside its bar and draw no axis, and two such labels in a row fit an "axis"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.reader.perception.pixels import distance_to
from chartproof.reader.perception.records import OcrToken

__all__ = ["off_marks", "on_mark"]

_RING = 3
"""Pixels around a token box that are sampled for the colour it is printed on."""

_FILLED = 0.6
"""Least share of the ring that differs from the background for text to be on a mark."""

_DIFF = 40
"""Largest channel difference from the background that still counts as background."""

_PLOT_SHARE = 0.3
"""Least share of the image a fill covers to be a plot background rather than a mark."""


def on_mark(tok: OcrToken, image: np.ndarray, background: tuple[int, int, int]) -> bool:
    """Whether the token is printed on a filled colour: most of a thin ring just outside its
    box is neither the background nor part of the glyphs' own antialiasing."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (round(v) for v in tok.box)
    ox0, oy0 = max(0, x0 - _RING), max(0, y0 - _RING)
    ox1, oy1 = min(w, x1 + _RING), min(h, y1 + _RING)
    if ox1 - ox0 < 2 or oy1 - oy0 < 2:
        return False
    patch = image[oy0:oy1, ox0:ox1].astype(np.int16)
    ring = np.ones(patch.shape[:2], dtype=bool)
    ix0, iy0 = max(0, x0 - ox0), max(0, y0 - oy0)
    ix1, iy1 = max(ix0, min(ox1, x1) - ox0), max(iy0, min(oy1, y1) - oy0)
    ring[iy0:iy1, ix0:ix1] = False
    if not ring.any():
        return False
    diff = distance_to(image[oy0:oy1, ox0:ox1], background)
    filled = diff[ring] > _DIFF
    if filled.mean() < _FILLED:
        return False
    # A shaded plot area (OECD's light blue, ggplot's grey) is not a mark: a fill covering
    # a large share of the image is a background too.
    fill = np.median(patch[ring][filled], axis=0)
    share = float((distance_to(image[::4, ::4], fill.astype(np.int16)) <= _DIFF // 2).mean())
    return share < _PLOT_SHARE


def off_marks(
    tokens: Sequence[OcrToken], image: np.ndarray, background: tuple[int, int, int]
) -> list[OcrToken]:
    """The tokens that stand on the background (axis tick candidates)."""
    return [t for t in tokens if not on_mark(t, image, background)]
