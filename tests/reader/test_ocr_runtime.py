"""The OCR runtime choice: OpenVINO when installed, onnxruntime otherwise or on request; the
choice is part of the reader's cache identity; both runtimes read the same text."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from chartproof import ocr
from chartproof.reader import backend as reader_backend

from .conftest import SPECS

HAS_OPENVINO = importlib.util.find_spec("openvino") is not None
HAS_RAPIDOCR = importlib.util.find_spec("rapidocr") is not None


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ("onnxruntime", "onnxruntime"),
        ("ONNXRuntime ", "onnxruntime"),
        pytest.param(
            "openvino",
            "openvino",
            marks=pytest.mark.skipif(not HAS_OPENVINO, reason="openvino not installed"),
        ),
    ],
)
def test_the_environment_picks_the_runtime(
    monkeypatch: pytest.MonkeyPatch, env: str, expected: str
) -> None:
    monkeypatch.setenv(ocr.OCR_ENGINE_ENV, env)
    assert ocr.inference_runtime() == expected
    assert f"/ {expected} " in ocr.engine_identity()


def test_default_is_openvino_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ocr.OCR_ENGINE_ENV, raising=False)
    bf16 = ocr._openvino_precision() == "bf16"
    assert ocr.inference_runtime() == ("openvino" if bf16 else "onnxruntime")


def test_openvino_without_bfloat16_is_not_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenVINO in float32 is slower than onnxruntime: chosen only where it infers in bf16."""
    monkeypatch.delenv(ocr.OCR_ENGINE_ENV, raising=False)
    monkeypatch.setattr(ocr, "_openvino_precision", lambda: "f32")
    assert ocr.inference_runtime() == "onnxruntime"
    monkeypatch.setattr(ocr, "_openvino_precision", lambda: "bf16")
    assert ocr.inference_runtime() == "openvino"
    assert ocr.engine_identity().endswith(" bf16")


def test_default_falls_back_to_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ocr.OCR_ENGINE_ENV, raising=False)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        ocr.importlib.util, "find_spec", lambda name: None if name == "openvino" else real(name)
    )
    ocr._openvino_precision.cache_clear()
    try:
        assert ocr._openvino_precision() is None
        assert ocr.inference_runtime() == "onnxruntime"
    finally:
        ocr._openvino_precision.cache_clear()


def test_unknown_or_missing_runtime_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.OCR_ENGINE_ENV, "tensorrt")
    with pytest.raises(ValueError, match=r"CHARTPROOF_OCR_ENGINE='tensorrt'.*openvino"):
        ocr.inference_runtime()
    monkeypatch.setenv(ocr.OCR_ENGINE_ENV, "openvino")
    real = importlib.util.find_spec
    monkeypatch.setattr(
        ocr.importlib.util, "find_spec", lambda name: None if name == "openvino" else real(name)
    )
    with pytest.raises(ImportError, match="pip install openvino"):
        ocr.inference_runtime()
    with pytest.raises(ValueError, match="unknown OCR runtime"):
        ocr.OcrEngine("tflite")


def test_the_runtime_is_part_of_the_reader_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    revisions = set()
    for runtime in ("onnxruntime", "openvino"):
        monkeypatch.setenv(ocr.OCR_ENGINE_ENV, runtime)
        monkeypatch.setattr(ocr, "inference_runtime", lambda r=runtime: r)
        reader_backend._code_hash.cache_clear()
        revisions.add(reader_backend.reader_revision())
    reader_backend._code_hash.cache_clear()
    assert len(revisions) == 2


@pytest.mark.skipif(not (HAS_OPENVINO and HAS_RAPIDOCR), reason="needs rapidocr and openvino")
@pytest.mark.parametrize("name", ["vbar", "line", "stacked"])
def test_both_runtimes_recover_the_same_table(chart_dir: Path, name: str) -> None:
    """bfloat16 may add or drop a borderline box (a tick read as "1"); the chart's labels and
    the recovered table stay the same."""
    from chartproof.reader.perception import read_chart
    from chartproof.reader.perception.image import load_image

    image = load_image(chart_dir / f"{name}.png")
    tables = {}
    for runtime in ("onnxruntime", "openvino"):
        engine = ocr.OcrEngine(runtime)
        tables[runtime] = read_chart(image, engine.read(image)).table.to_csv()
        assert engine.runtime == runtime
    assert tables["onnxruntime"] == tables["openvino"]
    assert SPECS[name].table.names[1] in tables["openvino"] or len(SPECS[name].table.names) == 2


@pytest.mark.skipif(not HAS_OPENVINO, reason="openvino not installed")
def test_openvino_loads_without_its_telemetry_thread() -> None:
    """OpenVINO's conversion tools send a usage event on import and leave a thread, after
    which worker pools cannot fork; chartproof imports OpenVINO without them."""
    import subprocess
    import sys

    code = (
        "import sys, threading\n"
        "from chartproof import ocr\n"
        "ocr._openvino_precision()\n"
        "print('openvino' in sys.modules, 'openvino.tools.ovc' in sys.modules,"
        " threading.active_count())\n"
    )  # not in sys.modules: no None entry left behind, so the user's own import still works
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "1"]


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_unsure_crops_are_read_again_at_the_default_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every crop is first read with short padding; only those read below RECOGNITION_SURE
    are read again at rapidocr's 320 px, and that second reading is the one kept."""
    import numpy as np

    engine = ocr.OcrEngine("onnxruntime")
    engine._load()
    rec = engine._engine.text_rec
    assert isinstance(rec, ocr._TwoWidthRecognizer)
    inner = rec._rec
    seen: list[tuple[int, int]] = []
    real = type(inner).__call__

    def spy(self: object, args: object) -> object:
        out = real(self, args)
        n = 1 if isinstance(args.img, np.ndarray) else len(args.img)  # type: ignore[attr-defined]
        seen.append((inner.rec_image_shape[2], n))
        if inner.rec_image_shape[2] == ocr.RECOGNITION_MIN_WIDTH:  # first try: "unsure" on #1
            out.scores = [0.5 if i == 1 else 0.99 for i in range(n)]
            out.txts = tuple("first" for _ in range(n))
        return out

    monkeypatch.setattr(type(inner), "__call__", spy)
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    crops = [np.full((30, 60, 3), 255, np.uint8) for _ in range(3)]
    got = rec(TextRecInput(img=crops, return_word_box=False))
    assert seen == [(ocr.RECOGNITION_MIN_WIDTH, 3), (320, 1)]
    assert got.txts[0] == got.txts[2] == "first" and got.txts[1] != "first"
    assert inner.rec_image_shape == [3, 48, 320]  # restored
    assert 224 < ocr.RECOGNITION_MIN_WIDTH < 320


def test_tokens_without_a_letter_or_digit_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A recognised mark ("_", "—") is no label; "5%" and "Teal" are kept."""
    from types import SimpleNamespace

    import numpy as np

    def quad(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)

    found = SimpleNamespace(
        txts=("_", "Teal", "—", "5%"),
        scores=(0.9, 0.95, 0.8, 0.99),
        boxes=[
            quad(10, 10, 30, 30),
            quad(40, 10, 90, 30),
            quad(100, 10, 130, 30),
            quad(10, 50, 40, 70),
        ],
        word_results=None,
    )
    engine = ocr.OcrEngine("onnxruntime")
    monkeypatch.setattr(engine, "_load", lambda: None)
    monkeypatch.setattr(engine, "_call", lambda *a, **k: found)
    image = np.full((800, 800, 3), 255, dtype=np.uint8)
    assert sorted(t.text for t in engine.read(image)) == ["5%", "Teal"]
