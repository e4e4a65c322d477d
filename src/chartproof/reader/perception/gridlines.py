"""Value axes fitted on their gridlines: many charts (Statista, most web charts) draw no tick
marks, only faint gridlines across the plot at every tick. A label's box centre sits up to
a pixel or two off its value's true position, a gridline does not; where most tick labels
have one, the axis is refitted on the gridlines.

One pixel matters: on a 100 % axis 450 px long it is 0.2 points, a tenth of a 2 % segment.
"""

from __future__ import annotations

import math

import numpy as np

from chartproof.reader.perception.axes import line_fit
from chartproof.reader.perception.pixels import chroma, distance_to
from chartproof.reader.perception.records import AxisFit

__all__ = ["snap_gridlines"]


def snap_gridlines(fit: AxisFit, image: np.ndarray, background: tuple[int, int, int]) -> AxisFit:
    """The axis refitted on the gridlines found at its tick labels (each within half a
    label height of where the fit puts it); unchanged when fewer than three labels, or
    fewer than two thirds of them, have one, or when the refit is not tighter."""
    if fit.scale != "linear" or len(fit.ticks) < 3:
        return fit
    grid = _grid_pixels(image, background)
    h, w = grid.shape
    values: list[float] = []
    positions: list[float] = []
    for t in fit.ticks:
        from chartproof.ocr import parse_label_number

        value = parse_label_number(t.text)
        if value is None:
            continue
        target = fit.pixel(value)
        if target is None:
            continue
        half = max(3, int(0.5 * t.height))
        lo, hi = round(target) - half, round(target) + half + 1
        if fit.direction == "x":
            if lo < 0 or hi > w:
                continue
            # Gridlines run up from the labels under the plot.
            counts = grid[: max(0, int(t.box[1]) - 2), lo:hi].sum(axis=0)
            run = int(t.box[1])
        else:
            if lo < 0 or hi > h:
                continue
            counts = grid[lo:hi, min(w, int(t.box[2]) + 2) :].sum(axis=1)
            run = w - int(t.box[2])
        pos = _peak(counts, run)
        if pos is not None:
            values.append(value)
            positions.append(lo + pos)
    if len(values) < 3 or len(values) < 2 / 3 * len(fit.ticks) or len(set(values)) < 3:
        return fit
    v = np.array(values)
    p = np.array(positions)
    slope, icpt = line_fit(v, p)
    if not math.isfinite(slope) or abs(slope) < 1e-9:
        return fit
    res = float(np.sqrt(np.mean((icpt + slope * v - p) ** 2)))
    if res > 1.0 or res > fit.residual_px + 0.25:
        return fit
    return fit.model_copy(
        update={"intercept": float(icpt), "slope": float(slope), "residual_px": res}
    )


def _grid_pixels(image: np.ndarray, background: tuple[int, int, int]) -> np.ndarray:
    """Faint grey pixels: a little darker than the background, without colour."""
    diff = distance_to(image, background)
    out: np.ndarray = (diff >= 12) & (diff <= 110) & (chroma(image) < 20)
    return out


def _peak(counts: np.ndarray, run: int) -> float | None:
    """Centre of a gridline in per-line counts of faint pixels: a line or two holding far
    more than the lines around it and covering a good part of the run (dotted gridlines
    cover about half, bars hide some)."""
    if counts.size < 3 or run <= 0:
        return None
    top = float(counts.max())
    if top < max(15.0, 0.05 * run):
        return None
    strong = np.nonzero(counts >= 0.6 * top)[0]
    if strong.size > 3 or int(strong.max()) - int(strong.min()) > 2:
        return None
    lo, hi = max(0, int(strong.min()) - 1), min(counts.size, int(strong.max()) + 2)
    rest = np.delete(counts, np.arange(lo, hi))
    if rest.size and float(np.median(rest)) > 0.3 * top:
        return None
    weights = counts[strong].astype(float)
    return float((strong * weights).sum() / weights.sum()) + 0.5
