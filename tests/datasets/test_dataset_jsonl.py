"""Native JSONL datasets: lossless round trip, atomic streaming writes, bad rows named by
file, line and field, counted and never dropped silently."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from chartproof.datasets import (
    DatasetError,
    RowError,
    SampleWriter,
    iter_samples,
    load_samples,
    save_samples,
)
from chartproof.types import Sample

MakeSample = Callable[..., Sample]
WritePng = Callable[..., Path]


def _lines(folder: Path) -> list[str]:
    return (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()


def _write_lines(folder: Path, lines: list[str]) -> None:
    (folder / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_round_trip_is_lossless(dataset: tuple[Path, list[Sample]]) -> None:
    folder, samples = dataset
    path = save_samples(samples, folder)
    assert path == folder / "samples.jsonl"
    result = load_samples(folder)
    assert result.samples == samples
    assert result.errors == []
    assert result.root == folder
    # tuples, bools and None inside nested records survive
    assert result.samples[0].source["nested"] == {"a": [1, 2.5, None, True]}
    assert list(iter_samples(folder / "samples.jsonl")) == samples


def test_writer_streams_and_publishes_atomically(
    dataset: tuple[Path, list[Sample]], make_sample: MakeSample
) -> None:
    folder, samples = dataset
    save_samples(samples[:2], folder)
    with pytest.raises(RuntimeError), SampleWriter(folder) as writer:
        writer.write(samples[2])
        assert not (folder / "samples.jsonl").read_text().count("s-2")
        raise RuntimeError("crash mid-write")
    # the earlier file is untouched and no partial file is left behind
    assert [s.id for s in load_samples(folder).samples] == ["s-0", "s-1"]
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


def test_writer_rejects_duplicate_and_missing_image(
    dataset: tuple[Path, list[Sample]], make_sample: MakeSample
) -> None:
    folder, samples = dataset
    with SampleWriter(folder) as writer:
        writer.write(samples[0])
        with pytest.raises(ValueError, match="duplicate sample id 's-0'"):
            writer.write(samples[0])
        with pytest.raises(ValueError, match=r"sample 's-9'.*not found"):
            writer.write(make_sample(9))
    assert writer.n_written == 1


def test_copy_images_from_another_dataset(
    dataset: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    folder, samples = dataset
    target = tmp_path / "subset"
    with pytest.raises(ValueError, match="not found"):
        save_samples(samples[:2], target)
    save_samples(samples[:2], target, copy_images_from=folder)
    assert (target / "images/1.png").read_bytes() == (folder / "images/1.png").read_bytes()
    assert load_samples(target).samples == samples[:2]


def test_bad_rows_are_named_counted_and_kept_out(dataset: tuple[Path, list[Sample]]) -> None:
    folder, samples = dataset
    save_samples(samples, folder)
    lines = _lines(folder)
    bad_answer = json.loads(lines[1])
    bad_answer["answer"]["value"] = "twelve"  # a number answer holding text
    missing_image = json.loads(lines[3])
    missing_image["image"]["path"] = "images/nope.png"
    _write_lines(
        folder,
        [
            lines[0],
            json.dumps(bad_answer),
            "{not json",
            "",  # blank lines are not rows
            json.dumps(missing_image),
            lines[0],  # duplicate id
            lines[4],
        ],
    )
    result = load_samples(folder)
    assert [s.id for s in result.samples] == ["s-0", "s-4"]
    assert result.n_bad == 4
    by_line = {e.line: e for e in result.errors}
    assert sorted(by_line) == [2, 3, 5, 6]
    assert by_line[2].field is not None and by_line[2].field.startswith("answer")
    assert by_line[2].sample_id == "s-1"
    assert "malformed JSON" in by_line[3].message
    assert by_line[5].field == "image.path" and "not found" in by_line[5].message
    assert by_line[6].field == "id" and "first used on line 1" in by_line[6].message
    text = str(by_line[2])
    assert text.startswith(f"{folder / 'samples.jsonl'}:2 (sample 's-1')")
    assert "4 bad rows skipped" in result.summary()


def test_strict_stops_at_first_bad_row(dataset: tuple[Path, list[Sample]]) -> None:
    folder, samples = dataset
    save_samples(samples, folder)
    lines = _lines(folder)
    _write_lines(folder, [lines[0], "[1, 2]", "{broken"])
    with pytest.raises(DatasetError, match=r"samples.jsonl:2") as info:
        load_samples(folder, strict=True)
    assert info.value.error.line == 2
    # streaming without an error list is strict too: nothing can slip by
    with pytest.raises(DatasetError, match=r"samples.jsonl:2"):
        list(iter_samples(folder))
    errors: list[RowError] = []
    assert [s.id for s in iter_samples(folder, errors=errors)] == ["s-0"]
    assert [e.line for e in errors] == [2, 3]


def test_non_utf8_and_bom(dataset: tuple[Path, list[Sample]]) -> None:
    folder, samples = dataset
    save_samples(samples[:2], folder)
    lines = _lines(folder)
    data = b"\xef\xbb\xbf" + lines[0].encode() + b"\n\xff\xfe bad\n" + lines[1].encode() + b"\n"
    (folder / "samples.jsonl").write_bytes(data)
    result = load_samples(folder)
    assert [s.id for s in result.samples] == ["s-0", "s-1"]
    assert [(e.line, "not UTF-8" in e.message) for e in result.errors] == [(2, True)]


def test_unsafe_image_paths(
    dataset: tuple[Path, list[Sample]], tmp_path: Path, write_png: WritePng
) -> None:
    folder, samples = dataset
    outside = write_png(tmp_path / "secret.png")
    os.symlink(outside, folder / "images" / "link.png")
    os.symlink(folder / "images" / "0.png", folder / "images" / "inside.png")
    save_samples(samples[:1], folder)
    row = json.loads(_lines(folder)[0])
    rows = []
    for i, path in enumerate(
        ["../secret.png", "/etc/passwd", "images/link.png", "images/inside.png"]
    ):
        rows.append(json.dumps({**row, "id": f"x{i}", "image": {"path": path}}))
    _write_lines(folder, rows)
    result = load_samples(folder)
    assert [s.id for s in result.samples] == ["x3"]  # a symlink inside the folder is fine
    messages = {e.line: (e.field, e.message) for e in result.errors}
    assert messages[1][0] == "image.path" and "escapes" in messages[1][1]
    assert messages[2][0] == "image.path" and "escapes" in messages[2][1]
    assert messages[3][0] == "image.path" and "outside the dataset folder" in messages[3][1]


def test_missing_samples_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no samples file"):
        load_samples(tmp_path)
