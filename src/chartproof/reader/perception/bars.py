"""Bars: filled axis-aligned rectangles of one colour that stand on a common baseline, grouped
into category slots (side by side = grouped, end to end = stacked)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from chartproof.reader.perception.geometry import Frame, Orientation, Span
from chartproof.reader.perception.palette import ColorLayer, clip_box
from chartproof.reader.perception.pixels import components, trimmed
from chartproof.reader.perception.records import Box

__all__ = ["Bar", "BarLayout", "RectMemo", "find_bar_layouts", "find_bars", "group_slots"]


@dataclass(frozen=True)
class Bar:
    """One bar (or one segment of a stacked bar) in the canonical frame."""

    layer: int
    """Index of its colour layer."""
    span: Span
    """Its extent: u across, v along the value direction."""
    box: Box
    """Its image box."""


@dataclass(frozen=True)
class BarLayout:
    """Bars found for one orientation, with their baseline."""

    orientation: Orientation
    """Direction of the bars."""
    bars: tuple[Bar, ...]
    """All bars kept."""
    baseline: float
    """Canonical v of the common baseline."""
    stacked: bool
    """Whether bars sit end to end within a slot."""
    score: float
    """Share of rectangle area that stands on the baseline (orientation evidence)."""


Rect = tuple[int, int, int, int, float]
"""A filled rectangle of a mask: x0, y0, x1, y1 and the share of it filled (`_rects`)."""


_BLOCK = np.ones((2, 2), np.uint8)


def _rects(mask: np.ndarray, orientation: Orientation) -> list[Rect]:
    import cv2

    # Gridlines drawn over bars cut them across their length: close along the bar only.
    k = np.ones((5, 1), np.uint8) if orientation == "vertical" else np.ones((1, 5), np.uint8)
    # Work inside the colour's bounding box, with a margin the closing cannot reach across
    # (2 px of dilation, then 2 of erosion): the same components, on fewer pixels.
    cut = trimmed(mask, margin=6)
    if cut is None:
        return []
    sub, oy, ox = cut
    m = cv2.morphologyEx(sub.astype(np.uint8), cv2.MORPH_CLOSE, k)
    # Every rectangle kept below holds a 2 x 2 block of set pixels, so a colour that has
    # none (the antialiased fringe of a line, a hairline) is not labelled at all. (A box
    # 85 % full and 12 px or more without one is 3 px thick and holed at every other
    # pixel along its middle, and the closing fills those holes either way.)
    if not cv2.countNonZero(cv2.erode(m, _BLOCK)):
        return []
    n, lab, stats, _ = components(m, 4)
    stats[:, cv2.CC_STAT_LEFT] += ox
    stats[:, cv2.CC_STAT_TOP] += oy
    out = []
    big = stats[:, cv2.CC_STAT_AREA] >= 12
    big &= (stats[:, cv2.CC_STAT_WIDTH] >= 2) & (stats[:, cv2.CC_STAT_HEIGHT] >= 2)
    for i in np.flatnonzero(big[1:n]) + 1:  # specks (most components) skipped in bulk
        x, y, w, h, area = (int(v) for v in stats[i])
        fill = area / float(w * h)
        if fill < 0.97 and area >= 40:
            tx, ty, tw, th, ta = _trimmed(lab[y - oy : y - oy + h, x - ox : x - ox + w] == i, x, y)
            # Only specks may go: a flat stretch of a line cut out of it is no bar.
            if ta >= 0.8 * area:
                x, y, w, h, area = tx, ty, tw, th, ta
                fill = area / float(w * h)
        if fill < 0.85:
            continue
        out.append((x, y, x + w, y + h, fill))
    return out


def _trimmed(sub: np.ndarray, x: int, y: int) -> tuple[int, int, int, int, int]:
    """(x, y, w, h, area) of a component with its sparse edge rows and columns cut off:
    specks of the bar's colour at a label's glyph edges, touching the bar, widen its box
    and lower its fill."""
    c0, c1, r0, r1 = 0, sub.shape[1], 0, sub.shape[0]
    # Columns, then rows within the kept columns (a speck row's count includes the bar's).
    for _ in range(2):
        cols = sub[r0:r1, c0:c1].sum(axis=0)
        c = np.nonzero(cols >= 0.5 * float(cols.max()))[0]
        if c.size < 2:
            return x, y, 0, 0, 0
        c0, c1 = c0 + int(c[0]), c0 + int(c[-1]) + 1
        rows = sub[r0:r1, c0:c1].sum(axis=1)
        r = np.nonzero(rows >= 0.5 * float(rows.max()))[0]
        if r.size < 2:
            return x, y, 0, 0, 0
        r0, r1 = r0 + int(r[0]), r0 + int(r[-1]) + 1
    area = int(sub[r0:r1, c0:c1].sum())
    return x + c0, y + r0, c1 - c0, r1 - r0, area


def find_bars(
    layers: Sequence[ColorLayer],
    orientation: Orientation,
    exclude: Sequence[Box] = (),
    min_thickness: int = 3,
    labels: Sequence[Box] = (),
) -> BarLayout | None:
    """Bars of every colour layer for one orientation, or None when none stand on a baseline.

    Rectangles inside `exclude` boxes (legend) are ignored. The baseline is the edge most
    bar area stands on; a rectangle is kept when it stands on it, or continues a stack that
    does. `labels` are text boxes: where one is printed inside a bar, its glyphs count as
    the bar's colour (a value label inside a stacked segment would otherwise cut it up).
    """
    masks = _bar_masks(layers, exclude, labels)
    return _find(layers, masks, orientation, exclude, min_thickness, labels)


@dataclass
class RectMemo:
    """A bar search kept for a second search on the same layers and labels with another
    `exclude` (read_chart searches before the legend is known, and again with the legend cut
    out): each layer's mask with the labels filled in, and the rectangles found in those
    masks. The second search cuts `exclude` out of copies of the masks it reaches and finds
    rectangles again only in those."""

    masks: list[np.ndarray] | None = None
    """Each layer's mask with the labels printed across its colour filled in, nothing cut."""
    rects: dict[tuple[int, str], list[Rect]] = field(default_factory=dict)
    """The rectangles of those masks, by layer index and orientation."""


