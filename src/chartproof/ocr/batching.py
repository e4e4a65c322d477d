"""How text crops are recognised: the padding steps and the confidences that end them, the
recognisers' budgets of padded width, and crops grouped into calls padded to a grid of widths.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from typing import Any

MIN_SCORE = 0.5
"""Default least recognition confidence of a token."""


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
