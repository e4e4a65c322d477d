"""Line chart to table: category positions from markers or from evenly spaced labels, one
series per stroke colour, vertex values read on the value axis or from printed labels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.models.reader.perception.geometry import Frame
from chartproof.models.reader.perception.labels import (
    assign_category_labels,
    fill_skipped_labels,
)
from chartproof.models.reader.perception.lines import (
    Vertex,
    line_extent,
    marker_centres,
    tick_marks,
    vertices,
)
from chartproof.models.reader.perception.records import Box, CellEvidence, ChartReading, OcrToken
from chartproof.models.reader.perception.scene import CellValue, Scene, make_table, series_names
from chartproof.models.reader.perception.values import Anchor, match_labels, reconcile
from chartproof.ocr import parse_label_number

__all__ = ["line_masks", "read_lines"]


def line_masks(scene: Scene, layer_ids: Sequence[int]) -> list[np.ndarray]:
    """Stroke masks of the series layers with the legend and text boxes cut out."""
    out = []
    for li in layer_ids:
        m = scene.layers[li].mask & ~scene.text
        if scene.legend_box is not None:
            x0, y0, x1, y1 = (round(v) for v in scene.legend_box)
            m[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = False
        out.append(m)
    return out


def _cluster_x(xs: list[float], tol: float, min_size: int = 1) -> list[float]:
    xs = sorted(xs)
    groups: list[list[float]] = []
    for x in xs:
        if groups and x - groups[-1][-1] <= tol:
            groups[-1].append(x)
        else:
            groups.append([x])
    return [float(np.mean(g)) for g in groups if len(g) >= min_size]


def _regular(xs: list[float]) -> list[float]:
    """Drop positions at either end that break the even spacing of category positions
    (a marker of a legend swatch the legend finder missed)."""
    xs = sorted(xs)
    while len(xs) >= 4:
        pitch = float(np.median(np.diff(xs)))
        if abs((xs[1] - xs[0]) - pitch) > 0.3 * pitch:
            xs = xs[1:]
        elif abs((xs[-1] - xs[-2]) - pitch) > 0.3 * pitch:
            xs = xs[:-1]
        else:
            break
    return xs


def _below_tokens(tokens: Sequence[OcrToken], bottom: float) -> list[OcrToken]:
    below = [t for t in tokens if not t.vertical and t.box[1] >= bottom - 2]
    if not below:
        return []
    top = min(t.box[1] for t in below)
    th = float(np.median([t.height for t in below]))
    return sorted((t for t in below if t.box[1] <= top + 0.6 * th), key=lambda t: t.cx)


def _positions(
    masks: list[np.ndarray],
    markers: list[list[tuple[float, float, float]]],
    n_labels: int,
    image: np.ndarray,
    bottom: float,
) -> list[float]:
    counts = [len(m) for m in markers]
    if counts and min(counts) >= 2:
        # A category position holds a marker of most series.
        need = max(1, (len(markers) + 1) // 2)
        xs = _regular(_cluster_x([m[0] for ms in markers for m in ms], 4.0, need))
        if n_labels <= len(xs) or n_labels < 2:
            return xs
    extents = [e for e in (line_extent(m) for m in masks) if e is not None]
    if not extents or n_labels < 2:
        return []
    left = min(e[0] for e in extents) + 1.0
    right = max(e[1] for e in extents) - 1.0
    # Tick marks spanning the lines give every position, labelled or not.
    ticks = [
        t for t in tick_marks(image, bottom, left - 3, right + 3) if left - 3 <= t <= right + 3
    ]
    if len(ticks) > n_labels and len(ticks) >= 3:
        gaps = np.diff(ticks)
        if float(np.ptp(gaps)) <= 0.15 * float(np.median(gaps)) + 1:
            return [float(t) for t in ticks]
    return [float(x) for x in np.linspace(left, right, n_labels)]


def read_lines(
    scene: Scene, layer_ids: list[int], titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """The table behind a line chart drawn in the `layer_ids` colours (None when no vertex
    position can be found)."""
    masks = line_masks(scene, layer_ids)
    markers = [marker_centres(m) for m in masks]
    bottom = max(float(np.nonzero(m.any(axis=1))[0].max()) for m in masks if m.any())
    axis = scene.y_axis
    axis_ids = {id(t) for t in axis.ticks} | {id(t) for t in axis.rejected} if axis else set()
    legend_ids = scene.legend_tokens()
    free = [t for t in scene.tokens if id(t) not in axis_ids and id(t) not in legend_ids]
    below = _below_tokens(free, bottom)
    xs = _positions(masks, markers, len(below), scene.image, bottom)
    if not xs:
        return None
    pitch = float(np.median(np.diff(xs))) if len(xs) > 1 else 40.0
    verts = [vertices(m, xs, mk) for m, mk in zip(masks, markers, strict=True)]
    frame = Frame("vertical")
    th = scene.text_height
    anchors = [
        Anchor((r, k), v.x, -v.y, 0.45 * pitch, 2.2 * th, 1.6 * th, floor=-bottom)
        for k, vs in enumerate(verts)
        for r, v in enumerate(vs)
        if v is not None
    ]
    matched = match_labels(free, anchors, frame)
    used = {id(t) for t in matched.values()}
    label_toks = [t for t in free if id(t) not in used]
    texts, _ = assign_category_labels(label_toks, frame, xs, -bottom, pitch)
    texts = fill_skipped_labels(texts)
    axis_range = 0.0
    if axis is not None:
        lo, hi = axis.span
        axis_range = abs(axis.value(lo) - axis.value(hi))
    rows: list[list[CellValue]] = []
    for r in range(len(xs)):
        row = []
        for k in range(len(layer_ids)):
            v = verts[k][r]
            row.append(_cell(v, axis, matched.get((r, k)), axis_range, th))
        rows.append(row)
    if axis is None:
        scene.notes.append("no value axis: values come from printed labels")
    names = series_names(scene, layer_ids, titles[2])
    table, conf, evidence = make_table(titles[1] or "Category", texts, names, rows)
    boxes = {
        name: tuple(None if v is None else _vbox(v, th) for v in vs)
        for name, vs in zip(names, verts, strict=True)
    }
    colors = {name: scene.layers[li].hex for name, li in zip(names, layer_ids, strict=True)}
    return ChartReading(
        chart_type="line",
        table=table,
        confidence=conf,
        evidence=evidence,
        series_colors=colors,
        mark_boxes=boxes,
        title=titles[0],
        x_title=titles[1],
        y_title=titles[2],
        value_axis=axis,
        legend=scene.legend,
        tokens=scene.tokens,
        notes=tuple(scene.notes),
        size=scene.size,
    )


def _vbox(v: Vertex, th: float) -> Box:
    r = max(3.0, 0.3 * th)
    return (v.x - r, v.y - r, v.x + r, v.y + r)


def _cell(
    v: Vertex | None, axis: object, tok: OcrToken | None, axis_range: float, th: float
) -> CellValue:
    from chartproof.models.reader.perception.records import AxisFit

    if v is None:
        return CellValue(None, 0.0, None)
    geo = axis.read(v.y) if isinstance(axis, AxisFit) else None
    lab = parse_label_number(tok.text) if tok is not None else None
    rec = reconcile(lab, geo, axis_range)
    if rec is None:
        return CellValue(None, 0.0, None)
    conf = rec.confidence if v.from_marker or rec.source == "value_label" else rec.confidence - 0.1
    ev = CellEvidence(
        row=0,
        column="",
        source="value_label" if rec.source == "value_label" else "geometry",
        mark_box=_vbox(v, th),
        text=tok.text if tok is not None else None,
        geometry_value=geo,
        confidence=max(0.0, conf),
    )
    return CellValue(rec.value, max(0.0, conf), ev)
