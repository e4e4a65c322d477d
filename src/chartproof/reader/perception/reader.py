"""Chart image to `ChartReading`: find text, colours, legend and axes, decide what kind of chart
it is from the marks present, and hand over to the reader of that chart kind."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.area_reader import area_layers, read_area
from chartproof.reader.perception.axes import find_axes, raised_powers, snap_ticks
from chartproof.reader.perception.bar_reader import read_bars
from chartproof.reader.perception.bars import BarLayout, RectMemo, find_bar_layouts
from chartproof.reader.perception.box_reader import read_boxes
from chartproof.reader.perception.gridlines import snap_gridlines
from chartproof.reader.perception.image import at_text_height
from chartproof.reader.perception.legend import find_legend, legend_region
from chartproof.reader.perception.line_reader import line_masks, read_lines
from chartproof.reader.perception.lines import inside_frame, stroke_score
from chartproof.reader.perception.on_marks import off_marks
from chartproof.reader.perception.palette import (
    ColorLayer,
    background_color,
    clip_box,
    color_layers,
    text_mask,
)
from chartproof.reader.perception.pie import find_disk, read_wedges
from chartproof.reader.perception.pie_reader import read_pie
from chartproof.reader.perception.plot_extent import plot_columns, solid_fill
from chartproof.reader.perception.records import (
    Box,
    ChartReading,
    OcrToken,
    ReadingError,
)
from chartproof.reader.perception.scatter_reader import read_dot_lines, read_scatter
from chartproof.reader.perception.scene import Scene
from chartproof.reader.perception.split_text import split_at_marks
from chartproof.reader.perception.thick_lines import thick_stroke, thinned
from chartproof.reader.perception.upright_labels import hangs_below

__all__ = ["read_chart"]


def read_chart(image: np.ndarray, tokens: Sequence[OcrToken]) -> ChartReading:
    """Recover the data table of a chart image (RGB uint8) given its OCR tokens.

    A chart whose text runs taller than `image.TEXT_HEIGHT_MAX` is read scaled down to the
    text height derendering is tuned for; the reading's pixel coordinates (tokens, mark
    boxes, `size`) are then those of the scaled image.

    Raises ReadingError when no bars, lines, wedges or points can be found.
    """
    if image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 16:
        raise ReadingError(f"image of shape {image.shape} is too small to hold a chart")
    # Charts exported at a high resolution are read at the scale of their text.
    image, tokens = at_text_height(image, tokens)
    h, w = image.shape[:2]
    image, noisy = denoise(image)
    bg = background_color(image)
    layers = tuple(color_layers(image, text_mask((h, w), tokens), bg, noisy=noisy))
    text = [t for t in tokens if not (_is_marker(t, layers) or _is_dash(t, layers))]
    toks = tuple(raised_powers(text, image, bg))
    toks = tuple(split_at_marks(toks, layers))
    tmask = text_mask((h, w), toks)
    # Gridlines and frames are straight lines of one grey: never a series or a swatch.
    straight = [_straight(lay.mask) for lay in layers]
    # Bars found before the legend is known (a short bar next to its value label looks like
    # a swatch next to a legend label); with no legend, they are the chart's bars.
    labels = [t.box for t in toks if not t.vertical]
    memo = RectMemo()
    unlegended = find_bar_layouts(layers, labels=labels, memo=memo) if layers else (None, None)
    legend = find_legend(
        toks,
        [lay for lay, s in zip(layers, straight, strict=True) if not s],
        tmask,
        _bar_boxes(unlegended),
    )
    # Numbers printed inside bars are value labels, not ticks (Pew prints no axis).
    y_axis, x_axis = find_axes(off_marks(toks, image, bg))
    y_axis = snap_ticks(y_axis, image, bg) if y_axis is not None else None
    x_axis = snap_ticks(x_axis, image, bg) if x_axis is not None else None
    y_axis = snap_gridlines(y_axis, image, bg) if y_axis is not None else None
    x_axis = snap_gridlines(x_axis, image, bg) if x_axis is not None else None
    th = float(np.median([t.height for t in toks])) if toks else 12.0
    scene = Scene(
        image=image,
        tokens=toks,
        layers=layers,
        legend=legend,
        legend_box=legend_region(legend),
        text=tmask,
        y_axis=y_axis,
        x_axis=x_axis,
        text_height=th,
    )
    if not layers:
        raise ReadingError("no chart found: the image has no coloured marks")
    exclude: list[Box] = [scene.legend_box] if scene.legend_box is not None else []
    ticks = max(
        len(y_axis.ticks) if y_axis else 0,
        len(x_axis.ticks) if x_axis else 0,
    )
    if ticks < 3:
        pie = _try_pie(scene, exclude)
        if pie is not None:
            return pie
    # a dark grey filled region is an area (ggplot's default fill), not text or axes
    candidates = [
        i
        for i, lay in enumerate(layers)
        if (not _is_ink(lay) or solid_fill(lay, (w, h))) and not straight[i]
    ]
    areas = area_layers(scene, candidates, plot_columns(scene, straight))
    if areas:
        reading = read_area(scene, areas, _titles(scene, None))
        if reading is not None:
            return reading
    boxes = read_boxes(scene, bg, _titles(scene, None))
    if boxes is not None:
        return boxes
    dots = read_dot_lines(scene, _titles(scene, None))
    if dots is not None:
        return dots
    layout = _best_bars(scene, exclude, None if exclude else unlegended, memo)
    scene, dark = _with_dark_lines(scene, layout)
    lines = _line_layers(scene, layout, dark)
    titles = _titles(scene, layout)
    if layout is not None and _bars_win(layout, scene, lines):
        return read_bars(scene, layout, titles)
    if lines:
        # the bars lost: their orientation (gridlines taken for bars) must not swap titles
        line_titles = _titles(scene, None) if layout is not None else titles
        reading = read_lines(thinned(scene, lines), lines, line_titles)
        if reading is not None:
            return reading
    if y_axis is not None and x_axis is not None:
        reading = read_scatter(scene, titles)
        if reading is not None:
            return reading
    if ticks >= 3:
        pie = _try_pie(scene, exclude)
        if pie is not None:
            return pie
    raise ReadingError("no chart found: no bars, lines, pie wedges or points were detected")


_MARKER_TEXT = frozenset({"o", "0", "q", "d", "●", "•", ".", "°"})


def _is_marker(tok: OcrToken, layers: Sequence[ColorLayer]) -> bool:
    """The OCR reads round line markers as "O": a one-letter token whose middle is filled
    with one drawn colour is a marker, not text."""
    if tok.text.strip().lower() not in _MARKER_TEXT:
        return False
    x0, y0, x1, y1 = tok.box
    w, h = x1 - x0, y1 - y0
    cx0, cx1 = int(x0 + 0.3 * w), int(np.ceil(x1 - 0.3 * w))
    cy0, cy1 = int(y0 + 0.3 * h), int(np.ceil(y1 - 0.3 * h))
    if cx1 <= cx0 or cy1 <= cy0:
        return False
    for lay in layers:
        if _is_ink(lay):
            continue
        if lay.mask[cy0:cy1, cx0:cx1].mean() >= 0.7:
            return True
    return False


_DASH_TEXT = frozenset({"1", "l", "i", "|", "-", "_", "—", "–", "~"})


def _is_dash(tok: OcrToken, layers: Sequence[ColorLayer]) -> bool:
    """The OCR may read a short horizontal stroke (a legend's line swatch, a line's flat
    stretch) as "1" or "-": a one-character token whose box holds a drawn colour running
    across most of its width and at least twice as wide as tall is that stroke, not text (a
    "1" printed in a series colour is taller than wide)."""
    if tok.text.strip().lower() not in _DASH_TEXT:
        return False
    if not layers:
        return False
    h, w = layers[0].mask.shape
    x0, y0, x1, y1 = clip_box(tok.box, w, h)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return False
    for lay in layers:
        if _is_ink(lay):
            continue
        ys, xs = np.nonzero(lay.mask[y0:y1, x0:x1])
        if len(xs) < 3:
            continue
        wide, tall = int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1
        if wide >= 0.6 * (x1 - x0) and wide >= 2 * tall:
            return True
    return False


def _bar_boxes(found: tuple[BarLayout | None, BarLayout | None]) -> list[Box]:
    """Boxes of the bars of the better of the layouts `found` (`find_bar_layouts`)."""
    layouts = [f for f in found if f is not None]
    if not layouts:
        return []
    best = max(layouts, key=lambda f: (f.score * len(f.bars), len(f.bars)))
    # A handful of "bars" on one edge may be the legend's own swatches.
    return [b.box for b in best.bars] if len(best.bars) >= 4 else []


def denoise(image: np.ndarray) -> tuple[np.ndarray, bool]:
    """Median-filter an image whose flat areas are grainy (pixel noise), since colour layers
    need flat colours; returns the image and whether it was noisy. A clean render passes
    through unchanged."""
    import cv2

    small = np.ascontiguousarray(image[::2, ::2])
    filtered = cv2.medianBlur(small, 3)
    diff = np.abs(small.astype(np.int16) - filtered.astype(np.int16)).max(axis=2)
    grain = float(np.median(diff))
    if grain < 2.0:
        return image, False
    # A 3×3 median keeps two-pixel line strokes that a 5×5 one would erase.
    out = cv2.medianBlur(np.ascontiguousarray(image), 3)
    if grain >= 6:
        out = cv2.medianBlur(out, 3)
    return np.ascontiguousarray(out), True


def _try_pie(scene: Scene, exclude: list[Box]) -> ChartReading | None:
    ex = np.zeros(scene.text.shape, dtype=bool)
    for b in exclude:
        x0, y0, x1, y1 = (round(v) for v in b)
        ex[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = True
    marks = [lay for lay in scene.layers if not _is_ink(lay)]
    disk = find_disk(marks, ex)
    if disk is None:
        return None
    wedges = read_wedges(scene.image, scene.layers, disk, ex)
    wedges = [w for w in wedges if not _is_ink(scene.layers[w.layer])]
    if len(wedges) < 2:
        return None
    total = sum(w.sweep for w in wedges)
    if total < 300:
        return None
    # Renormalise: seams and text gaps were given to neighbours, so shares sum to ~1.
    wedges = [type(w)(layer=w.layer, start=w.start, sweep=w.sweep * 360.0 / total) for w in wedges]
    return read_pie(scene, disk, wedges, _titles(scene, None))


def _is_ink(lay: ColorLayer) -> bool:
    """Dark greys (text, axes, spines) and faint greys (gridlines, blurred edges): not data
    marks."""
    return lay.chroma < 25 and (lay.luma < 90 or lay.luma > 170)


def _light_grey(lay: ColorLayer) -> bool:
    """A mid or light grey: gridlines and antialiased edges, but also a series Statista
    draws in grey; `_is_stroke` keeps only the ones that form a line."""
    return lay.chroma < 25 and 150 <= lay.luma <= 225


def _best_bars(
    scene: Scene,
    exclude: list[Box],
    found: tuple[BarLayout | None, BarLayout | None] | None = None,
    memo: RectMemo | None = None,
) -> BarLayout | None:
    """The better of the bar layouts of the scene's layers outside `exclude` (`found`
    already, when given: `find_bar_layouts`' result on them; `memo`, its rectangles)."""
    if found is None:
        labels = [t.box for t in scene.tokens if not t.vertical]
        found = find_bar_layouts(list(scene.layers), exclude, labels=labels, memo=memo)
    cands = [f for f in found if f is not None and len(f.bars) >= 1]
    if not cands:
        return None
    return max(cands, key=lambda f: (f.score * len(f.bars), len(f.bars)))


