"""Two of rapidocr's steps done in NumPy, with the same results: the detector's input image and
the recogniser's character boxes. `speed_up` fits them to an engine.

Both are pure Python overhead around the networks: on four slow Statista charts, the character
boxes took 0.12 s a chart (a `np.dot` and a point sort for each corner of each character) and
the detector's input 0.04 s (float64 arithmetic on every pixel), about 8 % of reading time.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def speed_up(engine: Any) -> None:
    """Give a rapidocr engine the faster steps below, where its version has the internals they
    reuse (rapidocr 3.x); otherwise leave it as it is."""
    try:
        from rapidocr.cal_rec_boxes.main import CalRecBoxes, Direction
        from rapidocr.ch_ppocr_det.utils import DetPreProcess
    except ImportError:
        return
    needed = ("cal_ocr_word_box", "adjust_box_overlap", "get_box_direction")
    if all(hasattr(CalRecBoxes, name) for name in needed) and hasattr(engine, "cal_rec_boxes"):
        engine.cal_rec_boxes = _char_boxes_class(CalRecBoxes, Direction)()
    det = getattr(engine, "text_det", None)
    if det is not None and hasattr(det, "get_preprocess") and hasattr(DetPreProcess, "resize"):
        lut = _table_input_class(DetPreProcess)
        det.get_preprocess = lambda: lut(det.limit_side_len, det.limit_type, det.mean, det.std)


def _table_input_class(base: type) -> type:
    class TableInput(base):  # type: ignore[misc]
        """rapidocr's detector input (resized, normalised, channels first, float32), with
        each channel's 256 levels normalised once and looked up: the same float32 values as
        normalising every pixel in float64, in a fifth of the time."""

        def __call__(self, img: np.ndarray) -> np.ndarray | None:
            resized = self.resize(img)
            if resized is None:
                return None
            if resized.dtype != np.uint8 or resized.ndim != 3:
                return super().__call__(img)  # type: ignore[no-any-return]
            levels = np.repeat(np.arange(256, dtype=np.uint8)[:, None], resized.shape[2], axis=1)
            table = np.asarray(self.normalize(levels), dtype=np.float32)  # (256, channels)
            out = np.empty((1, resized.shape[2], *resized.shape[:2]), dtype=np.float32)
            for c in range(resized.shape[2]):
                np.take(table[:, c], resized[:, :, c], out=out[0, c])
            return out

    return TableInput


def _char_boxes_class(base: type, direction: Any) -> type:
    vertical = direction.VERTICAL

    class CharBoxes(base):  # type: ignore[misc]
        """rapidocr's `CalRecBoxes` without its per-corner point sort and deep copies: the
        corners of a line's characters are mapped back to the image together. They are the
        same integer points; each box lists them in its cell's order (top left, top right,
        bottom right, bottom left in the crop) rather than re-sorted, and readers use only
        their extent."""

        def __call__(
            self,
            imgs: list[np.ndarray],
            dt_boxes: np.ndarray,
            rec_res: Any,
            return_single_char_box: bool = False,
        ) -> Any:
            results = []
            for idx, (img, box) in enumerate(zip(imgs, dt_boxes, strict=False)):
                if rec_res.txts is None or img.size == 0 or rec_res.word_results is None:
                    continue
                h, w = img.shape[:2]
                crop = np.array([[0, 0], [w, 0], [w, h], [0, h]])
                words, cells, confs = self.cal_ocr_word_box(
                    rec_res.txts[idx], crop, rec_res.word_results[idx], return_single_char_box
                )
                # the cells are new lists, so adjusting them in place changes nothing else
                cells = self.adjust_box_overlap(cells)
                points = _back_to_image(np.array(box), cells, self.get_box_direction(box))
                results.append(list(zip(words, confs, points, strict=False)))
            rec_res.word_results = tuple(results)
            return rec_res

    def _back_to_image(box: np.ndarray, cells: list[Any], turn: Any) -> list[Any]:
        """The crop's character cells as integer points of the image (rapidocr's
        `reverse_rotate_crop_image`, element for element the same arithmetic)."""
        import cv2

        if not cells:
            return []
        left = int(np.min(box[:, 0]))
        top = int(np.min(box[:, 1]))
        box[:, 0] = box[:, 0] - left
        box[:, 1] = box[:, 1] - top
        width = int(np.linalg.norm(box[0] - box[1]))
        height = int(np.linalg.norm(box[0] - box[3]))
        upright = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
        _, inverse = cv2.invert(cv2.getPerspectiveTransform(box, upright))
        pts = np.array(cells, dtype=np.float64).reshape(-1, 2)
        x, y = pts[:, 0], pts[:, 1]
        if turn == vertical:
            angle = math.radians(-90)
            x, y = (
                x * math.cos(angle) + y * math.sin(angle),
                y * math.cos(angle) - x * math.sin(angle),
            )
            x = x + width
        # np.dot per point, as rapidocr: a vectorised product sums in another order, and
        # one corner of a tilted "80%" then fell a pixel to the other side of an integer
        ends = np.array([np.dot(inverse, (px, py, 1.0)) for px, py in zip(x, y, strict=True)])
        ix = np.trunc(ends[:, 0] / ends[:, 2] + left).astype(np.int64)
        iy = np.trunc(ends[:, 1] / ends[:, 2] + top).astype(np.int64)
        corners = np.stack([ix, iy], axis=1).reshape(-1, 4, 2)
        return corners.tolist()

    return CharBoxes
