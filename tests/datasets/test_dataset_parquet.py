"""Parquet round trip, embedded images, bad rows reported by row number; HF export."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from chartproof.datasets import (
    EXPORT_COLUMNS,
    DatasetError,
    load_parquet,
    samples_from_hf,
    save_parquet,
    to_hf_dataset,
)
from chartproof.datasets.parquet import JSON_FIELDS, SCALAR_FIELDS
from chartproof.types import Sample


def test_parquet_round_trip(dataset: tuple[Path, list[Sample]], tmp_path: Path) -> None:
    _, samples = dataset
    path = save_parquet(samples, tmp_path / "out" / "samples.parquet", batch_size=2)
    table = pq.read_table(path)
    assert table.num_rows == 5
    assert table.column("question_type").to_pylist() == ["VE"] * 5
    assert table.schema.metadata[b"chartproof"] == b"samples/3"
    assert table.column_names == list(EXPORT_COLUMNS)
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
    answers = table.column("answer_json").to_pylist()
    answers[1] = '{"kind": "bool", "value": 3.5}'
    answers[3] = "{oops"
    at = table.schema.get_field_index("answer_json")
    table = table.set_column(at, "answer_json", pa.array(answers))
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


def test_parquet_and_hf_export_share_one_schema_with_an_image_feature(
    dataset: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    datasets = pytest.importorskip("datasets")
    folder, samples = dataset
    path = save_parquet(samples, tmp_path / "x.parquet", embed_images=True, root=folder)
    from_parquet = datasets.Dataset.from_parquet(str(path))
    exported = to_hf_dataset(samples, folder)
    assert from_parquet.column_names == exported.column_names == list(EXPORT_COLUMNS)
    assert type(from_parquet.features["image"]).__name__ == "Image"
    assert from_parquet.features == exported.features
    first = from_parquet[0]
    assert first["image"].size == exported[0]["image"].size == (8, 8)
    assert first["answer_text"] == "1.5" and first["answer_kind"] == "number"
    assert samples_from_hf(from_parquet) == samples_from_hf(exported) == samples


def test_parquet_of_the_first_layout_still_loads(
    dataset: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    import json

    folder, samples = dataset
    rows = []
    for s in samples:
        data = s.model_dump(mode="json")
        row = {n: data[n] for n in SCALAR_FIELDS}
        row |= {n: json.dumps(data[n]) for n in JSON_FIELDS if n != "more_images"}
        row["image_bytes"] = (folder / s.image.path).read_bytes()
        rows.append(row)
    old = pa.Table.from_pylist(rows).replace_schema_metadata({b"chartproof": b"samples/1"})
    pq.write_table(old, tmp_path / "old.parquet")
    result = load_parquet(tmp_path / "old.parquet", image_dir=tmp_path / "img")
    assert result.samples == samples and result.errors == []
    assert (tmp_path / "img" / samples[0].image.path).read_bytes() == (
        folder / samples[0].image.path
    ).read_bytes()
