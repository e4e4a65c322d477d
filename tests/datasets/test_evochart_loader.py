"""EvoChart-QA from its hub Parquet copy (`gsarch/EvoChart-QA`: image, question, answer,
chart_type, attribute, is_clear; one train split), written here by `datasets` itself as
the hub stores it. The `is_clear` flag reaches the `evochart` convention, and a clear
number answer allows no tolerance in chartproof's own accuracy either."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import load_dataset, load_evochart
from chartproof.metrics.conventions import convention_for

ROWS = [
    ("How many bars exceed 30?", "3", "bar", "counting", True),
    ("What is the value for 2019?", "25.5", "line", "data retrieval", False),
    ("Which region is largest?", "Asia", "pie", "comparison", True),
    ("What is the total?", "120", "bar", "arithmetic", None),
]


def _png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (12, 10), colour).save(out, format="PNG")
    return out.getvalue()


def _hub_copy(root: Path) -> Path:
    datasets = pytest.importorskip("datasets")
    features = datasets.Features(
        {
            "image": datasets.Image(),
            "question": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "chart_type": datasets.Value("string"),
            "attribute": datasets.Value("string"),
            "is_clear": datasets.Value("bool"),
        }
    )
    columns = {
        "image": [{"bytes": _png((40 * i, 90, 200)), "path": None} for i in range(len(ROWS))],
        "question": [r[0] for r in ROWS],
        "answer": [r[1] for r in ROWS],
        "chart_type": [r[2] for r in ROWS],
        "attribute": [r[3] for r in ROWS],
        "is_clear": [r[4] for r in ROWS],
    }
    (root / "data").mkdir(parents=True)
    file = root / "data" / "train-00000-of-00001.parquet"
    datasets.Dataset.from_dict(columns, features=features).to_parquet(str(file))
    return file


def test_evochart_hub_copy(tmp_path: Path) -> None:
    _hub_copy(tmp_path / "EvoChart-QA")
    result = load_dataset(f"evochart:{tmp_path / 'EvoChart-QA'}?images={tmp_path / 'cache'}")
    ids = [s.id for s in result.samples]
    assert ids == [f"evochart-train-00000-of-00001-{i}" for i in (1, 2, 3)]
    counting, retrieval, label = result.samples
    assert counting.question == ROWS[0][0] and counting.answer.value == 3.0
    assert counting.answer.tolerance == 0.0 and retrieval.answer.tolerance == 0.05
    assert label.answer.kind == "text" and label.chart_type == "pie"
    assert counting.question_type == "counting" and counting.groups == {"attribute": "counting"}
    assert [s.source["is_clear"] for s in result.samples] == [True, False, True]
    assert counting.source["answer_raw"] == "3" and counting.source["dataset"] == "evochart"
    with Image.open(tmp_path / "cache" / retrieval.image.path) as im:
        assert im.convert("RGB").getpixel((0, 0)) == (40, 90, 200)
    # the row without an is_clear flag is refused, not scored by a guessed rule
    [error] = result.errors
    assert error.field == "is_clear" and error.sample_id == "evochart-train-00000-of-00001-4"
    conv = convention_for(counting)
    assert conv is not None and conv.name == "evochart"
    assert conv.score("3.0", counting) == 0.0 and conv.score("3", counting) == 1.0
    assert conv.score("26", retrieval) == 1.0 and conv.score("27", retrieval) == 0.0


def test_evochart_single_file_and_split(tmp_path: Path) -> None:
    file = _hub_copy(tmp_path / "hub")
    result = load_evochart(file, split="train", images=str(tmp_path / "cache"))
    assert len(result.samples) == 3 and {s.split for s in result.samples} == {"train"}
