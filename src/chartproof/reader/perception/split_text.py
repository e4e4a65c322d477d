"""Text lines the OCR ran across a drawn mark: a legend row "Fossil fuels ▬ Renewables" read
as one token with no space, so the second entry's swatch hides inside the first's label.
Such a token is cut where its characters stand far apart around a patch of a drawn colour,
or a little apart around a small solid square of one (Pew's "■ Very important ■ Somewhat
important", whose swatches are narrower than a word space is wide). Spaces, and a swatch the
OCR read as a dash (FigureQA's "Orchid — Light Slate  Violet Red"), are not counted as
characters standing in the gap."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from chartproof.ocr import split_token
from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.records import OcrToken

__all__ = ["split_at_marks"]

_WIDE_GAP = 1.6
"""Least distance between neighbouring character centres, in token heights, at which a
token may be cut (the OCR's own rule for cutting at a space)."""

_MIN_PIXELS = 6
"""Least pixels of one drawn colour in the gap for it to count as a mark."""

_MARK_CHARS = frozenset("—–-_•·●■▪▬|")
"""Characters the OCR reads a legend swatch as ("Orchid — Light Slate"): with spaces, they do
not count as glyphs bounding a gap, and go with the gap when it is cut at a mark."""

_SWATCH_GAP = 1.0
"""Least distance between neighbouring character centres, in token heights, at which a
token is cut around a swatch standing alone in the gap (see `_holds_swatch`)."""


def split_at_marks(tokens: Sequence[OcrToken], layers: Sequence[ColorLayer]) -> list[OcrToken]:
    """The tokens with every line cut at wide character gaps that hold a drawn mark."""
    marks = [lay.mask for lay in layers if not _ink_grey(lay)]
    if not marks:
        return list(tokens)
    out: list[OcrToken] = []
    for tok in tokens:
        out.extend(_split(tok, marks))
    return out


def _ink_grey(lay: ColorLayer) -> bool:
    # Dark greys are glyphs; the gap between two glyphs holds some of their edges.
    return lay.chroma < 25 and lay.luma < 90


def _split(tok: OcrToken, marks: Sequence[np.ndarray]) -> list[OcrToken]:
    if tok.vertical or len(tok.char_x) < 4 or len(tok.char_x) != len(tok.text):
        return [tok]
    h, w = marks[0].shape
    y0, y1 = max(0, int(tok.box[1])), min(h, int(np.ceil(tok.box[3])))
    pitch = float(np.median(np.diff(tok.char_x)))
    cuts: list[float] = []
    drawn: list[tuple[float, float]] = []  # columns of the marks cut at
    between: list[int] = []  # the spaces and mark-like characters inside the gaps cut at
    solid = [k for k, ch in enumerate(tok.text) if not ch.isspace() and ch not in _MARK_CHARS]
    for i, j in itertools.pairwise(solid):
        a, b = tok.char_x[i], tok.char_x[j]
        if b - a <= max(_SWATCH_GAP * tok.height, 3 * pitch):
            continue
        # The gap between the two glyphs: half a character in from each centre.
        x0, x1 = max(0, int(a + 0.6 * pitch)), min(w, int(b - 0.6 * pitch))
        if x1 - x0 < 3:
            continue
        wide = b - a > _WIDE_GAP * tok.height
        for m in marks:
            gap = m[y0:y1, x0:x1]
            if int(gap.sum()) < _MIN_PIXELS:
                continue
            if wide or _holds_swatch(m, gap, (a, b, y0, y1), tok.height, pitch):
                lo, hi = _heaviest_run(gap.sum(axis=0))
                cuts.append((a + b) / 2)
                drawn.append((float(x0 + lo), float(x0 + hi)))
                between.extend(range(i + 1, j))
                break
    if not cuts:
        return [tok]
    if between:
        dropped = set(between)
        keep = [k for k in range(len(tok.text)) if k not in dropped]
        tok = tok.model_copy(
            update={
                "text": "".join(tok.text[k] for k in keep),
                "char_x": tuple(tok.char_x[k] for k in keep),
            }
        )
    return [_clear_of(piece, drawn) for piece in split_token(tok, cuts)]


def _heaviest_run(counts: np.ndarray) -> tuple[int, int]:
    """(first, last + 1) of the run of consecutive columns holding pixels whose pixels are
    the most: the mark in a gap, without a neighbouring glyph's anti-aliased edge that shares
    its colour a few columns away (a light grey swatch beside the "R" of "Renewables" grew
    by the letter's edge, and the label's box, clear of the mark, lost its first letter's
    room and its swatch)."""
    best, best_sum, start = (0, len(counts)), -1, None
    for i, c in enumerate([*counts.tolist(), 0]):
        if c and start is None:
            start = i
        elif not c and start is not None:
            total = int(counts[start:i].sum())
            if total > best_sum:
                best, best_sum = (start, i), total
            start = None
    return best


def _clear_of(piece: OcrToken, drawn: Sequence[tuple[float, float]]) -> OcrToken:
    """The piece with its box ending a pixel before a mark it was cut at begins (and
    starting a pixel after one ends), so that the box, padded by a pixel in text masks,
    does not hide the swatch from the legend's search."""
    if not piece.char_x:
        return piece
    x0, y0, x1, y1 = piece.box
    first, last = piece.char_x[0], piece.char_x[-1]
    for lo, hi in drawn:
        if lo > last:
            x1 = min(x1, lo - 1)
        elif hi < first:
            x0 = max(x0, hi + 1)
    if (x0, x1) == (piece.box[0], piece.box[2]):
        return piece
    return piece.model_copy(update={"box": (x0, y0, x1, y1)})


def _holds_swatch(
    mask: np.ndarray,
    gap: np.ndarray,
    span: tuple[float, float, int, int],
    height: float,
    pitch: float,
) -> bool:
    """Whether the drawn pixels in a narrow gap are a legend swatch: a solid patch at least
    a third of a line high that stays between the two glyphs (a line or a bar crossing the
    text runs on under them) and within the line's height."""
    rows = np.flatnonzero(gap.any(axis=1))
    cols = np.flatnonzero(gap.any(axis=0))
    bh, bw = int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1)
    if min(bh, bw) < height / 3 or int(gap.sum()) < 0.6 * bh * bw:
        return False
    a, b, y0, y1 = span
    _, w = mask.shape
    # Under the glyphs on either side (from their centres out by half a character, and
    # one line height above and below) the colour must not go on.
    pad = round(height)
    top, bottom = max(0, y0 - pad), min(mask.shape[0], y1 + pad)
    left = mask[top:bottom, max(0, int(a - 0.5 * pitch)) : max(0, int(a + 0.5 * pitch))]
    right = mask[top:bottom, min(w, int(b - 0.5 * pitch)) : min(w, int(b + 0.5 * pitch) + 1)]
    above = mask[top:y0, max(0, int(a)) : min(w, int(b) + 1)]
    below = mask[y1:bottom, max(0, int(a)) : min(w, int(b) + 1)]
    return all(int(part.sum()) < _MIN_PIXELS for part in (left, right, above, below))
