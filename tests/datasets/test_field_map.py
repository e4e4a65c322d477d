"""The record loaders' field map (`FieldMap`): one typed record parsed once from a data
spec's options or from keyword arguments. Every spelling loads the same samples; an option
that names no field, or a flag that is not one, is one clear line. The loaders' functions
stay small (`datasets/`: at most 12 parameters, 120 lines)."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from chartproof.datasets import (
    FieldMap,
    load_csv,
    load_dataset,
    load_hf_folder,
    load_json,
    load_jsonl,
)

WritePng = Callable[..., Path]
DATASETS = Path(__file__).resolve().parents[2] / "src" / "chartproof" / "datasets"

ROWS = [
    {"qid": "q1", "img": "img/a.png", "query": "Which is 12? (A) x (B) y", "label": "B",
     "site": "Pew", "level": "easy"},
    {"qid": "q2", "img": "img/a.png", "query": "How many?", "label": "12", "site": "OWID",
     "level": "hard"},
]  # fmt: skip
KEYS = {"id": "qid", "image": "img", "question": "query", "answer": "label"}
SPEC = "id=qid&image=img&question=query&answer=label&groups=site,level&options_in_question=true"


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, FieldMap()),
        ({"groups": "site, level"}, FieldMap(groups=("site", "level"))),
        ({"groups": ("site",)}, FieldMap(groups=("site",))),
        ({"groups": ""}, FieldMap(groups=())),
        ({"choices": "A,B,C,D"}, FieldMap(choices=("A", "B", "C", "D"))),
        ({"choices": ""}, FieldMap(choices=())),
        ({"options_in_question": "true"}, FieldMap(options_in_question=True)),
        ({"options_in_question": "Yes"}, FieldMap(options_in_question=True)),
        ({"options_in_question": "1"}, FieldMap(options_in_question=True)),
        ({"options_in_question": "false"}, FieldMap(options_in_question=False)),
        ({"options_in_question": "0"}, FieldMap(options_in_question=False)),
        ({"options_in_question": ""}, FieldMap(options_in_question=False)),
        ({"options_in_question": True}, FieldMap(options_in_question=True)),
        ({"question": "conversations.0.value", "table": ""},
         FieldMap(question="conversations.0.value", table="")),
    ],
)  # fmt: skip
def test_parse_spellings(options: dict[str, Any], expected: FieldMap) -> None:
    assert FieldMap.parse(options) == expected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": "red"}, "no field option 'colour'; field options: id, image, question"),
        ({"options_in_question": "maybe"},
         "field option options_in_question='maybe': expected true or false, got 'maybe'"),
        ({"question": 5}, "field option question=5: Input should be a valid string"),
        ({"groups": 3}, "field option groups=3:"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        FieldMap.parse(options)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_parse_over_a_base_and_frozen() -> None:
    base = FieldMap(question="query", groups=("site",))
    assert FieldMap.parse({}, base) is base
    assert FieldMap.parse({"answer": "label"}, base) == FieldMap(
        question="query", answer="label", groups=("site",)
    )
    with pytest.raises(ValueError, match="frozen"):
        base.question = "x"  # type: ignore[misc]


def _files(root: Path, write_png: WritePng) -> None:
    write_png(root / "img" / "a.png")
    (root / "d.jsonl").write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    (root / "d.json").write_text(json.dumps(ROWS))
    header = list(ROWS[0])
    lines = [",".join(header)] + [",".join(str(r[k]) for k in header) for r in ROWS]
    (root / "d.csv").write_text("\n".join(lines) + "\n")
    pq.write_table(pa.Table.from_pylist(ROWS), root / "d.parquet")


def _view(result: Any) -> list[tuple[Any, ...]]:
    return [(s.id, s.question, s.choices, s.answer, s.groups, s.image.path) for s in result.samples]


def test_every_spelling_loads_the_same(tmp_path: Path, write_png: WritePng) -> None:
    _files(tmp_path, write_png)
    fields = FieldMap(**KEYS, groups=("site", "level"), options_in_question=True)
    for loader, name in ((load_jsonl, "jsonl"), (load_json, "json"), (load_csv, "csv")):
        file = tmp_path / f"d.{name}"
        spellings = [
            loader(file, **KEYS, groups="site,level", options_in_question=True),
            loader(file, **KEYS, groups=("site", "level"), options_in_question="true"),
            loader(file, fields=fields),
            loader(file, fields=FieldMap(**KEYS), groups="site,level", options_in_question="1"),
            load_dataset(f"{name}:{file}?{SPEC}"),
            load_dataset(f"{name}:{file}", **KEYS, groups="site,level", options_in_question=True),
            load_dataset(f"{name}:{file}", fields=fields),
        ]
        views = [_view(r) for r in spellings]
        assert all(v == views[0] for v in views), name
        first, second = spellings[0].samples
        assert first.choices == ("x", "y") and first.groups == {"site": "Pew", "level": "easy"}
        assert second.answer.value == 12.0 and not spellings[0].errors


def test_hf_keeps_split_as_its_own_option(tmp_path: Path, write_png: WritePng) -> None:
    _files(tmp_path, write_png)
    (tmp_path / "d.parquet").rename(tmp_path / "test-00000.parquet")
    hf = load_dataset(f"hf:{tmp_path}?{SPEC}&split=test")
    assert [s.id for s in hf.samples] == ["q1", "q2"]
    assert {s.split for s in hf.samples} == {"test"}
    again = load_hf_folder(tmp_path, split="test", **KEYS, groups="site,level")
    assert [s.groups for s in again.samples] == [s.groups for s in hf.samples]
    with pytest.raises(ValueError, match=r"takes no option \['colour'\]; it takes \['split'"):
        load_dataset(f"hf:{tmp_path}?colour=red")


def test_loader_errors_name_the_option(tmp_path: Path, write_png: WritePng) -> None:
    _files(tmp_path, write_png)
    with pytest.raises(ValueError, match=r"^no field option 'colour'; field options: id,"):
        load_jsonl(tmp_path / "d.jsonl", colour="red")
    with pytest.raises(ValueError, match=r"field option options_in_question='maybe'"):
        load_dataset(f"csv:{tmp_path / 'd.csv'}?options_in_question=maybe")
    with pytest.raises(ValueError, match=r"fields must be a FieldMap"):
        load_dataset(f"jsonl:{tmp_path / 'd.jsonl'}?fields=question")


def _functions() -> list[tuple[str, int, int]]:
    out = []
    for file in sorted(DATASETS.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                params += (a.vararg is not None) + (a.kwarg is not None)
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                out.append((f"{file.relative_to(DATASETS)}:{node.name}", params, lines))
    return out


def test_dataset_functions_stay_small() -> None:
    functions = _functions()
    assert len(functions) > 100
    assert [f for f in functions if f[1] > 12] == []
    assert [f for f in functions if f[2] > 120] == []
