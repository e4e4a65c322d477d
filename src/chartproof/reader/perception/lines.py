"""Line series: thin strokes of one colour; their vertices are read at the category positions
from markers when drawn, else by extrapolating the stroke from both sides of the position."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chartproof.reader.perception.pixels import components

__all__ = [
    "Vertex",
    "inside_frame",
    "line_extent",
    "marker_centres",
    "stroke_score",
    "tick_marks",
    "vertices",
]


@dataclass(frozen=True)
class Vertex:
    """A line vertex found at one category position (image pixels)."""

    x: float
    """Column of the category position."""
    y: float
    """Row of the vertex."""
    from_marker: bool
    """Whether a drawn marker gave the position (more precise)."""


def stroke_score(mask: np.ndarray) -> tuple[float, float]:
    """(horizontal coverage, thin share): the share of columns between the mask's first and
    last column that hold pixels, and the share of pixels on strokes thinner than 5 px."""
    import cv2

    cols = np.nonzero(mask.any(axis=0))[0]
    if len(cols) < 2:
        return 0.0, 0.0
    coverage = len(cols) / float(cols[-1] - cols[0] + 1)
    thick = cv2.erode(mask.astype(np.uint8), np.ones((5, 5), np.uint8))
    grown: np.ndarray = cv2.dilate(thick, np.ones((5, 5), np.uint8)).astype(bool)
    total = float(mask.sum())
    thin = float(np.logical_and(mask, np.logical_not(grown)).sum()) / total if total else 0.0
    return coverage, thin


def inside_frame(mask: np.ndarray) -> np.ndarray:
    """The part of a dark mask inside the plot frame: spines, frame lines and the tick marks
    outside them removed, so a black data line can be told from the axes drawn in its colour."""
    import cv2

    h, w = mask.shape
    m = mask.astype(np.uint8)
    horiz = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((1, max(3, w // 4)), np.uint8)) > 0
    vert = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((max(3, h // 4), 1), np.uint8)) > 0
    out = mask & ~horiz & ~vert
    rows = np.nonzero(horiz.any(axis=1))[0]
    cols = np.nonzero(vert.any(axis=0))[0]
    if len(rows):
        bottom = int(rows.max())
        out[bottom - 1 :] = False
        top = int(rows.min())
        if top < bottom - 0.3 * h:
            out[: top + 2] = False
    if len(cols):
        left = int(cols.min())
        out[:, : left + 2] = False
        right = int(cols.max())
        if right > left + 0.3 * w:
            out[:, right - 1 :] = False
    return out


def line_extent(mask: np.ndarray) -> tuple[int, int] | None:
    """First and last column holding stroke pixels."""
    cols = np.nonzero(mask.any(axis=0))[0]
    if len(cols) == 0:
        return None
    return int(cols[0]), int(cols[-1])


def fill_small_holes(mask: np.ndarray, max_area: int = 150) -> np.ndarray:
    """The mask with its small enclosed holes filled (the inside of a hollow marker ring);
    big enclosed regions, such as the plot area inside a frame, stay open."""
    n, labels, stats, _ = components(~mask, 4)
    h, w = mask.shape
    holes = [
        i
        for i in range(1, n)
        if stats[i][4] <= max_area
        and stats[i][0] > 0
        and stats[i][1] > 0
        and stats[i][0] + stats[i][2] < w
        and stats[i][1] + stats[i][3] < h
    ]
    if not holes:
        return mask
    return mask | np.isin(labels, holes)


def marker_centres(mask: np.ndarray, min_diameter: int = 5) -> list[tuple[float, float, float]]:
    """Centres (x, y, diameter) of round blobs thicker than the stroke: the markers (hollow
    ones, a ring around the background colour, count once their hole is filled)."""
    import cv2

    k = max(3, min_diameter - 1)
    thick = cv2.erode(fill_small_holes(mask).astype(np.uint8), np.ones((k, k), np.uint8))
    n, _, stats, cents = components(thick, 8)
    out = []
    for i in range(1, n):
        w, h = int(stats[i][2]), int(stats[i][3])
        if w > 4 * max(h, 1) or h > 4 * max(w, 1):
            continue
        out.append((float(cents[i][0]), float(cents[i][1]), float(max(w, h) + k - 1)))
    return out


def column_medians(mask: np.ndarray) -> np.ndarray:
    """The median row of each column's set pixels (float64, NaN for an empty column): what
    `np.median(np.nonzero(mask[:, x])[0])` gives, for every column at once. Several runs in
    one column are another part of the same line (a steep segment); the median row follows
    the run holding most pixels."""
    counts = np.count_nonzero(mask, axis=0)
    out = np.full(mask.shape[1], np.nan)
    cols = np.flatnonzero(counts)
    if cols.size == 0:
        return out
    sub = mask[:, cols]
    running = np.cumsum(sub, axis=0, dtype=np.int32)
    n = counts[cols]
    # the rows of the lower and upper middle set pixels (the same one for an odd count)
    low = np.argmax(running >= ((n - 1) // 2 + 1), axis=0)
    high = np.argmax(running >= (n // 2 + 1), axis=0)
    out[cols] = (low + high) / 2
    return out


def _column_centres(rows: np.ndarray, xs: range) -> list[tuple[float, float]]:
    """(x, median row) of the columns `xs` within the image that hold stroke pixels, from
    `column_medians`."""
    lo, hi = max(0, xs.start), min(len(rows), xs.stop)
    return [(float(x), float(rows[x])) for x in range(lo, hi) if not math.isnan(rows[x])]


def _extrapolate(pts: list[tuple[float, float]], x: float) -> float | None:
    """The row at column `x` of the least-squares line through `pts` (x, row), or None when
    they span less than a column. In plain floats: a stroke's few (at most a pitch of)
    column centres, fitted for every category column of every line, cost a line chart of
    90 columns 0.16 s through numpy (`axes.line_fit`)."""
    if len(pts) < 2:
        return None
    xs = [p[0] for p in pts]
    if max(xs) - min(xs) < 1:
        return None
    xm = math.fsum(xs) / len(pts)
    ym = math.fsum(p[1] for p in pts) / len(pts)
    sxy = math.fsum((px - xm) * (py - ym) for px, py in pts)
    sxx = math.fsum((px - xm) ** 2 for px in xs)
    return ym + sxy / sxx * (x - xm)


def vertices(
    mask: np.ndarray,
    xs: Sequence[float],
    markers: Sequence[tuple[float, float, float]],
    others: Sequence[tuple[float, float, float]] = (),
) -> list[Vertex | None]:
    """The vertex of the stroke at each category column `xs` (None where the line is absent).

    Where another line or marker hides the column, the stroke is extended from either side;
    a vertex that lands on another series' marker (`others`) takes that marker's centre,
    since the marker on top hides this one."""
    out: list[Vertex | None] = []
    pitch = float(np.median(np.diff(sorted(xs)))) if len(xs) > 1 else 40.0
    rows = column_medians(mask)
    for x in xs:
        near = [m for m in markers if abs(m[0] - x) <= max(3.0, 0.25 * pitch)]
        if near:
            m = min(near, key=lambda m: abs(m[0] - x))
            out.append(Vertex(x=x, y=m[1], from_marker=True))
            continue
        found = _stroke_at(rows, x, pitch)
        if found is None:
            out.append(None)
            continue
        y, hidden = found
        cover = [
            m
            for m in others
            if hidden
            and abs(m[0] - x) <= max(3.0, 0.25 * pitch)
            and abs(m[1] - y) <= 0.6 * m[2] + 2
        ]
        if cover:
            m = min(cover, key=lambda m: abs(m[1] - y))
            out.append(Vertex(x=x, y=m[1], from_marker=True))
            continue
        out.append(Vertex(x=x, y=y, from_marker=False))
    return out


def _stroke_at(rows: np.ndarray, x: float, pitch: float) -> tuple[float, bool] | None:
    """(row of the stroke at column x, whether the column itself was hidden), from the
    stroke mask's `column_medians`."""
    xi = round(x)
    col = _column_centres(rows, range(xi - 1, xi + 2))
    if col:
        reach = int(max(4, min(14, 0.35 * pitch)))
        left = _column_centres(rows, range(xi - reach, xi - 2))
        right = _column_centres(rows, range(xi + 3, xi + reach + 1))
        ests = [e for e in (_extrapolate(left, x), _extrapolate(right, x)) if e is not None]
        centre = math.fsum(p[1] for p in col) / len(col)
        # Trust extrapolation only when it stays close to the pixels found at the column.
        ests = [e for e in ests if abs(e - centre) <= 6]
        return (sum(ests) / len(ests) if ests else centre), False
    # The column is hidden (under another line or marker) or the stroke stops just short
    # of it: extend the nearest visible pieces on either side, within half a pitch.
    reach = int(max(5, 0.45 * pitch))
    left = _column_centres(rows, range(xi - reach, xi - 1))
    right = _column_centres(rows, range(xi + 2, xi + reach + 1))
    ests = []
    for side in (left, right):
        if len(side) >= 3 and min(abs(p[0] - x) for p in side) <= 0.3 * pitch + 2:
            # Only the piece next to the hidden column belongs to the segment through it.
            side = sorted(side, key=lambda p: abs(p[0] - x))[: max(3, int(0.2 * pitch))]
            e = _extrapolate(side, x)
            if e is not None:
                ests.append(e)
    if not ests:
        return None
    if len(ests) == 2 and abs(ests[0] - ests[1]) > max(6.0, 0.3 * pitch):
        return None
    return sum(ests) / len(ests), True


