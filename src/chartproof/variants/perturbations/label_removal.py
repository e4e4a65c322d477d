"""Label removal (ChartR's "remove annotations" variant): the chart without its printed
value labels, so a model must read values from the marks against the axes.

ChartR removes the numbers printed on the marks and keeps the chart's structure (axes, tick
labels, category names, legend, title), so one level is all the perturbation means:

| level | on a spec (exact re-render) | on an external image (OCR + inpainting) |
|---|---|---|
| 1 | `style.value_labels = False` | numeric text boxes that are not axis ticks |

Deleting tick labels or category names as well would be another perturbation: questions
that name a category could no longer be answered from the image, so their answers would
have to be re-derived rather than kept. Asking for level 2 is an error (`check_level`).

Specs are re-rendered by `chartproof.charts.render`, so no trace of a label is left. External
images have their text found by chartproof's shared OCR engine (`chartproof.ocr`, the
`reader` extra) and filled by OpenCV's Telea inpainting. A box is numeric when its text reads
as a number or is made of numbers only ("31.2%31.3%": overlapping labels read as one line).
Numeric boxes are axis ticks when they form an axis (`axis_ticks`); the others are value
labels. `answer_preserved` is true: the data and every label a question names are
unchanged.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from chartproof.ocr import INSTALL_HINT, OcrToken, get_engine, parse_label_number
from chartproof.variants.images import RGB, to_rgb
from chartproof.variants.perturbations.base import (
    Canvas,
    ParamValue,
    Perturbed,
    check_level,
    register_perturbation,
)

__all__ = [
    "LABEL_REMOVAL",
    "LabelRemoval",
    "axis_ticks",
    "inpaint_boxes",
    "label_mask",
    "ocr_text_boxes",
    "value_label_boxes",
]


@dataclass(frozen=True)
class LabelRemoval:
    """Remove the value labels printed on the marks; axes and names stay."""

    name: str = "label_removal"
    levels: tuple[int, ...] = (1,)
    answer_preserved: bool = True

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """How `level` removes labels on this canvas: re-render or OCR inpainting."""
        check_level(self.name, level, self.levels)
        method = "rerender" if canvas.spec is not None else "ocr_inpaint"
        return {"method": method, "removes": "value_labels"}

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Re-render the spec without value labels, or inpaint OCR boxes (rng unused)."""
        if params.get("removes") != "value_labels":
            # transforms recorded before level 2 was withdrawn also removed tick labels
            raise ValueError(
                f"label removal removes value labels only, not {params.get('removes')!r}"
            )
        if params["method"] == "rerender":
            if canvas.spec is None:
                raise ValueError("label removal by re-rendering needs the chart's spec")
            from chartproof.charts import render

            style = canvas.spec.style.model_copy(update={"value_labels": False})
            spec = canvas.spec.model_copy(update={"style": style})
            return Perturbed(to_rgb(render(spec).png), spec)
        h, w = canvas.image.shape[:2]
        boxes = value_label_boxes(ocr_text_boxes(canvas.image), w, h)
        return Perturbed(inpaint_boxes(canvas.image, [b.box for b in boxes]))


def ocr_text_boxes(image: RGB) -> list[OcrToken]:
    """Every piece of text the shared OCR engine finds in an RGB image."""
    return list(get_engine().read(image, through_marks=True))


# ------------------------------------------------------------------ which boxes are labels

_NUMBER_RUN = re.compile(r"^[-−+$€£]?\d[\d.,%*\s$€£+\-−]*$")


def _numeric(text: str) -> bool:
    return parse_label_number(text) is not None or bool(_NUMBER_RUN.match(text.strip()))


def value_label_boxes(boxes: Sequence[OcrToken], width: int, height: int) -> list[OcrToken]:
    """The numeric boxes that are not axis ticks (`axis_ticks`), in their input order.

    `width` and `height` are the image's size: they set the tolerances of the tick rule."""
    numeric = [b for b in boxes if _numeric(b.text)]
    ticks = axis_ticks(numeric, width, height)
    return [b for i, b in enumerate(numeric) if i not in ticks]


def axis_ticks(boxes: Sequence[OcrToken], width: int, height: int) -> set[int]:
    """Indices of the boxes that are axis tick labels.

    Tick labels of an axis line up: a y axis's share their right edge (a column), an x
    axis's their centre line (a row). A group of at least three is an axis when

    - its numbers step evenly: every gap between neighbouring values is a whole multiple of
      the smallest (a missed tick leaves a double gap), and the values lie on a straight
      line against position (or their logarithms do: a log axis); value labels in a
      column or row almost never do both; or
    - it is the bottom row or the leftmost column of numbers (none lies below or left of
      it), its members are evenly spaced (whole multiples of the smallest gap) and its
      numbers increase along the axis: numeric categories such as years with uneven gaps.
    """
    values = [parse_label_number(b.text) for b in boxes]
    tol_x = 0.01 * width + 2
    columns = _groups(boxes, lambda b: b.box[2], tol_x)
    rows = _groups(boxes, lambda b: b.cy, 0.006 * height + 2)
    ticks: set[int] = set()
    for group, along in [(g, "y") for g in columns] + [(g, "x") for g in rows]:
        if len(group) < 3:
            continue

        def pos(i: int, along: str = along) -> float:
            return boxes[i].cy if along == "y" else boxes[i].cx

        members = sorted(group, key=pos)
        nums = [values[i] for i in members]
        if any(v is None for v in nums):
            continue
        xs = [pos(i) for i in members]
        vs = [float(v) for v in nums if v is not None]
        if _stepped_axis(xs, vs) or (
            _outermost(boxes, group, along) and _even(xs) and _increasing(xs, vs, along)
        ):
            ticks.update(group)
    return ticks