def _line_layers(scene: Scene, layout: BarLayout | None, dark: Sequence[int] = ()) -> list[int]:
    # One lone "bar" is a thick bit of a line (a marker, a flat stretch), not a bar series.
    bars = layout.bars if layout is not None and len(layout.bars) >= 2 else ()
    bar_layers = {b.layer for b in bars}
    ids = [
        i
        for i, lay in enumerate(scene.layers)
        if not _is_ink(lay) or i in dark or (_light_grey(lay) and not _halo(scene.layers, i))
    ]
    masks = line_masks(scene, ids)
    return [
        li
        for li, m in zip(ids, masks, strict=True)
        if li not in bar_layers
        and (
            _is_stroke(m, scene.size[0], m | (scene.layers[li].mask & scene.text))
            or thick_stroke(m, scene.size[0], _straight(m))
        )
    ]


def _is_stroke(m: np.ndarray, w: int, under_text: np.ndarray | None = None) -> bool:
    """A line series: thin, spanning a good part of the width, not a straight rule.
    `under_text` is the mask with the pixels under text boxes put back: value labels over
    a line cut it up, but the columns it crosses there still count as covered."""
    if m.sum() < 30:
        return False
    cols = np.nonzero(m.any(axis=0))[0]
    if len(cols) == 0 or cols[-1] - cols[0] < 0.15 * w:
        return False
    coverage, thin = stroke_score(m)
    if under_text is not None:
        coverage = max(coverage, stroke_score(under_text)[0])
    # Markers thicken a line: with a marker at every vertex of a dense series a third of
    # its pixels still lie on the thin stroke between them.
    return coverage >= 0.6 and thin >= 0.33 and not _straight(m)