def find_bar_layouts(
    layers: Sequence[ColorLayer],
    exclude: Sequence[Box] = (),
    min_thickness: int = 3,
    labels: Sequence[Box] = (),
    memo: RectMemo | None = None,
) -> tuple[BarLayout | None, BarLayout | None]:
    """`find_bars` for the vertical and then the horizontal orientation, each layer's mask
    (labels filled in, `exclude` cut out) made once for both. With a `memo` (`RectMemo`),
    the masks and rectangles of an earlier search on the same layers and labels serve again
    where `exclude` leaves a mask as it was."""
    cut: list[bool] = []
    if memo is None:
        masks = _bar_masks(layers, exclude, labels)
    else:
        if memo.masks is None:
            memo.masks = _bar_masks(layers, (), labels)
        masks, cut = _cut_out(memo.masks, exclude)
    rects = None if memo is None else memo.rects
    return (
        _find(layers, masks, "vertical", exclude, min_thickness, labels, rects, cut),
        _find(layers, masks, "horizontal", exclude, min_thickness, labels, rects, cut),
    )


def _cut_out(
    masks: Sequence[np.ndarray], exclude: Sequence[Box]
) -> tuple[list[np.ndarray], list[bool]]:
    """The `masks` with the `exclude` boxes cleared, each copied only when a box holds some of
    its pixels, and whether each was."""
    out, cut = [], []
    for mask in masks:
        m = mask
        for ex in exclude:
            x0, y0, x1, y1 = (round(v) for v in ex)
            box = (slice(max(0, y0), max(0, y1)), slice(max(0, x0), max(0, x1)))
            if m[box].any():
                m = m.copy() if m is mask else m
                m[box] = False
        out.append(m)
        cut.append(m is not mask)
    return out, cut


def _bar_masks(
    layers: Sequence[ColorLayer], exclude: Sequence[Box], labels: Sequence[Box]
) -> list[np.ndarray]:
    """Each layer's mask with the labels printed across its colour filled in (`_under_labels`)
    and the `exclude` boxes cut out."""
    printed = _merged(tuple(tuple(b) for b in labels))
    return _cut_out([_under_labels(lay.mask, printed) for lay in layers], exclude)[0]


