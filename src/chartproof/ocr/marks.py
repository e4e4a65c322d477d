"""Text crops that are not text: pieces of plotted lines (`plotted_mark`) and dotted rules
(`dotted_rule`), which the recognition steps read as nothing.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from chartproof.ocr._deps import _cv2


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