def _with_dark_lines(scene: Scene, layout: BarLayout | None) -> tuple[Scene, list[int]]:
    """Black (or near-black) line series share their colour with the axes and the text: such
    a layer keeps only its pixels inside the plot frame, and is read as a line when those
    form one. Returns the scene with those layers narrowed, and their indices."""
    bar_layers = {b.layer for b in layout.bars} if layout is not None else set()
    layers = list(scene.layers)
    dark: list[int] = []
    for i, lay in enumerate(layers):
        if i in bar_layers or lay.chroma >= 25 or lay.luma >= 90:
            continue
        (m,) = line_masks(scene, [i])
        inner = inside_frame(m)
        if not _is_stroke(inner, scene.size[0]):
            continue
        layers[i] = ColorLayer(rgb=lay.rgb, mask=inner, count=int(inner.sum()))
        dark.append(i)
    if not dark:
        return scene, []
    return replace(scene, layers=tuple(layers)), dark


def _straight(mask: np.ndarray) -> bool:
    """Gridlines, spines and frames: thin lines, nearly all on full rows or full columns."""
    import cv2

    total = float(np.count_nonzero(mask))
    if total == 0:
        return False
    thick = cv2.erode(mask.astype(np.uint8), np.ones((5, 5), np.uint8))
    if cv2.countNonZero(thick) > 0.1 * total:
        return False
    return bool(np.count_nonzero(_on_rules(mask)) > 0.7 * total)


