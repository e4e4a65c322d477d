"""Crops of plotted lines are not text (`chartproof.ocr.plotted_mark`): a case table of drawn
crops, and the padding steps reading such a crop as nothing without the small recogniser."""

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
