"""Line chart to table: category positions from markers or from evenly spaced labels, one
series per stroke colour, vertex values read on the value axis or from printed labels."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.headers import colour_names
from chartproof.reader.perception.labels import (
    assign_category_labels,
    fill_skipped_labels,
)
from chartproof.reader.perception.lines import (
    Vertex,
    line_extent,
    marker_centres,
    tick_marks,
    vertices,
)
from chartproof.reader.perception.records import Box, CellEvidence, ChartReading, OcrToken
from chartproof.reader.perception.scene import (
    CellValue,
    Scene,
    make_table,
    scene_reading,
    series_names,
)
from chartproof.reader.perception.upright_labels import upright_row
from chartproof.reader.perception.values import Anchor, match_labels, reconcile

__all__ = ["category_positions", "label_x", "line_masks", "read_lines"]


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


def _cluster_x(xs: list[float], tol: float) -> list[tuple[float, int]]:
    """(centre, size) of groups of nearby positions, left to right."""
    xs = sorted(xs)
    groups: list[list[float]] = []
    for x in xs:
        if groups and x - groups[-1][-1] <= tol:
            groups[-1].append(x)
        else:
            groups.append([x])
    return [(float(np.mean(g)), len(g)) for g in groups]


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


def _lattice(xs: Sequence[float], pitch: float) -> tuple[float, float, list[int]] | None:
    """Least-squares (origin, pitch) of positions lying on an even grid of about `pitch`,
    with each position's grid index; None when they do not fit one."""
    if len(xs) < 2 or pitch <= 0:
        return None
    # Each gap counts its own steps: an approximate pitch would drift over a long axis.
    idx = [0, *itertools.accumulate(round(g / pitch) for g in np.diff(xs))]
    if len(set(idx)) < 2:
        return None
    from chartproof.reader.perception.axes import line_fit

    step, origin = line_fit(np.array(idx, dtype=float), np.array(xs, dtype=float))
    if not step > 0:
        return None
    res = np.abs(origin + step * np.array(idx) - np.array(xs))
    if float(res.max()) > 0.15 * step + 1.0:
        return None
    return float(origin), float(step), idx


