"""Records the chart reader's perception produces: OCR tokens, fitted axes, marks and the
recovered table with per-cell confidence and the pixel evidence behind every cell."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import Field

from chartproof.ocr import OcrToken
from chartproof.types import ChartType, DataTable, Record

__all__ = [
    "AxisFit",
    "Box",
    "CellEvidence",
    "ChartReading",
    "EvidenceSource",
    "LegendEntry",
    "OcrToken",
    "ReadingError",
]

Box: TypeAlias = tuple[float, float, float, float]
"""Pixel box (x0, y0, x1, y1): left, top, right, bottom, y growing downwards."""


EvidenceSource: TypeAlias = Literal["value_label", "geometry", "wedge_angle", "scaled_length"]
"""How a cell's value was obtained: a printed value label, the mark's position read on a
fitted axis, a pie wedge's angle share, or a bar's length scaled by labelled bars."""


class ReadingError(ValueError):
    """The image could not be read as a chart (no axes, marks or wedges were found)."""


class AxisFit(Record):
    """A pixel-to-value mapping fitted from the numeric tick labels of one axis."""

    direction: Literal["x", "y"]
    """Which image axis the ticks run along: "x" (horizontal) or "y" (vertical)."""
    scale: Literal["linear", "log"]
    """Linear, or logarithmic in base 10."""
    intercept: float
    """Pixel position of value 0 (linear) or of value 1 (log)."""
    slope: float
    """Pixels per unit value (linear) or per decade (log)."""
    ticks: tuple[OcrToken, ...]
    """The tick labels the fit kept (inliers)."""
    rejected: tuple[OcrToken, ...] = ()
    """Numeric labels of the same axis rejected as outliers."""
    residual_px: float = 0.0
    """Root-mean-square pixel error of the kept ticks."""

    def value(self, px: float) -> float:
        """The value at pixel position `px`."""
        t = (px - self.intercept) / self.slope
        return 10.0**t if self.scale == "log" else t

    def pixel(self, value: float) -> float | None:
        """The pixel position of `value` (None for a non-positive value on a log axis)."""
        if self.scale == "log":
            if value <= 0:
                return None
            import math

            return self.intercept + self.slope * math.log10(value)
        return self.intercept + self.slope * value

    def read(self, px: float) -> float:
        """The value at `px`, rounded two decimals finer than the tick labels print (a
        pixel cannot say much more): ticks 0, 5, 10 give values like 7.42."""
        v = self.value(px)
        if self.scale == "log":
            return float(f"{v:.3g}")
        decimals = max((len(t.text.split(".")[1]) if "." in t.text else 0) for t in self.ticks)
        return round(v, decimals + 2) + 0.0

    @property
    def span(self) -> tuple[float, float]:
        """Pixel extent of the kept ticks (low, high)."""
        pos = [t.cx if self.direction == "x" else t.cy for t in self.ticks]
        return min(pos), max(pos)


class LegendEntry(Record):
    """One legend entry: a colour swatch and its label."""

    label: str
    """Series (or wedge) name."""
    color: str
    """Swatch colour as #rrggbb."""
    box: Box
    """Box covering the swatch and the label."""
    label_box: Box | None = None
    """Box of the label text alone."""
    swatch_box: Box | None = None
    """Box of the colour swatch alone."""


class CellEvidence(Record):
    """Where one cell of the recovered table came from."""

    row: int = Field(ge=0)
    """Row index in the recovered table."""
    column: str
    """Column name in the recovered table."""
    source: EvidenceSource
    """How the value was obtained (see `EvidenceSource`)."""
    mark_box: Box
    """Pixel box of the mark (bar, vertex, wedge) the value belongs to."""
    text: str | None = None
    """The OCR text used, when a printed label gave the value."""
    geometry_value: float | None = None
    """The value read from the mark's geometry, when an axis allowed it."""
    confidence: float = Field(ge=0, le=1)
    """How far the reader trusts the value (1 = label and geometry agree)."""


class ChartReading(Record):
    """Everything perception recovered from one chart image."""

    chart_type: ChartType
    """Detected chart type."""
    table: DataTable
    """Recovered data table: first column the x labels, then one numeric column per series."""
    confidence: tuple[tuple[float, ...], ...]
    """Per-cell confidence of the numeric cells, row by row (label column excluded)."""
    evidence: tuple[CellEvidence, ...]
    """Evidence of every numeric cell that has a value."""
    series_colors: dict[str, str] = Field(default_factory=dict)
    """Series (or wedge) name → drawn colour as #rrggbb."""
    mark_boxes: dict[str, tuple[Box | None, ...]] = Field(default_factory=dict)
    """Series name → pixel box of each row's mark (None where the mark was not found)."""
    orientation: Literal["vertical", "horizontal"] = "vertical"
    """Direction of bars (vertical = values grow upwards)."""
    title: str | None = None
    """Chart title read from the image."""
    x_title: str | None = None
    """Axis title below the x axis."""
    y_title: str | None = None
    """Axis title beside the y axis."""
    value_axis: AxisFit | None = None
    """The fitted value axis, when tick labels allowed one."""
    x_axis: AxisFit | None = None
    """The fitted numeric x axis (scatter plots)."""
    legend: tuple[LegendEntry, ...] = ()
    """Legend entries found."""
    tokens: tuple[OcrToken, ...] = ()
    """All OCR tokens of the image."""
    notes: tuple[str, ...] = ()
    """What perception could not do (missing axis, unlabelled marks, ...)."""
    size: tuple[int, int] = (0, 0)
    """Size (width, height) in pixels of the image as read, the frame of every pixel
    coordinate in the reading (scaled down from the input when its text ran large)."""