def _on_rules(mask: np.ndarray) -> np.ndarray:
    """The pixels of `mask` on rows or columns that run across half its extent or more."""
    rows = mask.sum(axis=1)
    cols = mask.sum(axis=0)
    width = max(1, int(np.count_nonzero(cols)))
    height = max(1, int(np.count_nonzero(rows)))
    full_rows = rows >= 0.5 * width
    full_cols = cols >= 0.5 * height
    out: np.ndarray = mask & (full_rows[:, None] | full_cols[None, :])
    return out


def _halo(layers: Sequence[ColorLayer], i: int) -> bool:
    """A light grey made of the soft edges of the drawn strokes, not a series: a chart scaled
    down from a print export blends every edge with the background, and those tints gather
    in the grey nearest to them (the gridlines' grey, or one of its own). Off its straight
    rules nearly all its pixels lie within 2 px of a darker colour (series, text, axes); a
    grey series only touches the others where it crosses them."""
    import cv2

    rest = layers[i].mask & ~_on_rules(layers[i].mask)
    n = int(np.count_nonzero(rest))
    if n < 30:
        return False
    drawn = np.zeros(rest.shape, dtype=np.uint8)
    for lay in layers:
        if lay.luma < layers[i].luma - 20:  # the strokes, text and axes a tint can edge
            drawn[lay.mask] = 1
    near = cv2.dilate(drawn, np.ones((5, 5), np.uint8)).astype(bool)
    return int(np.count_nonzero(rest & near)) >= 0.6 * n