def _marker_positions(markers: list[list[tuple[float, float, float]]]) -> list[float]:
    """Category positions from markers: places holding a marker of most series set the grid;
    places holding fewer (the other markers hidden under the top one, or a series that
    starts late) join when they sit on it next to a known place."""
    clusters = _cluster_x([m[0] for ms in markers for m in ms], 4.0)
    need = max(1, (len(markers) + 1) // 2)
    strong = _regular([x for x, n in clusters if n >= need])
    if len(strong) < 2:
        return strong
    fit = _lattice(strong, float(np.median(np.diff(strong))))
    if fit is None:
        return strong
    origin, step, idx = fit
    seen: dict[int, float] = {}
    for x, _n in clusters:
        j = round((x - origin) / step)
        if abs(x - (origin + j * step)) <= 0.15 * step + 1.0:
            seen.setdefault(j, x)
    lo, hi = min(idx), max(idx)
    # One place may be missing (its marker under a value label) between two found ones.
    while lo - 1 in seen or lo - 2 in seen:
        lo -= 1
    while hi + 1 in seen or hi + 2 in seen:
        hi += 1
    return [seen.get(j, origin + j * step) for j in range(lo, hi + 1)]


def _typical(markers: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """A series draws all its markers one size: blobs far smaller than most (where the
    stroke thickens at a sharp bend) are not markers."""
    if len(markers) < 3:
        return markers
    size = float(np.median([d for _, _, d in markers]))
    return [m for m in markers if m[2] >= 0.6 * size]


def _below_tokens(
    tokens: Sequence[OcrToken], bottom: float, x_lo: float, x_hi: float
) -> list[OcrToken]:
    """The first text row under the lines within their columns: the category labels. Specks
    the OCR reads off tick marks or markers ("1", "T") are far shorter than the labels."""
    below = [
        t
        for t in tokens
        if not t.vertical and t.box[1] >= bottom - 2 and t.box[2] >= x_lo and t.box[0] <= x_hi
    ]
    if not below:
        return []
    tall = float(np.median([t.height for t in below]))
    below = [t for t in below if not _speck(t, tall)]
    top = min(t.box[1] for t in below)
    th = float(np.median([t.height for t in below]))
    return sorted((t for t in below if t.box[1] <= top + 0.6 * th), key=lambda t: t.cx)


def _axis_labels(scene: Scene, bottom: float, x_lo: float, x_hi: float) -> list[OcrToken]:
    """The numeric x axis's tick labels (years) when they run under the lines across most of
    their width: point labels printed under the lowest points come first below the lines,
    but they are values, not categories."""
    axis = scene.x_axis
    if axis is None or len(axis.ticks) < 3:
        return []
    ticks = sorted(axis.ticks, key=lambda t: t.cx)
    if any(t.box[1] < bottom - 2 for t in ticks):
        return []
    if ticks[-1].cx - ticks[0].cx < 0.6 * (x_hi - x_lo):
        return []
    return ticks


def _speck(tok: OcrToken, text_height: float) -> bool:
    """A tick mark or a marker the OCR read as a character: far shorter than the text."""
    return tok.height < 0.6 * text_height and len(tok.text.strip()) <= 2


def _stroke_extent(mask: np.ndarray) -> tuple[int, int] | None:
    """First and last column of a line's stroke: the longest stretch of columns holding its
    pixels with no gap wider than a crossing line or a label leaves, so that specks of its
    colour elsewhere (a legend swatch, antialiased text edges) stay out."""
    cols = np.nonzero(mask.sum(axis=0) >= 1)[0]
    if len(cols) == 0:
        return None
    gap = max(12, int(0.05 * mask.shape[1]))
    runs: list[list[int]] = [[int(cols[0]), int(cols[0])]]
    for c in cols[1:]:
        if c - runs[-1][1] <= gap:
            runs[-1][1] = int(c)
        else:
            runs.append([int(c), int(c)])
    lo, hi = max(runs, key=lambda r: r[1] - r[0])
    return (lo, hi) if hi - lo >= 6 else None


def _centre_rows(mask: np.ndarray) -> dict[int, float]:
    """Column → middle row of the stroke, for columns crossed by one thin run only."""
    out: dict[int, float] = {}
    cols = np.nonzero(mask.any(axis=0))[0]
    for x in cols:
        ys = np.nonzero(mask[:, x])[0]
        if len(ys) and ys[-1] - ys[0] + 1 == len(ys) and len(ys) <= 8:
            out[int(x)] = float(ys.mean())
    return out


def _bend_residual(centres: list[dict[int, float]], xs: Sequence[float]) -> float:
    """How far the strokes stray from straight segments between the positions `xs` (px, the
    90th percentile over segments): a polyline is straight between its vertices."""
    per_segment: list[float] = []
    for cen in centres:
        for a, b in itertools.pairwise(xs):
            ia, ib = round(a), round(b)
            ya = [cen[x] for x in range(ia - 1, ia + 2) if x in cen]
            yb = [cen[x] for x in range(ib - 1, ib + 2) if x in cen]
            inner = [x for x in range(ia + 2, ib - 1) if x in cen]
            if not ya or not yb or len(inner) < max(2, 0.5 * (ib - ia - 3)):
                continue
            y0, y1 = float(np.mean(ya)), float(np.mean(yb))
            dev = [abs(cen[x] - (y0 + (y1 - y0) * (x - a) / (b - a))) for x in inner]
            per_segment.append(float(np.mean(dev)))
    if len(per_segment) < 3:
        return math.inf
    return float(np.percentile(per_segment, 90))


def _label_positions(
    masks: list[np.ndarray], label_xs: list[float], marker_xs: Sequence[float] = ()
) -> list[float] | None:
    """Category positions of lines without markers from evenly spaced tick labels: the
    lines' ends fix the first and last position; a dense axis may label only every k-th
    one, and k is the coarsest grid on which the strokes run straight between positions.
    With markers (`marker_xs`, some of them stray blobs), k is the finest grid whose
    places nearly all hold one."""
    if len(label_xs) < 2:
        return None
    # The labels kept may skip places unevenly (a numeric axis fit keeps the ticks whose
    # values fall in line: 0, 5, 7, 14, 16 of 0, 3, 5, 7, 10, 12, 14, 16), so their median
    # gap may span more than one label step; the narrowest gap is then tried.
    gaps = np.diff(label_xs)
    pitches = (float(np.median(gaps)), float(np.min(gaps)))
    fit = next((f for p in pitches if p > 0 and (f := _lattice(label_xs, p)) is not None), None)
    if fit is None:
        return None
    origin, label_step, _ = fit
    ends = [e for e in (_stroke_extent(m) for m in masks) if e is not None]
    if not ends:
        return None
    a, b = float(min(e[0] for e in ends)), float(max(e[1] for e in ends))
    centres = [_centre_rows(m) for m in masks]
    options: list[tuple[int, list[float], float]] = []
    # Grids whose ends miss the strokes' ends (a value label over the last point cuts the
    # stroke short): only markers can vouch for them.
    loose: list[tuple[int, list[float], float]] = []
    for k in range(1, 7):
        step = label_step / k
        if step < 5:
            break
        j0, j1 = round((a - origin) / step), round((b - origin) / step)
        if j1 - j0 < 1:
            continue
        # The lines start and end on positions (up to half the stroke width).
        off = max(abs(a - origin - j0 * step), abs(b - origin - j1 * step))
        xs = [origin + j * step for j in range(j0, j1 + 1)]
        if off > 0.2 * step + 2.0:
            loose.append((k, xs, math.inf))
            continue
        options.append((k, xs, _bend_residual(centres, xs)))
    marked = _marked_grid(sorted(options + loose, key=lambda o: o[0]), marker_xs)
    if marked is not None:
        return marked
    if not options:
        return None
    best = min(r for _, _, r in options)
    if not math.isfinite(best):
        return options[0][1]
    for _k, xs, r in options:
        if r <= best + 0.35:
            return xs
    return options[0][1]


def category_positions(masks: list[np.ndarray], label_xs: list[float]) -> list[float] | None:
    """Category positions of thin strokes `masks` under evenly spaced labels at `label_xs`,
    every position where the strokes bend when the axis labels only every k-th one (None
    when the labels are not evenly spaced or the strokes do not start and end on them)."""
    return _label_positions(masks, label_xs)


def _marked_grid(
    options: Sequence[tuple[int, list[float], float]], marker_xs: Sequence[float]
) -> list[float] | None:
    """The grid of places (k per label step, k rising) that the markers hold: the coarsest
    one most of whose places show a marker, refined to a k times finer one while the places
    it adds show markers at half that rate or more (markers on steep stretches may go
    unseen, stray blobs come in). A finer grid than the true one adds empty places, while
    straightness cannot tell them apart (any stroke is straight over a few pixels)."""
    if len(marker_xs) < 3:
        return None
    mx = np.sort(np.asarray(marker_xs, dtype=float))

    def held(xs: Sequence[float], tol: float) -> np.ndarray:
        j = np.clip(np.searchsorted(mx, xs), 1, len(mx) - 1)
        near = np.minimum(np.abs(mx[j - 1] - np.asarray(xs)), np.abs(mx[j] - np.asarray(xs)))
        out: np.ndarray = near <= tol
        return out

    chosen: tuple[int, list[float], float] | None = None  # (k, places, share held)
    for k, xs, _r in options:
        if len(xs) < 3:
            continue
        tol = max(1.5, 0.15 * (xs[1] - xs[0]))
        hit = held(xs, tol)
        if chosen is None:
            if float(hit.mean()) >= 0.6:
                chosen = (k, xs, float(hit.mean()))
            continue
        if k % chosen[0]:
            continue
        coarse = np.asarray(chosen[1])
        new = np.array([float(np.min(np.abs(coarse - x))) > tol for x in xs])
        if new.any() and float(hit[new].mean()) >= 0.5 * chosen[2]:
            # The finer grid reaches at least as far as the coarser one it refines.
            step = xs[1] - xs[0]
            lo = xs[0] - step * max(0, round((xs[0] - coarse[0]) / step))
            hi = xs[-1] + step * max(0, round((coarse[-1] - xs[-1]) / step))
            places = [lo + i * step for i in range(round((hi - lo) / step) + 1)]
            chosen = (k, places, float(hit[~new].mean()) if (~new).any() else chosen[2])
    return chosen[1] if chosen is not None else None


def _positions(
    masks: list[np.ndarray],
    markers: list[list[tuple[float, float, float]]],
    labels: list[OcrToken],
    image: np.ndarray,
    bottom: float,
) -> list[float]:
    n_labels = len(labels)
    counts = [len(m) for m in markers]
    # Markers of one series alone fix the places when it shows one at every label (the
    # others drawn without, or their joints too thin to look like markers).
    marked = bool(counts) and (min(counts) >= 2 or max(counts) >= max(3, n_labels))
    # The markers seen, some hidden under value labels, some stray blobs: they still tell
    # which grid of places between the labels is the drawn one.
    marker_xs = [m[0] for ms in markers for m in ms]
    if marked:
        xs = _marker_positions(markers)
        if n_labels < 2 or (n_labels <= len(xs) and _even(xs)):
            return xs
        if n_labels <= len(xs) and min(counts) >= 2:
            # Uneven places: stray blobs of a series colour joined the markers; the evenly
            # spaced tick labels give the places instead when they can.
            by_labels = _label_positions(masks, [label_x(t) for t in labels], marker_xs)
            return by_labels if by_labels is not None else xs
    by_labels = _label_positions(masks, [label_x(t) for t in labels], marker_xs)
    if by_labels is not None:
        return by_labels
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


def label_x(tok: OcrToken) -> float:
    """Where a category label points on the x axis: its centre, or for a label turned
    about 45° the end nearest the axis (the upper right end of text rising rightwards)."""
    if tok.angle > 20:
        return tok.box[2] - 0.25 * tok.height
    if tok.angle < -20:
        return tok.box[0] + 0.25 * tok.height
    return tok.cx


def _even(xs: Sequence[float]) -> bool:
    """Whether positions are evenly spaced (within a fifth of their median gap)."""
    if len(xs) < 3:
        return True
    gaps = np.diff(sorted(xs))
    return float(np.ptp(gaps)) <= 0.2 * float(np.median(gaps)) + 1.0


def read_lines(
    scene: Scene, layer_ids: list[int], titles: tuple[str | None, str | None, str | None]
) -> ChartReading | None:
    """The table behind a line chart drawn in the `layer_ids` colours (None when no vertex
    position can be found)."""
    masks = line_masks(scene, layer_ids)
    markers = [_typical(marker_centres(m)) for m in masks]
    bottom = max(float(np.nonzero(m.any(axis=1))[0].max()) for m in masks if m.any())
    axis = scene.y_axis
    axis_ids = {id(t) for t in axis.ticks} | {id(t) for t in axis.rejected} if axis else set()
    legend_ids = scene.legend_tokens()
    free = [t for t in scene.tokens if id(t) not in axis_ids and id(t) not in legend_ids]
    spans = [e for e in (_stroke_extent(m) for m in masks) if e is not None]
    x_lo = min((e[0] for e in spans), default=0) - 0.5 * scene.text_height
    x_hi = max((e[1] for e in spans), default=scene.size[0]) + 0.5 * scene.text_height
    below = (
        _axis_labels(scene, bottom, x_lo, x_hi)
        or upright_row(free, bottom, x_lo, x_hi)
        or _below_tokens(free, bottom, x_lo, x_hi)
    )
    xs = _positions(masks, markers, below, scene.image, bottom)
    if not xs:
        return None
    pitch = float(np.median(np.diff(xs))) if len(xs) > 1 else 40.0
    verts = [
        vertices(m, xs, mk, [o for j, om in enumerate(markers) if j != k for o in om])
        for k, (m, mk) in enumerate(zip(masks, markers, strict=True))
    ]
    verts = _under_labels(scene, layer_ids, masks, markers, xs, verts)
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
    label_toks = [t for t in free if id(t) not in used and not _speck(t, th)]
    # The category labels hang under the x axis, which lies at the value axis's lowest tick
    # when that is below the lowest line (lines rarely touch the axis).
    axis_bottom = bottom
    if axis is not None and axis.ticks:
        axis_bottom = max(bottom, max(t.cy for t in axis.ticks))
    texts, _ = assign_category_labels(label_toks, frame, xs, -axis_bottom, pitch)
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
    if not scene.legend:
        coloured = colour_names(scene, layer_ids)
        if coloured is not None:
            names = [c or n for c, n in zip(coloured, names, strict=True)]
    table, conf, evidence = make_table(titles[1] or "Category", texts, names, rows)
    boxes = {
        name: tuple(None if v is None else _vbox(v, th) for v in vs)
        for name, vs in zip(names, verts, strict=True)
    }
    colors = {name: scene.layers[li].hex for name, li in zip(names, layer_ids, strict=True)}
    return scene_reading(
        scene,
        titles,
        "line",
        table,
        conf,
        evidence,
        series_colors=colors,
        mark_boxes=boxes,
        value_axis=axis,
    )


def _under_labels(
    scene: Scene,
    layer_ids: Sequence[int],
    masks: Sequence[np.ndarray],
    markers: Sequence[Sequence[tuple[float, float, float]]],
    xs: Sequence[float],
    verts: list[list[Vertex | None]],
) -> list[list[Vertex | None]]:
    """Vertices hidden under a value label's box: looked for again with the line's pixels
    inside text boxes put back (the text mask cuts the line where a label overlaps it), for
    coloured lines only, whose pixels glyphs in text grey do not share."""
    out = [list(vs) for vs in verts]
    for k, li in enumerate(layer_ids):
        lay = scene.layers[li]
        if lay.chroma < 25 or all(v is not None for v in verts[k]):
            continue
        full = masks[k] | (lay.mask & scene.text)
        others = [o for j, om in enumerate(markers) if j != k for o in om]
        again = vertices(full, xs, markers[k], others)
        out[k] = [v if v is not None else a for v, a in zip(verts[k], again, strict=True)]
    return out


def _vbox(v: Vertex, th: float) -> Box:
    r = max(3.0, 0.3 * th)
    return (v.x - r, v.y - r, v.x + r, v.y + r)


def _cell(
    v: Vertex | None, axis: object, tok: OcrToken | None, axis_range: float, th: float
) -> CellValue:
    from chartproof.reader.perception.records import AxisFit

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
