"""The ChartBias loader: the shared release's 100 charts, and bad rows named by line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import load_dataset
from chartproof.datasets.errors import DatasetError
from chartproof.datasets.loaders.chartbias import income_lists, load_chartbias

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "chartbias"


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/chartbias is absent")
def test_shared_release_loads_every_row() -> None:
    loaded = load_dataset(SHARED)
    assert len(loaded.samples) == 100 and not loaded.errors
    counts: dict[str, int] = {}
    for s in loaded.samples:
        counts[s.groups["polarity"]] = counts.get(s.groups["polarity"], 0) + 1
        assert s.source["audit_only"] is True and s.question == ""
    assert counts == {"negative": 25, "neutral": 25, "positive": 25, "volatile": 25}
    lists = income_lists(SHARED)
    assert {k: len(v) for k, v in lists.items()} == {
        "High-income": 20, "Middle-income": 20, "Low-income": 20,
    }  # fmt: skip
    assert "Germany" in lists["High-income"] and "High Income" not in lists["High-income"]


def _folder(tmp_path: Path, rows: list[object]) -> Path:
    (tmp_path / "images").mkdir()
    Image.new("RGB", (4, 4)).save(tmp_path / "images" / "a.png")  # images are decoded on load
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    (tmp_path / "chartbias.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_bad_rows_are_named_and_counted(tmp_path: Path) -> None:
    root = _folder(
        tmp_path,
        [
            {"id": "a", "image": "images/a.png", "polarity": "positive",
             "eligibility": {"race": False}},
            {"id": "b", "image": "images/a.png", "polarity": "sunny"},
            {"id": "a", "image": "images/a.png"},
            {"id": "c", "image": "../outside.png"},
            {"id": "d", "image": "images/missing.png"},
            "{not json",
        ],
    )  # fmt: skip
    loaded = load_dataset(root)
    assert [s.id for s in loaded.samples] == ["a"]
    assert loaded.samples[0].source["eligibility"] == {"race": False}
    by_line = {e.line: e for e in loaded.errors}
    assert set(by_line) == {2, 3, 4, 5, 6}
    assert by_line[2].field == "polarity" and "sunny" in by_line[2].message
    assert "duplicate" in by_line[3].message
    assert "escapes" in by_line[4].message
    with pytest.raises(DatasetError, match="polarity"):
        load_chartbias(root, strict=True)


def test_eval_refuses_charts_without_questions(tmp_path: Path) -> None:
    from chartproof.pipelines.evaluate import evaluate

    root = _folder(tmp_path, [{"id": "a", "image": "images/a.png", "polarity": "neutral"}])
    with pytest.raises(ValueError, match="chartproof audit"):
        evaluate(root, "builtin:reader", tmp_path / "run")
