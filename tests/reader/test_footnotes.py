"""Footnotes under a chart ("Note: ...", "Source: ...") are read only as far as their first
line when the chart reader asks (`OcrEngine.read(footnotes=False)`): which lines form the
paragraph at the bottom (`footnote_candidates`), which line opens a footnote (`FOOTNOTE`),
that the recogniser leaves the lines after it unread (a placeholder text in their boxes),
and the same on a drawn chart. The page footer under a credit line ("© Statista 2021") is
left unread the same way (`CREDIT_LINE`, `page_footer`)."""

from __future__ import annotations

import importlib.util
import io
from typing import Any

import numpy as np
import pytest

from chartproof import ocr

HAS_RAPIDOCR = importlib.util.find_spec("rapidocr") is not None

# A Pew-like bottom: a 3-line note and a 2-line source, 12 px lines at a 16 px pitch, all
# starting at x = 10, under a plot whose labels end at y = 300.
NOTE = [(10, 400 + 16 * k, 10 + w, 412 + 16 * k) for k, w in enumerate((500, 480, 200, 460, 150))]
LABEL = (40, 290, 120, 300)  # a bar's category label: above a 100 px gap

# (boxes (x0, y0, x1, y1), the paragraph's indices top line first); worked by hand
CANDIDATE_CASES = [
    ([], []),
    ([LABEL], []),
    ([LABEL, *NOTE], [1, 2, 3, 4, 5]),
    # order does not matter: lines are taken from the lowest up
    ([NOTE[2], NOTE[0], NOTE[1]], [1, 2, 0]),
    # one line alone is no paragraph
    ([LABEL, NOTE[0]], []),
    # a line two line heights above the next is not part of the paragraph
    ([(10, 350, 400, 362), NOTE[0], NOTE[1]], [1, 2]),
    # a line that starts far to the right (a label, a centred caption) ends the paragraph
    ([(200, 384, 600, 396), NOTE[0], NOTE[1]], [1, 2]),
    # a line of much larger text (a title) ends it
    ([(10, 368, 600, 396), NOTE[0], NOTE[1]], [1, 2]),
    # a box beside a paragraph line on its row (a page number) is passed over
    ([NOTE[0], (560, 400, 600, 412), NOTE[1]], [0, 2]),
    # vertical text (taller than half its width) is never a line of it
    ([NOTE[0], (10, 380, 22, 396), NOTE[1]], [0, 2]),
    # a credit line in smaller type under it ("PEW RESEARCH CENTER", 8 px under 12 px
    # lines): the paragraph is sought from the row above, without it
    ([*NOTE, (10, 484, 130, 492)], [0, 1, 2, 3, 4]),
    ([LABEL, NOTE[0], NOTE[1], (10, 436, 130, 444)], [1, 2]),
    # two rows of small type under it are a paragraph of their own
    ([NOTE[0], NOTE[1], (10, 436, 130, 444), (10, 450, 130, 458)], [2, 3]),
    # and a line alone above the credit line is still no paragraph
    ([LABEL, NOTE[0], (10, 420, 130, 428)], []),
]


@pytest.mark.parametrize(("boxes", "expected"), CANDIDATE_CASES)
def test_footnote_candidates(boxes: list[tuple[float, ...]], expected: list[int]) -> None:
    assert ocr.footnote_candidates(boxes) == expected


@pytest.mark.parametrize(
    ("text", "opens"),
    [
        ("Note: Respondents who did not give an answer are not shown.", True),
        ('Notes: "Children" includes biological children.', True),
        ("Source: Survey conducted Aug. 27-Oct. 4, 2015.", True),
        ("SOURCES: OECD", True),
        ("* Note: figures rounded", True),  # a footnote marker before it
        ("Source Statista", False),  # no colon: a label that starts with the word
        ("Noteworthy: a title", False),
        ("Sources of income", False),
        ("PEW RESEARCH CENTER", False),
        ("Managing U.S. immigration system", False),
    ],
)
def test_footnote_opening(text: str, opens: bool) -> None:
    assert bool(ocr.FOOTNOTE.match(text)) is opens


