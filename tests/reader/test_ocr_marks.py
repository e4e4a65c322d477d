"""Crops of plotted lines and of dotted rules are not text (`chartproof.ocr.plotted_mark`,
`chartproof.ocr.dotted_rule`): case tables of drawn crops, and the padding steps reading such
crops as nothing (a plotted line's without the small recogniser, a rule's without either)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chartproof import ocr

cv2 = pytest.importorskip("cv2")

BLUE = (230, 120, 40)  # BGR: Statista's line blue
GREEN = (60, 160, 120)
GREY = (90, 90, 90)
WHITE = (255, 255, 255)


def _canvas(h: int = 24, w: int = 80, ground: tuple[int, int, int] = WHITE) -> np.ndarray:
    return np.full((h, w, 3), ground, np.uint8)


def _segment() -> np.ndarray:
    """A thick line running down from a filled marker, as Statista draws its lines."""
    img = _canvas()
    cv2.line(img, (8, 8), (76, 18), BLUE, 7)
    cv2.circle(img, (8, 8), 7, BLUE, -1)
    return img


def _marker() -> np.ndarray:
    img = _canvas(20, 24)
    cv2.circle(img, (12, 10), 8, BLUE, -1)
    return img


def _text(colour: tuple[int, int, int], ground: tuple[int, int, int] = WHITE) -> np.ndarray:
    img = _canvas(ground=ground)
    cv2.putText(img, "2019", (4, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2)
    return img


def _white_on_bar(bar_width: int) -> np.ndarray:
    """White "77%" on a green bar that fills `bar_width` of the crop from the left."""
    img = _canvas(28, 70)
    img[:, :bar_width] = GREEN
    cv2.putText(img, "77%", (6, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.6, WHITE, 2)
    return img


def _marker_and_label() -> np.ndarray:
    """A big legend marker beside a short label: coloured and thick enough to be a mark, but
    with dark ink."""
    img = _canvas(24, 40)
    cv2.circle(img, (11, 12), 11, BLUE, -1)
    cv2.putText(img, "17", (24, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.5, GREY, 1)
    return img


def _bold_blue_label() -> np.ndarray:
    """Bold blue text filling its crop: as coloured as a mark, but its strokes are thin."""
    img = _canvas(20, 40)
    cv2.putText(img, "Y11", (0, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.75, BLUE, 4)
    return img


def _thin_line() -> np.ndarray:
    img = _canvas()
    cv2.line(img, (0, 4), (79, 20), BLUE, 2)
    return img


def _ring_marker() -> np.ndarray:
    """A thick ring: a mark by colour and thickness, but it encloses light pixels."""
    img = _canvas(24, 24)
    cv2.circle(img, (12, 12), 12, BLUE, -1)
    cv2.circle(img, (12, 12), 2, WHITE, -1)
    return img


CASES: list[tuple[str, Callable[[], np.ndarray], bool]] = [
    ("line segment with its marker", _segment, True),
    ("filled marker alone", _marker, True),
    ("grey label", lambda: _text(GREY), False),
    ("blue label", lambda: _text(BLUE), False),  # coloured, but thin strokes
    ("white label on a bar filling the crop", lambda: _white_on_bar(70), False),
    ("white label on a bar ending in the crop", lambda: _white_on_bar(52), False),
    ("legend marker beside its label", _marker_and_label, False),
    ("bold blue label", _bold_blue_label, False),
    ("thin plotted line", _thin_line, False),
    ("ring marker", _ring_marker, False),  # it encloses light pixels: read as before
    ("blank crop", _canvas, False),
    ("a crop three pixels high", lambda: _segment()[:3], False),
]


@pytest.mark.parametrize(("name", "draw", "mark"), CASES, ids=[c[0] for c in CASES])
def test_plotted_mark(name: str, draw: Callable[[], np.ndarray], mark: bool) -> None:
    assert ocr.plotted_mark(draw()) is mark


class _Recogniser:
    """Reads every crop as "NAME" at `score` and records how many crops each call had."""

    def __init__(self, name: str, score: float) -> None:
        self.name, self.score = name, score
        self.rec_image_shape = [3, 48, 320]
        self.calls: list[int] = []

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import TextRecOutput

        n = len(args.img)
        self.calls.append(n)
        return TextRecOutput(
            imgs=list(args.img),
            txts=(self.name,) * n,
            scores=[self.score] * n,
            word_results=((self.name, self.score, None),) * n,
        )


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="needs rapidocr")
def test_a_plotted_mark_the_fast_recogniser_doubts_is_read_as_nothing() -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast, small = _Recogniser("fast", 0.5), _Recogniser("small", 0.99)
    crops = [_segment(), _text(GREY), _marker()]
    got = ocr._PaddingSteps(small, fast)(TextRecInput(img=crops, return_word_box=True))
    assert list(got.txts) == ["", "small", ""]
    assert list(got.scores) == [0.0, 0.99, 0.0]
    assert sum(small.calls) == 1  # the label alone


LIGHT_GREY = (170, 170, 170)
BAR_BLUES = [(242, 227, 205), (229, 203, 158), (215, 180, 113)]  # BGR: Pew's light blues


def _dots(
    h: int = 13,
    w: int = 480,
    row: int = 6,
    size: int = 1,
    gap: int = 3,
    colour: tuple[int, int, int] = LIGHT_GREY,
    ground: np.ndarray | None = None,
) -> np.ndarray:
    """A row of square dots `size` px wide every `gap` px, `row` px from the top."""
    img = _canvas(h, w) if ground is None else ground
    for x in range(1, w - size, gap):
        img[row : row + size, x : x + size] = colour
    return img


def _between_bars() -> np.ndarray:
    """Pew's rule between two rows of stacked bars: the bars' edges (segments of three blues)
    along the crop's top and bottom rows, the dots in the middle."""
    img = _canvas(13, 480)
    for k, blue in enumerate(BAR_BLUES):
        img[:2, 160 * k : 160 * (k + 1)] = blue
        img[11:, 150 * k : 150 * (k + 1)] = blue
    return _dots(ground=img)


