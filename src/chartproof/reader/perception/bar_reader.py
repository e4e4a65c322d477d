"""Bar chart to table: slots become rows, bar colours become series, values come from printed
labels checked against the fitted value axis (or scaled bar lengths when no axis is drawn)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.bars import Bar, BarLayout, group_slots
from chartproof.reader.perception.edges import refine_bars
from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.headers import header_names
from chartproof.reader.perception.labels import assign_category_labels
from chartproof.reader.perception.palette import background_color
from chartproof.reader.perception.records import (
    AxisFit,
    Box,
    CellEvidence,
    ChartReading,
    EvidenceSource,
    OcrToken,
)
from chartproof.reader.perception.scene import (
    CellValue,
    Scene,
    make_table,
    scene_reading,
    series_names,
)
from chartproof.reader.perception.values import Anchor, match_labels, reconcile
from chartproof.types import ChartType

__all__ = ["read_bars"]


def read_bars(
    scene: Scene, layout: BarLayout, titles: tuple[str | None, str | None, str | None]
) -> ChartReading:
    """The table behind a bar chart whose bars `layout` found."""
    frame = Frame(layout.orientation)
    axis = scene.y_axis if layout.orientation == "vertical" else scene.x_axis
    layout = refine_bars(scene.image, layout, scene.layers, background_color(scene.image))
    slots = group_slots(layout.bars, layout.stacked)
    layer_ids = _series_order(scene, slots, stacked=layout.stacked)
    # One bar per slot, each in its own colour, no legend: one series painted bar by bar.
    painted = (
        len(layer_ids) > 1
        and not layout.stacked
        and not scene.legend
        and all(len(s) == 1 for s in slots)
    )
    if painted:
        slots = [[replace(s[0], layer=layer_ids[0])] for s in slots]
        layer_ids = layer_ids[:1]
    centres = [(min(b.span.u0 for b in s) + max(b.span.u1 for b in s)) / 2 for s in slots]
    widths = [b.span.width for b in layout.bars]
    pitch = (
        float(np.median(np.diff(centres))) if len(centres) > 1 else 1.6 * float(np.median(widths))
    )
    axis_ids = {id(t) for t in axis.ticks} | {id(t) for t in axis.rejected} if axis else set()
    legend_ids = scene.legend_tokens()
    free = [t for t in scene.tokens if id(t) not in axis_ids and id(t) not in legend_ids]
    axis_v = min(b.span.v0 for b in layout.bars)
    # Value labels first: a number printed at a bar's end is not a category label.
    anchors = _anchors(layout, slots, layer_ids, scene.text_height)
    matched = match_labels(free, anchors, frame)
    label_ids = {id(t) for t in matched.values()}
    label_toks = [t for t in free if id(t) not in label_ids]
    texts, _ = assign_category_labels(label_toks, frame, centres, axis_v, pitch)
    zero_v = _zero(frame, axis, layout.baseline)
    axis_range = _axis_range(axis)
    rows: list[list[CellValue]] = []
    for r, slot in enumerate(slots):
        row: list[CellValue] = []
        for k, li in enumerate(layer_ids):
            mine = [b for b in slot if b.layer == li]
            if not mine:
                row.append(CellValue(None, 0.0, None))
                continue
            b = mine[0]
            geo = _geometry(frame, axis, b, zero_v, layout.stacked)
            tok = matched.get((r, k))
            lab = parse_label_number(tok.text) if tok is not None else None
            row.append(_cell(b, geo, lab, tok, axis_range))
        rows.append(row)
    if axis is None:
        rows = _scale_unlabelled(slots, layer_ids, rows, zero_v)
        scene.notes.append("no value axis: values come from printed labels")
    names = series_names(scene, layer_ids, titles[2])
    if layout.orientation == "horizontal" and not scene.legend:
        names = _with_headers(scene, slots, layer_ids, names)
    chart_type: ChartType
    if layout.stacked:
        chart_type = "stacked_bar"
    elif len(layer_ids) > 1:
        chart_type = "grouped_bar"
    else:
        chart_type = "vbar" if layout.orientation == "vertical" else "hbar"
    table, conf, evidence = make_table(titles[1] or "Category", texts, names, rows)
    boxes = {
        name: tuple(next((b.box for b in slot if b.layer == li), None) for slot in slots)
        for name, li in zip(names, layer_ids, strict=True)
    }
    colors = {name: scene.layers[li].hex for name, li in zip(names, layer_ids, strict=True)}
    if painted:
        scene.notes.append("one series whose bars are painted in different colours")
        colors = {}
    return scene_reading(
        scene,
        titles,
        chart_type,
        table,
        conf,
        evidence,
        series_colors=colors,
        mark_boxes=boxes,
        orientation=layout.orientation,
        value_axis=axis,
    )


def _with_headers(
    scene: Scene, slots: list[list[Bar]], layer_ids: list[int], names: list[str]
) -> list[str]:
    """Series without a legend named by the headers printed above the top bar."""
    found = header_names(scene, slots, layer_ids)
    if found is None:
        return names
    return [h or n for h, n in zip(found, names, strict=True)]


def _series_order(scene: Scene, slots: list[list[Bar]], *, stacked: bool = False) -> list[int]:
    present: list[int] = []
    for slot in slots:
        # Segments of a stack follow one another along the value direction.
        order = (
            (lambda b: (b.span.v0, b.span.uc)) if stacked else (lambda b: (b.span.uc, b.span.v0))
        )
        for b in sorted(slot, key=order):
            if b.layer not in present:
                present.append(b.layer)
    if not scene.legend:
        return present

    def legend_rank(li: int) -> int:
        rgb = np.array(scene.layers[li].rgb, dtype=float)
        best = (1e9, len(scene.legend))
        for k, e in enumerate(scene.legend):
            c = np.array([int(e.color[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)
            best = min(best, (float(np.linalg.norm(c - rgb)), k))
        return best[1] if best[0] < 45 else len(scene.legend) + present.index(li)

    return sorted(present, key=legend_rank)


def _zero(frame: Frame, axis: AxisFit | None, baseline: float) -> float:
    if axis is not None and axis.scale == "linear":
        z = frame.v_of(axis, 0.0)
        if z is not None and abs(z - baseline) <= 4:
            return z
    return baseline


def _axis_range(axis: AxisFit | None) -> float:
    if axis is None:
        return 0.0
    lo, hi = axis.span
    a, b = axis.value(lo), axis.value(hi)
    return abs(b - a)


def _read(frame: Frame, axis: AxisFit, v: float) -> float:
    return axis.read(-v if frame.orientation == "vertical" else v)


def _geometry(
    frame: Frame, axis: AxisFit | None, b: Bar, zero_v: float, stacked: bool
) -> float | None:
    if axis is None:
        return None
    if stacked:
        return abs(_read(frame, axis, b.span.v1) - _read(frame, axis, b.span.v0))
    end = b.span.v1 if b.span.v1 - zero_v >= zero_v - b.span.v0 else b.span.v0
    return _read(frame, axis, end)


def _anchors(
    layout: BarLayout, slots: list[list[Bar]], layer_ids: list[int], th: float
) -> list[Anchor]:
    out: list[Anchor] = []
    for r, slot in enumerate(slots):
        for k, li in enumerate(layer_ids):
            for b in slot:
                if b.layer != li:
                    continue
                half = max(b.span.width / 2 + 0.4 * th, 0.6 * b.span.width)
                if layout.stacked:
                    out.append(
                        Anchor(
                            (r, k), b.span.uc, b.span.vc, half, b.span.length / 2, b.span.length / 2
                        )
                    )
                    continue
                positive = b.span.v1 - layout.baseline >= layout.baseline - b.span.v0
                if positive:
                    out.append(
                        Anchor(
                            (r, k),
                            b.span.uc,
                            b.span.v1,
                            half,
                            1.6 * th,
                            1.2 * th,
                            floor=layout.baseline + 1,
                        )
                    )
                else:
                    out.append(Anchor((r, k), b.span.uc, b.span.v0, half, 1.2 * th, 1.6 * th))
                break
    return out


def _cell(
    b: Bar, geo: float | None, lab: float | None, tok: OcrToken | None, axis_range: float
) -> CellValue:
    rec = reconcile(lab, geo, axis_range)
    if rec is None:
        return CellValue(None, 0.0, _evidence(b.box, "geometry", None, None, 0.0))
    source: EvidenceSource = "value_label" if rec.source == "value_label" else "geometry"
    ev = _evidence(b.box, source, tok.text if tok else None, geo, rec.confidence)
    return CellValue(rec.value, rec.confidence, ev)


def _evidence(
    box: Box, source: EvidenceSource, text: str | None, geo: float | None, conf: float
) -> CellEvidence:
    return CellEvidence(
        row=0,
        column="",
        source=source,
        mark_box=box,
        text=text,
        geometry_value=geo,
        confidence=conf,
    )


def _scale_unlabelled(
    slots: list[list[Bar]], layer_ids: list[int], rows: list[list[CellValue]], zero_v: float
) -> list[list[CellValue]]:
    """Without an axis, scale unlabelled bars by the value-per-pixel of labelled ones."""
    ratios = []
    for slot, row in zip(slots, rows, strict=True):
        for k, li in enumerate(layer_ids):
            b = next((b for b in slot if b.layer == li), None)
            c = row[k]
            if b is not None and c.value is not None and b.span.length > 2:
                ratios.append(c.value / b.span.length)
    if not ratios:
        return rows
    ratio = float(np.median(ratios))
    out: list[list[CellValue]] = []
    for slot, row in zip(slots, rows, strict=True):
        new: list[CellValue] = []
        for k, li in enumerate(layer_ids):
            b = next((b for b in slot if b.layer == li), None)
            c = row[k]
            if c.value is None and b is not None:
                ev = _evidence(b.box, "scaled_length", None, None, 0.4)
                new.append(CellValue(ratio * b.span.length, 0.4, ev))
            else:
                new.append(c)
        out.append(new)
    return out
