"""Text lines the OCR ran across a drawn mark: a legend row "Fossil fuels ▬ Renewables" read
as one token with no space, so the second entry's swatch hides inside the first's label.
Such a token is cut where its characters stand far apart around a patch of a drawn colour."""

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
    cuts = []
    for a, b in itertools.pairwise(tok.char_x):
        if b - a <= max(_WIDE_GAP * tok.height, 3 * pitch):
            continue
        # The gap between the two glyphs: half a character in from each centre.
        x0, x1 = max(0, int(a + 0.6 * pitch)), min(w, int(b - 0.6 * pitch))
        if x1 - x0 < 3:
            continue
        if any(int(m[y0:y1, x0:x1].sum()) >= _MIN_PIXELS for m in marks):
            cuts.append((a + b) / 2)
    return split_token(tok, cuts) if cuts else [tok]
