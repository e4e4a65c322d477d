"""Crops turned the way their text reads: vertical lines rapidocr turned upside down
(`turn_upright`) and slanted tick labels turned level (`ink_slant`, `level_crop`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from chartproof.ocr._deps import _cv2
from chartproof.ocr.batching import FAST_SURE, RECOGNITION_STEPS

if TYPE_CHECKING:
    from chartproof.ocr.recognition import _PaddingSteps


_RAPID_TURN = 1.5
"""rapidocr turns the crop of every box this many times taller than wide a quarter
counter-clockwise (`turned_crop`)."""

_TURN_RATIO = 2.0
"""A box this many times taller than wide holds a line of text running up or down the page
(`vertical_line`)."""


def _quad_sides(quad: Any) -> tuple[float, float]:
    """A detected quad's width and height as rapidocr measures them to cut its crop: the
    longer of each pair of opposite sides."""
    q = np.asarray(quad, dtype=np.float64)
    width = max(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[2] - q[3])))
    height = max(float(np.linalg.norm(q[1] - q[2])), float(np.linalg.norm(q[3] - q[0])))
    return width, height


def turned_crop(quad: Any, crop_shape: Sequence[int]) -> bool:
    """Whether rapidocr turned a detected box's crop a quarter counter-clockwise: it does so to
    every box at least `_RAPID_TURN` times taller than wide, so that the crop comes out that
    much wider than tall."""
    width, height = _quad_sides(quad)
    return height >= _RAPID_TURN * width and crop_shape[1] >= _RAPID_TURN * crop_shape[0]


def vertical_line(quad: Any, crop_shape: Sequence[int]) -> bool:
    """Whether a detected box holds a line running up or down the page, and rapidocr turned
    its crop (`turned_crop`): the box is at least `_TURN_RATIO` times taller than wide.
    Shorter boxes hold one tall glyph ("1", "5") or a short word ("May")."""
    width, height = _quad_sides(quad)
    return height >= _TURN_RATIO * width and turned_crop(quad, crop_shape)


def turn_upright(crops: list[Any], quads: Any, steps: _PaddingSteps) -> list[int]:
    """Turn the crops rapidocr turned (`turned_crop`) that read better another way up, in
    place; the indices turned. rapidocr turns every such crop a quarter counter-clockwise,
    right for a line running down the page (FigureQA's category labels) and upside down for
    one running up it (a y-axis title, as Statista prints it, or a month label in a short
    box), which the recogniser misread through every padding step before
    `OcrEngine._reread_vertical` read it twice more. A box less than `_TURN_RATIO` times
    taller than wide may also hold upright glyphs (a "5" in a thin bar, two lines of one
    digit), which read best as they stand on the page.

    Each such crop is read at the first step by the fast recogniser (the small one without
    it); one it doubts (`FAST_SURE`) is read turned half a turn as well and, in a short
    box, turned back as it stands on the page; it takes the surest reading when that is
    surer than rapidocr's. Half a turn is not taken in a short box for a reading of one
    character (a tall glyph reads as one character any way up); a page crop's reading is
    taken only when the fast recogniser is sure of it (two dots one above the other read as
    "8" at 0.64, a bar as "0") and it holds no space (its characters would map back through
    the turned quad). Turned half a turn, the quad's corners are listed from the opposite
    corner, so the quad describes the turned crop: rapidocr's character boxes map back
    through it."""
    lines = [
        i
        for i, (crop, quad) in enumerate(zip(crops, quads, strict=True))
        if turned_crop(quad, crop.shape)
    ]
    if not lines:
        return []
    width = RECOGNITION_STEPS[0][0]
    rec = steps._fast
    images = [crops[i] for i in lines]
    first, _ = steps._at(width, images, steps.widths(images), False, rec=rec)
    unsure = [k for k, s in enumerate(first.scores) if float(s) < FAST_SURE]
    if not unsure:
        return []
    line = {k: vertical_line(quads[lines[k]], images[k].shape) for k in unsure}
    # quarter turns counter-clockwise (np.rot90): half a turn, or back as on the page
    ways = [(k, 2) for k in unsure] + [(k, -1) for k in unsure if not line[k]]
    turned = [np.ascontiguousarray(np.rot90(images[k], q)) for k, q in ways]
    again, _ = steps._at(width, turned, steps.widths(turned), False, rec=rec)
    best: dict[int, int] = {}
    for n, (k, quarters) in enumerate(ways):
        text = str(again.txts[n])
        if quarters == 2 and not line[k] and len(text.replace(" ", "")) < 2:
            continue
        if quarters == -1 and (" " in text.strip() or float(again.scores[n]) < FAST_SURE):
            continue
        if float(again.scores[n]) > float(again.scores[best[k]] if k in best else -1.0):
            best[k] = n
    done = []
    for k, n in sorted(best.items()):
        if float(again.scores[n]) <= float(first.scores[k]):
            continue
        i = lines[k]
        crops[i] = turned[n]
        if ways[n][1] == 2:
            quads[i] = np.roll(np.asarray(quads[i]), 2, axis=0)
        done.append(i)
    return done


_SLANT = (25.0, 65.0)
"""A crop whose ink runs this many degrees from the horizontal, either way (its detected
box's angle plus the ink's within the crop), holds a slanted tick label (`_PaddingSteps._level`)."""

_LEAST_TURN = 8.0
"""A crop whose ink runs within this many degrees of its box is level already: rapidocr cut
it along the text (a box the detector laid at 45 degrees around a 45-degree label)."""

_INK_ELONGATION = 1.2
"""Ink whose spread along its long axis is less than this many times that across it has no
direction worth turning by (a round icon, one glyph): `ink_slant` gives None."""


def ink_slant(crop: NDArray[np.uint8]) -> float | None:
    """The direction of a text crop's ink (degrees counter-clockwise, -90 to 90), or None when
    there is too little ink or it spreads as much one way as any (`_INK_ELONGATION`). Ink is
    what differs from the crop's border by more than half the largest difference (and at
    least 40 of 255 in grey); its direction is its pixels' principal axis."""
    ink = _ink(crop)
    if ink is None:
        return None
    ys, xs = np.nonzero(ink)
    if len(xs) < 12:
        return None
    spread, axes = np.linalg.eigh(np.cov(np.stack([xs, ys]).astype(np.float64)))
    if spread[1] < _INK_ELONGATION**2 * max(spread[0], 1e-9):
        return None
    dx, dy = axes[:, 1]
    angle = math.degrees(math.atan2(-dy, dx))
    return angle - 180 if angle > 90 else angle + 180 if angle <= -90 else angle