def _bars_win(layout: BarLayout, scene: Scene, lines: list[int]) -> bool:
    area = sum(b.span.width * b.span.length for b in layout.bars)
    if not lines:
        return len(layout.bars) >= 1 and area >= 60
    line_px = sum(int(scene.layers[i].mask.sum()) for i in lines)
    return len(layout.bars) >= 2 and area > 1.5 * line_px


def _titles(scene: Scene, layout: BarLayout | None) -> tuple[str | None, str | None, str | None]:
    """(title, x title, y title) from the text around the plot."""
    toks = scene.tokens
    if not toks:
        return None, None, None
    h = scene.size[1]
    axis_toks: list[OcrToken] = []
    for ax in (scene.y_axis, scene.x_axis):
        if ax is not None:
            axis_toks.extend(ax.ticks)
    top_marks = min((b.box[1] for b in layout.bars), default=h) if layout else h
    top_axis = min((t.box[1] for t in axis_toks), default=h)
    plot_top = min(top_marks, top_axis)
    legend_ids = scene.legend_tokens()
    above = [
        t for t in toks if t.box[3] < plot_top - 2 and not t.vertical and id(t) not in legend_ids
    ]
    title = None
    if above:
        first = min(above, key=lambda t: t.box[1])
        row = sorted(
            (t for t in above if abs(t.cy - first.cy) < 0.6 * first.height), key=lambda t: t.box[0]
        )
        title = " ".join(t.text for t in row)
    vert = [
        t
        for t in toks
        if t.vertical and t.cx < scene.size[0] / 2 and not hangs_below(t, scene.y_axis)
    ]
    side = " ".join(t.text for t in sorted(vert, key=lambda t: -t.cy)) if vert else None
    bottom = _bottom_title(scene, legend_ids)
    if layout is not None and layout.orientation == "horizontal":
        # Horizontal bars: categories run down the side, values along the bottom.
        return title, side, bottom
    return title, bottom, side


def _bottom_title(scene: Scene, legend_ids: set[int]) -> str | None:
    """The axis title under the plot: the last text row at the bottom, below at least one
    other row (the tick labels), holding a word or two and no number."""
    w, h = scene.size
    low = [t for t in scene.tokens if not t.vertical and id(t) not in legend_ids and t.cy > 0.6 * h]
    if not low:
        return None
    rows: list[list[OcrToken]] = []
    for t in sorted(low, key=lambda t: t.cy):
        if rows and abs(t.cy - rows[-1][-1].cy) < 0.5 * t.height:
            rows[-1].append(t)
        else:
            rows.append([t])
    last = rows[-1]
    # Rotated tick labels stand on one top line but their boxes reach far down.
    above = [t for r in rows[:-1] for t in r]
    if len(last) > 2 or len(above) < 2 or max(t.box[3] for t in above) > last[0].cy:
        return None
    if any(parse_label_number(t.text) is not None or abs(t.angle) > 5 for t in last):
        return None
    centre = sum(t.cx for t in last) / len(last)
    if not 0.2 * w <= centre <= 0.8 * w:
        return None
    # A title is one phrase: pieces far apart ("Additional Information" at the left edge,
    # "Show source" at the right) are a page footer.
    ordered = sorted(last, key=lambda t: t.box[0])
    if any(
        b.box[0] - a.box[2] > 3 * max(a.height, b.height) for a, b in itertools.pairwise(ordered)
    ):
        return None
    return " ".join(t.text for t in sorted(last, key=lambda t: t.box[0]))
