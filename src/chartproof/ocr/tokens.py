"""What the OCR gives: `OcrToken`s in image pixels, made from rapidocr's lines and character
boxes (cut into words where one line merged several labels), and printed numbers read off them.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import Field

from chartproof.numeric import parse_number
from chartproof.types import Record

_STROKE_ANGLE = 15.0
"""A line read as one character along a baseline this steep (degrees) is a stroke of a plotted
line, not text: the detector boxes slanted segments of line charts, and the recogniser reads
a thin segment as "1" (a realcqa log-scale chart lost its whole table to one such token)."""


Box = tuple[float, float, float, float]


class OcrToken(Record):
    """One piece of text the OCR found."""

    text: str
    """Recognised text."""
    box: Box
    """Axis-aligned bounding box (x0, y0, x1, y1) in pixels of the image read, y downwards."""
    score: float = Field(ge=0, le=1)
    """Recognition confidence."""
    vertical: bool = False
    """True when the text runs vertically (a rotated axis title)."""
    angle: float = 0.0
    """Slope of the text line in degrees, counter-clockwise (rotated tick labels)."""
    char_x: tuple[float, ...] = ()
    """Horizontal centre of each character of `text` (empty when unknown), so a line that
    merged several labels can be cut apart."""

    @property
    def cx(self) -> float:
        """Horizontal centre."""
        return (self.box[0] + self.box[2]) / 2

    @property
    def cy(self) -> float:
        """Vertical centre."""
        return (self.box[1] + self.box[3]) / 2

    @property
    def height(self) -> float:
        """Box height in pixels."""
        return self.box[3] - self.box[1]

    @property
    def width(self) -> float:
        """Box width in pixels."""
        return self.box[2] - self.box[0]


# ------------------------------------------------------------------ printed numbers

# Statista prints thousands with a thin space ("1 427.4"); charts add footnote stars ("2020*").
_SPACE_THOUSANDS = re.compile(r"^[-−]?\d{1,3}( \d{3})+(\.\d+)?%?$")
_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9, "m": 1e6}


def parse_label_number(text: str) -> float | None:
    """Read a printed tick or value label as a number, tolerating OCR and chart quirks.

    Accepts what `chartproof.numeric.parse_number` accepts plus space thousands separators
    ("1 427.4"), footnote stars ("12*"), Unicode minus signs and unit suffixes k/M/B; a
    trailing unit word after a space is not accepted (that is a category label, not a number).
    """
    s = text.strip().rstrip("*").strip()
    if not s:
        return None
    if _SPACE_THOUSANDS.match(s):
        s = s.replace(" ", "")
    s = s.replace("−", "-").replace("–", "-")
    x = parse_number(s)
    if x is not None:
        return x
    for suffix, factor in _SUFFIXES.items():
        if s.endswith(suffix) and len(s) > len(suffix):
            base = parse_number(s[: -len(suffix)])
            if base is not None:
                return base * factor
    return None


# ------------------------------------------------------------------ OCR lines to tokens


def _quad_box(quad: Any) -> tuple[float, float, float, float, bool]:
    pts = np.asarray(quad, dtype=float).reshape(-1, 2)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    # A box much taller than wide holds text running up or down the page.
    vertical = (y1 - y0) > 1.8 * (x1 - x0)
    return float(x0), float(y0), float(x1), float(y1), vertical


def _quad_angle(quad: Any) -> float:
    """Slope of the text baseline in degrees (counter-clockwise, 0 = horizontal)."""
    pts = np.asarray(quad, dtype=float).reshape(-1, 2)
    if len(pts) < 2:
        return 0.0
    dx, dy = pts[1] - pts[0]
    a = math.degrees(math.atan2(-dy, dx))
    if a > 90:
        a -= 180
    elif a <= -90:
        a += 180
    return round(a, 1)


def _char_centres(text: str, chars: Sequence[tuple[str, float, Any]]) -> list[float] | None:
    """Centre x of every character of `text` (spaces interpolated), when the OCR's character
    boxes line up with the text's non-space characters."""
    solid = [i for i, ch in enumerate(text) if not ch.isspace()]
    boxes = [(c[0], _quad_box(c[2])) for c in chars if str(c[0]).strip()]
    if len(boxes) != len(solid) or not solid:
        return None
    xs: list[float | None] = [None] * len(text)
    for i, (_, b) in zip(solid, boxes, strict=True):
        xs[i] = (b[0] + b[2]) / 2
    known = [(i, x) for i, x in enumerate(xs) if x is not None]
    out: list[float] = []
    for i, x in enumerate(xs):
        if x is not None:
            out.append(x)
            continue
        left = max((k for k in known if k[0] < i), default=None, key=lambda k: k[0])
        right = min((k for k in known if k[0] > i), default=None, key=lambda k: k[0])
        if left and right:
            out.append(left[1] + (right[1] - left[1]) * (i - left[0]) / (right[0] - left[0]))
        else:
            out.append((left or right or (0, 0.0))[1])
    return out


