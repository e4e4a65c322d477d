"""Pie charts: find the disk, walk around it reading the colour at several radii, and turn
each colour run into a wedge whose value is its share of the full turn."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.pixels import components

__all__ = ["Disk", "Wedge", "find_disk", "read_wedges"]


@dataclass(frozen=True)
class Disk:
    """The pie's disk in image pixels."""

    cx: float
    """Centre column."""
    cy: float
    """Centre row."""
    r: float
    """Radius."""


@dataclass(frozen=True)
class Wedge:
    """One wedge: a colour run around the disk."""

    layer: int
    """Index of its colour layer."""
    start: float
    """Start angle in degrees, counter-clockwise from 3 o'clock, 0..360."""
    sweep: float
    """Angular size in degrees."""

    @property
    def share(self) -> float:
        """Fraction of the disk."""
        return self.sweep / 360.0

    @property
    def mid(self) -> float:
        """Middle angle in degrees."""
        return (self.start + self.sweep / 2) % 360.0


def find_disk(layers: Sequence[ColorLayer], exclude: np.ndarray) -> Disk | None:
    """The largest roughly circular blob formed by the colour layers, or None."""
    import cv2

    if not layers:
        return None
    union = np.zeros_like(layers[0].mask)
    for lay in layers:
        union |= lay.mask
    union &= ~exclude
    m = cv2.morphologyEx(union.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, _, stats, _ = components(m, 8)
    if n < 2:
        return None
    i = 1 + int(np.argmax(stats[1:, 4]))
    x, y, w, h, area = (int(v) for v in stats[i])
    H, W = union.shape
    if min(w, h) < 0.2 * min(H, W):
        return None
    if not 0.8 <= w / h <= 1.25:
        return None
    fill = area / float(w * h)
    if not 0.6 <= fill <= 0.86:
        return None
    return Disk(cx=x + w / 2.0, cy=y + h / 2.0, r=(w + h) / 4.0)


def read_wedges(
    image: np.ndarray,
    layers: Sequence[ColorLayer],
    disk: Disk,
    exclude: np.ndarray,
    step: float = 0.5,
) -> list[Wedge]:
    """Wedges around the disk, counter-clockwise from 3 o'clock, merged across the 0° seam.

    Pixels under `exclude` (a legend drawn over the pie) cast no vote."""
    h, w = image.shape[:2]
    palette = np.array([lay.rgb for lay in layers], dtype=float)
    angles = np.arange(0.0, 360.0, step)
    radii = disk.r * np.array([0.3, 0.45, 0.6, 0.75, 0.9])
    labels = np.full(len(angles), -1, dtype=int)
    for k, a in enumerate(angles):
        t = math.radians(a)
        votes: dict[int, int] = {}
        for r in radii:
            x = round(disk.cx + r * math.cos(t))
            y = round(disk.cy - r * math.sin(t))
            if not (0 <= x < w and 0 <= y < h) or exclude[y, x]:
                continue
            d = np.sqrt(((palette - image[y, x].astype(float)) ** 2).sum(axis=1))
            j = int(np.argmin(d))
            if d[j] < 40:
                votes[j] = votes.get(j, 0) + 1
        if votes:
            labels[k] = max(votes.items(), key=lambda kv: kv[1])[0]
    # Fill angles where text covered every radius with the preceding colour.
    for k in range(len(labels)):
        if labels[k] < 0:
            labels[k] = labels[k - 1]
    if (labels < 0).all():
        return []
    runs: list[list[float]] = []  # [layer, start_index, length]
    for k, lab in enumerate(labels):
        if runs and runs[-1][0] == lab:
            runs[-1][2] += 1
        else:
            runs.append([float(lab), float(k), 1.0])
    if len(runs) > 1 and runs[0][0] == runs[-1][0]:
        last = runs.pop()
        runs[0][1] = last[1]
        runs[0][2] += last[2]
    # Tiny runs are antialiased seams between wedges: give them to their neighbour.
    min_len = max(3.0, 1.5 / step)
    merged: list[list[float]] = []
    for run in runs:
        if run[2] < min_len and merged:
            merged[-1][2] += run[2]
        else:
            merged.append(run)
    if len(merged) > 1 and merged[0][0] == merged[-1][0]:
        last = merged.pop()
        merged[0][1] = last[1]
        merged[0][2] += last[2]
    return [Wedge(layer=int(lab), start=(s * step) % 360.0, sweep=n * step) for lab, s, n in merged]
