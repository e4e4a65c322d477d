"""The bad-input table (`cases/bad_inputs.json`): each mutation of an otherwise good JSONL or
CSV question file is one counted bad row with the file, line, field and a one-line message;
the good rows around it still load, and nothing fails later inside eval.

Images are validated when the dataset loads (`datasets.images.check_image`): corrupt,
truncated, zero-byte, SVG-as-PNG, bomb and non-raster files are bad rows there."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from chartproof.datasets import load_dataset

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "bad_inputs.json").read_text(encoding="utf-8")
)


def _encoded(fmt: str, size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buf, format=fmt)
    return buf.getvalue()


def _image(kind: str) -> bytes:
    png = _encoded("PNG")
    if kind == "corrupt_png":
        return png[:50] + bytes(16) + png[66:]
    if kind == "truncated_png":
        return png[: len(png) // 2]
    if kind == "truncated_jpeg":
        jpeg = _encoded("JPEG", (320, 240))
        return jpeg[: len(jpeg) // 2]
    if kind == "empty":
        return b""
    if kind == "svg":
        return b"<svg xmlns='http://www.w3.org/2000/svg'/>"
    if kind == "ico":
        return _encoded("ICO", (32, 32))
    if kind == "bomb":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "variants"))
        from test_image_caps import bomb_png

        return bomb_png()
    raise AssertionError(kind)


GOOD = {"id": "a", "image": "good.png", "question": "How many bars?", "answer": "3"}


def _write(case: dict[str, Any], folder: Path) -> Path:
    (folder / "good.png").write_bytes(_encoded("PNG"))
    bad = {**GOOD, "id": "b"}
    if "image" in case:
        (folder / "bad.png").write_bytes(_image(case["image"]))
        bad["image"] = "bad.png"
    bad.update(case.get("record", {}))
    last = {**GOOD, "id": "c"}
    if case["format"] == "jsonl":
        path = folder / "q.jsonl"
        rows = [] if case.get("empty") else [GOOD, bad, last]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path
    path = folder / "q.csv"
    lines = ["id,image,question,answer"]
    if not case.get("empty"):
        lines += ["a,good.png,How many bars?,3"]
        lines += ["b,good.png," + "x" * case.get("big_field", 10) + ",3"]
        lines += ["c,good.png,How many bars?,3"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_input_is_one_counted_row(case: dict[str, Any], tmp_path: Path) -> None:
    path = _write(case, tmp_path)
    result = load_dataset(f"{case['format']}:{path}")
    assert result.n_bad == 1, [e.message for e in result.errors]
    (error,) = result.errors
    assert error.file == str(path) and error.line == case["line"]
    assert error.field == case["field"], error
    assert case["message"] in error.message, error.message
    assert "\n" not in error.message and len(error.message) < 300
    assert [s.id for s in result.samples] == (["a", "c"] if case.get("ok", 2) else [])
