"""Scatter plots to a long table: each blob of a series colour is one point, read on the two
fitted numeric axes; the series column holds the legend name of the colour."""

from __future__ import annotations

import numpy as np

from chartproof.reader.perception.line_reader import line_masks
from chartproof.reader.perception.records import CellEvidence, ChartReading
from chartproof.reader.perception.scene import Scene, series_names
from chartproof.types import Cell, Column, DataTable

__all__ = ["read_scatter"]


def read_scatter(
    scene: Scene, titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """Points of every mark colour, or None without two numeric axes or any point."""
    import cv2

    xa, ya = scene.x_axis, scene.y_axis
    if xa is None or ya is None:
        return None
    ids = [i for i, lay in enumerate(scene.layers) if not (lay.chroma < 25 and lay.luma < 90)]
    masks = line_masks(scene, ids)
    points: list[tuple[int, float, float, float, float, float]] = []
    x_lo, x_hi = sorted(xa.span)
    y_lo, y_hi = sorted(ya.span)
    for li, m in zip(ids, masks, strict=True):
        n, _, stats, cents = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
        for i in range(1, n):
            w, h, area = int(stats[i][2]), int(stats[i][3]), int(stats[i][4])
            if area < 6 or w > 30 or h > 30 or not 0.5 <= w / max(h, 1) <= 2.0:
                continue
            cx, cy = float(cents[i][0]), float(cents[i][1])
            if not (x_lo - 30 <= cx <= x_hi + 30 and y_lo - 30 <= cy <= y_hi + 30):
                continue
            points.append((li, cx, cy, float(w), float(h), area / float(w * h)))
    if not points:
        return None
    used = sorted({p[0] for p in points}, key=lambda li: -sum(p[0] == li for p in points))
    names = series_names(scene, used, None)
    x_name = titles[1] or "x"
    y_name = titles[2] or "y"
    multi = len(used) > 1
    columns = [Column(name=x_name), Column(name=y_name if y_name != x_name else "y")]
    if multi:
        columns.append(Column(name="series", kind="category"))
    rows: list[tuple[Cell, ...]] = []
    evidence: list[CellEvidence] = []
    conf: list[tuple[float, ...]] = []
    for k, (li, cx, cy, pw, ph, _) in enumerate(sorted(points, key=lambda p: (p[1], p[2]))):
        row: list[Cell] = [xa.value(cx), ya.value(cy)]
        if multi:
            row.append(names[used.index(li)])
        rows.append(tuple(row))
        conf.append((0.7, 0.7))
        evidence.append(
            CellEvidence(
                row=k,
                column=columns[1].name,
                source="geometry",
                mark_box=(cx - pw / 2, cy - ph / 2, cx + pw / 2, cy + ph / 2),
                confidence=0.7,
            )
        )
    table = DataTable(columns=tuple(columns), rows=tuple(rows))
    return ChartReading(
        chart_type="scatter",
        table=table,
        confidence=tuple(conf),
        evidence=tuple(evidence),
        series_colors={n: scene.layers[li].hex for n, li in zip(names, used, strict=True)},
        title=titles[0],
        x_title=titles[1],
        y_title=titles[2],
        value_axis=ya,
        x_axis=xa,
        legend=scene.legend,
        tokens=scene.tokens,
        notes=tuple(scene.notes),
        size=scene.size,
    )
