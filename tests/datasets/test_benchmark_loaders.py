"""Loaders of the benchmarks' native JSON layouts (FigureQA, PlotQA, DVQA, RealCQA, OpenCQA)
on small hand-made fixtures built here, and on real samples re-laid out from ../shared."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chartproof.datasets import (
    detect_format,
    load_dataset,
    load_dvqa,
    load_figureqa,
    load_opencqa,
    load_plotqa,
    load_realcqa,
    load_shared,
)
from chartproof.datasets.errors import DatasetError
from chartproof.types import Answer

WritePng = Callable[..., Path]


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


# ------------------------------------------------------------------ FigureQA


def _figureqa(root: Path, write_png: WritePng) -> Path:
    for split, images in (("train1", (0, 1)), ("validation1", (0,))):
        for i in images:
            write_png(root / split / "png" / f"{i}.png")
    _dump(
        root / "train1" / "qa_pairs.json",
        {
            "qa_pairs": [
                {"image_index": 0, "question_id": 0, "question_string": "Is Red the minimum?",
                 "answer": 1, "color1_name": "Red", "color2_name": "--None--"},
                {"image_index": 0, "question_id": 4, "question_string": "Is Red less than Blue?",
                 "answer": 0, "color1_name": "Red", "color2_name": "Blue"},
                {"image_index": 1, "question_id": 8, "question_string": "Is Blue the smoothest?",
                 "answer": 1, "color1_name": "Blue", "color2_name": "--None--"},
                {"question_id": 8, "question_string": "No image index?", "answer": 1},
            ]
        },
    )  # fmt: skip
    _dump(
        root / "train1" / "annotations.json",
        [
            {"image_index": 0, "type": "vbar_categorical",
             "models": [{"name": "", "x": ["Red", "Blue"], "y": [12.5, 40]}],
             "general_figure_info": {"x_axis": {"label": {"text": "colour"}}}},
            {"image_index": 1, "type": "dot_line",
             "models": [{"name": "Blue", "x": [0, 50], "y": [3, 4]},
                        {"name": "Green", "x": [0, 50], "y": [5, 1.5]}]},
        ],
    )  # fmt: skip
    _dump(
        root / "validation1" / "qa_pairs.json",
        {
            "qa_pairs": [
                {"image_index": 0, "question_id": 1, "question_string": "Is Green the maximum?"}
            ]
        },
    )
    return root


def test_figureqa_native_layout(tmp_path: Path, write_png: WritePng) -> None:
    root = _figureqa(tmp_path / "FigureQA", write_png)
    assert detect_format(root) == "figureqa"
    result = load_figureqa(root)
    assert [s.id for s in result.samples] == [
        "figureqa-train1-0-1",
        "figureqa-train1-0-2",
        "figureqa-train1-1-3",
    ]
    first, second, third = result.samples
    assert first.answer == Answer.boolean(True) and second.answer == Answer.boolean(False)
    assert first.image.path == "train1/png/0.png"
    assert first.chart_type == "vbar" and third.chart_type == "line"
    assert third.source["plot_type"] == "dot_line"
    # the series data of annotations.json becomes the table
    assert first.table is not None and first.table.names == ("colour", "series 1")
    assert first.table.rows == (("Red", 12.5), ("Blue", 40.0))
    assert third.table is not None and third.table.names == ("x", "Blue", "Green")
    assert third.table.values("Green") == (5.0, 1.5)
    assert first.split == "train" and first.groups == {"figureqa_subset": "train1", "template": "0"}
    assert second.source["color2_name"] == "Blue"
    # the row without an image index and the unlabelled validation question are counted
    assert result.n_bad == 2
    bad = {(Path(e.file).parent.name, e.line, e.field) for e in result.errors}
    assert bad == {("train1", 4, "image_index"), ("validation1", 1, "answer")}
    assert [s.id for s in load_figureqa(root, split="train1").samples][:1] == [
        "figureqa-train1-0-1"
    ]
    with pytest.raises(ValueError, match="no FigureQA split"):
        load_figureqa(root, split="test9")
    with pytest.raises(DatasetError, match="image_index"):
        load_figureqa(root, strict=True)


def test_figureqa_horizontal_bars_and_pies(tmp_path: Path, write_png: WritePng) -> None:
    """FigureQA's horizontal bars keep the colour names in `y` and the values in `x`, its pies
    one model per slice with the slice's angle: each becomes a table of name → value."""
    root = tmp_path / "FigureQA"
    for i in (0, 1):
        write_png(root / "train1" / "png" / f"{i}.png")
    box = {"y": 302, "x": 139, "w": 181, "h": 32}
    _dump(
        root / "train1" / "qa_pairs.json",
        {"qa_pairs": [
            {"image_index": 0, "question_id": 0, "question_string": "Is Lime Green the minimum?",
             "answer": 0, "color1_name": "Lime Green", "color2_name": "--None--"},
            {"image_index": 1, "question_id": 1, "question_string": "Is Peru the maximum?",
             "answer": 1, "color1_name": "Peru", "color2_name": "--None--"},
        ]},
    )  # fmt: skip
    _dump(
        root / "train1" / "annotations.json",
        [
            {"models": [{"name": "bars", "labels": ["Lime Green", "Web Maroon"], "width": 0.5,
                         "colors": ["#32CD32", "#7F0000"], "bboxes": [box, box],
                         "y": ["Lime Green", "Web Maroon"], "x": [47.6858, 10.1377]}],
             "type": "hbar_categorical",
             "general_figure_info": {"title": {"text": "title", "bbox": box},
                                     "x_axis": {"label": {"text": "xaxis_label", "bbox": box}},
                                     "y_axis": {"label": {"text": "yaxis_label", "bbox": box}}},
             "image_index": 0},
            {"models": [{"span": 4.0, "name": "Peru", "label": "Peru", "start": 0, "bbox": box,
                         "end": 4.0},
                        {"span": 2 * math.pi - 4.0, "name": "Purple", "label": "Purple",
                         "start": 4.0, "bbox": box, "end": 2 * math.pi}],
             "type": "pie",
             "general_figure_info": {"title": {"text": " title", "bbox": box}},
             "image_index": 1},
        ],
    )  # fmt: skip
    hbar, pie = load_figureqa(root).samples
    assert hbar.chart_type == "hbar" and hbar.table is not None
    assert hbar.table.names == ("yaxis_label", "bars")
    assert hbar.table.rows == (("Lime Green", 47.6858), ("Web Maroon", 10.1377))
    assert pie.chart_type == "pie" and pie.table is not None
    assert pie.table.names == ("slice", "share (%)")
    assert pie.table.values("share (%)") == pytest.approx((4 / (2 * math.pi) * 100,
                                                          100 - 4 / (2 * math.pi) * 100))  # fmt: skip