def tick_marks(image: np.ndarray, below: float, x_lo: float, x_hi: float) -> list[float]:
    """Columns of the tick marks under the x axis: find the axis line (a long dark row at or
    below `below`), then the short dark strokes hanging from it. Dense axes print a label
    at every other tick only, but draw every tick."""
    h, w = image.shape[:2]
    dark = image.astype(np.int16).max(axis=2) < 110
    lo, hi = max(0, int(x_lo)), min(w, int(x_hi) + 1)
    if hi - lo < 10:
        return []
    spine = None
    for r in range(max(0, int(below) - 2), min(h - 6, int(below) + 40)):
        if dark[r, lo:hi].mean() > 0.9:
            spine = r
            break
    if spine is None:
        return []
    while spine + 1 < h and dark[spine + 1, lo:hi].mean() > 0.9:
        spine += 1
    band = dark[spine + 1 : spine + 5, lo:hi]
    cols = np.nonzero(band.sum(axis=0) >= 3)[0]
    if len(cols) < 2:
        return []
    groups: list[list[int]] = [[int(cols[0])]]
    for c in cols[1:]:
        if c - groups[-1][-1] <= 1:
            groups[-1].append(int(c))
        else:
            groups.append([int(c)])
    return [lo + float(np.mean(g)) for g in groups if len(g) <= 3]
