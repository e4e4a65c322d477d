"""Parquet round trip, embedded images, bad rows reported by row number; HF export."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from chartproof.datasets import (
    DatasetError,
    load_parquet,
    samples_from_hf,
    save_parquet,
    to_hf_dataset,
)
from chartproof.types import Sample


def test_parquet_round_trip(dataset: tuple[Path, list[Sample]], tmp_path: Path) -> None:
    _, samples = dataset
    path = save_parquet(samples, tmp_path / "out" / "samples.parquet", batch_size=2)
    table = pq.read_table(path)
    assert table.num_rows == 5
    assert table.column("question_type").to_pylist() == ["VE"] * 5
    assert table.schema.metadata[b"chartproof"] == b"samples/1"
    result = load_parquet(path)
    assert result.samples == samples
    assert result.errors == []


def test_parquet_empty(tmp_path: Path) -> None:
    path = save_parquet([], tmp_path / "empty.parquet")
    assert load_parquet(path).samples == []


def test_parquet_embedded_images(dataset: tuple[Path, list[Sample]], tmp_path: Path) -> None:
    folder, samples = dataset
    with pytest.raises(ValueError, match="root"):
        save_parquet(samples, tmp_path / "x.parquet", embed_images=True)
    path = save_parquet(samples, tmp_path / "x.parquet", embed_images=True, root=folder)
    result = load_parquet(path, image_dir=tmp_path / "unpacked")
    assert result.samples == samples
    assert result.root == tmp_path / "unpacked"
    for s in samples:
        assert (tmp_path / "unpacked" / s.image.path).read_bytes() == (
            folder / s.image.path
        ).read_bytes()


def test_parquet_bad_rows(dataset: tuple[Path, list[Sample]], tmp_path: Path) -> None:
    _, samples = dataset
    path = save_parquet(samples, tmp_path / "x.parquet")
    table = pq.read_table(path)
    answers = table.column("answer").to_pylist()
    answers[1] = '{"kind": "bool", "value": 3.5}'
    answers[3] = "{oops"
    table = table.set_column(table.schema.get_field_index("answer"), "answer", pa.array(answers))
    pq.write_table(table, path)
    result = load_parquet(path)
    assert [s.id for s in result.samples] == ["s-0", "s-2", "s-4"]
    assert [(e.line, e.sample_id, e.field) for e in result.errors] == [
        (2, "s-1", "answer"),
        (4, "s-3", "answer"),
    ]
    assert "malformed JSON" in result.errors[1].message
    with pytest.raises(DatasetError, match=r"x.parquet:2"):
        load_parquet(path, strict=True)
    # the images live in `folder`, not next to the Parquet file: checked, they are missing
    result = load_parquet(path, check_images=True)
    assert result.n_bad == 5
    assert [e.field for e in result.errors].count("image.path") == 3


def test_parquet_rejects_foreign_file(tmp_path: Path) -> None:
    pq.write_table(pa.table({"a": [1]}), tmp_path / "a.parquet")
    with pytest.raises(ValueError, match="not a chartproof samples file"):
        load_parquet(tmp_path / "a.parquet")


def test_hf_export(dataset: tuple[Path, list[Sample]]) -> None:
    pytest.importorskip("datasets")
    folder, samples = dataset
    ds = to_hf_dataset(samples, folder)
    assert len(ds) == 5
    assert type(ds.features["image"]).__name__ == "Image"
    first = ds[0]
    assert first["image"].size == (8, 8)
    assert first["answer_text"] == "1.5" and first["answer_kind"] == "number"
    assert samples_from_hf(ds) == samples


def test_hf_missing_extra_says_what_to_install(
    dataset: tuple[Path, list[Sample]], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, samples = dataset
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=r"pip install 'chartproof\[datasets\]'"):
        to_hf_dataset(samples, folder)
