"""Category labels: the text under (vertical charts) or beside (horizontal charts) the plot,
assigned to category slots, wrapped lines joined, the axis title kept apart."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from chartproof.ocr import parse_label_number, split_token
from chartproof.reader.perception.axes import line_fit
from chartproof.reader.perception.geometry import Frame, Span
from chartproof.reader.perception.records import OcrToken
from chartproof.reader.perception.upright_labels import one_number, sparse_numbers

__all__ = ["assign_category_labels", "fill_skipped_labels"]


def assign_category_labels(
    tokens: Sequence[OcrToken],
    frame: Frame,
    slots: Sequence[float],
    axis_v: float,
    pitch: float,
) -> tuple[list[str | None], list[list[OcrToken]]]:
    """Label text for each slot centre (u) and the tokens it was read from.

    `axis_v` is the canonical v where the category axis sits (labels lie below it); `pitch`
    is the distance between neighbouring slots. Slots without a label get None.
    """
    if frame.orientation == "vertical":
        texts, used = _upright(tokens, frame, slots, axis_v, pitch)
        if sum(t is not None for t in texts) >= max(2, 0.6 * len(slots)) or sparse_numbers(
            texts, len(slots)
        ):
            return texts, used
    cands = [(t, frame.span(t.box)) for t in tokens if not t.vertical]
    line_h = float(np.median([t.height for t, _ in cands])) if cands else 12.0
    # Rotated labels stick out a little past the axis at their anchor corner.
    cands = [(t, s) for t, s in cands if s.v1 <= axis_v + max(3.0, 0.35 * line_h)]
    if slots:
        lo, hi = min(slots) - pitch, max(slots) + pitch
        cands = [(t, s) for t, s in cands if s.u1 >= lo and s.u0 <= hi]
    if not cands or not slots:
        return [None] * len(slots), [[] for _ in slots]
    if frame.orientation == "horizontal":
        return _beside(cands, slots, pitch)
    return _below(cands, slots, pitch, axis_v, frame)


def _upright(
    tokens: Sequence[OcrToken],
    frame: Frame,
    slots: Sequence[float],
    axis_v: float,
    pitch: float,
) -> tuple[list[str | None], list[list[OcrToken]]]:
    """Category labels turned 90° (read as vertical text): one token hanging just under the
    axis, centred on each slot. Most slots must have one for the reading to count."""
    texts: list[str | None] = [None] * len(slots)
    used: list[list[OcrToken]] = [[] for _ in slots]
    upright = [(t, frame.span(t.box)) for t in tokens if t.vertical]
    if not upright or not slots:
        return texts, used
    gap = 1.5 * float(np.median([s.width for _, s in upright]))
    below = [(t, s) for t, s in upright if axis_v - gap - 8 <= s.v1 <= axis_v + 3]
    for i, u in enumerate(slots):
        near = [(abs(s.uc - u), t) for t, s in below if abs(s.uc - u) <= 0.45 * pitch]
        if near:
            t = min(near, key=lambda p: p[0])[1]
            texts[i], used[i] = t.text, [t]
    return texts, used


def _thick(s: Span) -> float:
    return max(4.0, s.length)


def _split_wide(
    row: list[tuple[OcrToken, Span]], slots: Sequence[float], frame: Frame
) -> list[tuple[OcrToken, Span]]:
    """Cut tokens in which the OCR merged the labels of neighbouring slots."""
    centres = sorted(slots)
    mids = [(a + b) / 2 for a, b in itertools.pairwise(centres)]
    out: list[tuple[OcrToken, Span]] = []
    for t, s in row:
        inside = [u for u in centres if s.u0 <= u <= s.u1]
        if len(inside) < 2 or one_number(t.text):
            out.append((t, s))
            continue
        cuts = [m for m in mids if s.u0 < m < s.u1]
        out.extend((p, frame.span(p.box)) for p in split_token(t, cuts))
    return out


def _below(
    cands: list[tuple[OcrToken, Span]],
    slots: Sequence[float],
    pitch: float,
    axis_v: float,
    frame: Frame,
) -> tuple[list[str | None], list[list[OcrToken]]]:
    dist = [axis_v - s.v1 for _, s in cands]
    d0 = min(dist)
    th = sorted(t.height for t, _ in cands)[len(cands) // 2]
    first = [c for c, d in zip(cands, dist, strict=True) if d <= d0 + 0.6 * th]
    first = _split_wide(first, slots, frame)
    first.sort(key=lambda c: c[1].uc)
    picked: list[tuple[OcrToken, Span] | None] = [None] * len(slots)
    order = sorted(range(len(slots)), key=lambda i: slots[i])
    if len(first) == len(slots):
        for i, c in zip(order, first, strict=True):
            picked[i] = c
    else:
        used: set[int] = set()
        pairs = []
        for i, u in enumerate(slots):
            for j, (_, s) in enumerate(first):
                d = min(abs(s.uc - u), abs(s.u1 - u))
                if d <= 0.6 * pitch:
                    pairs.append((d, i, j))
        for _, i, j in sorted(pairs):
            if picked[i] is None and j not in used:
                picked[i] = first[j]
                used.add(j)
    first_ids = {id(c[0]) for c in first}
    rest = [c for c in cands if id(c[0]) not in first_ids]
    texts: list[str | None] = []
    used_tokens: list[list[OcrToken]] = []
    continued: list[tuple[int, tuple[OcrToken, Span]]] = []
    for i, pick in enumerate(picked):
        if pick is None:
            texts.append(None)
            used_tokens.append([])
            continue
        chain = [pick]
        cur = pick
        while True:
            nxt = [
                r
                for r in rest
                if abs(r[1].uc - cur[1].uc) <= 0.35 * max(_thick(cur[1]), cur[1].width)
                and cur[1].v0 - 0.8 * th <= r[1].v1 <= cur[1].v0 + 2
                and r[1].width <= 1.5 * pitch
            ]
            if not nxt:
                break
            cur = max(nxt, key=lambda r: r[1].v1)
            chain.append(cur)
            continued.append((i, cur))
        texts.append(" ".join(t.text for t, _ in chain))
        used_tokens.append([t for t, _ in chain])
    # A lone continuation line under one slot of many is the axis title, not a label.
    if len(slots) >= 3 and len({i for i, _ in continued}) == 1:
        i, c = continued[0]
        toks = [t for t in used_tokens[i] if t is not c[0]]
        used_tokens[i] = toks
        texts[i] = " ".join(t.text for t in toks)
    return texts, used_tokens


def _beside(
    cands: list[tuple[OcrToken, Span]], slots: Sequence[float], pitch: float
) -> tuple[list[str | None], list[list[OcrToken]]]:
    texts: list[str | None] = []
    used_tokens: list[list[OcrToken]] = []
    right = max(s.v1 for _, s in cands)
    taken: set[int] = set()
    for u in slots:
        inside = [
            (t, s)
            for t, s in cands
            if abs(s.uc - u) <= 0.5 * pitch
            and id(t) not in taken
            and s.v1 >= right - 0.6 * pitch - 40
        ]
        if not inside:
            texts.append(None)
            used_tokens.append([])
            continue
        inside.sort(key=lambda c: (round(c[1].uc / max(3.0, 0.5 * c[0].height)), c[1].v0))
        for t, _ in inside:
            taken.add(id(t))
        texts.append(" ".join(t.text for t, _ in inside))
        used_tokens.append([t for t, _ in inside])
    return texts, used_tokens


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def fill_skipped_labels(labels: Sequence[str | None]) -> list[str | None]:
    """Name positions whose tick label the chart left out (dense axes label every other
    category): numbers between evenly spaced numeric labels, months between month names."""
    out = list(labels)
    known = [(i, lab) for i, lab in enumerate(out) if lab]
    if len(known) < 2 or len(known) == len(out):
        return out
    months = [m.lower() for m in _MONTHS]
    if all(lab[:3].lower() in months and len(lab) <= 9 for _, lab in known):
        i0, lab0 = known[0]
        start = months.index(lab0[:3].lower()) - i0
        steps = [(months.index(lab[:3].lower()) - start) % 12 == i % 12 for i, lab in known]
        if all(steps):
            short = all(len(lab) == 3 for _, lab in known)
            full = {
                "jan": "January", "feb": "February", "mar": "March", "apr": "April",
                "may": "May", "jun": "June", "jul": "July", "aug": "August",
                "sep": "September", "oct": "October", "nov": "November", "dec": "December",
            }  # fmt: skip
            for i in range(len(out)):
                if not out[i]:
                    m = months[(start + i) % 12]
                    out[i] = _MONTHS[months.index(m)] if short else full[m]
        return out
    nums = [(i, parse_label_number(lab)) for i, lab in known]
    if any(v is None for _, v in nums):
        return out
    idx = np.array([i for i, _ in nums], dtype=float)
    val = np.array([v for _, v in nums], dtype=float)
    slope, icpt = line_fit(idx, val)
    if np.max(np.abs(icpt + slope * idx - val)) > 0.02 * max(1.0, float(np.ptp(val))):
        return out  # not evenly spaced: nothing safe to fill in
    integers = all(float(v).is_integer() for v in val)
    # Printed with a fixed number of decimals ("0.1", "2.0", "3.9"): fill in the same way.
    places = {len(lab.split(".")[1]) if "." in lab else 0 for _, lab in known}
    for i in range(len(out)):
        if not out[i]:
            v = float(icpt + slope * i)
            if integers and places == {0}:
                out[i] = str(round(v))
            elif len(places) == 1:
                out[i] = f"{v:.{next(iter(places))}f}"
            else:
                out[i] = f"{v:.6g}"
    return out
