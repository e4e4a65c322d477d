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

The package is split by concern; this module re-exports their public names:
`chartproof.ocr.engine` (the engine and its detection scale), `tokens` (tokens from rapidocr's
lines, printed numbers), `batching` (padding steps, budgets, recogniser calls), `recognition`
(rapidocr's recogniser and crop steps replaced), `recognisers` (the ONNX networks: charset,
fast recogniser), `turning` (crops turned the way they read), `marks` (crops that are not text),
`footnotes` (footnotes and Statista's credit line), `runtime` (which backend runs each network).
"""

from __future__ import annotations

from chartproof.ocr._deps import INSTALL_HINT
from chartproof.ocr.batching import _BATCH as _BATCH
from chartproof.ocr.batching import _CALL_COST_PX as _CALL_COST_PX
from chartproof.ocr.batching import (
    FAST_PX_COST,
    FAST_SURE,
    GLYPH_WIDTH,
    MIN_SCORE,
    NOT_TEXT,
    RECOGNITION_BUDGET_PX,
    RECOGNITION_STEPS,
    SMALL_BUDGET_PX,
    padded_width,
    recognition_batches,
    small_budget,
)
from chartproof.ocr.batching import _affordable as _affordable
from chartproof.ocr.batching import _width_grid as _width_grid
from chartproof.ocr.engine import _DETECT_WARM_SIDE as _DETECT_WARM_SIDE
from chartproof.ocr.engine import (
    DETECT_BOX_THRESHOLD,
    OcrEngine,
    build_rapidocr,
    detection_side,
    engine_identity,
    get_engine,
    upscale_factor,
)
from chartproof.ocr.footnotes import (
    CREDIT_LINE,
    FOOTNOTE,
    UNREAD_FOOTNOTE,
    footnote_candidates,
    page_footer,
)
from chartproof.ocr.marks import dotted_rule, plotted_mark
from chartproof.ocr.recognisers import (
    CHARSET_ENV,
    FAST_ENV,
    LATIN_END,
    charset,
    fast_recogniser,
    latin_recogniser,
    with_dictionary,
)
from chartproof.ocr.recognition import _PaddingSteps as _PaddingSteps
from chartproof.ocr.runtime import OCR_ENGINE_ENV, OcrPlan, ocr_plan
from chartproof.ocr.tokens import Box, OcrToken, parse_label_number, split_token, tokens_from_lines
from chartproof.ocr.turning import ink_slant, level_crop, turn_upright, turned_crop, vertical_line

__all__ = [
    "CHARSET_ENV",
    "CREDIT_LINE",
    "DETECT_BOX_THRESHOLD",
    "FAST_ENV",
    "FAST_PX_COST",
    "FAST_SURE",
    "FOOTNOTE",
    "GLYPH_WIDTH",
    "INSTALL_HINT",
    "LATIN_END",
    "MIN_SCORE",
    "NOT_TEXT",
    "OCR_ENGINE_ENV",
    "RECOGNITION_BUDGET_PX",
    "RECOGNITION_STEPS",
    "SMALL_BUDGET_PX",
    "UNREAD_FOOTNOTE",
    "Box",
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
    "ink_slant",
    "latin_recogniser",
    "level_crop",
    "ocr_plan",
    "padded_width",
    "page_footer",
    "parse_label_number",
    "plotted_mark",
    "recognition_batches",
    "small_budget",
    "split_token",
    "tokens_from_lines",
    "turn_upright",
    "turned_crop",
    "upscale_factor",
    "vertical_line",
    "with_dictionary",
]
