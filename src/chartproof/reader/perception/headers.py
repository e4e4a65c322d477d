"""Series named by column headers: Pew-style stacked horizontal bars draw no legend but print
each series' name above its segment of the top bar ("Very concerned", "Somewhat concerned"),
often on two lines and often in the segment's own colour."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chartproof.ocr import parse_label_number, split_token
from chartproof.reader.perception.bars import Bar
from chartproof.reader.perception.palette import background_color
from chartproof.reader.perception.records import OcrToken
from chartproof.reader.perception.scene import Scene

__all__ = ["colour_names", "header_names"]

_BAND = 4.0
"""Most text heights between the top bar and the lowest header line."""

_LINE_GAP = 0.9
"""Most text heights between two lines of one header."""


def header_names(
    scene: Scene,
    slots: Sequence[Sequence[Bar]],
    layer_ids: Sequence[int],
) -> list[str | None] | None:
    """A name per series layer from the text right above the top slot's segments of a
    horizontal bar chart (`slots` in any order), or None when fewer than two series get one
    or two series would share a name.

    A header names the layer whose colour it is written in, or whose colour fills the small
    swatch just left of it (a one-row legend the legend finder missed); otherwise the
    segment it stands over."""
    if len(layer_ids) < 2 or not slots:
        return None
    top = min(slots, key=lambda s: min(b.box[1] for b in s))
    segs = {b.layer: b for b in top if b.layer in layer_ids}
    if len(segs) < 2:
        return None
    bar_top = min(b.box[1] for b in top)
    lo_x = min(b.box[0] for b in top)
    hi_x = max(b.box[2] for b in top)
    th = max(scene.text_height, 4.0)
    words = [
        t
        for t in scene.tokens
        if not t.vertical
        and t.box[3] <= bar_top + 2
        and t.box[3] >= bar_top - _BAND * th
        and lo_x - 3 * th <= t.cx <= hi_x + 3 * th
        and parse_label_number(t.text) is None
    ]
    block = _header_block(words, bar_top, th)
    if not block:
        return None
    bg = np.array(background_color(scene.image), dtype=float)
    colours = {li: np.array(scene.layers[li].rgb, dtype=float) for li in layer_ids}
    names: dict[int, list[OcrToken]] = {}
    columns = _columns(block)
    if len(columns) > len(layer_ids):
        # A header past the bars' end heads a printed column (Pew's "NET"), not a series.
        columns = [c for c in columns if min(t.box[0] for t in c) < hi_x]
        block = [t for c in columns for t in c]
    if len(columns) != len(layer_ids):
        # The OCR may run two neighbouring headers into one line ("Somewhat Not"): cut the
        # lines at their spaces when that gives one header per segment.
        split = _columns([w for t in block for w in _at_spaces(t)])
        if len(split) == len(layer_ids):
            columns, block = split, [t for col in split for t in col]
    by_colour = [
        {li for t in col if (li := _by_colour(t, scene.image, bg, colours, th)) is not None}
        for col in columns
    ]
    # Series come in stacking order; the top bar may lack a thin segment.
    ordered = list(layer_ids)
    if all(len(c) == 1 for c in by_colour) and len({min(c) for c in by_colour}) == len(columns):
        for col, c in zip(columns, by_colour, strict=True):
            names[min(c)] = list(col)
    elif len(columns) == len(ordered):
        # One header per segment, left to right: short segments push their headers aside,
        # but never out of order.
        for col, li in zip(columns, ordered, strict=True):
            names[li] = list(col)
    else:
        for t in block:
            hit = _by_colour(t, scene.image, bg, colours, th)
            li = hit if hit is not None else _segment_of(t, segs)
            if li is not None:
                names.setdefault(li, []).append(t)
    out: list[str | None] = []
    for li in layer_ids:
        toks = names.get(li)
        out.append(_joined(toks) if toks else None)
    found = [n for n in out if n]
    if len(found) < 2 or len(set(found)) < len(found):
        return None
    return out


def _by_colour(
    tok: OcrToken,
    image: np.ndarray,
    bg: np.ndarray,
    colours: dict[int, np.ndarray],
    th: float,
) -> int | None:
    """The layer whose colour fills a swatch just left of (or at the start of) the token,
    else the one its glyphs are written in (only a chromatic layer: black text names nothing)."""
    h = image.shape[0]
    y0, y1 = max(0, int(tok.cy - 0.2 * th)), min(h, int(tok.cy + 0.2 * th) + 1)
    x1 = max(0, int(tok.box[0]) - 1)
    x0 = max(0, int(tok.box[0] - 1.6 * th))
    # The OCR box often takes the swatch in: look at the box's own left end too.
    left = max(0, int(tok.box[0]))
    regions = (
        image[y0:y1, x0:x1],
        image[y0:y1, left : left + max(2, int(0.9 * th))],
        image[
            max(0, int(tok.box[1])) : int(tok.box[3]) + 1,
            max(0, int(tok.box[0])) : int(tok.box[2]) + 1,
        ],
    )
    for k, region in enumerate(regions):
        if region.size == 0:
            continue
        if k < 2:
            # A swatch is a filled patch: a run of fully inked columns wider than any
            # glyph stroke (a neighbouring word's letters are not one).
            found = _solid_run(region, bg, th)
            if found is None:
                continue
            ink = found
        else:
            px = region.reshape(-1, 3).astype(float)
            ink = px[np.abs(px - bg).max(axis=1) > 60]
        if len(ink) < 4:
            continue
        c = np.median(ink, axis=0)
        if float(c.max() - c.min()) < 25:
            continue
        li, d = min(
            ((li, float(np.linalg.norm(c - rgb))) for li, rgb in colours.items()),
            key=lambda p: p[1],
        )
        if d < 45:
            return li
    return None


def _at_spaces(tok: OcrToken) -> list[OcrToken]:
    cuts = [tok.char_x[i] for i, ch in enumerate(tok.text) if ch == " " and i < len(tok.char_x)]
    return split_token(tok, cuts) if cuts and len(tok.char_x) == len(tok.text) else [tok]


def _columns(block: Sequence[OcrToken]) -> list[list[OcrToken]]:
    """Header tokens grouped into columns (the lines of one header overlap across), left
    to right."""
    cols: list[list[OcrToken]] = []
    for t in sorted(block, key=lambda t: t.box[0]):
        for col in cols:
            if any(
                min(t.box[2], o.box[2]) - max(t.box[0], o.box[0]) > 0.3 * min(t.width, o.width)
                for o in col
            ):
                col.append(t)
                break
        else:
            cols.append([t])
    return sorted(cols, key=lambda c: min(t.box[0] for t in c))


def _solid_run(region: np.ndarray, bg: np.ndarray, th: float) -> np.ndarray | None:
    """The pixels of the widest run of fully inked columns in a band, when it is at least
    a third of a text height wide; else None."""
    inked = np.abs(region.astype(float) - bg).max(axis=2) > 60
    full = inked.mean(axis=0) >= 0.9
    best: tuple[int, int] = (0, 0)
    start = None
    for i, f in enumerate([*full.tolist(), False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    if best[1] - best[0] < max(4.0, 0.33 * th):
        return None
    return region[:, best[0] : best[1]].reshape(-1, 3).astype(float)


def _header_block(words: Sequence[OcrToken], bar_top: float, th: float) -> list[OcrToken]:
    """The lines of text stacked just above the bar: the lowest line must nearly touch the
    bar, each further line must nearly touch the one below it (a subtitle higher up is not
    a header)."""
    lines: list[list[OcrToken]] = []
    for t in sorted(words, key=lambda t: -t.cy):
        for line in lines:
            if abs(line[0].cy - t.cy) < 0.5 * th:
                line.append(t)
                break
        else:
            lines.append([t])
    lines.sort(key=lambda ln: -max(t.box[3] for t in ln))
    block: list[OcrToken] = []
    below: list[OcrToken] = []
    edge = bar_top
    for line in lines:
        bottom = max(t.box[3] for t in line)
        gap = edge - bottom
        if gap > (1.6 if not block else _LINE_GAP) * th:
            break
        if block:
            # A header's next line is centred over its first; a wider line above is a
            # subtitle.
            line = [t for t in line if any(_over(t, b) for b in below)]
            if not line:
                break
        block.extend(line)
        below = line
        edge = min(t.box[1] for t in line)
    return block


def _over(upper: OcrToken, lower: OcrToken) -> bool:
    return lower.box[0] - 2 <= upper.cx <= lower.box[2] + 2 and upper.width <= 1.8 * lower.width + 4


def _segment_of(tok: OcrToken, segs: dict[int, Bar]) -> int | None:
    """The segment the header stands over: the one holding its centre, else the nearest one
    (a short segment's header sticks out past its ends)."""
    inside = [li for li, b in segs.items() if b.box[0] <= tok.cx <= b.box[2]]
    if inside:
        return inside[0]
    li, b = min(
        segs.items(), key=lambda kv: min(abs(tok.cx - kv[1].box[0]), abs(tok.cx - kv[1].box[2]))
    )
    gap = min(abs(tok.cx - b.box[0]), abs(tok.cx - b.box[2]))
    return li if gap <= max(tok.width, 1.0) else None


def _joined(toks: Sequence[OcrToken]) -> str:
    rows: list[list[OcrToken]] = []
    for t in sorted(toks, key=lambda t: t.cy):
        if rows and abs(rows[-1][0].cy - t.cy) < 0.5 * t.height:
            rows[-1].append(t)
        else:
            rows.append([t])
    return " ".join(t.text.strip() for r in rows for t in sorted(r, key=lambda t: t.box[0]))


def colour_names(scene: Scene, layer_ids: Sequence[int]) -> list[str | None] | None:
    """A name per series layer from words written in the series' own colour (Pew labels
    each line with its name in the line's colour beside it, and draws no legend), or None
    when fewer than one series gets one or two would share a name."""
    bg = np.array(background_color(scene.image), dtype=float)
    colours = {
        li: np.array(scene.layers[li].rgb, dtype=float)
        for li in layer_ids
        if scene.layers[li].chroma >= 25
    }
    if not colours:
        return None
    th = max(scene.text_height, 4.0)
    found: dict[int, list[OcrToken]] = {}
    for t in scene.tokens:
        if t.vertical or parse_label_number(t.text) is not None or len(t.text.strip()) < 2:
            continue
        li = _glyph_colour(t, scene.image, bg, colours, th)
        if li is not None:
            found.setdefault(li, []).append(t)
    out: list[str | None] = []
    for li in layer_ids:
        toks = found.get(li)
        # One phrase per series: several far-apart words in one colour are not a name.
        name = _joined(toks) if toks and _one_phrase(toks, th) else ""
        # The OCR may run a point label into the name ("Good 32").
        words = [w for w in name.split() if parse_label_number(w) is None]
        out.append(" ".join(words) or None)
    named = [n for n in out if n]
    if not named or len(set(named)) < len(named):
        return None
    return out


def _glyph_colour(
    tok: OcrToken, image: np.ndarray, bg: np.ndarray, colours: dict[int, np.ndarray], th: float
) -> int | None:
    h, w = image.shape[:2]
    x0, y0 = max(0, int(tok.box[0])), max(0, int(tok.box[1]))
    x1, y1 = min(w, int(tok.box[2]) + 1), min(h, int(tok.box[3]) + 1)
    px = image[y0:y1, x0:x1].reshape(-1, 3).astype(float)
    ink = px[np.abs(px - bg).max(axis=1) > 60]
    if len(ink) < 6:
        return None
    c = np.median(ink, axis=0)
    if float(c.max() - c.min()) < 25:
        return None
    li, d = min(
        ((li, float(np.linalg.norm(c - rgb))) for li, rgb in colours.items()), key=lambda p: p[1]
    )
    return li if d < 45 else None


def _one_phrase(toks: Sequence[OcrToken], th: float) -> bool:
    xs = [t.box[0] for t in toks] + [t.box[2] for t in toks]
    ys = [t.cy for t in toks]
    return len(toks) <= 4 and max(ys) - min(ys) <= 2.5 * th and max(xs) - min(xs) <= 30 * th
