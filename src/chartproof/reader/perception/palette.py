"""Colour layers of a chart image: the background, and one pixel mask per drawn colour, so
marks can be found colour by colour (bars, wedges, lines, points)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chartproof.reader.perception.records import Box, OcrToken

__all__ = ["ColorLayer", "background_color", "clip_box", "color_layers", "hex_color", "text_mask"]

_MATCH = 30.0
"""RGB distance within which a pixel belongs to a colour layer (antialiased edges excluded)."""


@dataclass(frozen=True)
class ColorLayer:
    """Pixels of one drawn colour (a working buffer, not a record: it holds a mask)."""

    rgb: tuple[int, int, int]
    """The colour."""
    mask: np.ndarray
    """Boolean image mask of pixels close to the colour."""
    count: int
    """Pixels of the mask outside text boxes."""

    @property
    def hex(self) -> str:
        """The colour as #rrggbb."""
        return hex_color(self.rgb)

    @property
    def chroma(self) -> int:
        """Max minus min channel: 0 for greys."""
        return max(self.rgb) - min(self.rgb)

    @property
    def luma(self) -> float:
        """Perceived brightness, 0..255."""
        r, g, b = self.rgb
        return 0.299 * r + 0.587 * g + 0.114 * b


def hex_color(rgb: Sequence[int]) -> str:
    """(31, 119, 180) → "#1f77b4"."""
    return "#" + "".join(f"{int(c):02x}" for c in rgb[:3])


def background_color(image: np.ndarray) -> tuple[int, int, int]:
    """The most common colour along the image border."""
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]], axis=0).astype(
        np.int32
    )
    keys = (border[:, 0] >> 2) << 12 | (border[:, 1] >> 2) << 6 | (border[:, 2] >> 2)
    mode = np.bincount(keys).argmax()
    sel = border[keys == mode]
    return tuple(int(c) for c in sel.mean(axis=0).round())  # type: ignore[return-value]


def text_mask(shape: tuple[int, int], tokens: Sequence[OcrToken], pad: int = 1) -> np.ndarray:
    """Boolean mask of the OCR token boxes, padded by `pad` pixels."""
    h, w = shape
    m = np.zeros((h, w), dtype=bool)
    for t in tokens:
        x0, y0, x1, y1 = clip_box(t.box, w, h, pad)
        m[y0:y1, x0:x1] = True
    return m


def clip_box(box: Box, w: int, h: int, pad: int = 0) -> tuple[int, int, int, int]:
    """The whole pixels (x0, y0, x1, y1) a box covers, grown by `pad`, inside a w × h image."""
    x0 = max(0, int(box[0]) - pad)
    y0 = max(0, int(box[1]) - pad)
    x1 = min(w, int(np.ceil(box[2])) + pad)
    y1 = min(h, int(np.ceil(box[3])) + pad)
    return x0, y0, x1, y1


def is_blend(c: np.ndarray, strong: np.ndarray, bg: np.ndarray) -> bool:
    """c lies on the segment between the background and a stronger colour: antialiasing."""
    d = strong - bg
    n2 = float(d @ d)
    if n2 < 1:
        return False
    a = float((c - bg) @ d) / n2
    if not 0.1 < a < 0.97:
        return False
    return float(np.linalg.norm(bg + a * d - c)) < 14


def _solid(in_bin: np.ndarray, text: np.ndarray) -> bool:
    """Whether a colour bin fills areas (a grey bar series) rather than thin bands: blended
    edges are a pixel or two wide and vanish under a 3×3 erosion, filled marks do not, even
    when their colour happens to lie between the background and a darker one."""
    import cv2

    m = (in_bin.reshape(text.shape) & ~text).view(np.uint8)
    total = cv2.countNonZero(m)
    core = cv2.countNonZero(cv2.erode(m, np.ones((3, 3), np.uint8))) if total else 0
    return total > 0 and core >= max(12, 0.3 * total)


def _pack(px: np.ndarray) -> np.ndarray:
    """Each pixel of an N×3 integer array as one 0xRRGGBB integer."""
    packed: np.ndarray = px[:, 0] << 16 | px[:, 1] << 8 | px[:, 2]
    return packed