class TextRecogniser:
    """rapidocr's recogniser stand-in: crop `i` (its pixel value) reads as `texts[i]`; records
    the crop ids of every call."""

    def __init__(self, texts: dict[int, str], score: float = 0.99) -> None:
        self.rec_image_shape = [3, 48, 320]
        self.texts = texts
        self.score = score
        self.calls: list[list[int]] = []

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import TextRecOutput

        ids = [int(c[0, 0, 0]) for c in args.img]
        self.calls.append(ids)
        return TextRecOutput(
            imgs=list(args.img),
            txts=tuple(self.texts[i] for i in ids),
            scores=[self.score] * len(ids),
            word_results=tuple((self.texts[i], self.score, None) for i in ids),
        )


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("texts", "read_alone", "unread"),
    [
        # the paragraph's second line opens the note: the three after it are never read
        ({1: "Q1", 2: "Yes", 3: "Note: asked of all", 4: "b", 5: "c", 6: "PEW"}, [2, 3], [4, 5, 6]),
        # no line opens a footnote: every line is read, one by one
        ({1: "Q1", 2: "Yes", 3: "No", 4: "b", 5: "c", 6: "PEW"}, [2, 3, 4, 5, 6], []),
        # the last line opens it: nothing is left to skip
        ({1: "Q1", 2: "a", 3: "b", 4: "c", 5: "d", 6: "Source: us"}, [2, 3, 4, 5, 6], []),
    ],
)
def test_lines_after_a_footnotes_first_are_not_recognised(
    texts: dict[int, str], read_alone: list[int], unread: list[int]
) -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fake = TextRecogniser(texts)
    steps = ocr._PaddingSteps(fake)
    crops = [np.full((12, 200, 3), i, np.uint8) for i in range(1, 7)]
    steps.boxes = [LABEL, *NOTE]
    got = steps(TextRecInput(img=crops, return_word_box=True))
    assert fake.calls == [[1]] + [[i] for i in read_alone]
    # unread lines are still text, of a placeholder, sure
    assert [got.txts[i - 1] for i in unread] == [ocr.UNREAD_FOOTNOTE] * len(unread)
    assert [got.scores[i - 1] for i in unread] == [1.0] * len(unread)
    assert all(len(got.word_results[i - 1].words[0]) == len(ocr.UNREAD_FOOTNOTE) for i in unread)
    assert all(got.txts[i - 1] == texts[i] for i in range(1, 7) if i not in unread)
    assert steps.boxes is None  # used for one call only
    # without boxes every crop is read, as before
    fake.calls.clear()
    again = steps(TextRecInput(img=crops, return_word_box=True))
    assert again.txts == tuple(texts[i] for i in range(1, 7))


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("texts", "fast_score", "small_reads"),
    [
        # the fast recogniser doubts every line: the label and the paragraph's first line go
        # to the small recogniser, the note's opening line keeps the fast reading
        ({3: "Note: asked of all"}, 0.9, [1, 2]),
        ({3: "Sources: Pew, 2018"}, ocr.MIN_SCORE, [1, 2]),
        # below MIN_SCORE it is no sure opening: the small recogniser reads it
        ({3: "Note: asked of all"}, ocr.MIN_SCORE - 0.01, [1, 2, 3]),
        # a doubted line that opens no note, above the paragraph or within it, is read
        ({1: "Note: a label", 3: "Asked of all"}, 0.9, [1, 2, 3, 4, 5, 6]),
    ],
)
def test_a_doubted_line_opening_a_footnote_keeps_the_fast_reading(
    texts: dict[int, str], fast_score: float, small_reads: list[int]
) -> None:
    # A Pew "Note:" line runs the image's width; it holds no chart data and the lines after
    # it go unread, so the small recogniser does not read it at its own width.
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    lines = {1: "Q1", 2: "Yes", 3: "Asked", 4: "b", 5: "c", 6: "PEW"} | texts
    fast = TextRecogniser(lines, score=fast_score)
    small = TextRecogniser(lines)
    steps = ocr._PaddingSteps(small, fast)
    crops = [np.full((12, 200, 3), i, np.uint8) for i in range(1, 7)]
    steps.boxes = [LABEL, *NOTE]
    got = steps(TextRecInput(img=crops, return_word_box=True))
    assert [i for call in small.calls for i in call] == small_reads
    opened = next((i for i in range(2, 7) if ocr.FOOTNOTE.match(lines[i])), None)
    for i in range(1, 7):
        want = ocr.UNREAD_FOOTNOTE if opened and i > opened else lines[i]
        assert got.txts[i - 1] == want


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_a_drawn_charts_footnote_is_read_up_to_its_first_line() -> None:
    """A bar chart with a three-line note and a source under it: with `footnotes=False` the
    bars' labels and the note's first line are read, the lines after it are not: they are
    tokens of `UNREAD_FOOTNOTE`, so their pixels stay text for the reader."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    fig, ax = plt.subplots(figsize=(6, 4.6), dpi=100)
    ax.bar(["Apples", "Pears", "Plums"], [42, 17, 30], color="#1f5f99")
    ax.set_title("Fruit bought last week")
    fig.subplots_adjust(bottom=0.32)
    lines = [
        "Note: Respondents who did not answer are not shown.",
        "Shares may not add to 100% because of rounding.",
        "Source: Survey of shoppers conducted May 3-9, 2021.",
        "FRUIT RESEARCH CENTER",
    ]
    for k, line in enumerate(lines):
        fig.text(0.02, 0.16 - 0.045 * k, line, fontsize=10, ha="left")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    image = np.asarray(Image.open(buf).convert("RGB"))

    engine = ocr.get_engine()
    everything = {t.text for t in engine.read(image)}
    reader = {t.text for t in engine.read(image, footnotes=False)}
    assert {"Apples", "Pears", "Plums"} <= reader
    assert any(t.startswith("Note:") for t in reader)
    assert any("RESEARCH" in t for t in everything)
    assert any("Source" in t for t in everything)
    assert not any("RESEARCH" in t or "Source" in t or "rounding" in t for t in reader)
    # the three lines after the note's first are still tokens, where they were read before
    unread = [t for t in engine.read(image, footnotes=False) if t.text == ocr.UNREAD_FOOTNOTE]
    assert len(unread) == 3
    assert [t.box[1] for t in unread] == sorted(t.box[1] for t in unread)


@pytest.mark.parametrize(
    ("text", "credit"),
    [
        ("© Statista 2021", True),
        ("© Statista 2021 m", True),  # the fast recogniser reads the flag icon into it
        ("⑥ Statista 2021 W", True),  # and at times the "©" as another circled sign
        ("⑤ Acme 2021m", True),
        ("@ Statista 2021 N", True),  # or as "@"
        ("② Ministry of Health, 2019", True),
        ("@user 2020 tweets", False),  # no space after "@": a handle, not a credit
        ("① Adults who say yes", False),  # no year: a numbered note
        ("⑥ 2021", False),  # no name
        ("©Statista 2021", True),
        ("© 2020 Acme Corp.", True),
        ("(c) OECD 2019", True),
        ("Copyright 2019 Pew", True),
        ("Source: Statista", False),
        ("Statista survey respondents", False),
        ("Additional Information", False),
        ("Share of respondents", False),
        ("2021", False),
    ],
)
def test_credit_line(text: str, credit: bool) -> None:
    assert bool(ocr.CREDIT_LINE.search(text)) is credit


# Statista's bottom at 800 x 557 px: a tick label, the credit line at the right and the
# footer row under it, 17 px high.
TICK = (90, 420, 130, 436)
CREDIT = (669, 488, 776, 503)
INFO = (23, 511, 170, 530)
SHOW = (685, 512, 776, 530)

# (texts, boxes, the footer's indices); worked by hand
FOOTER_CASES = [
    (
        ["2019", "© Statista 2021", "Additional Information", "Show source"],
        [TICK, CREDIT, INFO, SHOW],
        [2, 3],
    ),
    # no credit line: no footer
    (["2019", "Statista", "Additional Information", "Show source"], [TICK, CREDIT, INFO, SHOW], []),
    # a credit line with nothing under it
    (["2019", "© Statista 2021"], [TICK, CREDIT], []),
    # a box on the credit line's row (its top above the line's middle) is not under it
    (
        ["2019", "© Statista 2021", "Show", "Additional Information"],
        [TICK, CREDIT, (600, 490, 660, 505), INFO],
        [3],
    ),
    # a credit line at the top of the image: the chart under it is no footer
    (["© 2020 Acme", "2019", "Total"], [(10, 5, 120, 20), TICK, (300, 470, 360, 486)], []),
    # of two credit lines the lowest counts
    (
        ["© 2020 Acme", "2019", "© Statista 2021", "Additional Information"],
        [(10, 5, 120, 20), TICK, CREDIT, INFO],
        [3],
    ),
]


@pytest.mark.parametrize(("texts", "boxes", "expected"), FOOTER_CASES)
def test_page_footer(texts: list[str], boxes: list[tuple[float, ...]], expected: list[int]) -> None:
    assert ocr.page_footer(texts, boxes) == expected


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize("fast_score", [0.9, 0.99])
def test_lines_under_a_credit_line_are_not_recognised(fast_score: float) -> None:
    """The fast recogniser reads every crop; the footer under its credit line goes no further,
    doubted or sure, and comes back as the placeholder; the others it doubts go on."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    texts = {1: "2019", 2: "© Statista 2021 m", 3: "θ Additional Information", 4: "Show source 0"}
    fast = TextRecogniser(texts, score=fast_score)
    small = TextRecogniser({1: "2019", 2: "© Statista 2021"})
    steps = ocr._PaddingSteps(small, fast)
    steps.boxes = [TICK, CREDIT, INFO, SHOW]
    crops = [np.full((17, 150, 3), i, np.uint8) for i in range(1, 5)]
    got = steps(TextRecInput(img=crops, return_word_box=True))
    assert fast.calls == [[1, 2, 3, 4]]
    assert small.calls == ([[1, 2]] if fast_score < ocr.FAST_SURE else [])
    assert got.txts[2:] == (ocr.UNREAD_FOOTNOTE, ocr.UNREAD_FOOTNOTE)
    assert got.scores[2:] == [1.0, 1.0]
    reader = small if fast_score < ocr.FAST_SURE else fast
    assert got.txts[:2] == (reader.texts[1], reader.texts[2])
    # without boxes (the reader asked for footnotes) every line is read
    again = ocr._PaddingSteps(TextRecogniser(texts), TextRecogniser(texts, score=0.99))
    assert again(TextRecInput(img=crops, return_word_box=True)).txts == tuple(texts.values())
