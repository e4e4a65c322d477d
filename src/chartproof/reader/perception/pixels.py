"""Per-pixel colour measures over RGB uint8 images, computed channel by channel: numpy
reduces a trailing axis of length 3 slowly, and these run over every pixel of a chart
several times per reading."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["chroma", "distance_to", "trimmed"]


def distance_to(image: np.ndarray, colour: Sequence[int]) -> np.ndarray:
    """Largest per-channel absolute difference between each pixel and `colour` (int16, H×W):
    the same as `np.abs(image.astype(np.int16) - colour).max(axis=2)`."""
    out: np.ndarray | None = None
    for ch in range(3):
        d = np.abs(image[:, :, ch].astype(np.int16) - np.int16(colour[ch]))
        out = d if out is None else np.maximum(out, d, out=out)
    assert out is not None
    return out


def chroma(image: np.ndarray) -> np.ndarray:
    """Largest minus smallest channel of each pixel (int16, H×W): 0 for greys."""
    r, g, b = (image[:, :, ch] for ch in range(3))
    hi = np.maximum(np.maximum(r, g), b).astype(np.int16)
    lo = np.minimum(np.minimum(r, g), b).astype(np.int16)
    out: np.ndarray = hi - lo
    return out


def trimmed(mask: np.ndarray, margin: int = 0) -> tuple[np.ndarray, int, int] | None:
    """`mask` cut to the bounding box of its set pixels, widened by `margin` on each side
    (within the mask), with the cut's top and left offsets; None when no pixel is set.
    Connected components found in the cut are the mask's, on fewer pixels."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return None
    top, left = max(0, int(rows[0]) - margin), max(0, int(cols[0]) - margin)
    return mask[top : int(rows[-1]) + 1 + margin, left : int(cols[-1]) + 1 + margin], top, left
