"""Loaders of real data: the shared test data, the official ChartQA layout, generic JSONL
with a field mapping, noisy rows, and the registry behind `--data name:path`."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from chartproof.datasets import (
    LOADERS,
    DatasetError,
    detect_format,
    load_chartqa,
    load_dataset,
    load_jsonl,
    load_shared,
    parse_data_spec,
)

# --------------------------------------------------------------------------- shared data


@pytest.mark.needs_shared
def test_shared_chartqa(shared_data: Path) -> None:
    result = load_shared(shared_data / "chartqa")
    assert len(result.samples) == 1405 and result.n_bad == 0
    # two questions carry U+FFFD: loaded, and reported
    assert result.n_warnings == 2
    assert all("U+FFFD" in e.message and e.field == "question" for e in result.errors)
    with_table = [s for s in result.samples if s.table is not None]
    assert len(with_table) == 259  # the README's count
    first = result.samples[0]
    assert first.id == "chartqa-val-13153-1"
    assert first.answer.kind == "text" and first.answer.value == "Disapprove"
    assert first.source["dataset"] == "chartqa" and first.source["answer_raw"] == "Disapprove"
    assert first.groups == {"source_site": "Pew"}
    assert first.group_labels()["question_type"] == "human"
    assert first.chart_type is None
    kinds = Counter(s.answer.kind for s in result.samples)
    assert kinds["number"] > 1000 and kinds["bool"] > 0 and kinds["list"] > 0
    assert {s.split for s in result.samples} == {"train", "val"}
    assert (result.root / first.image.path).is_file()


@pytest.mark.needs_shared
def test_shared_figureqa(shared_data: Path) -> None:
    result = load_dataset(shared_data / "figureqa")
    assert len(result.samples) == 140 and result.errors == []
    assert {s.answer.kind for s in result.samples} == {"bool"}
    assert {s.question_type for s in result.samples} == {"yes/no"}
    assert result.samples[0].groups == {"figureqa_subset": "train1"}
    assert result.samples[0].source["color1_name"] == "Cornflower"


@pytest.mark.needs_shared
def test_shared_opencqa(shared_data: Path) -> None:
    result = load_dataset(f"shared:{shared_data / 'opencqa-val'}")
    assert len(result.samples) == 1158 and result.errors == []
    assert {s.answer.kind for s in result.samples} == {"text"}
    suffixes = Counter(Path(s.image.path).suffix for s in result.samples)
    assert suffixes[".gif"] > 0 and suffixes[".jpg"] > 0
    assert "title" in result.samples[0].source and "summary" in result.samples[0].source


# --------------------------------------------------------------------------- ChartQA layout


def _shared_rows(shared: Path, n: int) -> list[dict[str, Any]]:
    rows = []
    with (shared / "chartqa" / "chartqa.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["split"] == "val" and row["table"]:
                rows.append(row)
            if len(rows) == n:
                break
    return rows


@pytest.fixture
def chartqa_folder(shared_data: Path, tmp_path: Path) -> Path:
    """A tiny official-layout ChartQA folder built from shared rows, with planted faults."""
    rows = _shared_rows(shared_data, 4)
    root = tmp_path / "ChartQA"
    split = root / "val"
    for sub in ("png", "tables", "annotations"):
        (split / sub).mkdir(parents=True)
    human = []
    for row in rows:
        name = Path(row["image"]).name
        shutil.copyfile(shared_data / "chartqa" / row["image"], split / "png" / name)
        (split / "tables" / f"{Path(name).stem}.csv").write_text(row["table"], encoding="utf-8")
        human.append({"imgname": name, "query": row["question"], "label": row["answer"]})
    first = Path(human[0]["imgname"]).stem
    (split / "annotations" / f"{first}.json").write_text(json.dumps({"type": "v_bar"}))
    second = Path(human[1]["imgname"]).stem
    (split / "annotations" / f"{second}.json").write_text(json.dumps({"type": "radar"}))
    # a ragged table: the sample loads without it, with a warning
    (split / "tables" / f"{Path(human[2]['imgname']).stem}.csv").write_text("a,b\n1,2,3\n")
    human.append({"imgname": "missing.png", "query": "Q?", "label": "1"})
    human.append({"query": "no image name", "label": "1"})
    (split / "val_human.json").write_text(json.dumps(human), encoding="utf-8")
    augmented = [{"imgname": human[3]["imgname"], "query": "Which two?", "label": "[10, 12]"}]
    (split / "val_augmented.json").write_text(json.dumps(augmented), encoding="utf-8")
    return root


@pytest.mark.needs_shared
def test_chartqa_layout(chartqa_folder: Path) -> None:
    result = load_chartqa(chartqa_folder)
    ids = [s.id for s in result.samples]
    assert ids == [f"chartqa-val-human-{i}" for i in range(4)] + ["chartqa-val-augmented-0"]
    s0, s1, s2, s3, aug = result.samples
    assert s0.chart_type == "vbar" and s0.source["chart_type_raw"] == "v_bar"
    assert s1.chart_type == "radar"  # unknown types are kept, not guessed
    assert s3.chart_type is None
    assert s0.table is not None and s0.source["table_file"].startswith("tables/")
    assert s2.table is None and s2.source["table_csv"] == "a,b\n1,2,3\n"
    assert s0.image.path.startswith("val/png/") and (chartqa_folder / s0.image.path).is_file()
    assert s0.question_type == "human" and aug.question_type == "augmented"
    assert aug.answer.kind == "list" and aug.answer.value == (10.0, 12.0)
    problems = [(e.severity, e.line, e.field) for e in result.errors]
    assert problems == [
        ("warning", 2, "question"),  # this shared row really holds U+FFFD
        ("warning", 3, "table"),
        ("error", 5, "image"),
        ("error", 6, "imgname"),
    ]
    assert result.errors[1].file.endswith("val_human.json")
    assert "ragged CSV" in result.errors[1].message
    assert load_chartqa(chartqa_folder, questions="augmented").samples == [aug]
    via_registry = load_dataset(f"chartqa:{chartqa_folder}?split=val&questions=human")
    assert len(via_registry.samples) == 4
    assert detect_format(chartqa_folder) == "chartqa"
    with pytest.raises(DatasetError, match=r"val_human.json:5 .*image"):
        load_chartqa(chartqa_folder, strict=True)


def test_chartqa_no_question_files(tmp_path: Path) -> None:
    (tmp_path / "val").mkdir()
    with pytest.raises(ValueError, match="no ChartQA split folders"):
        load_chartqa(tmp_path)
    with pytest.raises(FileNotFoundError, match="none of the ChartQA question files"):
        load_chartqa(tmp_path, split="val")


# --------------------------------------------------------------------------- generic JSONL


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n",
        encoding="utf-8",
    )
    return path


def test_generic_jsonl_with_field_mapping(tmp_path: Path, write_png: Any) -> None:
    write_png(tmp_path / "img" / "a.png")
    rows = [
        {"qid": 7, "img": "img/a.png", "query": "How many?", "label": 12, "site": "Pew", "x": 1},
        {"qid": 8, "img": "img/a.png", "query": "Is it?", "label": True},
        {"qid": 9, "img": "img/a.png", "query": "Which?"},
        {"qid": 10, "img": "img/b.png", "query": "Which?", "label": "A"},
        {"qid": 7, "img": "img/a.png", "query": "Again?", "label": "B"},
        "[1, 2]",
        '{"qid": 11,',
    ]
    file = _jsonl(tmp_path / "custom.jsonl", rows)
    result = load_jsonl(
        file, id="qid", image="img", question="query", answer="label", groups="site"
    )
    assert [s.id for s in result.samples] == ["7", "8"]
    a, b = result.samples
    assert a.answer.kind == "number" and a.answer.value == 12.0 and a.groups == {"site": "Pew"}
    assert a.source == {"dataset": "custom", "answer_raw": "12", "site": "Pew", "x": 1}
    assert b.answer.value is True
    assert [(e.line, e.field) for e in result.errors] == [
        (3, "label"),
        (4, "img"),
        (5, "qid"),
        (6, None),
        (7, None),
    ]
    assert "answer is missing" in result.errors[0].message
    assert "not found" in result.errors[1].message
    assert "expected a JSON object" in result.errors[3].message
    assert "malformed JSON" in result.errors[4].message
    spec = f"jsonl:{file}?id=qid&image=img&question=query&answer=label"
    assert [s.id for s in load_dataset(spec).samples] == ["7", "8"]


def test_noisy_tables_warn_per_row(tmp_path: Path, write_png: Any) -> None:
    write_png(tmp_path / "images" / "a.png")
    base = {"image": "images/a.png", "question": "Q?", "answer": "3"}
    rows = [
        {**base, "id": "ragged", "table": "Year,Value\n2019,1\n2020\n"},
        {**base, "id": "dup-cols", "table": "x,v,v\na,1,2\n"},
        {**base, "id": "fffd", "table": "Year,Val\ufffdue\n2019,1\n"},
        {**base, "id": "none", "table": None},
    ]
    result = load_shared(_jsonl(tmp_path / "noisy.jsonl", rows))
    assert [s.id for s in result.samples] == ["ragged", "dup-cols", "fffd", "none"]
    assert [(e.sample_id, e.severity) for e in result.errors] == [
        ("ragged", "warning"),
        ("dup-cols", "warning"),
    ]
    assert "line 3" in result.errors[0].message
    assert "duplicate column names" in result.errors[1].message
    fffd = result.samples[2].table
    assert fffd is not None and fffd.names == ("Year", "Val\ufffdue")


def test_missing_images_can_be_allowed(tmp_path: Path) -> None:
    file = _jsonl(
        tmp_path / "d.jsonl", [{"id": "a", "image": "x.png", "question": "Q", "answer": "1"}]
    )
    assert load_jsonl(file).n_bad == 1
    assert len(load_dataset(f"jsonl:{file}?check_images=false").samples) == 1


# --------------------------------------------------------------------------- registry


@pytest.mark.parametrize(
    ("spec", "name", "path", "options"),
    [
        ("chartqa:/data/ChartQA", "chartqa", "/data/ChartQA", {}),
        ("/data/x", None, "/data/x", {}),
        ("jsonl:d.jsonl?question=query&answer=label", "jsonl", "d.jsonl", {"question": "query", "answer": "label"}),
        ("C:/data/x", None, "C:/data/x", {}),
    ],
)  # fmt: skip
def test_parse_data_spec(spec: str, name: str | None, path: str, options: dict[str, str]) -> None:
    assert parse_data_spec(spec) == (name, Path(path), options)


def test_registry_errors(tmp_path: Path) -> None:
    assert {"chartproof", "parquet", "chartqa", "jsonl", "shared"} <= set(LOADERS)
    with pytest.raises(ValueError, match="not key=value"):
        parse_data_spec("jsonl:x?question")
    _jsonl(tmp_path / "d.jsonl", [])
    with pytest.raises(ValueError, match=r"takes no option \['colour'\]"):
        load_dataset(f"jsonl:{tmp_path / 'd.jsonl'}?colour=red")
    with pytest.raises(FileNotFoundError, match="no dataset"):
        load_dataset(tmp_path / "absent")
    (tmp_path / "x.txt").write_text("")
    with pytest.raises(ValueError, match="cannot tell the format"):
        load_dataset(tmp_path / "x.txt")


def test_detect_native_and_parquet(dataset: tuple[Path, list[Any]], tmp_path: Path) -> None:
    from chartproof.datasets import save_parquet, save_samples

    folder, samples = dataset
    save_samples(samples, folder)
    assert detect_format(folder) == "chartproof"
    assert load_dataset(folder).samples == samples
    pq = save_parquet(samples, tmp_path / "s.parquet")
    assert detect_format(pq) == "parquet"
    assert load_dataset(f"parquet:{pq}").samples == samples
