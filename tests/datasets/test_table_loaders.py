"""Loaders of tabular sources — CSV question files, Hugging Face folders and foreign Parquet,
ChartQA-Pro and ChartQA-X hub files — with embedded images evaluated directly; tables given
as {columns, rows}; multiple-choice fields. Fixtures are built here."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from chartproof.datasets import (
    detect_format,
    load_chartqapro,
    load_chartqax,
    load_csv,
    load_dataset,
    load_hf_folder,
    load_jsonl,
    save_parquet,
)
from chartproof.datasets.choices import choice_answer, read_choices, split_options
from chartproof.types import Answer, Sample

MakeSample = Callable[..., Sample]
WritePng = Callable[..., Path]


@pytest.fixture(autouse=True)
def image_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "image-cache"
    monkeypatch.setenv("CHARTPROOF_IMAGE_CACHE", str(cache))
    return cache


def _png(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (6, 6), color).save(buf, format="PNG")
    return buf.getvalue()


def _write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


# ------------------------------------------------------------------ options and tables


def test_read_choices_forms() -> None:
    assert read_choices(["12", 15, 2.5]) == ("12", "15", "2.5")
    assert read_choices({"A": "Italy", "B": "Spain"}) == ("Italy", "Spain")
    assert read_choices('["x", "y"]') == ("x", "y")
    assert read_choices("A. Italy\nB. Spain\nC. France") == ("Italy", "Spain", "France")
    assert read_choices("Italy|Spain") == ("Italy", "Spain")
    assert read_choices(None) is None and read_choices("") is None and read_choices([]) is None
    with pytest.raises(ValueError, match="cannot split"):
        read_choices("Italy or Spain")


def test_split_options_from_question_text() -> None:
    assert split_options("Which is largest?\nA. 12\nB. 15\nC. 9") == (
        "Which is largest?",
        ("12", "15", "9"),
    )
    assert split_options("Which is largest? Options: (A) Italy (B) Spain") == (
        "Which is largest?",
        ("Italy", "Spain"),
    )
    assert split_options("Which is largest? A) Italy B) Spain C) France") == (
        "Which is largest?",
        ("Italy", "Spain", "France"),
    )
    assert split_options("What share (A) of adults agree?") is None
    assert split_options("Compare (B) and (A).") is None  # not in letter order


def test_choice_answer_letters_and_text() -> None:
    options = ("Italy", "Spain", "B")
    assert choice_answer("spain", options) == Answer.option("Spain")
    assert choice_answer("(a)", options) == Answer.option("Italy")
    assert choice_answer("Option A", options) == Answer.option("Italy")
    assert choice_answer("B", options) == Answer.option("B")  # the option text wins
    assert choice_answer("B. Spain", options) == Answer.option("Spain")
    assert choice_answer("(a) italy", options) == Answer.option("Italy")
    with pytest.raises(ValueError, match="neither a letter"):
        choice_answer("A. Spain", options)  # letter and text disagree
    with pytest.raises(ValueError, match="neither a letter"):
        choice_answer("Poland", options)
    with pytest.raises(ValueError, match="neither a letter"):
        choice_answer("D", options)


def test_jsonl_choices_and_table_forms(tmp_path: Path, write_png: WritePng) -> None:
    write_png(tmp_path / "c.png")
    rows = [
        {"id": "mc-list", "image": "c.png", "question": "Largest?", "answer": "B",
         "choices": ["Italy", "Spain", "France"]},
        {"id": "mc-map", "image": "c.png", "question": "Smallest?", "answer": "France",
         "choices": {"A": "Italy", "B": "France"}},
        {"id": "mc-bad", "image": "c.png", "question": "Largest?", "answer": "Poland",
         "choices": ["Italy", "Spain"]},
        {"id": "cols", "image": "c.png", "question": "Value?", "answer": "3",
         "table": {"columns": ["Year", {"name": "Sales", "unit": "%"}], "rows": [["2019", 3], ["2020", 4.5]]}},
        {"id": "lists", "image": "c.png", "question": "Value?", "answer": "3",
         "table": [["Year", "Sales"], ["2019", 3]]},
        {"id": "ragged", "image": "c.png", "question": "Value?", "answer": "3",
         "table": {"columns": ["Year", "Sales"], "rows": [["2019"]]}},
        {"id": "odd", "image": "c.png", "question": "Value?", "answer": "3", "table": {"cells": 1}},
    ]  # fmt: skip
    file = tmp_path / "q.jsonl"
    file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = load_jsonl(file)
    by_id = {s.id: s for s in result.samples}
    assert by_id["mc-list"].choices == ("Italy", "Spain", "France")
    assert by_id["mc-list"].answer == Answer.option("Spain")
    assert by_id["mc-map"].answer == Answer.option("France")
    table = by_id["cols"].table
    assert table is not None and table.names == ("Year", "Sales")
    assert table.col("Sales").unit == "%" and table.rows == (("2019", 3.0), ("2020", 4.5))
    assert by_id["lists"].table is not None and by_id["lists"].table.rows == (("2019", 3.0),)
    # a table that is not one loads the sample without it, loudly, and keeps the value
    assert by_id["ragged"].table is None and by_id["ragged"].source["table_raw"]
    assert by_id["odd"].source["table_raw"] == {"cells": 1}
    problems = {e.sample_id: e for e in result.errors}
    assert problems["ragged"].severity == "warning" and "1 cells" in problems["ragged"].message
    assert problems["odd"].severity == "warning" and "columns" in problems["odd"].message
    assert problems["mc-bad"].severity == "error" and problems["mc-bad"].field == "answer"
    assert result.n_bad == 1 and result.n_warnings == 2


def test_options_inside_the_question(tmp_path: Path, write_png: WritePng) -> None:
    write_png(tmp_path / "c.png")
    row = {"id": "q", "image": "c.png", "question": "Which is largest?\n(A) 12\n(B) 15",
           "answer": "(b)"}  # fmt: skip
    (tmp_path / "q.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    plain = load_dataset(f"jsonl:{tmp_path / 'q.jsonl'}").samples[0]
    assert plain.choices == () and plain.answer == Answer.of_text("(b)")
    (s,) = load_dataset(f"jsonl:{tmp_path / 'q.jsonl'}?options_in_question=true").samples
    assert s.question == "Which is largest?" and s.choices == ("12", "15")
    assert s.answer == Answer.option("15")
    assert s.source["question_with_options"] == row["question"]
    # options read from the text that the answer does not name: an open question, warned
    odd = {**row, "answer": "about 15"}
    (tmp_path / "q.jsonl").write_text(json.dumps(odd) + "\n", encoding="utf-8")
    loaded = load_dataset(f"jsonl:{tmp_path / 'q.jsonl'}?options_in_question=true")
    (o,) = loaded.samples
    assert o.choices == () and o.question == row["question"] and o.answer.kind == "text"
    assert loaded.n_warnings == 1 and "open question" in loaded.errors[0].message


# ------------------------------------------------------------------ CSV


def test_csv_question_file(tmp_path: Path, write_png: WritePng) -> None:
    write_png(tmp_path / "charts" / "a.png")
    (tmp_path / "questions.csv").write_text(
        "id,image,question,answer,A,B,C,D,source_site\n"
        "q1,charts/a.png,Which bar is tallest?,C,Italy,Spain,France,,Pew\n"
        'q2,charts/a.png,"How many bars, in all?",4,,,,,OWID\n'
        "q3,../outside.png,Escape?,yes,,,,,x\n"
        "q4,charts/a.png,Too many cells?,1,a,b,c,d,e,f\n",
        encoding="utf-8",
    )
    assert detect_format(tmp_path / "questions.csv") == "csv"
    result = load_dataset(f"csv:{tmp_path / 'questions.csv'}?choices=A,B,C,D&groups=source_site")
    q1, q2 = result.samples
    assert q1.choices == ("Italy", "Spain", "France") and q1.answer == Answer.option("France")
    assert q1.groups == {"source_site": "Pew"}
    assert q2.question == "How many bars, in all?" and q2.answer == Answer.number(4.0)
    errors = {e.line: e for e in result.errors}
    assert "escapes" in errors[4].message and errors[4].sample_id == "q3"
    assert "10 cells" in errors[5].message
    assert result.n_bad == 2
    assert [s.id for s in load_csv(tmp_path, choices="A,B,C,D").samples] == ["q1", "q2"]


# ------------------------------------------------------------------ Hugging Face folders


def test_hf_hub_snapshot_with_embedded_images(tmp_path: Path, image_cache: Path) -> None:
    red, blue = _png((255, 0, 0)), _png((0, 0, 255))
    root = tmp_path / "snapshot"
    _write_parquet(
        root / "data" / "test-00000-of-00001.parquet",
        [
            {"image": {"bytes": red, "path": "r.png"}, "query": "Red value?", "label": "12"},
            {"image": {"bytes": red, "path": "r.png"}, "query": "Is it red?", "label": "Yes"},
            {"image": {"bytes": blue, "path": None}, "query": "Blue value?", "label": "3"},
            {"image": {"bytes": None, "path": None}, "query": "No image?", "label": "1"},
        ],
    )
    _write_parquet(
        root / "data" / "train-00000-of-00001.parquet",
        [{"image": blue, "query": "Train question?", "label": "7"}],
    )
    assert detect_format(root) == "hf"
    result = load_dataset(f"hf:{root}?split=test&question=query&answer=label")
    assert result.root == image_cache
    assert [s.answer for s in result.samples] == [
        Answer.number(12.0), Answer.boolean(True), Answer.number(3.0),
    ]  # fmt: skip
    first, second, third = result.samples
    assert first.image.path == second.image.path != third.image.path  # one file per chart
    assert (result.root / first.image.path).read_bytes() == red
    assert first.id == "snapshot-test-00000-of-00001-1" and first.split == "test"
    assert result.n_bad == 1 and result.errors[0].field == "image"
    stamp = (result.root / first.image.path).stat().st_mtime_ns
    again = load_hf_folder(root, split="test", question="query", answer="label")
    assert again.samples == result.samples
    assert (result.root / first.image.path).stat().st_mtime_ns == stamp  # nothing rewritten
    assert len(load_hf_folder(root, question="query", answer="label").samples) == 4


def test_hf_save_to_disk_layout(tmp_path: Path) -> None:
    """The Arrow stream files and state.json that `Dataset.save_to_disk` writes."""
    import pyarrow as pa

    folder = tmp_path / "saved"
    folder.mkdir()
    table = pa.Table.from_pylist(
        [
            {
                "image": {"bytes": _png((0, 255, 0)), "path": None},
                "question": "Green?",
                "answer": "yes",
            }
        ]
    )
    file = str(folder / "data-00000-of-00001.arrow")
    with pa.OSFile(file, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    (folder / "state.json").write_text(
        json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}), encoding="utf-8"
    )
    assert detect_format(folder) == "hf"
    (s,) = load_dataset(folder).samples
    assert s.answer == Answer.boolean(True) and s.question == "Green?"


def test_foreign_parquet_file_is_hf_not_native(tmp_path: Path) -> None:
    path = _write_parquet(
        tmp_path / "bench.parquet", [{"image": _png((1, 2, 3)), "question": "Q?", "answer": "2"}]
    )
    assert detect_format(path) == "hf"
    (s,) = load_dataset(path).samples
    assert s.answer == Answer.number(2.0)


# ------------------------------------------------------------------ ChartQA-Pro, ChartQA-X


def test_chartqapro_hub_parquet(tmp_path: Path) -> None:
    img = _png((9, 9, 9))
    root = tmp_path / "ChartQAPro"
    _write_parquet(
        root / "data" / "test-00000-of-00001.parquet",
        [
            {"image": img, "Question": ["In which year was the share highest?"], "Answer": ["2016"],
             "Question Type": "Factoid", "Year": ["YES"], "Paragraph": ""},
            {"image": img, "Question": ["Which group is largest?\nA) Adults\nB) Teens\nC) Seniors"],
             "Answer": ["B"], "Question Type": "Multi Choice", "Year": ["NO"], "Paragraph": ""},
            {"image": img, "Question": ["What is shown?", "And its peak value?"],
             "Answer": ["Sales", "42"], "Question Type": "Conversational", "Year": ["NO", "NO"],
             "Paragraph": "Sales of one shop."},
            {"image": img, "Question": ["Sales doubled."], "Answer": ["False"],
             "Question Type": "Fact Checking", "Year": ["NO"], "Paragraph": None},
            {"image": img, "Question": ["Two?", "Answers?"], "Answer": ["1"],
             "Question Type": "Factoid", "Year": [], "Paragraph": ""},
        ],
    )  # fmt: skip
    result = load_dataset(f"chartqapro:{root}")
    by_id = {s.id: s for s in result.samples}
    assert set(by_id) == {"chartqapro-1", "chartqapro-2", "chartqapro-3", "chartqapro-4"}
    assert by_id["chartqapro-1"].answer == Answer.number(2016.0)
    mc = by_id["chartqapro-2"]
    assert mc.question == "Which group is largest?" and mc.choices == ("Adults", "Teens", "Seniors")
    assert mc.answer == Answer.option("Teens") and mc.question_type == "Multi Choice"
    conv = by_id["chartqapro-3"]
    assert conv.question == (
        "The conversation so far:\nQ: What is shown?\nA: Sales\n\nAnd its peak value?"
        "\n\nContext: Sales of one shop."
    )
    assert conv.answer == Answer.number(42.0)
    assert by_id["chartqapro-4"].answer == Answer.boolean(False)
    assert by_id["chartqapro-1"].groups == {"question_type": "Factoid"}
    assert result.n_bad == 1 and result.errors[0].line == 5
    assert (result.root / mc.image.path).read_bytes() == img
    assert load_chartqapro(root).samples == result.samples


def test_chartqax_rows(tmp_path: Path) -> None:
    img = _png((4, 5, 6))
    path = _write_parquet(
        tmp_path / "cqx" / "train.parquet",
        [
            {"imgname": "1.png", "image": img, "query": "Which is highest?", "label": "Gas",
             "explanation": "The Gas bar is the tallest.", "type": "v_bar"},
            {"imgname": "2.png", "image": img, "query": "Total?", "label": "7", "explanation": None,
             "type": "pie"},
        ],
    )  # fmt: skip
    result = load_chartqax(path)
    first, second = result.samples
    assert first.explanation == "The Gas bar is the tallest." and first.chart_type == "vbar"
    assert first.source["imgname"] == "1.png" and second.chart_type == "pie"
    assert second.explanation is None
    assert result.n_warnings == 1 and result.errors[0].field == "explanation"


# ------------------------------------------------------------------ chartproof Parquet


def test_embedded_parquet_evaluates_without_images_option(
    tmp_path: Path, make_sample: MakeSample, write_png: WritePng, image_cache: Path
) -> None:
    from chartproof.pipelines.evaluate import evaluate
    from chartproof.testing import ScriptedBackend

    folder = tmp_path / "ds"
    samples = [make_sample(i) for i in range(3)]
    for i, s in enumerate(samples):
        write_png(folder / s.image.path, color=(10 * i, 20, 30))
    path = save_parquet(samples, tmp_path / "share" / "set.parquet", embed_images=True, root=folder)
    loaded = load_dataset(path)
    assert loaded.root.is_relative_to(image_cache) and loaded.samples == samples
    for s in samples:
        assert (loaded.root / s.image.path).read_bytes() == (folder / s.image.path).read_bytes()
    record = evaluate(
        path,
        out=tmp_path / "run",
        backend=ScriptedBackend(lambda r: "The answer is: 1.5. Explanation: read."),
        cache=False,
    )
    assert record.counts["answered"] == 3 and record.counts["failed"] == 0


def _mc_and_plain(folder: Path, make_sample: MakeSample, write_png: WritePng) -> list[Any]:
    plain = make_sample(0)
    mc = make_sample(1).model_copy(
        update={"answer": Answer.option("2020"), "choices": ("2019", "2020", "2021")}
    )
    for s in (plain, mc):
        write_png(folder / s.image.path)
    return [plain, mc]


def test_parquet_round_trip_keeps_choices(
    tmp_path: Path, make_sample: MakeSample, write_png: WritePng
) -> None:
    from chartproof.datasets import load_parquet

    samples = _mc_and_plain(tmp_path / "ds", make_sample, write_png)
    path = save_parquet(samples, tmp_path / "mc.parquet")
    assert load_parquet(path).samples == samples


def test_old_parquet_without_choices_column_still_loads(
    tmp_path: Path, make_sample: MakeSample
) -> None:
    import pyarrow.parquet as pq

    from chartproof.datasets import load_parquet

    path = save_parquet([make_sample(0)], tmp_path / "new.parquet")
    table = pq.read_table(path)
    old = table.drop_columns(["choices_json"]).replace_schema_metadata(table.schema.metadata)
    pq.write_table(old, tmp_path / "old.parquet")
    assert load_parquet(tmp_path / "old.parquet").samples == [make_sample(0)]


@pytest.mark.slow
def test_hf_export_folder_loads_back_as_data(
    tmp_path: Path, make_sample: MakeSample, write_png: WritePng
) -> None:
    """`chartproof export --to hf` output given as --data: the exact samples come back, with
    their images in the cache (same bytes, same hash)."""
    from chartproof.datasets import to_hf_dataset

    folder = tmp_path / "ds"
    samples = _mc_and_plain(folder, make_sample, write_png)
    to_hf_dataset(samples, folder).save_to_disk(str(tmp_path / "hf"))
    assert detect_format(tmp_path / "hf") == "hf"
    loaded = load_dataset(tmp_path / "hf")
    assert loaded.n_bad == 0
    assert [
        s.model_copy(update={"image": s.image.model_copy(update={"path": "x"})})
        for s in loaded.samples
    ] == [s.model_copy(update={"image": s.image.model_copy(update={"path": "x"})}) for s in samples]
    for got, want in zip(loaded.samples, samples, strict=True):
        assert (loaded.root / got.image.path).read_bytes() == (
            folder / want.image.path
        ).read_bytes()


def test_hf_image_paths_stay_inside_the_folder(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "ds"
    write_png(root / "imgs" / "a.png")
    write_png(tmp_path / "secret.png")
    _write_parquet(
        root / "data.parquet",
        [
            {"image": "imgs/a.png", "question": "Q1?", "answer": "1"},
            {"image": "../secret.png", "question": "Q2?", "answer": "2"},
            {"image": str(tmp_path / "secret.png"), "question": "Q3?", "answer": "3"},
        ],
    )
    result = load_hf_folder(root)
    assert [s.question for s in result.samples] == ["Q1?"]
    assert result.n_bad == 2 and all("escapes" in e.message for e in result.errors)
    assert (result.root / result.samples[0].image.path).read_bytes() == (
        root / "imgs" / "a.png"
    ).read_bytes()


def test_hf_sequence_of_images_is_a_multi_image_sample(tmp_path: Path, image_cache: Path) -> None:
    """A hub column holding a list of images (a multi-chart question, MultiChartQA-style)
    gives one sample with every image, in order."""
    red, green, blue = _png((255, 0, 0)), _png((0, 255, 0)), _png((0, 0, 255))
    root = tmp_path / "multi"
    _write_parquet(
        root / "data" / "test-00000-of-00001.parquet",
        [
            {"images": [{"bytes": blue, "path": "b.png"}, {"bytes": red, "path": "r.png"},
                        {"bytes": green, "path": "g.png"}],
             "question": "Which chart is highest?", "answer": "chart 1"},
            {"images": [{"bytes": red, "path": "r.png"}], "question": "Red?", "answer": "Yes"},
        ],
    )  # fmt: skip
    result = load_dataset(f"hf:{root}?image=images")
    three, one = result.samples
    assert [(result.root / i.path).read_bytes() for i in three.images] == [blue, red, green]
    assert len(one.images) == 1 and (result.root / one.image.path).read_bytes() == red
    assert result.n_bad == 0