@pytest.mark.needs_shared
def test_figureqa_layout_rebuilt_from_shared(shared_data: Path, tmp_path: Path) -> None:
    """The shared FigureQA rows, laid out as FigureQA ships them (images linked, not copied),
    load to the same questions and answers as the shared loader reads."""
    shared = load_shared(shared_data / "figureqa")
    root = tmp_path / "figureqa"
    pairs: dict[str, list[dict[str, Any]]] = {}
    for s in shared.samples:
        subset = str(s.source["figureqa_subset"])
        index = int(str(s.source["image_index"]))
        link = root / subset / "png" / f"{index}.png"
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to((shared.root / s.image.path).resolve())
        pairs.setdefault(subset, []).append(
            {"image_index": index, "question_string": s.question, "question_id": 0,
             "answer": 1 if s.answer.value is True else 0}
        )  # fmt: skip
    for subset, items in pairs.items():
        _dump(root / subset / "qa_pairs.json", {"qa_pairs": items})
    # symlinks point outside the folder: the loader refuses them unless images are not checked
    refused = load_figureqa(root)
    assert refused.n_bad == len(shared.samples) and "outside" in refused.errors[0].message
    loaded = load_figureqa(root, check_images=False)
    assert loaded.n_bad == 0
    assert Counter((s.question, s.answer.value) for s in loaded.samples) == Counter(
        (s.question, s.answer.value) for s in shared.samples
    )
    assert {s.groups["figureqa_subset"] for s in loaded.samples} == set(pairs)


# ------------------------------------------------------------------ PlotQA


