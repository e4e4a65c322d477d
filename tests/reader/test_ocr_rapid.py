"""rapidocr's steps redone in NumPy (`chartproof.ocr._rapid`) give what rapidocr's own give: the
detector's input bit for bit, and the same integer corners for every character box."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from chartproof.ocr import _rapid

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("rapidocr") is None, reason="needs rapidocr"
)


class _Engine:
    """What `speed_up` touches on a rapidocr engine."""

    def __init__(self, side: int = 2000, kind: str = "max") -> None:
        from rapidocr.cal_rec_boxes import CalRecBoxes

        self.cal_rec_boxes = CalRecBoxes()
        self.text_det = type(
            "Det",
            (),
            {"limit_side_len": side, "limit_type": kind, "mean": None, "std": None},
        )()
        self.text_det.get_preprocess = lambda: None


def _fitted(side: int = 2000, kind: str = "max") -> _Engine:
    engine = _Engine(side, kind)
    _rapid.speed_up(engine)
    return engine


@pytest.mark.parametrize(
    ("shape", "side", "kind", "mean", "std"),
    [
        ((607, 800, 3), 2000, "max", None, None),
        ((37, 53, 3), 2000, "max", None, None),  # rounded up to 32 px
        ((1286, 800, 3), 736, "max", None, None),  # brought down to 736
        ((300, 500, 3), 736, "min", [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ],
)
def test_detector_input_is_rapidocrs_bit_for_bit(
    shape: tuple[int, int, int], side: int, kind: str, mean: Any, std: Any
) -> None:
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    img = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    engine = _fitted(side, kind)
    engine.text_det.mean, engine.text_det.std = mean, std
    ours = engine.text_det.get_preprocess()(img)
    theirs = DetPreProcess(side, kind, mean, std)(img)
    assert ours.dtype == theirs.dtype == np.float32
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)


def test_detector_input_of_a_float_image_falls_back_to_rapidocrs() -> None:
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    img = np.random.default_rng(3).random((64, 96, 3)).astype(np.float32) * 255
    ours = _fitted().text_det.get_preprocess()(img)
    assert np.array_equal(ours, DetPreProcess(2000, "max", None, None)(img))


def _word_info(text: str, spacing: float = 2.0) -> Any:
    """rapidocr's word info of an English line: one word per run of non-spaces, each character
    at its own output column."""
    from rapidocr.ch_ppocr_rec.typings import WordInfo, WordType

    words, cols, col = [], [], 1
    for word in text.split(" "):
        if word:
            words.append(list(word))
            cols.append([int(col + k * spacing) for k in range(len(word))])
        col += spacing * (len(word) + 1)
    return WordInfo(
        words=words,
        word_cols=cols,
        word_types=[WordType.EN_NUM] * len(words),
        line_txt_len=col,
        confs=[0.9] * len(words),
    )


# (text, detected quad in the image, crop height, crop width)
LINES = [
    ("2019", [[100, 40], [160, 40], [160, 60], [100, 60]], 20, 60),  # axis-aligned
    ("United Kingdom", [[10.5, 5.2], [180.7, 5.2], [180.7, 25.9], [10.5, 25.9]], 21, 170),
    ("Q1 '14", [[300, 500], [340, 460], [352, 472], [312, 512]], 17, 57),  # slanted 45 degrees
    ("12.5%", [[50, 50], [120, 55], [119, 75], [49, 70]], 20, 70),  # tilted a little
    ("Market share", [[20, 300], [40, 300], [40, 140], [20, 140]], 160, 20),  # vertical
    ("x", [[5, 5], [15, 5], [15, 17], [5, 17]], 12, 10),  # one character
]


@pytest.mark.parametrize(("text", "quad", "height", "width"), LINES)
@pytest.mark.parametrize("single", [True, False])
def test_character_boxes_have_rapidocrs_corners(
    text: str, quad: list[list[float]], height: int, width: int, single: bool
) -> None:
    from rapidocr.cal_rec_boxes import CalRecBoxes
    from rapidocr.ch_ppocr_rec.typings import TextRecOutput

    def output() -> Any:
        return TextRecOutput(
            txts=(text, text),
            scores=[0.9, 0.9],
            word_results=(_word_info(text), _word_info(text, 3.0)),
        )

    crops = [np.zeros((height, width, 3), np.uint8)] * 2
    boxes = np.array([quad, quad], dtype=np.float32)
    ours = _fitted().cal_rec_boxes(crops, boxes.copy(), output(), single).word_results
    theirs = CalRecBoxes()(crops, boxes.copy(), output(), single).word_results
    assert len(ours) == len(theirs) == 2
    for line_ours, line_theirs in zip(ours, theirs, strict=True):
        assert [(w, c) for w, c, _ in line_ours] == [(w, c) for w, c, _ in line_theirs]
        for (_, _, a), (_, _, b) in zip(line_ours, line_theirs, strict=True):
            assert sorted(map(tuple, a)) == sorted(map(tuple, b))


def test_an_empty_crop_or_reading_gives_what_rapidocr_gives() -> None:
    from rapidocr.cal_rec_boxes import CalRecBoxes
    from rapidocr.ch_ppocr_rec.typings import TextRecOutput, WordInfo

    crops = [np.zeros((0, 0, 3), np.uint8), np.zeros((20, 40, 3), np.uint8)]
    boxes = np.array([LINES[0][1]] * 2, dtype=np.float32)

    def output() -> Any:
        return TextRecOutput(
            txts=("a", ""), scores=[0.5, 0.0], word_results=(WordInfo(), WordInfo())
        )

    ours = _fitted().cal_rec_boxes(crops, boxes.copy(), output(), True).word_results
    assert ours == CalRecBoxes()(crops, boxes.copy(), output(), True).word_results == ([],)


def test_an_engine_without_the_internals_is_left_alone() -> None:
    class Bare:
        pass

    engine = Bare()
    _rapid.speed_up(engine)
    assert vars(engine) == {}


# (detected quad, crop shape as rapidocr cut it, a vertical line, a crop rapidocr turned, why)
LINE_BOXES = [
    ([[10, 10], [90, 10], [90, 30], [10, 30]], (20, 80, 3), False, False, "a horizontal line"),
    ([[20, 140], [40, 140], [40, 300], [20, 300]], (20, 160, 3), True, True, "a y-axis title"),
    ([[300, 500], [340, 460], [352, 472], [312, 512]], (17, 57, 3), False, False, "slanted 45"),
    ([[0, 0], [20, 0], [20, 28], [0, 28]], (28, 20, 3), False, False, "1.4 times taller"),
    ([[0, 0], [20, 0], [20, 30], [0, 30]], (20, 30, 3), False, True, "1.5 times: a glyph"),
    ([[0, 0], [20, 0], [20, 39], [0, 39]], (20, 39, 3), False, True, "1.95 times: a glyph"),
    ([[0, 0], [20, 0], [20, 40], [0, 40]], (20, 40, 3), True, True, "twice as tall: a line"),
    ([[20, 140], [40, 140], [40, 300], [20, 300]], (160, 20, 3), False, False, "a crop left tall"),
    ([[5, 5], [5, 5], [5, 60], [5, 60]], (55, 1, 3), False, False, "no width: a tall crop"),
    ([[5, 5], [5, 5], [5, 60], [5, 60]], (1, 55, 3), True, True, "no width, turned"),
]


@pytest.mark.parametrize(("quad", "shape", "line", "turned", "why"), LINE_BOXES)
def test_vertical_lines_are_told_from_glyphs(
    quad: list[list[float]], shape: tuple[int, int, int], line: bool, turned: bool, why: str
) -> None:
    from chartproof.ocr import turned_crop, vertical_line

    box = np.array(quad, dtype=np.float32)
    assert vertical_line(box, shape) is line, why
    assert turned_crop(box, shape) is turned, why


@pytest.mark.parametrize("fitted", [True, False])
def test_a_crop_turned_half_a_turn_maps_back_through_its_rolled_quad(fitted: bool) -> None:
    # A y-axis title runs bottom to top. rapidocr's crop shows it upside down and maps its
    # first word to the top of its box; turned half a turn (`ocr.turn_upright`), with its
    # quad listed from the opposite corner, the first word maps to the bottom, where the
    # title starts, by rapidocr's own character boxes and ours alike.
    from rapidocr.cal_rec_boxes import CalRecBoxes
    from rapidocr.ch_ppocr_rec.typings import TextRecOutput

    text = "Market share"
    quad = np.array([[20, 140], [40, 140], [40, 300], [20, 300]], dtype=np.float32)

    def words(q: np.ndarray) -> Any:
        out = TextRecOutput(txts=(text,), scores=[0.9], word_results=(_word_info(text),))
        boxes = CalRecBoxes() if not fitted else _fitted().cal_rec_boxes
        crops = [np.zeros((20, 160, 3), np.uint8)]
        return boxes(crops, np.array([q]), out, False).word_results[0]

    def centre_y(points: Any) -> float:
        return float(np.mean([p[1] for p in points]))

    upside_down, upright = words(quad), words(np.roll(quad, 2, axis=0))
    assert [w for w, _, _ in upright] == [w for w, _, _ in upside_down] == ["Market", "share"]
    assert centre_y(upside_down[0][2]) < centre_y(upside_down[1][2])
    assert centre_y(upright[0][2]) > centre_y(upright[1][2])  # "Market" below "share"
    for _, _, points in upright:
        assert all(19 <= p[0] <= 41 and 139 <= p[1] <= 301 for p in points)