def _find(
    layers: Sequence[ColorLayer],
    masks: Sequence[np.ndarray],
    orientation: Orientation,
    exclude: Sequence[Box],
    min_thickness: int,
    labels: Sequence[Box],
    memo: dict[tuple[int, str], list[Rect]] | None = None,
    fresh: Sequence[bool] = (),
) -> BarLayout | None:
    """`find_bars` on the layers' prepared `masks` (`_bar_masks`). With a `memo`
    (`RectMemo.rects`), the rectangles of each mask not `fresh` (cut since the memo was
    filled) come from it, or go into it."""
    frame = Frame(orientation)
    h, w = layers[0].mask.shape if layers else (0, 0)
    cand: list[Bar] = []
    thin: list[Bar] = []
    for li, mask in enumerate(masks):
        key = (li, orientation)
        if memo is None or fresh[li]:
            found = _rects(mask, orientation)
        elif key in memo:
            found = memo[key]
        else:
            found = memo[key] = _rects(mask, orientation)
        for x0, y0, x1, y1, _ in found:
            if (x1 - x0) > 0.9 * w and (y1 - y0) > 0.9 * h:
                continue
            box: Box = (float(x0), float(y0), float(x1), float(y1))
            bar = Bar(layer=li, span=frame.span(box), box=box)
            # A bar is at least a few pixels thick across; hairlines are axes or grid.
            if min(x1 - x0, y1 - y0) >= min_thickness:
                cand.append(bar)
            elif bar.span.width >= min_thickness:
                thin.append(bar)
    if not cand:
        return None
    cand.extend(_sandwiched(thin, cand))
    cand = _merge_split(cand, frame, exclude)
    cand = _join_across_text(cand, frame, _ink(layers, labels, (h, w)))
    ends = Counter(round(b.span.v0) for b in cand) + Counter(round(b.span.v1) for b in cand)
    base = float(_baseline(cand, ends))
    on_base = [b for b in cand if abs(b.span.v0 - base) <= 1.5 or abs(b.span.v1 - base) <= 1.5]
    if not on_base:
        return None
    kept = list(on_base)
    stacked = False
    rest = [b for b in cand if b not in on_base]
    grew = True
    while grew and rest:
        grew = False
        for b in list(rest):
            if any(_continues(b, k) for k in kept):
                kept.append(b)
                rest.remove(b)
                stacked = True
                grew = True
    total = sum(b.span.width * b.span.length for b in cand)
    based = sum(b.span.width * b.span.length for b in kept)
    # Bars of one chart have one width (grouped: one width per bar too); drop odd shapes.
    # The width is that of the bars on the baseline: thin stacked segments cut in pieces
    # by their labels would otherwise set it.
    widths = np.array([b.span.width for b in on_base])
    med = float(np.median(widths))
    kept = [b for b in kept if 0.45 * med <= b.span.width <= 2.2 * med]
    if not kept:
        return None
    score = based / total if total else 0.0
    kept.sort(key=lambda b: (b.span.uc, b.span.v0))
    return BarLayout(
        orientation=orientation, bars=tuple(kept), baseline=base, stacked=stacked, score=score
    )


def _under_labels(mask: np.ndarray, printed: Sequence[Box]) -> np.ndarray:
    """A copy of `mask` with labels printed across its colour filled in (`printed`: the text
    boxes, overlapping ones merged by `_merged`): inside each box, the columns where the
    colour runs on both above and below the box, and the rows where it runs on both to its
    left and right (a bar passing under its value label). A label beside a bar, on the
    background, fills nothing."""
    out = mask.copy()
    h, w = mask.shape
    for box in printed:
        x0, y0, x1, y1 = clip_box(box, w, h)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        if y0 >= 2 and y1 + 1 < h:
            cols = mask[y0 - 2, x0:x1] & mask[y1 + 1, x0:x1]
            if cols.sum() >= 2:
                out[y0:y1, x0:x1] |= cols[None, :]
        if x0 >= 2 and x1 + 1 < w:
            rows = mask[y0:y1, x0 - 2] & mask[y0:y1, x1 + 1]
            if rows.sum() >= 2:
                out[y0:y1, x0:x1] |= rows[:, None]
        out[y0:y1, x0:x1] |= _behind_text(mask[y0:y1, x0:x1])
    return out


