"""Perception of the offline chart reader: OCR plus geometric derendering of a chart image
into a data table with per-cell confidence and the pixel evidence behind each cell."""

from __future__ import annotations

from chartproof.ocr import OcrEngine, get_engine, parse_label_number
from chartproof.reader.perception.reader import read_chart
from chartproof.reader.perception.records import (
    AxisFit,
    CellEvidence,
    ChartReading,
    LegendEntry,
    OcrToken,
    ReadingError,
)

__all__ = [
    "AxisFit",
    "CellEvidence",
    "ChartReading",
    "LegendEntry",
    "OcrEngine",
    "OcrToken",
    "ReadingError",
    "get_engine",
    "parse_label_number",
    "read_chart",
]
