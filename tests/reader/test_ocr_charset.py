"""The recogniser's output cut to Latin-script characters (`chartproof.ocr.latin_recogniser`):
the environment setting, the cut on a small hand-made network (the same probabilities,
renormalised over the classes kept), the cached copy, and the bundled recogniser reading
Latin text as the full one does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from chartproof import ocr

from .conftest import classifier_network

HAS_ONNX = importlib.util.find_spec("onnx") is not None
HAS_ORT = importlib.util.find_spec("onnxruntime") is not None


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, "latin"), ("", "latin"), ("latin", "latin"), ("ALL", "all"), (" all ", "all")],
)
def test_charset(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: str) -> None:
    if value is None:
        monkeypatch.delenv(ocr.CHARSET_ENV, raising=False)
    else:
        monkeypatch.setenv(ocr.CHARSET_ENV, value)
    assert ocr.charset() == expected


def test_an_unknown_charset_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.CHARSET_ENV, "greek")
    with pytest.raises(ValueError, match="CHARTPROOF_OCR_CHARSET='greek'"):
        ocr.charset()


# A dictionary of five characters: the network's classes are the blank, these five, the space.
CHARS = ["a", "中", "7", "★", "車"]
KEPT = [0, 1, 3, 4, 6]  # blank, "a", "7", "★" (U+2605, below U+2E80), space


def _recogniser(path: Path) -> np.ndarray:
    """Features (1, 3, 4) -> 7 classes, the dictionary in the metadata as rapidocr's models
    hold it; returns the weights."""
    return classifier_network(path, 4, 7, {"character": "\n".join(CHARS)}, columns=3)


@pytest.mark.skipif(not (HAS_ONNX and HAS_ORT), reason="needs onnx and onnxruntime")
def test_the_cut_keeps_the_latin_classes_and_renormalises_over_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnx
    import onnxruntime as ort

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "rec.onnx"
    wb = _recogniser(source)
    cut = ocr.latin_recogniser(source)
    assert cut.parent == tmp_path / "cache" / "chartproof" / "ocr"
    meta = {p.key: p.value for p in onnx.load(str(cut)).metadata_props}
    assert meta["character"].splitlines() == ["a", "7", "★"]

    x = np.random.default_rng(1).standard_normal((1, 3, 4)).astype(np.float32)
    got = ort.InferenceSession(str(cut)).run(None, {"x": x})[0]
    logits = x @ wb[:4] + wb[4]
    kept = np.exp(logits[..., KEPT])
    assert got.shape == (1, 3, len(KEPT))
    np.testing.assert_allclose(got, kept / kept.sum(-1, keepdims=True), rtol=1e-5)

    # made once: a second call finds the copy (same name from the source's hash)
    stamp = cut.stat().st_mtime_ns
    assert ocr.latin_recogniser(source) == cut
    assert cut.stat().st_mtime_ns == stamp
    assert not list(cut.parent.glob("*.part"))


@pytest.mark.skipif(
    importlib.util.find_spec("rapidocr") is None or not HAS_ONNX, reason="needs rapidocr, onnx"
)
def test_the_bundled_recogniser_reads_latin_text_as_the_full_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Labels drawn in black on white: the cut recogniser reads them as the full one, with
    confidences within a hundredth."""
    import cv2

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    crops = []
    for text in ("2019", "42.5%", "Revenue in million U.S. dollars", "Q3 '21"):
        crop = np.full((40, 24 * len(text) + 20, 3), 255, np.uint8)
        cv2.putText(crop, text, (8, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2)
        crops.append(crop)
    readings = {}
    for cs in ("all", "latin"):
        monkeypatch.setenv(ocr.CHARSET_ENV, cs)
        engine = ocr.OcrEngine()
        readings[cs] = [engine.recognize(c) for c in crops]
    assert [r[0] for r in readings["latin"] if r] == [r[0] for r in readings["all"] if r]
    for (_, full), (_, cut) in zip(readings["all"], readings["latin"], strict=True):  # type: ignore[misc]
        assert abs(full - cut) < 0.01
