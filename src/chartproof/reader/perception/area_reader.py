"""Area charts to table: filled bands of one colour each, stacked from the baseline; at each
category position a band's value is the height between its lower and upper edges."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.labels import (
    assign_category_labels,
    fill_skipped_labels,
)
from chartproof.reader.perception.line_reader import category_positions, label_x, line_masks
from chartproof.reader.perception.lines import stroke_score
from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.pixels import components
from chartproof.reader.perception.plot_extent import filled_band
from chartproof.reader.perception.records import CellEvidence, ChartReading, OcrToken
from chartproof.reader.perception.scene import (
    CellValue,
    Scene,
    make_table,
    scene_reading,
    series_names,
)
from chartproof.reader.perception.upright_labels import top_edge, upright_row

__all__ = ["area_layers", "read_area"]


def area_layers(
    scene: Scene, candidates: Sequence[int], plot: tuple[int, int] | None = None
) -> list[int]:
    """Layers drawn as one wide filled band each (not bars, not strokes); wide next to the
    plot's columns `plot` (first, last) when given, else the image's."""
    w, h = scene.size
    pw = max(1, plot[1] - plot[0] + 1) if plot is not None else w
    span = _tick_span(scene)
    out = []
    for li in candidates:
        lay: ColorLayer = scene.layers[li]
        n, labels, stats, _ = components(lay.mask, 8)
        if n < 2:
            continue
        big = int(np.argmax(stats[1:, 4])) + 1
        bw, bh, area = int(stats[big][2]), int(stats[big][3]), int(stats[big][4])
        others = [int(stats[i][4]) for i in range(1, n) if i != big and stats[i][4] > 0.05 * area]
        if bh < 8 or others:
            continue
        wide = bw >= 0.4 * w and area >= 0.02 * w * h
        # or wide next to a plot narrower than the image (a blank canvas beside it)
        beside = bw >= 0.4 * pw and area >= 0.02 * pw * h and filled_band(labels == big)
        if not (wide or beside):
            continue
        top, bottom = int(stats[big][1]), int(stats[big][1]) + bh
        # A wide band wholly above the top tick or below the bottom one is page furniture
        # (a banner, a footer strip), not an area on the value axis.
        if span is not None and (bottom < span[0] or top > span[1]):
            continue
        # A dense line with markers is one wide component too, but thin: a band is filled.
        if stroke_score(lay.mask)[1] >= 0.5:
            continue
        out.append(li)
    return out


def _flat_row(free: Sequence[OcrToken], bottom: float) -> list[OcrToken]:
    """The first row of horizontal text under the bands."""
    below = sorted(
        (t for t in free if not t.vertical and t.box[1] >= bottom - 2), key=lambda t: t.cx
    )
    if not below:
        return []
    top = min(t.box[1] for t in below)
    th = float(np.median([t.height for t in below]))
    return [t for t in below if t.box[1] <= top + 0.6 * th]


def _tick_span(scene: Scene) -> tuple[float, float] | None:
    """(top, bottom) pixel rows of the value axis's tick labels, with half a text line's
    slack; None without a value axis of two ticks or more."""
    axis = scene.y_axis
    if axis is None or len(axis.ticks) < 2:
        return None
    slack = 0.5 * scene.text_height
    return min(t.cy for t in axis.ticks) - slack, max(t.cy for t in axis.ticks) + slack


def read_area(
    scene: Scene, layer_ids: list[int], titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """The table behind an area chart whose bands use the `layer_ids` colours."""
    axis = scene.y_axis
    if axis is None:
        return None
    masks = line_masks(scene, layer_ids)
    cols = np.nonzero(np.any(np.stack(masks), axis=0).any(axis=0))[0]
    if len(cols) < 2:
        return None
    left, right = int(cols[0]), int(cols[-1])
    bottom = max(float(np.nonzero(m.any(axis=1))[0].max()) for m in masks if m.any())
    axis_ids = {id(t) for t in axis.ticks} | {id(t) for t in axis.rejected}
    legend_ids = scene.legend_tokens()
    free = [t for t in scene.tokens if id(t) not in axis_ids and id(t) not in legend_ids]
    row = upright_row(free, bottom, left, right) or _flat_row(free, bottom)
    if not row:
        return None
    th = float(np.median([t.height for t in row]))
    xs = [
        min(max(label_x(t), left + 1.0), right - 1.0)
        for t in row
        if left - th <= label_x(t) <= right + th
    ]
    if not xs:
        return None
    # a dense axis labels every k-th category: the bands' top edges bend at every one
    # (not under slanted labels, whose boxes would name the wrong positions among them)
    level = all(abs(t.angle) <= 20 for t in row)
    finer = category_positions([top_edge(m) for m in masks], sorted(xs)) if level else None
    if finer is not None and len(finer) > len(xs):
        xs = finer
    pitch = float(np.median(np.diff(xs))) if len(xs) > 1 else 40.0
    texts, _ = assign_category_labels(free, Frame("vertical"), xs, -bottom, pitch)
    texts = fill_skipped_labels(texts)
    zero = axis.pixel(0.0) if axis.scale == "linear" else None
    base = zero if zero is not None and abs(zero - bottom) <= 4 else bottom + 0.5
    # Bands stack upwards: order the layers by how high they sit.
    order = sorted(
        range(len(layer_ids)), key=lambda k: -float(np.nonzero(masks[k].any(axis=1))[0].mean())
    )
    rows: list[list[CellValue]] = []
    for x in xs:
        xi = round(x)
        lower = base
        cells: dict[int, CellValue] = {}
        for k in order:
            ys = np.nonzero(masks[k][:, max(0, xi - 1) : xi + 2].any(axis=1))[0]
            if len(ys) == 0:
                cells[k] = CellValue(None, 0.0, None)
                continue
            upper = float(ys.min()) - 0.5
            value = axis.read(upper) - axis.read(lower)
            box = (x - 2.0, upper, x + 2.0, lower)
            ev = CellEvidence(
                row=0,
                column="",
                source="geometry",
                mark_box=box,
                geometry_value=value,
                confidence=0.75,
            )
            cells[k] = CellValue(value, 0.75, ev)
            lower = upper
        rows.append([cells[k] for k in range(len(layer_ids))])
    names = series_names(scene, layer_ids, titles[2])
    table, conf, evidence = make_table(titles[1] or "Category", texts, names, rows)
    return scene_reading(
        scene,
        titles,
        "area",
        table,
        conf,
        evidence,
        series_colors={n: scene.layers[li].hex for n, li in zip(names, layer_ids, strict=True)},
        value_axis=axis,
    )
