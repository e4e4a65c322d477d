"""Loaders of CharXiv, ChartBench and ChartX on fixtures written here in each release's
layout (file names, keys and nesting as published)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chartproof.datasets import (
    detect_format,
    load_chartbench,
    load_chartx,
    load_charxiv,
    load_dataset,
)
from chartproof.datasets.loaders.chartx import chartx_csv
from chartproof.types import Answer

WritePng = Callable[..., Path]

# the shape of CharXiv's src/constants.py: dicts of template id -> indented string literals
CONSTANTS = '''DESCRIPTIVE_RESP_INST = {
    1: \\
    """{}what is its title?
    * Your final answer should be the most relevant title of the plot that is explicitly written.
    * If the plot does not have an explicit title or contains only a letter, answer 'Not Applicable'.
    """,

    7: \\
    """{}what is the spatially highest labeled tick on the y-axis?
    * Your final answer should be the tick value on the y-axis that is explicitly written.""",

    19: \\
    """What is the number of subplots?
    * Your final answer should be an integer.""",
}

DESCRIPTIVE_GRADING_QMAP = {1: "What is the title of the plot?"}

REASONING_RESP_INST = {
    1: \\
    """{}
    * Your final answer must be grounded to some text that is explicitly written.
    """,

    4: \\
    """{}
    {}
    """
}
'''


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _charxiv(root: Path, write_png: WritePng) -> Path:
    for fid in (0, 5):
        write_png(root / "images" / f"{fid}.jpg")
    (root / "src").mkdir(parents=True)
    (root / "src" / "constants.py").write_text(CONSTANTS, encoding="utf-8")
    _dump(root / "data" / "descriptive_val.json", {
        "0": {"figure_id": 0, "num_subplots": 2, "subplot_loc": [1, 2], "qids": [7, 19],
              "answers": ["60", "2"]},
        "5": {"figure_id": 5, "num_subplots": 1, "subplot_loc": [0, 0], "qids": [1],
              "answers": ["Not Applicable"]},
    })  # fmt: skip
    _dump(root / "data" / "reasoning_val.json", {
        "0": {"figure_id": 0, "query": "Which model declines more?", "answer": "Joint-CNN",
              "inst_category": 1, "qa_source": 1},
        "5": {"figure_id": 5, "query": "What is the gap at x=3?", "answer": "0.25",
              "inst_category": 4, "qa_source": 2},
    })  # fmt: skip
    _dump(root / "data" / "image_metadata_val.json", {
        "0": {"category": "cs", "year": "20", "figure_path": "arXiv_src/0.jpg", "caption": "c",
              "paper_id": "2004.10956", "title": "Few-Shot"},
    })  # fmt: skip
    _dump(root / "data" / "reasoning_test.json", {
        "1": {"figure_id": 1, "query": "Hidden?", "answer": None, "inst_category": 4, "qa_source": 2}
    })  # fmt: skip
    return root


def test_charxiv_descriptive_and_reasoning(tmp_path: Path, write_png: WritePng) -> None:
    root = _charxiv(tmp_path / "CharXiv", write_png)
    assert detect_format(root) == "charxiv"
    loaded = load_charxiv(root)
    assert loaded.n_bad == 0
    by_id = {s.id: s for s in loaded.samples}
    assert list(by_id) == [
        "charxiv-val-descriptive-0_0", "charxiv-val-descriptive-0_1",
        "charxiv-val-descriptive-5_0", "charxiv-val-reasoning-0", "charxiv-val-reasoning-5",
    ]  # fmt: skip
    tick = by_id["charxiv-val-descriptive-0_0"]
    assert tick.question == (
        "For the subplot at row 1 and column 2, what is the spatially highest labeled tick "
        "on the y-axis?"
    )
    assert tick.answer == Answer.number(60.0) and tick.image.path == "images/0.jpg"
    assert tick.source["charxiv_kind"] == "descriptive" and tick.source["qid"] == 7
    assert tick.source["charxiv_id"] == "0_0" and tick.source["figure_id"] == 0
    assert tick.source["paper_id"] == "2004.10956"  # image metadata joined by figure id
    assert "explicitly written" in str(tick.source["official_prompt"])
    assert by_id["charxiv-val-descriptive-0_1"].question == "What is the number of subplots?"
    title = by_id["charxiv-val-descriptive-5_0"]
    assert title.question == "For the current plot, what is its title?"
    assert title.answer == Answer.of_text("Not Applicable")
    gap = by_id["charxiv-val-reasoning-5"]
    assert gap.question == "What is the gap at x=3?" and gap.source["inst_category"] == 4
    assert gap.source["charxiv_kind"] == "reasoning" and gap.question_type == "reasoning-4"
    # category 4 adds the answer's number format, as the authors' prompt does
    assert "a number with 2 decimal places" in str(gap.source["official_prompt"])
    assert gap.groups == {"charxiv_kind": "reasoning"}
    only = load_dataset(f"charxiv:{root}?kind=reasoning")
    assert [s.id for s in only.samples] == ["charxiv-val-reasoning-0", "charxiv-val-reasoning-5"]
    hidden = load_charxiv(root, split="test", kind="reasoning", check_images=False)
    assert not hidden.samples and hidden.n_bad == 1
    assert "withholds" in hidden.errors[0].message
    (root / "src" / "constants.py").unlink()
    with pytest.raises(ValueError, match=r"constants\.py"):
        load_charxiv(root)
    assert len(load_charxiv(root, kind="reasoning").samples) == 2


def _chartbench(root: Path, write_png: WritePng) -> Path:
    write_png(root / "data" / "test" / "area" / "area" / "chart_0" / "image.png")
    rows = [
        {"id": 0, "image": "./data/test/area/area/chart_0/image.png",
         "type": {"chart": "area", "image": "area", "task": "CR", "QA": "Acc+"},
         "conversation": [
             {"label": "Yes", "query": "This graph is a area chart, instead of pie chart."},
             {"label": "No", "query": "This graph is a pie chart, instead of area chart."}]},
        {"id": 4, "image": "./data/test/area/area/chart_0/image.png",
         "type": {"chart": "area", "image": "area", "task": "NQA", "QA": "GPT-acc"},
         "conversation": [{"label": "78.0", "query": "What is the Revenue of Retailer D at Month 6?"}]},
        {"id": 5, "image": "./data/test/area/area/chart_0/image.png",
         "type": {"chart": "area", "image": "area", "task": "VE", "QA": "Acc+"},
         "conversation": [{"label": "Yes", "query": "only one statement"}]},
    ]  # fmt: skip
    (root / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return root


def test_chartbench_pairs_and_numeric_questions(tmp_path: Path, write_png: WritePng) -> None:
    root = _chartbench(tmp_path / "ChartBench", write_png)
    assert detect_format(root) == "chartbench"
    loaded = load_chartbench(root)
    true, false, nqa = loaded.samples
    assert (true.id, false.id, nqa.id) == ("chartbench-0-0", "chartbench-0-1", "chartbench-4")
    assert true.pair_id == false.pair_id == "chartbench-0" and nqa.pair_id is None
    assert true.answer == Answer.boolean(True) and false.answer == Answer.boolean(False)
    assert nqa.answer == Answer.number(78.0)
    assert true.image.path == "data/test/area/area/chart_0/image.png"
    assert true.chart_type == "area" and true.question_type == "CR"
    assert true.source["chartbench_qa"] == "Acc+" and nqa.source["chartbench_qa"] == "GPT-acc"
    assert true.groups == {"chartbench_task": "CR"} and true.source["dataset"] == "chartbench"
    assert loaded.n_bad == 1 and "two statements" in loaded.errors[0].message


def test_chartx_nested_qa_and_escaped_csv(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "ChartX"
    write_png(root / "bar_chart" / "png" / "bar_87.png")
    _dump(root / "ChartX_annotation.json", [
        {"chart_type": "bar_chart", "imgname": "bar_87", "img": "./bar_chart/png/bar_87.png",
         "topic": "Human Resources", "title": " Employee salaries in 2021",
         "csv": "Employee \\t Salary(USD) \\n John \\t 5000 \\n Jane \\t 4200 \\n ",
         "description": {"input": "Describe.", "output": "Salaries of two employees."},
         "summarization": {"input": "Summarise.", "ouput_put": "John earns most."},
         "redrawing": {"input": "Redraw.", "output": "import matplotlib"},
         "QA": {"input": "How much more is John's salary than Jane's?", "output": "$800"}},
        {"chart_type": "bar_chart", "imgname": "bar_88", "img": "./bar_chart/png/bar_88.png",
         "csv": "", "QA": {"input": "Q?", "output": "1"}},
    ])  # fmt: skip
    assert detect_format(root) == "chartx"
    loaded = load_chartx(root)
    (s,) = loaded.samples
    assert s.id == "chartx-bar_87" and s.image.path == "bar_chart/png/bar_87.png"
    assert s.question == "How much more is John's salary than Jane's?"
    assert s.answer.kind == "number" and s.answer.value == 800.0
    assert s.table is not None and s.table.names == ("Employee", "Salary(USD)")
    assert s.table.rows == (("John", 5000.0), ("Jane", 4200.0))
    assert s.chart_type == "bar_chart" and s.source["title"] == " Employee salaries in 2021"
    assert s.source["summarization"] == "John earns most." and "redrawing" not in s.source
    assert loaded.n_bad == 1 and "bar_88.png" in loaded.errors[0].message
    assert chartx_csv("a \\t b \\n 1 \\t 2 \\n ") == "a,b\n1,2\n"
