"""What every mark reader shares about one image: tokens, colour layers, legend and axes, plus
the small helpers that turn found marks into a table with confidence and evidence."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from chartproof.reader.perception.palette import ColorLayer, background_color, is_blend
from chartproof.reader.perception.records import (
    AxisFit,
    Box,
    CellEvidence,
    ChartReading,
    LegendEntry,
    OcrToken,
)
from chartproof.types import Cell, ChartType, Column, ColumnKind, DataTable

__all__ = ["CellValue", "Scene", "make_table", "scene_reading", "series_names"]


@dataclass(frozen=True)
class Scene:
    """Shared facts about one chart image (a working buffer: it holds arrays)."""

    image: np.ndarray
    """RGB uint8 pixels."""
    tokens: tuple[OcrToken, ...]
    """All OCR tokens."""
    layers: tuple[ColorLayer, ...]
    """Drawn colours, most frequent first."""
    legend: tuple[LegendEntry, ...]
    """Legend entries."""
    legend_box: Box | None
    """Region the legend covers."""
    text: np.ndarray
    """Mask of token boxes."""
    y_axis: AxisFit | None
    """Numeric vertical axis, when found."""
    x_axis: AxisFit | None
    """Numeric horizontal axis, when found."""
    text_height: float
    """Median token height: the unit for label search distances."""
    notes: list[str] = field(default_factory=list)
    """What went wrong along the way."""

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)."""
        return int(self.image.shape[1]), int(self.image.shape[0])

    def legend_tokens(self) -> set[int]:
        """ids of tokens that are legend labels."""
        out: set[int] = set()
        for e in self.legend:
            for t in self.tokens:
                if t.text.strip() == e.label and _inside(t.box, e.box):
                    out.add(id(t))
        return out


def _inside(a: Box, b: Box, pad: float = 2.0) -> bool:
    return a[0] >= b[0] - pad and a[1] >= b[1] - pad and a[2] <= b[2] + pad and a[3] <= b[3] + pad


@dataclass(frozen=True)
class CellValue:
    """One recovered numeric cell before the table is assembled."""

    value: float | None
    """The value, None when the mark was not found."""
    confidence: float
    """Trust in the value."""
    evidence: CellEvidence | None
    """Where it came from."""


def series_names(scene: Scene, layer_ids: Sequence[int], default: str | None) -> list[str]:
    """A name per series layer: the legend label of the nearest legend colour (each entry
    names one layer, closest pairs first; a swatch filled with a tint of the series colour,
    as Chart.js fills it at half opacity, after those), else a default (the axis title for
    one series, "Series k" for several)."""
    pairs: list[tuple[float, int, int]] = []
    bg = np.array(background_color(scene.image), dtype=float)
    for k, li in enumerate(layer_ids):
        rgb = np.array(scene.layers[li].rgb, dtype=float)
        for j, e in enumerate(scene.legend):
            c = np.array([int(e.color[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)
            d = float(np.linalg.norm(c - rgb))
            if d < 45 or is_blend(c, rgb, bg):
                pairs.append((d, k, j))
    named: dict[int, str] = {}
    used: set[int] = set()
    for _, k, j in sorted(pairs):
        if k not in named and j not in used:
            named[k] = scene.legend[j].label
            used.add(j)
    names: list[str] = []
    for k in range(len(layer_ids)):
        if k in named:
            names.append(named[k])
        elif len(layer_ids) == 1:
            names.append(default or "Value")
        else:
            names.append(f"Series {k + 1}")
    return _unique(names)


def _unique(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        base, k = n or "Value", 2
        cand = base
        while cand in out:
            cand = f"{base} ({k})"
            k += 1
        out.append(cand)
    return out


_YEAR = re.compile(r"^(1[89]|20)\d\d\*?$")


def make_table(
    x_name: str,
    x_labels: Sequence[str | None],
    names: Sequence[str],
    cells: Sequence[Sequence[CellValue]],
) -> tuple[DataTable, tuple[tuple[float, ...], ...], tuple[CellEvidence, ...]]:
    """Assemble the table (x labels, one numeric column per series), its per-cell confidence
    and the evidence of every filled cell. `cells[row][series]`."""
    names = _unique([x_name, *names])
    labels = [None if lab is None else lab.strip() for lab in x_labels]
    kind: ColumnKind = (
        "time"
        if labels and all(lab is not None and _YEAR.match(lab) for lab in labels)
        else "category"
    )
    columns = (Column(name=names[0], kind=kind), *(Column(name=n) for n in names[1:]))
    rows: list[tuple[Cell, ...]] = []
    conf: list[tuple[float, ...]] = []
    evidence: list[CellEvidence] = []
    for i, lab in enumerate(labels):
        row: list[Cell] = [lab if lab else None]
        crow: list[float] = []
        for j, c in enumerate(cells[i]):
            row.append(c.value)
            crow.append(c.confidence if c.value is not None else 0.0)
            if c.evidence is not None and c.value is not None:
                evidence.append(c.evidence.model_copy(update={"row": i, "column": names[j + 1]}))
        rows.append(tuple(row))
        conf.append(tuple(crow))
    return DataTable(columns=columns, rows=tuple(rows)), tuple(conf), tuple(evidence)


def scene_reading(
    scene: Scene,
    titles: tuple[str | None, str | None, str | None],
    chart_type: ChartType,
    table: DataTable,
    confidence: tuple[tuple[float, ...], ...],
    evidence: tuple[CellEvidence, ...],
    *,
    value_axis: AxisFit | None,
    x_axis: AxisFit | None = None,
    series_colors: dict[str, str] | None = None,
    mark_boxes: dict[str, tuple[Box | None, ...]] | None = None,
    orientation: Literal["vertical", "horizontal"] = "vertical",
) -> ChartReading:
    """The reading of a chart with axes: the table and its marks, plus the (title, x title,
    y title) triple and what the scene found (legend, tokens, notes, size)."""
    return ChartReading(
        chart_type=chart_type,
        table=table,
        confidence=confidence,
        evidence=evidence,
        series_colors=series_colors or {},
        mark_boxes=mark_boxes or {},
        orientation=orientation,
        title=titles[0],
        x_title=titles[1],
        y_title=titles[2],
        value_axis=value_axis,
        x_axis=x_axis,
        legend=scene.legend,
        tokens=scene.tokens,
        notes=tuple(scene.notes),
        size=scene.size,
    )
