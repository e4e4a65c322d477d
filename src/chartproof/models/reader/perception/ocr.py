"""Text reading for the chart reader: a lazily loaded rapidocr engine (one per process) and
the conversion of its line and word boxes into tokens a chart parser can use."""

from __future__ import annotations

import itertools
import math
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from chartproof.models.reader.perception.records import OcrToken
from chartproof.numeric import parse_number

__all__ = [
    "OcrEngine",
    "get_engine",
    "parse_label_number",
    "split_token",
    "tokens_from_lines",
]

_INSTALL_HINT = "the offline chart reader needs rapidocr: pip install 'chartproof[reader]'"

# Statista prints thousands with a thin space ("1 427.4"); charts add footnote stars ("2020*").
_SPACE_THOUSANDS = re.compile(r"^[-−]?\d{1,3}( \d{3})+(\.\d+)?%?$")
_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9, "m": 1e6}


def parse_label_number(text: str) -> float | None:
    """Read a printed tick or value label as a number, tolerating OCR and chart quirks.

    Accepts what `chartproof.numeric.parse_number` accepts plus space thousands separators
    ("1 427.4"), footnote stars ("12*"), unit suffixes k/M/B and a trailing unit word after a
    space is not accepted (that is a category label, not a number).
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
    labels such as "United Kingdom" survive. Boxes are divided by `scale`.
    """
    out: list[OcrToken] = []
    for i, (raw, score, quad) in enumerate(lines):
        text = str(raw).strip()
        if not text:
            continue
        x0, y0, x1, y1, vertical = _quad_box(quad)
        line_chars = list(chars[i]) if chars is not None and i < len(chars) else []
        centres = None if vertical else _char_centres(text, line_chars)
        if not any(ch.isalnum() for ch in text):
            continue  # "_" or "|" read off a bar edge or a gridline
        angle = 0.0 if vertical else _quad_angle(quad)
        if abs(angle) > 5:
            centres = None
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


class OcrEngine:
    """rapidocr, loaded on first use with single-threaded ONNX sessions."""

    def __init__(self) -> None:
        self._engine: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    try:
                        from rapidocr import RapidOCR
                    except ImportError as e:  # pragma: no cover - depends on the install
                        raise ImportError(_INSTALL_HINT) from e
                    self._engine = RapidOCR(
                        params={
                            "Global.log_level": "error",
                            "Global.use_cls": False,
                            "Det.limit_type": "max",
                            "Det.limit_side_len": 2000,
                            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                        }
                    )
        return self._engine

    def read(self, image: np.ndarray) -> tuple[OcrToken, ...]:
        """OCR an RGB uint8 image; small images are upscaled first so small fonts are found."""
        import cv2

        engine = self._load()
        image = _sharpen_if_blurry(image)
        h, w = image.shape[:2]
        # The text detector misses chart-sized fonts (10 pt at 100 dpi) at native size;
        # bringing the short side to ~736 px (its training scale) recovers them.
        scale = min(2.0, max(1.0, 736 / min(h, w)))
        img = image
        if scale != 1.0:
            img = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        bgr = np.ascontiguousarray(img[:, :, ::-1])
        result = engine(
            bgr,
            use_det=True,
            use_cls=False,
            use_rec=True,
            return_word_box=True,
            return_single_char_box=True,
        )
        if result.txts is None or result.boxes is None:
            return ()
        lines = list(zip(result.txts, result.scores, result.boxes, strict=True))
        chars = result.word_results if result.word_results else None
        tokens = tokens_from_lines(lines, chars, scale=scale)
        return tuple(self._reread_vertical(image, t) if t.vertical else t for t in tokens)

    def _reread_vertical(self, image: np.ndarray, tok: OcrToken) -> OcrToken:
        """Recognise vertical text again on crops turned both ways; keep the surer reading."""
        import cv2

        h, w = image.shape[:2]
        x0, y0 = max(0, int(tok.box[0]) - 3), max(0, int(tok.box[1]) - 3)
        x1, y1 = min(w, int(tok.box[2]) + 4), min(h, int(tok.box[3]) + 4)
        crop = image[y0:y1, x0:x1]
        if crop.size == 0:
            return tok
        best = tok
        for rot in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE):
            turned = np.ascontiguousarray(cv2.rotate(crop, rot)[:, :, ::-1])
            res = self._load()(turned, use_det=False, use_cls=False, use_rec=True)
            if not res.txts:
                continue
            text, score = str(res.txts[0]).strip(), float(res.scores[0])
            if text and score > best.score:
                best = tok.model_copy(update={"text": text, "score": min(1.0, score)})
        return best


def _sharpen_if_blurry(image: np.ndarray) -> np.ndarray:
    """Unsharp-mask a blurred image (low Laplacian variance): the text detector loses most
    small labels at a blur of two pixels, and finds them again once edges are restored."""
    import cv2

    gray = cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY)
    sharpness = float(cv2.Laplacian(gray, cv2.CV_64F).var())
    if sharpness >= 40.0:
        return image
    # Stronger blur needs a wider, stronger mask.
    sigma, amount = (2.0, 1.5) if sharpness < 15.0 else (1.2, 1.0)
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    return np.ascontiguousarray(cv2.addWeighted(image, 1 + amount, soft, -amount, 0))


_ENGINE: OcrEngine | None = None
_ENGINE_LOCK = threading.Lock()


def get_engine() -> OcrEngine:
    """The process-wide OCR engine (models load on its first `read`)."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = OcrEngine()
        return _ENGINE