def _antialiased_dots() -> np.ndarray:
    """Dots 2 px wide between whole pixels: a pale row above and below the dark one."""
    img = _canvas(10, 300)
    for x in range(1, 296, 4):
        img[4, x : x + 2] = (225, 225, 225)
        img[5, x : x + 2] = (150, 150, 150)
        img[6, x : x + 2] = (225, 225, 225)
    return img


def _dashes() -> np.ndarray:
    img = _canvas(12, 400)
    for x in range(0, 396, 7):
        img[5, x : x + 4] = GREY
    return img


def _small_text(text: str = "Number of cases per million population") -> np.ndarray:
    """Statista's small grey axis title, 16 px high and long."""
    img = _canvas(16, 260)
    cv2.putText(img, text, (2, 11), cv2.FONT_HERSHEY_SIMPLEX, 0.33, (110, 110, 110), 1)
    return img


def _leader_dots() -> np.ndarray:
    """A label followed by leader dots: the label's letters change along their rows."""
    img = _dots(16, 300, row=11, colour=GREY)
    cv2.putText(img, "Revenue", (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.35, GREY, 1)
    return img


def _solid_rule() -> np.ndarray:
    img = _canvas(12, 400)
    img[5:7] = GREY
    return img


RULE_CASES: list[tuple[str, Callable[[], np.ndarray], bool]] = [
    ("dots on white", _dots, True),
    ("dots between the edges of stacked bars", _between_bars, True),
    ("antialiased dots over three rows", _antialiased_dots, True),
    ("dashes", _dashes, True),
    ("dots in a crop 7 px high", lambda: _dots(7, 130, row=3), True),
    ("dots four rows high", lambda: _dots(13, 480, row=4, size=4, gap=7), False),
    ("small grey axis title", _small_text, False),
    ("label and leader dots", _leader_dots, False),
    ("solid rule", _solid_rule, False),
    ("five dots", lambda: _dots(13, 80, gap=16), False),  # too few changes for a rule
    ("dots in a short crop", lambda: _dots(13, 70), False),  # not six times as long
    ("blank crop", lambda: _canvas(13, 480), False),
    ("a crop two pixels high", lambda: _dots(2, 100, row=0), False),
    ("grey crop, one channel", lambda: cv2.cvtColor(_dots(), cv2.COLOR_BGR2GRAY), True),
]


@pytest.mark.parametrize(("name", "draw", "rule"), RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_dotted_rule(name: str, draw: Callable[[], np.ndarray], rule: bool) -> None:
    assert ocr.dotted_rule(draw()) is rule


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="needs rapidocr")
def test_a_dotted_rule_is_read_by_neither_recogniser() -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast, small = _Recogniser("fast", 0.5), _Recogniser("small", 0.99)
    crops = [_between_bars(), _text(GREY), _dashes()]
    got = ocr._PaddingSteps(small, fast)(TextRecInput(img=crops, return_word_box=True))
    assert list(got.txts) == ["", "small", ""]
    assert list(got.scores) == [0.0, 0.99, 0.0]
    assert sum(fast.calls) == 1 and sum(small.calls) == 1  # the label alone, each time


@pytest.mark.skipif(importlib.util.find_spec("rapidocr") is None, reason="needs rapidocr")
def test_crops_that_are_all_rules_come_back_read_as_nothing() -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast, small = _Recogniser("fast", 0.5), _Recogniser("small", 0.99)
    got = ocr._PaddingSteps(small, fast)(TextRecInput(img=[_dots(), _dashes()]))
    assert list(got.txts) == ["", ""]
    assert list(got.scores) == [0.0, 0.0]
    assert fast.calls == [] and small.calls == []
