"""Lines left unread: a chart's footnote paragraph after its "Note:" or "Source:" line
(`footnote_candidates`) and the web page's furniture under Statista's credit line (`page_footer`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from chartproof.ocr.batching import MIN_SCORE
from chartproof.ocr.tokens import Box

FOOTNOTE = re.compile(r"^\W*(notes?|sources?)\s*:", re.IGNORECASE)
"""The start of a chart's footnote: "Note:", "Notes:", "Source:", "Sources:"."""

UNREAD_FOOTNOTE = "(footnote)"
"""The text of a footnote's line, or of a page footer's (`page_footer`), left unread
(`OcrEngine.read` with `footnotes=False`): its box is still text, so its pixels are not taken
for marks (a line of small print left out of the text mask became a dark grey series and cost
a Pew line chart its table)."""

CREDIT_LINE = re.compile(
    r"^\W{0,2}(?:©|\(c\)|copyright\b)"
    r"|^\s*(?:@\s+|[\u2460-\u24ff]\s*)[a-z][^\d\n]{0,40}?\b(?:19|20)\d{2}(?!\d)",
    re.IGNORECASE,
)
"""A chart's credit line as the fast recogniser reads it: "©", "(c)" or "Copyright" opening
the line, or a sign the recogniser reads in place of "©" (an enclosed alphanumeric such as "⑥"
or "②", or "@" and a space) before a name and a year ("⑥ Acme 2021")."""


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
