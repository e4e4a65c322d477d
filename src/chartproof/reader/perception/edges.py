"""Sub-pixel bar ends: a bar's colour mask ends on a whole pixel, but the antialiased pixel
where its colour meets the next one (the background, or the next segment of a stack) tells
how much of that pixel the bar covers. Stacked segments share one edge, so a segment's
length is read between the two edges it shares instead of between two rounded mask ends.

At Statista's scale (a 100 % stack about 450 px long) one pixel is 0.2 points, so a 2 %
segment read from whole pixels is off by up to 10 %; read from shared sub-pixel edges it is
off by a few hundredths of a point.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from chartproof.reader.perception.bars import Bar, BarLayout, group_slots
from chartproof.reader.perception.geometry import Frame, Span
from chartproof.reader.perception.palette import ColorLayer

__all__ = ["refine_bars"]

_OFF_LINE = 40.0
"""Largest RGB distance of a transition pixel from the line between the two colours that
meet there; further off, something else is drawn there (a label, a gridline, a separator)."""


def refine_bars(
    image: np.ndarray,
    layout: BarLayout,
    layers: Sequence[ColorLayer],
    background: tuple[int, int, int],
) -> BarLayout:
    """The layout with each bar's value end (and each shared edge inside a stack) moved to
    where the colours meet, to a fraction of a pixel; base ends stay where they are."""
    frame = Frame(layout.orientation)
    img = image.astype(np.float32)
    bg = np.array(background, dtype=np.float32)
    stacks = group_slots(layout.bars, True) if layout.stacked else [[b] for b in layout.bars]
    new: dict[int, Bar] = {}
    for stack in stacks:
        segs = sorted(stack, key=lambda b: b.span.v0)
        positive = segs[0].span.v0 >= layout.baseline - 1.5 or len(segs) > 1
        if not positive and len(segs) == 1:
            # A bar below the baseline: its value end is its low end.
            b = segs[0]
            col = np.array(layers[b.layer].rgb, dtype=np.float32)
            lo = _edge(img, frame, b.span, b.span.v0, col, bg, outward=-1)
            new[id(b)] = _with(b, frame, v0=lo)
            continue
        ends: list[tuple[float, float]] = [(b.span.v0, b.span.v1) for b in segs]
        seps: list[float] = []
        for i, (a, b) in enumerate(itertools.pairwise(segs)):
            gap = b.span.v0 - a.span.v1
            if not -1.5 <= gap <= 3.5:
                continue
            ca = np.array(layers[a.layer].rgb, dtype=np.float32)
            cb = np.array(layers[b.layer].rgb, dtype=np.float32)
            shared = _shared(img, frame, a.span, b.span, ca, cb)
            ends[i] = (ends[i][0], shared)
            ends[i + 1] = (shared, ends[i + 1][1])
            if _separated(img, frame, a.span, b.span, bg):
                seps.append(gap)
        top = segs[-1]
        col = np.array(layers[top.layer].rgb, dtype=np.float32)
        end = _edge(img, frame, top.span, top.span.v1, col, bg, outward=1)
        if seps and len(seps) >= 0.5 * (len(segs) - 1):
            # Segments drawn with a border in the background colour: the border is half
            # inside each segment, so the outer one ends half a border past its fill.
            end += 0.5 * float(np.median(seps))
        ends[-1] = (ends[-1][0], end)
        for b, (lo, hi) in zip(segs, ends, strict=True):
            new[id(b)] = _with(b, frame, v0=lo, v1=hi)
    bars = tuple(new.get(id(b), b) for b in layout.bars)
    return replace(layout, bars=bars)


def _with(b: Bar, frame: Frame, v0: float | None = None, v1: float | None = None) -> Bar:
    s = b.span
    span = Span(s.u0, s.u1, s.v0 if v0 is None else v0, s.v1 if v1 is None else v1)
    if span.v1 - span.v0 <= 0:
        return b
    return Bar(layer=b.layer, span=span, box=frame.box(span))


def _lines(span: Span) -> list[int]:
    """Sample lines across a bar, clear of its middle where value labels sit."""
    w = span.u1 - span.u0
    if w < 4:
        return [int(span.uc)]
    picks = {int(span.u0 + 1), int(span.u0 + 0.25 * w), int(span.u1 - 0.25 * w), int(span.u1 - 2)}
    return sorted(picks)


def _pixel(img: np.ndarray, frame: Frame, u: int, v: int) -> np.ndarray | None:
    """The colour of canonical pixel [v, v+1) on line u, None outside the image."""
    h, w = img.shape[:2]
    if frame.orientation == "vertical":
        x, y = u, -v - 1
    else:
        x, y = v, u
    if not (0 <= x < w and 0 <= y < h):
        return None
    px: np.ndarray = img[y, x]
    return px


def _share(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> float | None:
    """How much of colour `a` (against `b`) pixel colour `c` holds, 0..1; None when `c`
    is not a mix of the two."""
    d = a - b
    n2 = float(d @ d)
    if n2 < 400:
        return None
    t = float((c - b) @ d) / n2
    t = min(1.0, max(0.0, t))
    if float(np.linalg.norm(b + t * d - c)) > _OFF_LINE:
        return None
    return t


def _transition(
    img: np.ndarray, frame: Frame, u: int, first: int, last: int, a: np.ndarray, b: np.ndarray
) -> float | None:
    """Where colour `a` (low v) gives way to `b` along line u, summing the share of `a` of
    the pixels first..last (first is taken as pure `a`'s last pixel or earlier)."""
    total = float(first)
    for v in range(first, last + 1):
        c = _pixel(img, frame, u, v)
        if c is None:
            return None
        s = _share(c, a, b)
        if s is None:
            return None
        total += s
    return total


def _shared(
    img: np.ndarray, frame: Frame, lo: Span, hi: Span, ca: np.ndarray, cb: np.ndarray
) -> float:
    """The edge two stacked segments share: where their colours meet, read on a few lines
    across the stack (median); the middle of the gap between their masks when no line
    shows a clean mix (a white separator line, a label over the edge)."""
    first, last = round(lo.v1) - 1, round(hi.v0)
    found = []
    for u in _lines(Span(max(lo.u0, hi.u0), min(lo.u1, hi.u1), lo.v0, hi.v1)):
        t = _transition(img, frame, u, first, last, ca, cb)
        if t is not None:
            found.append(t)
    if found:
        return float(np.median(found))
    return (lo.v1 + hi.v0) / 2


def _separated(img: np.ndarray, frame: Frame, lo: Span, hi: Span, bg: np.ndarray) -> bool:
    """Whether the gap between two stacked segments is a line of the background colour."""
    first, last = round(lo.v1), round(hi.v0) - 1
    if last < first:
        return False
    votes = []
    for u in _lines(Span(max(lo.u0, hi.u0), min(lo.u1, hi.u1), lo.v0, hi.v1)):
        px = [_pixel(img, frame, u, v) for v in range(first, last + 1)]
        votes.append(all(c is not None and float(np.abs(c - bg).max()) < 40 for c in px))
    return sum(votes) > len(votes) / 2


def _edge(
    img: np.ndarray,
    frame: Frame,
    span: Span,
    end: float,
    col: np.ndarray,
    bg: np.ndarray,
    outward: int,
) -> float:
    """A bar's free end against the background, to a fraction of a pixel: the mask end
    moved by the bar colour's share of the pixels on either side of it."""
    e = round(end)
    found = []
    for u in _lines(span):
        if outward > 0:
            t = _transition(img, frame, u, e - 1, e, col, bg)
        else:
            # Going down from the low end: background first, then the bar.
            t = _transition(img, frame, u, e - 1, e, bg, col)
        if t is not None:
            found.append(t)
    if not found:
        return end
    return float(np.median(found))
