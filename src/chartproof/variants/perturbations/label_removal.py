"""Label removal (ChartR's "remove annotations" variant): the chart without its printed
numbers, so a model must read values from the marks and axes.

| level | on a spec (exact re-render) | on an external image (OCR + inpainting) |
|---|---|---|
| 1 | `style.value_labels = False` | numeric text boxes that are not axis ticks |
| 2 | also `style.tick_labels = False` | every text box OCR finds |

Specs are re-rendered by `chartproof.charts.render`, so no trace of a label is left. External
images have their text boxes found by rapidocr (`reader` extra) and filled by OpenCV's Telea
inpainting. A numeric box counts as an axis tick when at least two other numeric boxes share
its right edge (a y axis) or its centre line (an x axis) in the left or bottom 40 % of the
image. `answer_preserved` is true: the data are unchanged, though at level 2 some answers can
no longer be read off the image (category names live in tick labels).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chartproof.numeric import parse_number
from chartproof.variants.images import RGB, to_rgb
from chartproof.variants.perturbations.base import Canvas, ParamValue, Perturbed, check_level

__all__ = ["LABEL_REMOVAL", "LabelRemoval", "TextBox", "inpaint_boxes", "value_label_boxes"]

_INSTALL_HINT = "label removal on images needs OCR: pip install 'chartproof[reader]'"


@dataclass(frozen=True)
class TextBox:
    """A piece of text OCR found: its string and pixel box (x0, y0, x1, y1)."""

    text: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class LabelRemoval:
    """Remove value labels (level 1) or all labels (level 2)."""

    name: str = "label_removal"
    levels: tuple[int, ...] = (1, 2)
    answer_preserved: bool = True

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """How `level` removes labels on this canvas: re-render or OCR inpainting."""
        check_level(self.name, level, self.levels)
        if canvas.spec is not None:
            removes = "value_labels" if level == 1 else "value_and_tick_labels"
            return {"method": "rerender", "removes": removes}
        return {"method": "ocr_inpaint", "removes": "value_labels" if level == 1 else "all_text"}

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Re-render the spec without labels, or inpaint OCR boxes (rng unused)."""
        if params["method"] == "rerender":
            if canvas.spec is None:
                raise ValueError("label removal by re-rendering needs the chart's spec")
            from chartproof.charts import render

            style = canvas.spec.style.model_copy(
                update={
                    "value_labels": False,
                    "tick_labels": canvas.spec.style.tick_labels
                    and params["removes"] == "value_labels",
                }
            )
            spec = canvas.spec.model_copy(update={"style": style})
            return Perturbed(to_rgb(render(spec).png), spec)
        boxes = ocr_text_boxes(canvas.image)
        if params["removes"] == "value_labels":
            h, w = canvas.image.shape[:2]
            boxes = value_label_boxes(boxes, w, h)
        return Perturbed(inpaint_boxes(canvas.image, [b.box for b in boxes]))


def value_label_boxes(boxes: Sequence[TextBox], width: int, height: int) -> list[TextBox]:
    """The numeric boxes that are not axis ticks (see the module docstring for the rule)."""
    numeric = [b for b in boxes if _number(b.text) is not None]
    tol_x = 0.01 * width + 2
    ticks: set[int] = set()
    for i, b in enumerate(numeric):
        _, y0, x1, y1 = b.box
        cy = (y0 + y1) / 2
        same_right = sum(1 for o in numeric if o is not b and abs(o.box[2] - x1) <= tol_x)
        same_row = sum(
            1 for o in numeric if o is not b and abs((o.box[1] + o.box[3]) / 2 - cy) <= 3
        )
        if (same_right >= 2 and x1 <= 0.4 * width) or (same_row >= 2 and y0 >= 0.6 * height):
            ticks.add(i)
    return [b for i, b in enumerate(numeric) if i not in ticks]


def _number(text: str) -> float | None:
    return parse_number(text.strip().rstrip("*").replace("\u2212", "-"))


def inpaint_boxes(image: RGB, boxes: Sequence[tuple[float, float, float, float]]) -> RGB:
    """Fill the boxes (grown by 2 px) with OpenCV's Telea inpainting."""
    if not boxes:
        return image.copy()
    cv2 = _cv2()
    h, w = image.shape[:2]
    mask = np.zeros((h, w), dtype=np.uint8)
    for x0, y0, x1, y1 in boxes:
        r0, r1 = max(0, int(np.floor(y0)) - 2), min(h, int(np.ceil(y1)) + 2)
        c0, c1 = max(0, int(np.floor(x0)) - 2), min(w, int(np.ceil(x1)) + 2)
        mask[r0:r1, c0:c1] = 255
    bgr = np.ascontiguousarray(image[:, :, ::-1])
    out = cv2.inpaint(bgr, mask, 3, cv2.INPAINT_TELEA)
    return np.ascontiguousarray(out[:, :, ::-1], dtype=np.uint8)


def ocr_text_boxes(image: RGB) -> list[TextBox]:
    """Every text line rapidocr finds in an RGB image."""
    engine = _ocr_engine()
    with _OCR_LOCK:
        result = engine(np.ascontiguousarray(image[:, :, ::-1]))
    if result.txts is None or result.boxes is None:
        return []
    out = []
    for text, quad in zip(result.txts, result.boxes, strict=True):
        pts = np.asarray(quad, dtype=float).reshape(-1, 2)
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        out.append(TextBox(str(text), (float(x0), float(y0), float(x1), float(y1))))
    return out


_OCR_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _ocr_engine() -> Any:
    try:
        from rapidocr import RapidOCR
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return RapidOCR(
        params={
            "Global.log_level": "error",
            "Global.use_cls": False,
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )


def _cv2() -> Any:
    try:
        import cv2
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return cv2


LABEL_REMOVAL = LabelRemoval()