def _behind_text(patch: np.ndarray) -> np.ndarray:
    """The colour's rectangle behind a label that covers a whole thin segment (a bottom
    stacked segment no taller than its "5.9%"): the colour runs unbroken across the box
    above the glyphs and again below them, which glyphs of that colour on the background
    never do. Filled between those rows, over the columns the colour mostly holds."""
    out = np.zeros_like(patch)
    n = len(patch)
    if n < 4 or patch.shape[1] < 4:
        return out
    full = np.nonzero(patch.mean(axis=1) >= 0.9)[0]
    if len(full) == 0 or full[0] > n // 4 or full[-1] < n - 1 - n // 4:
        return out
    cols = np.nonzero(patch[full[0] : full[-1] + 1].mean(axis=0) >= 0.5)[0]
    if len(cols):
        out[full[0] : full[-1] + 1, cols[0] : cols[-1] + 1] = True
    return out


@functools.lru_cache(maxsize=4)
def _merged(boxes: tuple[Box, ...]) -> tuple[Box, ...]:
    """Overlapping boxes joined into their bounding boxes (the OCR often reads one label
    as two overlapping pieces, and a narrow segment's label runs over its neighbour's).
    Cached: `find_bars` runs for both orientations and more than one layer set on the
    same text boxes of a chart."""
    out: list[Box] = list(boxes)
    changed = True
    while changed:
        changed = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    changed = True
                    break
            if changed:
                break
    return tuple(out)


def _ink(layers: Sequence[ColorLayer], labels: Sequence[Box], shape: tuple[int, int]) -> np.ndarray:
    """Where text may be: dark grey pixels (glyphs, their outlines) and the label boxes."""
    ink = np.zeros(shape, dtype=bool)
    for lay in layers:
        if lay.chroma < 25 and lay.luma < 100:
            ink |= lay.mask
    h, w = shape
    for b in labels:
        ink[
            max(0, int(b[1])) : min(h, int(b[3]) + 1), max(0, int(b[0])) : min(w, int(b[2]) + 1)
        ] = True
    return ink


def _join_across_text(bars: list[Bar], frame: Frame, ink: np.ndarray) -> list[Bar]:
    """Join two pieces of one colour with the same value extent that a printed label cuts
    apart across the bar (a thin stacked segment under its "2.2%"): text fills the gap
    between them. Bars of equal value in neighbouring slots
    have background between them and stay apart."""
    out = sorted(bars, key=lambda b: (b.layer, b.span.v0, b.span.u0))
    # A joined bar is no wider than the bars are (two equal bars in neighbouring slots,
    # wide labels over the gap between them, would be): the width most bar area has.
    widest = _area_median_width(bars)
    i = 0
    while i < len(out) - 1:
        a, b = out[i], out[i + 1]
        gap = b.span.u0 - a.span.u1
        if (
            a.layer == b.layer
            and abs(a.span.v0 - b.span.v0) <= 1.5
            and abs(a.span.v1 - b.span.v1) <= 1.5
            and 0 < gap <= 1.5 * max(a.span.width, b.span.width)
            and b.span.u1 - a.span.u0 <= 1.1 * widest
            and _text_between(a, b, frame, ink)
        ):
            span = Span(a.span.u0, b.span.u1, min(a.span.v0, b.span.v0), max(a.span.v1, b.span.v1))
            out[i] = Bar(layer=a.layer, span=span, box=frame.box(span))
            del out[i + 1]
            continue
        i += 1
    return out


def _area_median_width(bars: Sequence[Bar]) -> float:
    """The bar width at which half the total bar area lies in narrower bars."""
    if not bars:
        return 0.0
    items = sorted((b.span.width, b.span.width * b.span.length) for b in bars)
    half = 0.5 * sum(a for _, a in items)
    acc = 0.0
    for w, a in items:
        acc += a
        if acc >= half:
            return w
    return items[-1][0]