def _ink(crop: NDArray[np.uint8]) -> NDArray[np.bool_] | None:
    """The pixels of a crop that differ from its border's median grey by more than half the
    largest difference, or None when no pixel differs by 40 of 255."""
    grey = crop.astype(np.float32).mean(axis=2) if crop.ndim == 3 else crop.astype(np.float32)
    if grey.shape[0] < 3 or grey.shape[1] < 3:
        return None
    ground = float(np.median(np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])))
    diff = np.abs(grey - ground)
    top = float(diff.max())
    return diff > top / 2 if top >= 40 else None


def level_crop(crop: NDArray[np.uint8], angle: float) -> NDArray[np.uint8]:
    """`crop` turned clockwise by `angle` degrees about its centre, on its border's median
    colour, and cut to its ink with 3 px to spare: text that ran at `angle` runs level."""
    cv2 = _cv2()
    h, w = crop.shape[:2]
    side = math.ceil(math.hypot(h, w)) + 4
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
    turn[:, 2] += (side - w) / 2, (side - h) / 2
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    ground = np.median(border.reshape(len(border), -1), axis=0)
    out = cv2.warpAffine(
        crop,
        turn,
        (side, side),
        flags=cv2.INTER_CUBIC,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=tuple(float(v) for v in ground),
    )
    ink = _ink(out)
    if ink is None or not ink.any():
        return np.ascontiguousarray(out)
    ys, xs = np.nonzero(ink)
    pad = 3
    return np.ascontiguousarray(
        out[
            max(0, ys.min() - pad) : ys.max() + pad + 1, max(0, xs.min() - pad) : xs.max() + pad + 1
        ]
    )