def _top_exact_colours(packed: np.ndarray, keys: np.ndarray, bins: np.ndarray) -> list[int]:
    """For each histogram bin in `bins`, its most frequent exact colour (packed 0xRRGGBB; the
    smallest such value on a tie), over all pixels: a bin's mean would drift towards
    antialiased blends. One pass over the pixels of the chosen bins, not one per bin."""
    if len(bins) == 0:
        return []
    rank = np.full(int(keys.max()) + 1 if keys.size else 1, -1, dtype=np.int64)
    rank[bins] = np.arange(len(bins))
    where = rank[keys]
    inside = where >= 0
    exact = packed[inside].astype(np.int64)
    # Group by (bin, exact colour): counts per pair, then the first maximum within each bin
    # (pairs are sorted by colour within a bin, so ties go to the smallest colour).
    pairs, counts = np.unique(where[inside] << 24 | exact, return_counts=True)
    owner = pairs >> 24
    order = np.lexsort((-counts, owner))  # by bin, then by count descending (stable)
    first = np.ones(len(order), dtype=bool)
    first[1:] = owner[order][1:] != owner[order][:-1]
    best = pairs[order][first]
    tops = [0] * len(bins)
    for b in best:
        tops[int(b >> 24)] = int(b & 0xFFFFFF)
    return tops


def _nearest_layer(packed: np.ndarray, refs: np.ndarray, within: float) -> np.ndarray:
    """For every pixel (packed 0xRRGGBB, `_pack`), the index of its nearest reference colour,
    or -1 when that nearest one lies `within` or farther (Euclidean RGB distance; ties go to
    the lower index). Distances are computed once per distinct colour present, not once per
    pixel: a chart has a few thousand colours over a million pixels."""
    present = np.zeros(1 << 24, dtype=bool)
    present[packed] = True
    colours = np.flatnonzero(present)
    ref = refs.astype(np.int64)
    table = np.full(1 << 24, -1, dtype=np.int16)
    for start in range(0, len(colours), 1 << 16):  # bounded memory on grainy photos
        part = colours[start : start + (1 << 16)]
        rgb = np.stack([part >> 16, (part >> 8) & 255, part & 255], axis=1)
        d2 = ((rgb[:, None, :] - ref[None, :, :]) ** 2).sum(axis=2)
        near = d2.argmin(axis=1)
        near[d2[np.arange(len(part)), near] >= within * within] = -1
        table[part] = near
    label: np.ndarray = table[packed]
    return label


def color_layers(
    image: np.ndarray,
    text: np.ndarray,
    background: tuple[int, int, int],
    min_pixels: int | None = None,
    noisy: bool = False,
) -> list[ColorLayer]:
    """Distinct drawn colours with enough pixels outside text, most frequent first.

    Colours are found on a 5-bit-per-channel histogram; bins close to a stronger colour merge
    into it, and colours within reach of the background are dropped.
    """
    h, w = image.shape[:2]
    if min_pixels is None:
        min_pixels = max(12, int(h * w * 0.00012))
    px = image.reshape(-1, 3).astype(np.int32)
    # Grainy images spread one colour over many fine bins: use coarser ones.
    shift = 4 if noisy else 3
    bits = 8 - shift
    keys = (px[:, 0] >> shift) << (2 * bits) | (px[:, 1] >> shift) << bits | (px[:, 2] >> shift)
    keys_out = keys[~text.reshape(-1)]
    counts = np.bincount(keys_out, minlength=1 << (3 * bits))
    cand = np.nonzero(counts >= min_pixels)[0]
    cand = cand[np.argsort(-counts[cand])]
    bg = np.array(background, dtype=float)
    chosen: list[np.ndarray] = []
    cand = cand[:64]
    packed = _pack(px)
    tops = _top_exact_colours(packed, keys, cand)
    for key, top in zip(cand, tops, strict=True):
        c = np.array([top >> 16, (top >> 8) & 255, top & 255], dtype=float)
        if np.linalg.norm(c - bg) < 26:
            continue
        if any(np.linalg.norm(c - o) < 10 for o in chosen):
            continue
        if any(is_blend(c, o, bg) for o in chosen) and not _solid(keys == key, text):
            continue
        chosen.append(c)
    layers: list[ColorLayer] = []
    if not chosen:
        return layers
    outside = ~text
    # Every pixel goes to its nearest colour (the background included), so a light grey
    # layer does not swallow the white background next to it.
    label = _nearest_layer(packed, np.array([bg, *chosen]), 1.6 * _MATCH if noisy else _MATCH)
    label = label.reshape(h, w)
    for k, c in enumerate(chosen, start=1):
        mask = label == k
        count = int((mask & outside).sum())
        if count < min_pixels:
            continue
        rgb = tuple(int(v) for v in c.round())
        layers.append(ColorLayer(rgb=rgb, mask=mask, count=count))  # type: ignore[arg-type]
    layers.sort(key=lambda lay: -lay.count)
    return layers
