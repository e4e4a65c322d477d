"""Box plots to a five-number table: each box is a filled rectangle of one colour cut across
by its median line, with whiskers running from its ends to the minimum and maximum; dots past
the whisker caps are outliers. Values are read on the fitted value axis (vertical boxes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.labels import assign_category_labels
from chartproof.reader.perception.records import Box, CellEvidence, ChartReading
from chartproof.reader.perception.scene import CellValue, Scene, make_table, scene_reading

__all__ = ["BOX_STATS", "FoundBox", "find_boxes", "read_boxes"]

BOX_STATS = ("min", "Q1", "median", "Q3", "max")
"""Column names of the recovered table, in the order box-plot views read them."""


@dataclass(frozen=True)
class FoundBox:
    """One box of a vertical box plot, in image pixels (y grows downwards)."""

    x0: int
    """Left edge of the box."""
    x1: int
    """Right edge."""
    top: float
    """Upper quartile's row."""
    median: float
    """Median line's row."""
    bottom: float
    """Lower quartile's row."""
    whisker_top: float
    """Row of the upper whisker's end (the maximum)."""
    whisker_bottom: float
    """Row of the lower whisker's end (the minimum)."""
    outliers: tuple[float, ...]
    """Rows of points drawn past the whiskers."""

    @property
    def cx(self) -> float:
        """Horizontal centre."""
        return (self.x0 + self.x1) / 2


def _rects(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Filled rectangles of one colour: (x0, y0, x1, y1), inclusive bounds."""
    import cv2

    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i][:5])
        if w >= 8 and h >= 3 and area >= 0.85 * w * h:
            out.append((x, y, x + w - 1, y + h - 1))
    return out


def _contrast(image: np.ndarray, bg: tuple[int, int, int]) -> np.ndarray:
    """Pixels that stand out from the background (lines, markers), either theme."""
    weights = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    luma = image.astype(np.float32) @ weights
    bg_luma = float(np.asarray(bg, dtype=np.float32) @ weights)
    return np.asarray(np.abs(luma - bg_luma) > 80, dtype=bool)


def _whisker(
    ink: np.ndarray, x: int, start: int, step: int, width: int
) -> tuple[float, list[float]]:
    """Follow the whisker from row `start` in direction `step` along column x: its end row,
    and the centre rows of the marks met further out (outliers), up to the plot's frame (a
    dark row far wider than the box) or the image edge."""
    h, w = ink.shape
    y = start
    cols = np.asarray(ink[:, max(0, x - 1) : x + 2].any(axis=1))
    while 0 <= y + step < h and cols[y + step]:
        y += step
    end = float(y)
    found: list[tuple[float, int]] = []
    run: list[int] = []
    yy = y + step
    lo, hi = max(0, x - 2 * width), min(w, x + 2 * width)
    while 0 <= yy < h:
        if ink[max(0, yy - 1) : yy + 2, lo:hi].any(axis=0).mean() > 0.9:
            # The frame: text beyond it is not a point, nor a tick mark touching it.
            found = [(c, last) for c, last in found if abs(last - yy) > 3]
            break
        if cols[yy]:
            run.append(yy)
        elif run:
            if 3 <= len(run) <= width:
                found.append((float(np.mean(run)), run[-1]))
            run = []
        yy += step
    return end, [c for c, _ in found]


def find_boxes(scene: Scene, bg: tuple[int, int, int]) -> list[FoundBox]:
    """The boxes of a vertical box plot, left to right; empty when the marks are not boxes
    (every box must be split by its median line and carry at least one whisker)."""
    image = scene.image
    ink = _contrast(image, bg)
    found: list[FoundBox] = []
    for lay in scene.layers:
        if lay.chroma < 25 and (lay.luma < 90 or lay.luma > 170):
            continue
        rects = _rects(lay.mask & ~scene.text)
        rects.sort(key=lambda r: (r[0], r[1]))
        used: set[int] = set()
        for i, a in enumerate(rects):
            if i in used:
                continue
            for j in range(i + 1, len(rects)):
                b = rects[j]
                if j in used or abs(a[0] - b[0]) > 2 or abs(a[2] - b[2]) > 2:
                    continue
                upper, lower = (a, b) if a[1] < b[1] else (b, a)
                gap = lower[1] - upper[3] - 1
                if not 0 <= gap <= 6:
                    continue
                x0, x1 = min(a[0], b[0]), max(a[2], b[2])
                cx = (x0 + x1) // 2
                # The box outline may be a row or two darker than the fill: start past it.
                top_end, top_out = _whisker(ink, cx, upper[1] - 1, -1, x1 - x0)
                bot_end, bot_out = _whisker(ink, cx, lower[3] + 1, 1, x1 - x0)
                if top_end >= upper[1] - 3 and bot_end <= lower[3] + 3:
                    continue  # no whisker: a split bar, not a box
                found.append(
                    FoundBox(
                        x0=x0,
                        x1=x1,
                        top=float(upper[1]),
                        median=(upper[3] + lower[1]) / 2,
                        bottom=float(lower[3]),
                        whisker_top=top_end,
                        whisker_bottom=bot_end,
                        outliers=tuple(top_out + bot_out),
                    )
                )
                used.update((i, j))
                break
    found.sort(key=lambda f: f.cx)
    return found


def read_boxes(
    scene: Scene, bg: tuple[int, int, int], titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """The five-number table of a vertical box plot, or None without two boxes or a value
    axis."""
    axis = scene.y_axis
    if axis is None or len(axis.ticks) < 2:
        return None
    boxes = find_boxes(scene, bg)
    if len(boxes) < 2:
        return None
    widths = [b.x1 - b.x0 for b in boxes]
    if max(widths) > 1.5 * min(widths):
        return None
    centres = [b.cx for b in boxes]
    pitch = float(np.median(np.diff(centres))) if len(centres) > 1 else 2.0 * widths[0]
    axis_ids = {id(t) for t in axis.ticks} | {id(t) for t in axis.rejected}
    free = [t for t in scene.tokens if id(t) not in axis_ids]
    low = max(max(b.whisker_bottom for b in boxes), max(t.cy for t in axis.ticks))
    texts, _ = assign_category_labels(free, Frame("vertical"), centres, -low, pitch)
    rows: list[list[CellValue]] = []
    outliers: list[str] = []
    for b, label in zip(boxes, texts, strict=True):
        cells = []
        for y in (b.whisker_bottom, b.bottom, b.median, b.top, b.whisker_top):
            value = axis.read(y)
            ev = CellEvidence(
                row=0,
                column="",
                source="geometry",
                mark_box=_box(b),
                geometry_value=value,
                confidence=0.7,
            )
            cells.append(CellValue(value, 0.7, ev))
        rows.append(cells)
        if b.outliers:
            shown = ", ".join(f"{axis.read(y):g}" for y in b.outliers)
            outliers.append(f"{label or f'box {len(outliers) + 1}'}: {shown}")
    if outliers:
        scene.notes.append("outliers past the whiskers: " + "; ".join(outliers))
    table, conf, evidence = make_table(titles[1] or "Category", texts, list(BOX_STATS), rows)
    return scene_reading(
        scene,
        titles,
        "box",
        table,
        conf,
        evidence,
        mark_boxes={"box": tuple(_box(b) for b in boxes)},
        value_axis=axis,
    )


def _box(b: FoundBox) -> Box:
    return (float(b.x0), b.whisker_top, float(b.x1), b.whisker_bottom)