def test_plotqa_native_layout(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "PlotQA"
    for i in range(3):
        write_png(root / "val" / "png" / f"{i}.png")
    # the release's qa_pairs_V2.json: `template` is the question family, `type` the plot type
    _dump(
        root / "val" / "qa_pairs_V2.json",
        {
            "qa_pairs": [
                {"image_index": 0, "qid": "nc_01", "question_string": "What is the sum of exports in 2010?",
                 "answer": 36.5, "template": "reasoning", "type": "vbar_categorical",
                 "answer_bbox": {}, "answer_id": 7},
                {"image_index": 1, "qid": "s_01", "question_string": "Is the legend at the top?",
                 "answer": "Yes", "template": "structural", "type": "line"},
                {"image_index": 1, "qid": "d_01", "question_string": "How many lines are there?",
                 "answer": 4.0, "template": "data_retrieval", "type": "line"},
                {"image_index": 0, "qid": "x", "question_string": "", "answer": 3},
                {"image_index": 2, "qid": "d_02", "question_string": "What is the value of Peru?",
                 "answer": 7.5, "template": "data_retrieval", "type": "hbar_categorical"},
            ]
        },
    )  # fmt: skip
    _dump(
        root / "val" / "annotations.json",
        [
            {"type": "vbar_categorical",
             "models": [{"name": "Exports", "x": ["2009", "2010"], "y": [10.0, 26.5]}],
             "general_figure_info": {"x_axis": {"label": {"text": "Year"}}}},
            {"type": "line", "models": [{"name": "A", "x": [1, 2], "y": [1]}]},
            # horizontal bars: categories in `y`, values in `x` (as the release writes them)
            {"type": "hbar_categorical",
             "models": [{"name": "Aid", "y": ["Peru", "Chile"], "x": [7.5, 3.0]},
                        {"name": "Debt", "y": ["Peru", "Chile"], "x": [1.0, 2.0]}],
             "general_figure_info": {"y_axis": {"label": {"text": "Country"}},
                                     "x_axis": {"label": {"text": "US$"}}}},
        ],
    )  # fmt: skip
    assert detect_format(root) == "plotqa"
    result = load_dataset(f"plotqa:{root}?split=val")
    ids = [s.id for s in result.samples]
    assert ids == ["plotqa-val-1", "plotqa-val-2", "plotqa-val-3", "plotqa-val-5"]
    a, b, c, d = result.samples
    assert a.answer == Answer.number(36.5) and b.answer == Answer.boolean(True)
    assert c.answer == Answer.number(4.0) and c.source["answer_raw"] == "4"
    assert a.question_type == "reasoning" and a.groups == {}
    assert a.chart_type == "vbar" and b.chart_type == "line" and d.chart_type == "hbar"
    assert a.source["plot_type"] == "vbar_categorical" and "type" not in a.source
    assert a.table is not None and a.table.names == ("Year", "Exports")
    assert a.table.col("Year").kind == "time" and a.table.values("Exports") == (10.0, 26.5)
    assert b.table is None  # x and y lengths differ: no table is made up
    assert d.table is not None and d.table.names == ("Country", "Aid", "Debt")
    assert d.table.rows == (("Peru", 7.5, 1.0), ("Chile", 3.0, 2.0))
    assert result.n_bad == 1 and result.errors[0].field == "question"
    with pytest.raises(ValueError, match="qa_pairs_V1"):
        load_plotqa(root, version="V1")


def test_plotqa_v1_only_folder_lower_case_name(tmp_path: Path, write_png: WritePng) -> None:
    """A folder with only the V1 questions, spelt as the documentation does
    (qa_pairs_v1.json), is detected and loaded without naming the version; the plot type
    comes from the question when annotations.json is absent."""
    root = tmp_path / "PlotQA"
    write_png(root / "test" / "png" / "0.png")
    _dump(
        root / "test" / "qa_pairs_v1.json",
        {"qa_pairs": [{"image_index": 0, "qid": "q1", "question_string": "Max value?",
                       "answer": 12, "template": "reasoning", "type": "dot_line"}]},
    )  # fmt: skip
    assert detect_format(root) == "plotqa"
    (s,) = load_plotqa(root).samples
    assert s.id == "plotqa-test-1" and s.answer == Answer.number(12.0)
    assert s.chart_type == "line" and s.source["plot_type"] == "dot_line"
    assert [x.id for x in load_plotqa(root, version="v1").samples] == ["plotqa-test-1"]
    with pytest.raises(ValueError, match="qa_pairs_V2"):
        load_plotqa(root, version="V2")


def test_plot_tables_lines_indexed_and_pies() -> None:
    """PlotQA line plots whose x is only 0..n-1 take the x axis's tick labels (listed twice,
    as the release does); FigureQA pies become slice shares (span in radians)."""
    from chartproof.datasets.loaders._plot_models import annotation_table

    line: dict[str, Any] = {
        "type": "dot_line",
        "models": [{"name": "GDP", "x": [0, 1, 2], "y": [1.5, 2.0, 2.5]}],
        "general_figure_info": {
            "x_axis": {"label": {"text": "Year"},
                       "major_labels": {"values": ["2001", "2002", "2003"] * 2}}},
    }  # fmt: skip
    assert annotation_table(line) == {
        "columns": ["Year", "GDP"],
        "rows": [["2001", 1.5], ["2002", 2.0], ["2003", 2.5]],
    }
    pie: dict[str, Any] = {
        "type": "pie",
        "models": [
            {"name": "Peru", "span": math.pi, "start": 0, "end": math.pi},
            {"name": "Purple", "span": math.pi / 2},
            {"name": "Orange Red", "span": math.pi / 2},
        ],
    }
    assert annotation_table(pie) == {
        "columns": ["slice", "share (%)"],
        "rows": [["Peru", 50.0], ["Purple", 25.0], ["Orange Red", 25.0]],
    }
    pie["models"] = [{"name": "Peru"}]
    assert annotation_table(pie) is None  # no span: no table is made up


# ------------------------------------------------------------------ DVQA


def test_dvqa_native_layout(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "DVQA"
    write_png(root / "images" / "bar_train_00000000.png")
    _dump(
        root / "qa" / "train_qa.json",
        [
            {"image": "bar_train_00000000.png", "question": "What is the label of the first bar?",
             "answer": "ice", "question_id": 1101, "template_id": "structure", "answer_bbox": [1, 2, 3, 4]},
            {"image": "bar_train_00000000.png", "question": "What is the value of ice?",
             "answer": 5, "question_id": 1102, "template_id": "data", "answer_bbox": []},
            {"image": "../../outside.png", "question": "Escape?", "answer": "no", "question_id": 1103},
            {"question": "No image?", "answer": "1", "question_id": 1104},
        ],
    )  # fmt: skip
    _dump(
        root / "metadata" / "train_metadata.json",
        [{"image": "bar_train_00000000.png", "table": [["None", "ice", "salt"], ["2010", 5, 7]]}],
    )
    assert detect_format(root) == "dvqa"
    result = load_dvqa(root)
    assert [s.id for s in result.samples] == ["dvqa-train-1101", "dvqa-train-1102"]
    first, second = result.samples
    assert first.answer == Answer.of_text("ice")
    assert second.answer == Answer.number(5.0, tolerance=0.0)  # DVQA is exact match
    assert (
        first.question_type == "structure" and first.image.path == "images/bar_train_00000000.png"
    )
    assert first.table is not None and first.table.names == ("label", "ice", "salt")
    assert first.table.rows == (("2010", 5.0, 7.0),)
    assert first.source["answer_bbox"] == [1, 2, 3, 4]
    errors = {e.sample_id: e for e in result.errors}
    assert "escapes" in errors["dvqa-train-1103"].message
    assert errors["dvqa-train-1104"].field == "image"
    assert result.n_bad == 2


# ------------------------------------------------------------------ RealCQA


def test_realcqa_native_layout(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "RealCQA"
    for stem in ("PMC1_fig1", "PMC2_fig3"):
        write_png(root / "images" / f"{stem}.jpg")
    _dump(
        root / "qa" / "PMC1_fig1.json",
        [
            {"taxonomy id": "2e", "QID": "3", "question": "Where does the legend appear in the chart?",
             "answer": "Upper Right", "answer_type": "String", "qa_id": "nIHYqYHRYHET", "PMC_ID": "PMC1_fig1"},
            {"taxonomy id": "3a", "QID": "9", "question": "Which boxes have a median above 5?",
             "answer": ["A", "C"], "answer_type": "List", "qa_id": "JMtriZKutxef", "PMC_ID": "PMC1_fig1"},
            {"taxonomy id": "4b", "QID": "12", "question": "What is the median of A?",
             "answer": 0.03, "answer_type": "Numerical", "qa_id": "JJinRauejKgm", "PMC_ID": "PMC1_fig1"},
        ],
    )  # fmt: skip
    _dump(
        root / "qa" / "PMC2_fig3.json",
        [{"taxonomy id": "1", "QID": "1", "question": "Is it a line chart?", "answer": "Yes",
          "answer_type": "Binary", "qa_id": "yEPDZLACdbwM", "PMC_ID": "PMC2_fig3"}],
    )  # fmt: skip
    _dump(root / "json" / "PMC1_fig1.json", {"task1": {"output": {"chart_type": "vertical box"}}})
    (root / "test_filenames.txt").write_text("PMC2_fig3\n", encoding="utf-8")
    assert detect_format(root) == "realcqa"
    result = load_realcqa(root)
    assert result.n_bad == 0
    by_id = {s.id: s for s in result.samples}
    assert set(by_id) == {"realcqa-nIHYqYHRYHET", "realcqa-JMtriZKutxef", "realcqa-JJinRauejKgm",
                          "realcqa-yEPDZLACdbwM"}  # fmt: skip
    listed = by_id["realcqa-JMtriZKutxef"]
    assert listed.answer == Answer(kind="list", value=("A", "C"))
    assert listed.chart_type == "box" and listed.question_type == "3a"
    assert by_id["realcqa-JJinRauejKgm"].answer == Answer.number(0.03)
    assert by_id["realcqa-yEPDZLACdbwM"].answer == Answer.boolean(True)
    assert [s.id for s in load_realcqa(root, split="test").samples] == ["realcqa-yEPDZLACdbwM"]
    assert len(load_realcqa(root, split="train").samples) == 3


# ------------------------------------------------------------------ OpenCQA


def test_opencqa_native_layout(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "OpenCQA"
    write_png(root / "chart_images" / "12.png")
    _dump(
        root / "etc" / "data(full_summary_article)" / "val_extended.json",
        {
            "12": ["12.png", "Most adults use the internet", "Full article text.",
                   "A summary of the chart.", "How many adults use the internet?",
                   "About 73 % of adults use it.", "73 % of adults use the internet ."],
            "13": ["13.png", "too short"],
        },
    )  # fmt: skip
    assert detect_format(root) == "opencqa"
    result = load_opencqa(root)
    (s,) = result.samples
    assert s.id == "opencqa-val-12" and s.image.path == "chart_images/12.png"
    assert s.answer == Answer.of_text("About 73 % of adults use it.")
    assert s.source["title"] == "Most adults use the internet"
    assert s.source["extractive_answer"] == "73 % of adults use the internet ."
    assert result.n_bad == 1 and result.errors[0].sample_id == "opencqa-val-13"
    extractive = load_opencqa(root, answer="extractive").samples[0]
    assert extractive.answer.value == "73 % of adults use the internet ."


@pytest.mark.needs_shared
def test_opencqa_layout_rebuilt_from_shared(shared_data: Path, tmp_path: Path) -> None:
    shared = load_shared(shared_data / "opencqa-val")
    root = tmp_path / "opencqa"
    (root / "chart_images").mkdir(parents=True)
    entries: dict[str, list[Any]] = {}
    for s in shared.samples[:200]:
        name = Path(s.image.path).name
        target = root / "chart_images" / name
        if not target.exists():
            target.write_bytes((shared.root / s.image.path).read_bytes())
        key = s.id.rsplit("-", 1)[1]
        entries[key] = [name, s.source.get("title"), "", s.source.get("summary"), s.question,
                        s.source["answer_raw"], s.source.get("extractive_answer")]  # fmt: skip
    _dump(root / "etc" / "data" / "val_extended.json", entries)
    loaded = load_opencqa(root)
    assert loaded.n_bad == 0
    assert [(s.id, s.question, s.answer) for s in loaded.samples] == [
        (s.id, s.question, s.answer) for s in shared.samples[:200]
    ]
