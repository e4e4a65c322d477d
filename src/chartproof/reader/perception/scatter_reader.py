"""Scatter plots to a long table: each blob of a series colour is one point, read on the two
fitted numeric axes; the series column holds the legend name of the colour."""

from __future__ import annotations

import numpy as np

from chartproof.reader.perception.line_reader import line_masks
from chartproof.reader.perception.pixels import components
from chartproof.reader.perception.records import CellEvidence, ChartReading
from chartproof.reader.perception.scene import Scene, scene_reading, series_names
from chartproof.types import Cell, Column, DataTable

__all__ = ["read_dot_lines", "read_scatter"]


def read_scatter(
    scene: Scene, titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """Points of every mark colour, or None without two numeric axes or any point."""

    xa, ya = scene.x_axis, scene.y_axis
    if xa is None or ya is None:
        return None
    ids = [i for i, lay in enumerate(scene.layers) if not (lay.chroma < 25 and lay.luma < 90)]
    masks = line_masks(scene, ids)
    points: list[tuple[int, float, float, float, float, float]] = []
    x_lo, x_hi = sorted(xa.span)
    y_lo, y_hi = sorted(ya.span)
    for li, m in zip(ids, masks, strict=True):
        n, _, stats, cents = components(m, 8)
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
    return scene_reading(
        scene,
        titles,
        "scatter",
        table,
        tuple(conf),
        tuple(evidence),
        series_colors={n: scene.layers[li].hex for n, li in zip(names, used, strict=True)},
        value_axis=ya,
        x_axis=xa,
    )


def _dots(mask: np.ndarray) -> tuple[list[tuple[float, float, float]], int]:
    """Round filled blobs of one colour (centre x, centre y, diameter) and the number of
    pixels they hold."""
    n, _, stats, cents = components(mask, 8)
    out: list[tuple[float, float, float]] = []
    held = 0
    for i in range(1, n):
        w, h, area = int(stats[i][2]), int(stats[i][3]), int(stats[i][4])
        if area < 12 or max(w, h) > 40 or not 0.6 <= w / max(h, 1) <= 1.6:
            continue
        if area / float(w * h) < 0.55:
            continue
        out.append((float(cents[i][0]), float(cents[i][1]), (w + h) / 2))
        held += area
    return out, held


def read_dot_lines(
    scene: Scene, titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """Line series drawn as rows of dots (FigureQA's dot-line plots, dotted trend charts):
    every mark colour is mostly round blobs of one size, and the series share their x
    positions. Returns a wide line table (x positions read on the numeric x axis, one
    column per series), or None when the marks are not such dots."""
    xa, ya = scene.x_axis, scene.y_axis
    if xa is None or ya is None or len(xa.ticks) < 3 or len(ya.ticks) < 3:
        return None
    ids = [
        i
        for i, lay in enumerate(scene.layers)
        if not (lay.chroma < 25 and (lay.luma < 90 or lay.luma > 170))
    ]
    masks = line_masks(scene, ids)
    series: dict[int, list[tuple[float, float, float]]] = {}
    marked = total = 0
    lo, hi = sorted(xa.span)
    pad = 0.06 * (hi - lo)
    for li, m in zip(ids, masks, strict=True):
        px = int(m.sum())
        if px < 30:
            continue
        dots, held = _dots(m)
        # Legend swatches beside the plot are dots too: keep the ones over the x axis.
        dots = [d for d in dots if lo - pad <= d[0] <= hi + pad]
        total += px
        if len(dots) >= 4 and held >= 0.6 * px:
            series[li] = dots
            marked += held
    if not series or marked < 0.7 * total:
        return None
    size = float(np.median([d[2] for ds in series.values() for d in ds]))
    xs = sorted(d[0] for ds in series.values() for d in ds)
    groups: list[list[float]] = []
    for x in xs:
        if groups and x - groups[-1][-1] <= 0.5 * size:
            groups[-1].append(x)
        else:
            groups.append([x])
    centres = [float(np.mean(g)) for g in groups]
    longest = max(len(ds) for ds in series.values())
    if len(centres) > 1.5 * longest:
        return None  # the series do not share x positions: a scatter plot
    used = sorted(series, key=lambda li: -len(series[li]))
    names = series_names(scene, used, None)
    grid: list[list[float | None]] = [[None] * len(used) for _ in centres]
    boxes: dict[str, list[tuple[float, float, float, float] | None]] = {
        n: [None] * len(centres) for n in names
    }
    evidence: list[CellEvidence] = []
    for k, li in enumerate(used):
        for cx, cy, d in series[li]:
            j = min(range(len(centres)), key=lambda c: abs(centres[c] - cx))
            if grid[j][k] is None:
                grid[j][k] = ya.read(cy)
                box = (cx - d / 2, cy - d / 2, cx + d / 2, cy + d / 2)
                boxes[names[k]][j] = box
                evidence.append(
                    CellEvidence(
                        row=j, column=names[k], source="geometry", mark_box=box, confidence=0.7
                    )
                )
    labels = [f"{xa.read(c):g}" for c in centres]
    columns = [Column(name=titles[1] or "x", kind="category")]
    columns += [Column(name=n) for n in names]
    rows = tuple((lab, *grid[j]) for j, lab in enumerate(labels))
    table = DataTable(columns=tuple(columns), rows=rows)
    conf = tuple(tuple(0.7 if v is not None else 0.0 for v in row) for row in grid)
    scene.notes.append("line series drawn as dots, read on the two numeric axes")
    return scene_reading(
        scene,
        titles,
        "line",
        table,
        conf,
        tuple(evidence),
        series_colors={n: scene.layers[li].hex for n, li in zip(names, used, strict=True)},
        mark_boxes={n: tuple(b) for n, b in boxes.items()},
        value_axis=ya,
        x_axis=xa,
    )