def tokens_from_lines(
    lines: Sequence[tuple[str, float, Any]],
    chars: Sequence[Sequence[tuple[str, float, Any]]] | None,
    scale: float = 1.0,
) -> tuple[OcrToken, ...]:
    """Turn OCR lines (text, score, quad) and their character boxes into tokens.

    A line is split into words when every word is a number ("0 5 10") or at gaps wider than
    the line height (two labels read as one line); otherwise it stays whole, so multi-word
    labels such as "United Kingdom" survive. Lines without a letter or digit ("_" read off a
    bar edge) are dropped. Boxes are divided by `scale` (the upscaling the image had).
    """
    out: list[OcrToken] = []
    for i, (raw, score, quad) in enumerate(lines):
        text = str(raw).strip()
        if not text or not any(ch.isalnum() for ch in text):
            continue
        x0, y0, x1, y1, vertical = _quad_box(quad)
        line_chars = list(chars[i]) if chars is not None and i < len(chars) else []
        centres = None if vertical else _char_centres(text, line_chars)
        angle = 0.0 if vertical else _quad_angle(quad)
        if abs(angle) > 5:
            centres = None
        if abs(angle) >= _STROKE_ANGLE and len(text) == 1:
            continue  # a plotted line's slanted stroke read as "1" or "l", not a label
        tok = OcrToken(
            text=text,
            box=(x0, y0, x1, y1),
            score=min(1.0, max(0.0, float(score))),
            vertical=vertical,
            angle=angle,
            char_x=tuple(centres) if centres else (),
        )
        for piece in _split_line(tok):
            out.append(_scaled(piece, scale))
    return tuple(out)


def _scaled(tok: OcrToken, scale: float) -> OcrToken:
    if scale == 1.0:
        return tok
    b = tok.box
    return tok.model_copy(
        update={
            "box": (b[0] / scale, b[1] / scale, b[2] / scale, b[3] / scale),
            "char_x": tuple(x / scale for x in tok.char_x),
        }
    )


def split_token(tok: OcrToken, cuts: Sequence[float]) -> list[OcrToken]:
    """Cut a token at the given x positions (by its character centres); pieces without
    visible characters are dropped. Without character positions the token stays whole."""
    if not tok.char_x or not cuts:
        return [tok]
    edges = [-float("inf"), *sorted(cuts), float("inf")]
    pieces: list[OcrToken] = []
    half = 0.5 * tok.height
    for lo, hi in itertools.pairwise(edges):
        idx = [i for i, x in enumerate(tok.char_x) if lo <= x < hi]
        if not idx:
            continue
        text = tok.text[idx[0] : idx[-1] + 1]
        lead = len(text) - len(text.lstrip())
        trail = len(text.rstrip())
        text = text.strip()
        if not text:
            continue
        keep = idx[lead : max(lead + 1, trail)]
        xs = [tok.char_x[i] for i in keep]
        pieces.append(
            tok.model_copy(
                update={
                    "text": text,
                    "box": (
                        max(tok.box[0], min(xs) - half),
                        tok.box[1],
                        min(tok.box[2], max(xs) + half),
                        tok.box[3],
                    ),
                    "char_x": tuple(xs) if len(xs) == len(text) else (),
                }
            )
        )
    return pieces or [tok]


def _split_line(tok: OcrToken) -> list[OcrToken]:
    if tok.vertical or not tok.char_x or parse_label_number(tok.text) is not None:
        return [tok]
    words = tok.text.split()
    if len(words) < 2:
        return [tok]
    # Cut at every space whose neighbours are far apart, or at every space when all words
    # are numbers ("0 5 10" read as one line).
    numeric = all(parse_label_number(w) is not None for w in words)
    cuts = []
    for i, ch in enumerate(tok.text):
        if ch != " " or i == 0 or i + 1 >= len(tok.text):
            continue
        gap = tok.char_x[i + 1] - tok.char_x[i - 1]
        if numeric or gap > 1.6 * tok.height:
            cuts.append(tok.char_x[i])
    return split_token(tok, cuts) if cuts else [tok]
