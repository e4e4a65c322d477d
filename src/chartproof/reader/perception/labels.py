"""Category labels: the text under (vertical charts) or beside (horizontal charts) the plot,
assigned to category slots, wrapped lines joined, the axis title kept apart."""

from __future__ import annotations

import itertools
import re
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
        return _beside(cands, slots, pitch, axis_v)
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


def _anchor(tok: OcrToken, s: Span) -> float:
    """Where a label turned about 45° points on the category axis: the end of the text
    nearest the axis (the upper right end of text rising rightwards), not its box centre,
    which lies half a label's length away, often over the neighbouring slot."""
    if tok.angle > 0:
        return s.u1 - 0.25 * tok.height
    return s.u0 + 0.25 * tok.height


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
            for j, (t, s) in enumerate(first):
                d = (
                    abs(_anchor(t, s) - u)
                    if abs(t.angle) > 20
                    else min(abs(s.uc - u), abs(s.u1 - u))
                )
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
    taken: set[int] = set()
    turned = [t.angle for t, _ in first if abs(t.angle) > 10]
    # Labels turned one way: their pieces continue on one side (None: not turned).
    rising = bool(np.median(turned) > 0) if len(turned) >= max(2, 0.3 * len(first)) else None
    # Tightly set level lines: the OCR boxes of a wrapped label may overlap a little (turned
    # labels continue diagonally instead, and their pieces' boxes overlap their neighbours').
    overlap = max(2.0, 0.4 * th) if rising is None else 2.0
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
                and cur[1].v0 - 0.8 * th <= r[1].v1 <= cur[1].v0 + overlap
                and r[1].vc < cur[1].vc - 0.5 * th
                and r[1].width <= 1.5 * pitch
            ]
            if not nxt:
                diag = _diagonal_piece(cur, rest, taken, rising) if rising is not None else None
                if diag is None:
                    break
                # Text rising rightwards reads from its lower left end.
                cur, left = diag
                taken.add(id(cur[0]))
                chain.insert(0 if left else len(chain), cur)
                continued.append((i, cur))
                continue
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


def _diagonal_piece(
    cur: tuple[OcrToken, Span],
    rest: Sequence[tuple[OcrToken, Span]],
    taken: set[int],
    rising: bool,
) -> tuple[tuple[OcrToken, Span], bool] | None:
    """The rest of a label turned about 45° that the OCR read in two pieces ("Q2" and
    "'15"): a piece lower down whose box overlaps this one's lower corner on the side the
    text continues to (left for text rising rightwards, which then reads first; right for
    falling text). A staggered label of another slot never overlaps both ways. Returns the
    piece and whether it goes first."""
    c = cur[1]
    found = []
    for r in rest:
        s = r[1]
        if id(r[0]) in taken or s.vc >= c.vc or s.v1 <= c.v0 + 1 or s.v1 > c.v1:
            continue
        left = s.uc < c.uc and s.u1 > c.u0 + 1 and s.u0 < c.u0
        right = s.uc > c.uc and s.u0 < c.u1 - 1 and s.u1 > c.u1
        if left if rising else right:
            found.append(r)
    if len(found) != 1:
        return None
    return found[0], rising


def _beside(
    cands: list[tuple[OcrToken, Span]], slots: Sequence[float], pitch: float, axis_x: float
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
        texts.append(" ".join(_without_tick_mark(t, axis_x) for t, _ in inside))
        used_tokens.append([t for t, _ in inside])
    return texts, used_tokens


_TICK_GLYPHS = frozenset("-–—_|1!")
"""What the OCR reads a horizontal tick mark's stroke as, when it joins it to a label. Not "l"
or "I": many words end in them, and a label's last "l" can be read over the tick beside it
("Clerical")."""


def _without_tick_mark(tok: OcrToken, axis_x: float) -> str:
    """The text of a label left of a vertical category axis without the tick mark the OCR
    read into its end ("Dose B -", "Dose A 1", "Cancer-"): a last character that a tick's
    stroke reads as, centred within half a text height of the axis line. A label's own last
    character ends a tick's length and a pad short of the axis, about a text height away.
    Needs the token's character positions; without them the text stays whole."""
    text = tok.text.rstrip()
    if len(tok.char_x) != len(tok.text) or len(text) < 2 or text[-1] not in _TICK_GLYPHS:
        return tok.text
    if tok.char_x[len(text) - 1] < axis_x - 0.5 * tok.height:
        return tok.text
    kept = text[:-1].rstrip()
    return kept if any(ch.isalnum() for ch in kept) else tok.text


_MONTH_YEAR = re.compile(r"^([A-Za-z]{3})[a-z]*\.? ?('?)(\d{2}|\d{4})$")


def _fill_month_years(
    out: list[str | None], known: list[tuple[int, str]], months: list[str]
) -> list[str | None] | None:
    """Month-and-year labels ("Jan 17", "Mar '18", "May 2019") one month or more apart: the
    months between are named in the same style, the year counted on when the months wrap
    round. None when the labels are not all of that form or do not run evenly."""
    parts = [(i, _MONTH_YEAR.match(lab)) for i, lab in known]
    if any(m is None or m.group(1).lower() not in months for _, m in parts):
        return None
    stamps = [(i, int(m.group(3)) * 12 + months.index(m.group(1).lower())) for i, m in parts if m]
    step = (stamps[1][1] - stamps[0][1]) / (stamps[1][0] - stamps[0][0])
    if step <= 0 or not step.is_integer():
        return None
    if any(s != stamps[0][1] + step * (i - stamps[0][0]) for i, s in stamps):
        return None
    first = parts[0][1]
    assert first is not None
    word, tick, year = known[0][1][:3], first.group(2), first.group(3)
    sep = " " if " " in known[0][1] else ""
    filled = list(out)
    for i in range(len(filled)):
        if not filled[i]:
            stamp = int(stamps[0][1] + step * (i - stamps[0][0]))
            y, mo = divmod(stamp, 12)
            name = _MONTHS[mo] if word[0].isupper() else _MONTHS[mo].lower()
            filled[i] = f"{name}{sep}{tick}{y:0{len(year)}d}"
    return filled


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def fill_skipped_labels(labels: Sequence[str | None]) -> list[str | None]:
    """Name positions whose tick label the chart left out (dense axes label every other
    category): numbers between evenly spaced numeric labels, months between month names."""
    out = list(labels)
    known = [(i, lab) for i, lab in enumerate(out) if lab]
    if len(known) < 2 or len(known) == len(out):
        return out
    months = [m.lower() for m in _MONTHS]
    dated = _fill_month_years(out, known, months)
    if dated is not None:
        return dated
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
