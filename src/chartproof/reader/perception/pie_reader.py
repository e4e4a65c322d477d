"""Pie chart to table: one row per wedge, named from the legend (by colour) or from the label
beside the wedge (by angle); the value is a printed percentage when present, else the share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.pie import Disk, Wedge
from chartproof.reader.perception.records import (
    Box,
    CellEvidence,
    ChartReading,
    EvidenceSource,
    LegendEntry,
    OcrToken,
)
from chartproof.reader.perception.scene import CellValue, Scene, make_table

__all__ = ["read_pie"]


def _angle(disk: Disk, x: float, y: float) -> float:
    return math.degrees(math.atan2(disk.cy - y, x - disk.cx)) % 360.0


def _in_wedge(w: Wedge, a: float) -> bool:
    return (a - w.start) % 360.0 <= w.sweep


def _legend_label(
    legend: Sequence[LegendEntry], rgb: tuple[int, int, int]
) -> tuple[int, str] | None:
    best: tuple[float, int, str] | None = None
    for k, e in enumerate(legend):
        c = [int(e.color[i : i + 2], 16) for i in (1, 3, 5)]
        d = math.dist(c, rgb)
        if d < 45 and (best is None or d < best[0]):
            best = (d, k, e.label)
    return None if best is None else (best[1], best[2])


def read_pie(
    scene: Scene,
    disk: Disk,
    wedges: list[Wedge],
    titles: tuple[str | None, str | None, str | None],
) -> ChartReading:
    """The table behind a pie chart."""
    # Words printed on a wedge next to its colour are not a legend: a legend stands apart.
    legend = [
        e
        for e in scene.legend
        if math.hypot((e.box[0] + e.box[2]) / 2 - disk.cx, (e.box[1] + e.box[3]) / 2 - disk.cy)
        > 0.95 * disk.r
    ]
    if len(legend) < len(scene.legend):
        scene = replace(scene, legend=tuple(legend))
    legend_ids = scene.legend_tokens()
    inside: list[OcrToken] = []
    outside: list[OcrToken] = []
    for t in scene.tokens:
        if id(t) in legend_ids:
            continue
        d = math.hypot(t.cx - disk.cx, t.cy - disk.cy)
        if d < 0.95 * disk.r:
            inside.append(t)
        elif d < 1.6 * disk.r + 2 * t.width:
            outside.append(t)
    # Labels outside the disk name wedges (or print values); numbers inside print values.
    names: list[str | None] = []
    order: list[float] = []
    values: dict[int, OcrToken] = {}
    used: set[int] = set()
    for wi, w in enumerate(wedges):
        leg = _legend_label(scene.legend, scene.layers[w.layer].rgb)
        name = leg[1] if leg else None
        order.append(leg[0] if leg else 1e6 + wi)
        names.append(name)
        nums = [
            t
            for t in inside + outside
            if id(t) not in used
            and parse_label_number(t.text) is not None
            and _in_wedge(w, _angle(disk, t.cx, t.cy))
        ]
        if nums:
            t = min(nums, key=lambda t: math.hypot(t.cx - disk.cx, t.cy - disk.cy))
            used.add(id(t))
            values[wi] = t
    _name_inside(disk, wedges, names, values, [t for t in inside if id(t) not in used])
    _name_by_anchor(disk, wedges, names, [t for t in outside if id(t) not in used])
    idx = sorted(range(len(wedges)), key=lambda i: order[i])
    rows: list[list[CellValue]] = []
    labels: list[str | None] = []
    for i in idx:
        w = wedges[i]
        share = 100.0 * w.share
        tok = values.get(i)
        printed = parse_label_number(tok.text) if tok is not None else None
        box = _wedge_box(disk, w)
        if printed is not None and abs(printed - share) <= max(3.0, 0.25 * share):
            ev = _ev(box, "value_label", tok, share, 0.95)
            rows.append([CellValue(printed, 0.95, ev)])
        else:
            ev = _ev(box, "wedge_angle", None, share, 0.85)
            rows.append([CellValue(round(share, 2), 0.85, ev)])
        labels.append(names[i])
    series = titles[2] or "Share"
    table, conf, evidence = make_table(titles[1] or "Category", labels, [series], rows)
    colors = {
        (lab or f"wedge {k + 1}"): scene.layers[wedges[i].layer].hex
        for k, (i, lab) in enumerate(zip(idx, labels, strict=True))
    }
    return ChartReading(
        chart_type="pie",
        table=table,
        confidence=conf,
        evidence=evidence,
        series_colors=colors,
        mark_boxes={table.names[1]: tuple(_wedge_box(disk, wedges[i]) for i in idx)},
        title=titles[0],
        legend=scene.legend,
        tokens=scene.tokens,
        notes=tuple(scene.notes),
        size=scene.size,
    )


def _name_inside(
    disk: Disk,
    wedges: list[Wedge],
    names: list[str | None],
    values: dict[int, OcrToken],
    tokens: list[OcrToken],
) -> None:
    """Name unnamed wedges from words printed inside them (Pew writes "55%" over "Higher"):
    the word lines in the wedge next to its value label, top to bottom."""
    for wi, w in enumerate(wedges):
        if names[wi] is not None:
            continue
        words = [
            t
            for t in tokens
            if parse_label_number(t.text) is None
            and len(t.text.strip()) >= 2
            and _in_wedge(w, _angle(disk, t.cx, t.cy))
        ]
        value = values.get(wi)
        if value is not None:
            # The name hangs right under (or over) the value, within a few lines.
            words = [
                t
                for t in words
                if abs(t.cy - value.cy) <= 3.5 * value.height
                and t.box[0] <= value.box[2] + value.height
                and t.box[2] >= value.box[0] - value.height
            ]
        if not words or len(words) > 4:
            continue
        words.sort(key=lambda t: (round(t.cy / max(t.height, 1.0)), t.box[0]))
        names[wi] = " ".join(t.text.strip() for t in words)


def _name_by_anchor(
    disk: Disk, wedges: list[Wedge], names: list[str | None], tokens: list[OcrToken]
) -> None:
    """Name unnamed wedges from the labels beside them: a label starts (right half) or ends
    (left half) just outside the rim on the wedge's middle ray; nearest pairs first."""
    pairs: list[tuple[float, int, int]] = []
    for wi, w in enumerate(wedges):
        if names[wi] is not None:
            continue
        a = math.radians(w.mid)
        ax = disk.cx + 1.08 * disk.r * math.cos(a)
        ay = disk.cy - 1.08 * disk.r * math.sin(a)
        for ti, t in enumerate(tokens):
            if parse_label_number(t.text) is not None:
                continue
            tx = t.box[0] if t.cx >= disk.cx else t.box[2]
            d = math.hypot(tx - ax, t.cy - ay)
            if d <= 0.35 * disk.r + t.height:
                pairs.append((d, wi, ti))
    used: set[int] = set()
    for _, wi, ti in sorted(pairs):
        if names[wi] is None and ti not in used:
            names[wi] = tokens[ti].text.strip()
            used.add(ti)


def _wedge_box(disk: Disk, w: Wedge) -> Box:
    pts = [(disk.cx, disk.cy)]
    steps = max(2, int(w.sweep // 10) + 1)
    for k in range(steps + 1):
        a = math.radians(w.start + w.sweep * k / steps)
        pts.append((disk.cx + disk.r * math.cos(a), disk.cy - disk.r * math.sin(a)))
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def _ev(
    box: Box, source: EvidenceSource, tok: OcrToken | None, share: float, conf: float
) -> CellEvidence:
    return CellEvidence(
        row=0,
        column="",
        source=source,
        mark_box=box,
        text=tok.text if tok is not None else None,
        geometry_value=share,
        confidence=conf,
    )