def _text_between(a: Bar, b: Bar, frame: Frame, ink: np.ndarray) -> bool:
    gap = Span(a.span.u1, b.span.u0, max(a.span.v0, b.span.v0), min(a.span.v1, b.span.v1))
    x0, y0, x1, y1 = (round(v) for v in frame.box(gap))
    win = ink[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)]
    if win.size == 0:
        return False
    lines: np.ndarray = np.asarray(win.any(axis=0 if frame.orientation == "vertical" else 1))
    # A label fills the gap it cuts, its middle above all; text reaching in from either
    # side (an overhanging label box) leaves the middle empty.
    n = lines.size
    middle = lines[n // 3 : max(n // 3 + 1, n - n // 3)]
    return bool(lines.mean() >= 0.6 and middle.mean() >= 0.5)


def _merge_split(bars: list[Bar], frame: Frame, exclude: Sequence[Box]) -> list[Bar]:
    """Join pieces of one bar: halves a gridline through its middle cut lengthwise, and the
    two ends of a bar a legend box hides in the middle."""
    out = sorted(bars, key=lambda b: (b.layer, b.span.uc))

    def joins(a: Bar, b: Bar) -> bool:
        return b.layer == a.layer and (_side_by_side(a, b) or _hidden_gap(a, b, frame, exclude))

    # The first joining pair in (i, j) order is joined, as often as one is left. Pairs before
    # i are known apart; a join changes only the pairs of the bar at i, so the scan goes back
    # only to the first earlier bar that now joins it (same layer: they are sorted by layer).
    i = 0
    while i < len(out):
        a = out[i]
        j = next(
            (j for j in range(i + 1, len(out)) if out[j].layer != a.layer or joins(a, out[j])),
            None,
        )
        if j is not None and out[j].layer != a.layer:
            j = None  # the layer's bars end there
        if j is None:
            i += 1
            continue
        b = out.pop(j)
        span = Span(
            min(a.span.u0, b.span.u0),
            max(a.span.u1, b.span.u1),
            min(a.span.v0, b.span.v0),
            max(a.span.v1, b.span.v1),
        )
        out[i] = Bar(layer=a.layer, span=span, box=frame.box(span))
        i = next((k for k in range(i) if joins(out[k], out[i])), i)
    return out


def _side_by_side(a: Bar, b: Bar) -> bool:
    gap = max(b.span.u0 - a.span.u1, a.span.u0 - b.span.u1)
    same_ends = abs(a.span.v0 - b.span.v0) <= 1.5 and abs(a.span.v1 - b.span.v1) <= 1.5
    return 0 <= gap <= 4 and same_ends


def _hidden_gap(a: Bar, b: Bar, frame: Frame, exclude: Sequence[Box]) -> bool:
    if abs(a.span.u0 - b.span.u0) > 1.5 or abs(a.span.u1 - b.span.u1) > 1.5:
        return False
    lo, hi = (a, b) if a.span.v0 <= b.span.v0 else (b, a)
    gap = hi.span.v0 - lo.span.v1
    if gap < 0:
        return False
    if gap <= 4:
        return True
    mid = frame.box(Span(lo.span.u0, lo.span.u1, lo.span.v1, hi.span.v0))
    cx, cy = (mid[0] + mid[2]) / 2, (mid[1] + mid[3]) / 2
    return any(ex[0] - 8 <= cx <= ex[2] + 8 and ex[1] - 8 <= cy <= ex[3] + 8 for ex in exclude)


def _baseline(cand: Sequence[Bar], ends: Counter[int]) -> int:
    """The common base edge: among the edges shared by at least half as many rectangles as
    the most shared one, the one the most bar area stands on. Counting alone picks the far
    end of a 100 % stacked chart when its thin top segments fall apart under their labels."""
    near = {v: _near_count(ends, v) for v in ends}
    top = max(near.values())

    def area(v: int) -> float:
        starts = [b for b in cand if abs(b.span.v0 - v) <= 1.5]
        stops = [b for b in cand if abs(b.span.v1 - v) <= 1.5]

        # An edge two segments of one stack share (one ends where the other starts, over
        # the same slot) is inside a stack; bars on a baseline have nothing beyond it in
        # their own slot (a bar below zero stands in another slot).
        def alone(b: Bar, other: list[Bar]) -> bool:
            return not any(
                min(b.span.u1, c.span.u1) - max(b.span.u0, c.span.u0)
                > 0.5 * min(b.span.width, c.span.width)
                for c in other
            )

        return sum(b.span.width * b.span.length for b in starts if alone(b, stops)) + sum(
            b.span.width * b.span.length for b in stops if alone(b, starts)
        )

    options = [v for v, n in near.items() if n >= 0.5 * top]
    lo_v, hi_v = min(ends), max(ends)
    # last tie: an outer edge, where the bars start (rows of a 100 % stack end at both)
    return max(options, key=lambda v: (area(v), near[v], ends[v], -min(v - lo_v, hi_v - v)))


def _near_count(ends: Counter[int], v: int) -> int:
    return ends.get(v - 1, 0) + ends.get(v, 0) + ends.get(v + 1, 0)


def _sandwiched(thin: Sequence[Bar], thick: Sequence[Bar]) -> list[Bar]:
    """Stacked segments thinner than a bar may be (a 0.5 % share, one or two pixels) that
    sit between two thicker segments of one stack, so that the stack above them still
    joins it. A lone sliver on a bar's end (an antialiased edge) is not one; the two
    neighbours may be up to one more sliver away."""
    out = []
    for t in thin:
        reach = 2.5 + 3.0
        ends = [
            (k.span.v1 - t.span.v0, t.span.v1 - k.span.v0)
            for k in thick
            if min(k.span.u1, t.span.u1) - max(k.span.u0, t.span.u0)
            >= 0.7 * min(k.span.width, t.span.width)
        ]
        below = any(abs(lo) <= reach for lo, _ in ends)
        above = any(abs(hi) <= reach for _, hi in ends)
        if below and above:
            out.append(t)
    return out


def _continues(b: Bar, k: Bar) -> bool:
    """b sits end to end on k, over the same category extent."""
    overlap = min(b.span.u1, k.span.u1) - max(b.span.u0, k.span.u0)
    if overlap < 0.7 * min(b.span.width, k.span.width):
        return False
    return abs(b.span.v0 - k.span.v1) <= 2.5 or abs(b.span.v1 - k.span.v0) <= 2.5


def group_slots(bars: Sequence[Bar], stacked: bool) -> list[list[Bar]]:
    """Bars grouped by category slot, slots in u order.

    Stacked bars share a slot when they overlap along u; grouped bars when they stand side by
    side without repeating a colour, touching or, where colours recur and the gaps come in
    two sizes (ECharts, Chart.js: 10-30 % of a bar within a group), by the smaller size apart.
    """
    if not bars:
        return []
    items = sorted(bars, key=lambda b: b.span.uc)
    stacks: list[list[Bar]] = []
    for b in items:
        if stacks:
            last = stacks[-1]
            ref = last[0]
            overlap = min(b.span.u1, ref.span.u1) - max(b.span.u0, ref.span.u0)
            if overlap > 0.5 * min(b.span.width, ref.span.width):
                last.append(b)
                continue
        stacks.append([b])
    if stacked:
        return stacks
    # Bars of a group drawn at sub-pixel places come out up to 2 px apart.
    join = max(2.5, 0.12 * sorted(b.span.width for b in bars)[len(bars) // 2])
    gaps = [b[0].span.u0 - max(x.span.u1 for x in a) for a, b in itertools.pairwise(stacks)]
    wide = [g for g in gaps if g > 1.5 * min(gaps) + 3]
    if len({b.layer for b in bars}) < len(stacks) and wide:
        join = max(join, (min(gaps) + min(wide)) / 2)
    slots: list[list[Bar]] = [stacks[0]]
    for st in stacks[1:]:
        prev = slots[-1]
        gap = st[0].span.u0 - max(b.span.u1 for b in prev)
        if gap <= join and st[0].layer not in {b.layer for b in prev}:
            prev.extend(st)
        else:
            slots.append(list(st))
    return slots