def _groups(
    boxes: Sequence[OcrToken], key: Callable[[OcrToken], float], tol: float
) -> list[list[int]]:
    """Boxes chained by `key` within `tol` of their neighbour (single linkage)."""
    order = sorted(range(len(boxes)), key=lambda i: key(boxes[i]))
    groups: list[list[int]] = []
    for i in order:
        if groups and key(boxes[i]) - key(boxes[groups[-1][-1]]) <= tol:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _whole_multiples(gaps: Sequence[float], slack: float) -> bool:
    """Every gap is a whole multiple (within `slack`) of the smallest, which is not zero."""
    low = min(abs(g) for g in gaps)
    if low <= 1e-12:
        return False
    return all(abs(abs(g) / low - round(abs(g) / low)) <= slack for g in gaps)


def _stepped_axis(xs: Sequence[float], vs: Sequence[float]) -> bool:
    """Values in even steps (possibly with a step missing) lying on a line against position,
    linear or logarithmic."""
    for scaled in (list(vs), [math.log10(v) for v in vs] if all(v > 0 for v in vs) else None):
        if scaled is None:
            continue
        gaps = [b - a for a, b in itertools.pairwise(scaled)]
        if not _whole_multiples(gaps, 0.02):
            continue
        if len(set(np.sign(gaps))) != 1:
            continue
        slope, icpt = np.polyfit(np.asarray(xs) - xs[0], scaled, 1)
        px = [abs((v - icpt) / slope - (x - xs[0])) for x, v in zip(xs, scaled, strict=True)]
        if slope != 0 and max(px) <= 2.0 + 0.01 * (xs[-1] - xs[0]):
            return True
    return False


def _even(xs: Sequence[float]) -> bool:
    gaps = [b - a for a, b in itertools.pairwise(xs)]
    return _whole_multiples(gaps, 0.1)


def _increasing(xs: Sequence[float], vs: Sequence[float], along: str) -> bool:
    """Numbers grow along the axis: left to right on an x axis, top to bottom on a y axis
    (categories are listed downwards) or bottom to top."""
    up = all(b > a for a, b in itertools.pairwise(vs))
    down = all(b < a for a, b in itertools.pairwise(vs))
    return up or (down and along == "y")


def _outermost(boxes: Sequence[OcrToken], group: Sequence[int], along: str) -> bool:
    """No numeric box outside the group lies below a row or left of a column, within the
    group's extent along the axis (where category axes are drawn)."""
    inside = set(group)
    others = [b for i, b in enumerate(boxes) if i not in inside]
    members = [boxes[i] for i in group]
    if along == "x":
        lo, hi = min(b.box[0] for b in members), max(b.box[2] for b in members)
        top = min(b.box[1] for b in members)
        return all(b.cy < top for b in others if b.box[2] > lo and b.box[0] < hi)
    lo, hi = min(b.box[1] for b in members), max(b.box[3] for b in members)
    left = min(b.box[0] for b in members)
    return all(b.cx > left for b in others if b.box[3] > lo and b.box[1] < hi)


# ------------------------------------------------------------------ inpainting


def label_mask(image: RGB, boxes: Sequence[tuple[float, float, float, float]]) -> NDArray[np.bool_]:
    """Pixels to repaint: the boxes grown by 2 px, plus every small blob of dark text ink
    that touches them (a label the OCR boxed short, or a pile of overlapping labels it read
    in part). Blobs are dark grey pixels joined across gaps of up to 2 px (the spacing of
    one label's characters); a blob larger than twice the tallest box on either side is a
    line or a block, not text, and stays."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), dtype=bool)
    if not boxes:
        return mask
    tallest = 0.0
    for x0, y0, x1, y1 in boxes:
        r0, r1 = max(0, int(np.floor(y0)) - 2), min(h, int(np.ceil(y1)) + 2)
        c0, c1 = max(0, int(np.floor(x0)) - 2), min(w, int(np.ceil(x1)) + 2)
        mask[r0:r1, c0:c1] = True
        tallest = max(tallest, y1 - y0)
    cv2 = _cv2()
    hi = image.max(axis=2).astype(np.int16)
    ink = ((hi < 150) & (hi - image.min(axis=2).astype(np.int16) < 40)).astype(np.uint8)
    joined = cv2.dilate(ink, np.ones((3, 5), np.uint8))
    _count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    touched = np.unique(labels[mask & (joined > 0)])
    limit = 2 * tallest + 4
    for k in touched:
        if k == 0:
            continue
        x, y, bw, bh = (int(v) for v in stats[k, :4])
        if bw <= 4 * limit and bh <= limit:
            blob = (labels[y : y + bh, x : x + bw] == k) & (ink[y : y + bh, x : x + bw] > 0)
            grown = cv2.dilate(blob.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            mask[y : y + bh, x : x + bw] |= grown
    return mask


def inpaint_boxes(image: RGB, boxes: Sequence[tuple[float, float, float, float]]) -> RGB:
    """Repaint the text in the boxes (`label_mask`) with OpenCV's Telea inpainting."""
    if not boxes:
        return image.copy()
    cv2 = _cv2()
    mask = label_mask(image, boxes).astype(np.uint8) * 255
    bgr = np.ascontiguousarray(image[:, :, ::-1])
    out = cv2.inpaint(bgr, mask, 3, cv2.INPAINT_TELEA)
    return np.ascontiguousarray(out[:, :, ::-1], dtype=np.uint8)


def _cv2() -> Any:
    try:
        import cv2
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return cv2


LABEL_REMOVAL = register_perturbation(LabelRemoval())
