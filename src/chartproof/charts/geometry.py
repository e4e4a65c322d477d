"""Geometry sidecar of a rendered chart: where every mark and text sits, in image pixels.

Boxes use image pixel coordinates with the origin at the top-left corner; each element names
the table cell or label it shows, so premises can point at pixels and label removal is exact.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal, TypeAlias

from pydantic import Field

from chartproof.types import Record

__all__ = [
    "AxisMap",
    "Box",
    "Geometry",
    "LegendEntry",
    "Mark",
    "MarkKind",
    "TextElement",
    "TextRole",
    "geometry_path",
    "load_geometry",
    "save_geometry",
]

MarkKind: TypeAlias = Literal["bar", "vertex", "point", "wedge", "box", "whisker", "median", "area"]
"""Kinds of data marks: bars, line vertices, scatter points, pie wedges, box bodies (q1 to
q3), whisker caps (min, max), median lines and area-band columns at each x position."""

TextRole: TypeAlias = Literal[
    "title", "x_title", "y_title", "tick_label", "value_label", "category_label", "legend_label"
]
"""What a text element is. `category_label` is a pie wedge's name drawn next to it."""


class Box(Record):
    """An axis-aligned pixel box; x grows rightwards, y downwards from the top-left corner."""

    x0: float
    """Left edge."""
    y0: float
    """Top edge."""
    x1: float
    """Right edge (x1 >= x0)."""
    y1: float
    """Bottom edge (y1 >= y0)."""

    @property
    def width(self) -> float:
        """x1 - x0."""
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        """y1 - y0."""
        return self.y1 - self.y0

    @property
    def center(self) -> tuple[float, float]:
        """Centre point (x, y)."""
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2

    def pixel_slice(self, width: int, height: int) -> tuple[slice, slice]:
        """Row and column slices of the whole pixels the box covers, clipped to the image."""
        r0 = max(0, math.floor(self.y0))
        r1 = min(height, math.ceil(self.y1))
        c0 = max(0, math.floor(self.x0))
        c1 = min(width, math.ceil(self.x1))
        return slice(r0, max(r0, r1)), slice(c0, max(c0, c1))


class Mark(Record):
    """One data mark and the table cell it shows."""

    kind: MarkKind
    """Kind of mark."""
    box: Box
    """Pixel extent of the mark (for vertices and points, of the marker)."""
    anchor: tuple[float, float]
    """A pixel (x, y) on the mark: bar or box centre, vertex, point, a point inside a wedge."""
    row: int = Field(ge=0)
    """Row index of the table cell the mark shows."""
    column: str | None
    """Column of that cell; None for a box body, which shows a whole row."""
    series: str | None
    """Series (legend) name the mark belongs to; for a pie, the wedge's category."""
    value: float
    """The number the mark encodes."""
    color: str
    """Fill (or line) colour as #rrggbb."""


class TextElement(Record):
    """One drawn text and what it stands for."""

    role: TextRole
    """What kind of text this is."""
    text: str
    """The text as drawn (mathtext keeps its $ delimiters)."""
    box: Box
    """Pixel extent of the text's ink box as matplotlib lays it out."""
    axis: Literal["x", "y"] | None = None
    """Axis a tick label or axis title belongs to, as drawn (x = horizontal, y = vertical)."""
    row: int | None = None
    """Table row (category tick labels, value labels, pie labels)."""
    column: str | None = None
    """Value column (value labels)."""
    series: str | None = None
    """Series (value labels, legend labels)."""
    value: float | None = None
    """Number it stands for: a numeric tick's value, a category tick's position, a value
    label's value."""


class LegendEntry(Record):
    """One legend entry: its label and its colour swatch."""

    label: str
    """Text of the entry."""
    series: str
    """Series (or pie category) it names."""
    color: str
    """Swatch colour as #rrggbb."""
    text_box: Box
    """Pixel extent of the label."""
    swatch_box: Box
    """Pixel extent of the swatch (patch, line or marker)."""


class AxisMap(Record):
    """How data coordinates along one axis map to image pixels.

    Two reference points fix the map: pixel = p0 + (t(v) - t(v0)) / (t(v1) - t(v0)) * (p1 - p0)
    with t = log10 on log axes and the identity otherwise. On category axes the data
    coordinate of row i's category is the position `i` (see `categories`).
    """

    axis: Literal["x", "y"]
    """Which image axis: x is horizontal (pixel column), y vertical (pixel row)."""
    kind: Literal["category", "linear", "log"]
    """Category positions, linear numbers or log-scaled numbers."""
    v0: float
    """First reference value (the axis' lower view limit)."""
    p0: float
    """Pixel coordinate of `v0`."""
    v1: float
    """Second reference value (the axis' upper view limit)."""
    p1: float
    """Pixel coordinate of `v1`."""
    categories: tuple[str, ...] = ()
    """Category labels by position (category axes only)."""

    def _t(self, v: float) -> float:
        return math.log10(v) if self.kind == "log" else v

    def to_pixel(self, value: float) -> float:
        """Pixel coordinate of a data value (category position on category axes)."""
        f = (self._t(value) - self._t(self.v0)) / (self._t(self.v1) - self._t(self.v0))
        return self.p0 + f * (self.p1 - self.p0)

    def to_data(self, pixel: float) -> float:
        """Data value at a pixel coordinate (inverse of `to_pixel`)."""
        f = (pixel - self.p0) / (self.p1 - self.p0)
        t = self._t(self.v0) + f * (self._t(self.v1) - self._t(self.v0))
        return 10.0**t if self.kind == "log" else t


class Geometry(Record):
    """Everything drawn in one chart image, in pixels, tied to the data."""

    chart_id: str
    """Id of the chart spec that was rendered."""
    chart_type: str
    """Its chart type."""
    width: int
    """Image width in pixels."""
    height: int
    """Image height in pixels."""
    plot_area: Box
    """The axes' drawing area (for pies, the axes box holding the pie)."""
    marks: tuple[Mark, ...] = ()
    """Data marks in drawing order."""
    texts: tuple[TextElement, ...] = ()
    """Every drawn text: titles, axis titles, tick, value, category and legend labels."""
    legend: tuple[LegendEntry, ...] = ()
    """Legend entries in legend order (empty without a legend)."""
    axes: tuple[AxisMap, ...] = ()
    """Data-to-pixel maps of the cartesian axes (empty for pies)."""

    def axis(self, which: Literal["x", "y"]) -> AxisMap:
        """The map of the horizontal (x) or vertical (y) axis."""
        for a in self.axes:
            if a.axis == which:
                return a
        raise KeyError(f"chart {self.chart_id!r} has no {which} axis map")

    def texts_with_role(self, role: TextRole) -> tuple[TextElement, ...]:
        """Text elements of one role, in drawing order."""
        return tuple(t for t in self.texts if t.role == role)


def geometry_path(png_path: str | Path) -> Path:
    """Sidecar path of an image: `chart.png` → `chart.geometry.json`."""
    p = Path(png_path)
    return p.with_name(p.stem + ".geometry.json")


def save_geometry(geometry: Geometry, png_path: str | Path) -> Path:
    """Write the sidecar next to its image and return its path."""
    path = geometry_path(png_path)
    path.write_text(geometry.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path


def load_geometry(path: str | Path) -> Geometry:
    """Read a sidecar (the `.geometry.json` file or the image it belongs to)."""
    p = Path(path)
    if not p.name.endswith(".geometry.json"):
        p = geometry_path(p)
    try:
        return Geometry.model_validate_json(p.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ValueError(f"{p}: not a chart geometry sidecar: {err}") from err
