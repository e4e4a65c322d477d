"""Box plots to a five-number table: each box is a filled rectangle of one colour cut across
by its median line, with whiskers running from its ends to the minimum and maximum; dots past
the whisker caps are outliers. Values are read on the fitted value axis: the y axis of
vertical boxes, the x axis of horizontal ones (found on the image turned 90°, so one code
path finds both)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chartproof.reader.perception.geometry import Frame, Orientation
from chartproof.reader.perception.labels import assign_category_labels
from chartproof.reader.perception.pixels import components, trimmed
from chartproof.reader.perception.records import AxisFit, Box, CellEvidence, ChartReading
from chartproof.reader.perception.scene import CellValue, Scene, make_table, scene_reading

__all__ = ["BOX_STATS", "FoundBox", "find_boxes", "read_boxes"]

BOX_STATS = ("min", "Q1", "median", "Q3", "max")
"""Column names of the recovered table, in the order box-plot views read them."""


@dataclass(frozen=True)
class FoundBox:
    """One box of a box plot, in image pixels. Across is the category direction (x of
    vertical boxes, y of horizontal ones), along the value direction (y of vertical boxes,
    x of horizontal ones); positions along it are the image's, so low and high are pixel
    order, not value order."""

    orientation: Orientation
    """"vertical" (boxes stand up, values along y) or "horizontal" (values along x)."""
    u0: int
    """Start of the box across (left edge of a vertical box, top of a horizontal one)."""
    u1: int
    """End of the box across."""
    edges: tuple[float, float]
    """The box's two ends along the value direction (the quartiles), low pixel first."""
    median: float
    """Position of the median line along the value direction."""
    whiskers: tuple[float, float]
    """The whiskers' ends along the value direction (the minimum and maximum), low pixel
    first."""
    outliers: tuple[float, ...]
    """Positions along the value direction of points drawn past the whiskers."""

    @property
    def uc(self) -> float:
        """Centre across."""
        return (self.u0 + self.u1) / 2

    @property
    def box(self) -> Box:
        """The image box from whisker to whisker."""
        lo, hi = self.whiskers
        if self.orientation == "vertical":
            return (float(self.u0), lo, float(self.u1), hi)
        return (lo, float(self.u0), hi, float(self.u1))

    def positions(self) -> tuple[float, float, float, float, float]:
        """Whisker, box end, median, box end, whisker along the value direction, in pixel
        order."""
        return (self.whiskers[0], self.edges[0], self.median, self.edges[1], self.whiskers[1])


def _rects(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Filled rectangles of one colour: (x0, y0, x1, y1), inclusive bounds."""
    cut = trimmed(mask)
    if cut is None:
        return []
    sub, oy, ox = cut
    n, _, stats, _ = components(sub, 4)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i][:5])
        x, y = x + ox, y + oy
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


def find_boxes(
    scene: Scene, bg: tuple[int, int, int], orientation: Orientation = "vertical"
) -> list[FoundBox]:
    """The boxes of a box plot of one orientation, in order across (left to right, or top to
    bottom); empty when the marks are not boxes (every box must be split by its median line
    and carry at least one whisker). Horizontal boxes are found as vertical ones on the image
    turned 90° (transposed)."""
    turn = orientation == "horizontal"
    ink = _contrast(scene.image, bg)
    ink = ink.T if turn else ink
    found: list[FoundBox] = []
    for lay in scene.layers:
        if lay.chroma < 25 and (lay.luma < 90 or lay.luma > 170):
            continue
        mask = lay.mask & ~scene.text
        rects = _rects(mask.T if turn else mask)
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
                        orientation=orientation,
                        u0=x0,
                        u1=x1,
                        edges=(float(upper[1]), float(lower[3])),
                        median=(upper[3] + lower[1]) / 2,
                        whiskers=(top_end, bot_end),
                        outliers=tuple(top_out + bot_out),
                    )
                )
                used.update((i, j))
                break
    found.sort(key=lambda f: f.uc)
    return found


def read_boxes(
    scene: Scene, bg: tuple[int, int, int], titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """The five-number table of a box plot, vertical boxes on the y axis or horizontal ones
    on the x axis, or None without two boxes of one width and a numeric value axis."""
    ways: tuple[tuple[Orientation, AxisFit | None], ...] = (
        ("vertical", scene.y_axis),
        ("horizontal", scene.x_axis),
    )
    for orientation, axis in ways:
        if axis is None or len(axis.ticks) < 2:
            continue
        boxes = find_boxes(scene, bg, orientation)
        widths = [b.u1 - b.u0 for b in boxes]
        if len(boxes) >= 2 and max(widths) <= 1.5 * min(widths):
            return _reading(scene, boxes, axis, titles)
    return None


def _reading(
    scene: Scene,
    boxes: list[FoundBox],
    axis: AxisFit,
    titles: tuple[str | None, str | None, str | None],
) -> ChartReading:
    orientation = boxes[0].orientation
    frame = Frame(orientation)
    centres = [b.uc for b in boxes]
    pitch = float(np.median(np.diff(centres)))
    axis_ids = {id(t) for t in axis.ticks} | {id(t) for t in axis.rejected}
    free = [t for t in scene.tokens if id(t) not in axis_ids]
    # Category labels lie beyond the plot's content on the category side: under the lowest
    # whisker and value tick of vertical boxes, left of the leftmost of horizontal ones.
    if orientation == "vertical":
        axis_v = -max(max(b.whiskers[1] for b in boxes), max(t.cy for t in axis.ticks))
    else:
        axis_v = min(min(b.whiskers[0] for b in boxes), min(t.cx for t in axis.ticks))
    texts, _ = assign_category_labels(free, frame, centres, axis_v, pitch)
    rows: list[list[CellValue]] = []
    outliers: list[str] = []
    for b, label in zip(boxes, texts, strict=True):
        cells = []
        # In value order whatever the orientation or direction of the axis.
        for value in sorted(axis.read(p) for p in b.positions()):
            ev = CellEvidence(
                row=0,
                column="",
                source="geometry",
                mark_box=b.box,
                geometry_value=value,
                confidence=0.7,
            )
            cells.append(CellValue(value, 0.7, ev))
        rows.append(cells)
        if b.outliers:
            shown = ", ".join(f"{axis.read(p):g}" for p in b.outliers)
            outliers.append(f"{label or f'box {len(outliers) + 1}'}: {shown}")
    if outliers:
        scene.notes.append("outliers past the whiskers: " + "; ".join(outliers))
    category_title = titles[1] if orientation == "vertical" else titles[2]
    table, conf, evidence = make_table(category_title or "Category", texts, list(BOX_STATS), rows)
    return scene_reading(
        scene,
        titles,
        "box",
        table,
        conf,
        evidence,
        mark_boxes={"box": tuple(b.box for b in boxes)},
        value_axis=axis,
        orientation=orientation,
    )
