"""Orientation-free geometry for bar and line charts: boxes are turned into a canonical frame
where categories run along u and values grow along v, so one code path reads both ways."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from chartproof.reader.perception.records import AxisFit, Box

__all__ = ["Frame", "Span", "iou_matrix"]

Orientation = Literal["vertical", "horizontal"]


@dataclass(frozen=True)
class Span:
    """A box in the canonical frame: u along the categories, v along the values."""

    u0: float
    """Start along the category direction."""
    u1: float
    """End along the category direction."""
    v0: float
    """Low end along the value direction."""
    v1: float
    """High end along the value direction."""

    @property
    def uc(self) -> float:
        """Centre along u."""
        return (self.u0 + self.u1) / 2

    @property
    def vc(self) -> float:
        """Centre along v."""
        return (self.v0 + self.v1) / 2

    @property
    def width(self) -> float:
        """Extent along u."""
        return self.u1 - self.u0

    @property
    def length(self) -> float:
        """Extent along v."""
        return self.v1 - self.v0


@dataclass(frozen=True)
class Frame:
    """Maps image boxes to spans and back for one orientation.

    Vertical charts: u = x, v = -y (values grow upwards). Horizontal charts: u = y (top to
    bottom), v = x (values grow rightwards).
    """

    orientation: Orientation
    """Direction of the bars."""

    def span(self, box: Box) -> Span:
        """The canonical span of an image box."""
        x0, y0, x1, y1 = box
        if self.orientation == "vertical":
            return Span(x0, x1, -y1, -y0)
        return Span(y0, y1, x0, x1)

    def box(self, s: Span) -> Box:
        """The image box of a canonical span."""
        if self.orientation == "vertical":
            return (s.u0, -s.v1, s.u1, -s.v0)
        return (s.v0, s.u0, s.v1, s.u1)

    def value(self, axis: AxisFit, v: float) -> float:
        """The axis value at canonical position v."""
        return axis.value(-v if self.orientation == "vertical" else v)

    def v_of(self, axis: AxisFit, value: float) -> float | None:
        """Canonical position of an axis value (None off a log axis)."""
        p = axis.pixel(value)
        if p is None:
            return None
        return -p if self.orientation == "vertical" else p


def iou_matrix(a: Sequence[Box], b: Sequence[Box]) -> np.ndarray:
    """Intersection over union of every box of `a` (rows) with every box of `b` (columns),
    boxes as (x0, y0, x1, y1); 0 where the union is empty."""
    p = np.asarray(a, dtype=np.float64).reshape(-1, 4)[:, None, :]
    q = np.asarray(b, dtype=np.float64).reshape(-1, 4)[None, :, :]
    ix = np.maximum(0.0, np.minimum(p[..., 2], q[..., 2]) - np.maximum(p[..., 0], q[..., 0]))
    iy = np.maximum(0.0, np.minimum(p[..., 3], q[..., 3]) - np.maximum(p[..., 1], q[..., 1]))
    inter = ix * iy
    union = (p[..., 2] - p[..., 0]) * (p[..., 3] - p[..., 1])
    union = union + (q[..., 2] - q[..., 0]) * (q[..., 3] - q[..., 1]) - inter
    out: np.ndarray = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return out
