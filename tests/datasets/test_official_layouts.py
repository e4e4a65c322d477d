"""Loaders on the benchmarks' official release layouts (fixtures written here in the exact
file names, field names and nesting of each release), the generic JSON loaders' nested
fields, symlinked image folders and the loader registry."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chartproof.datasets import (
    detect_format,
    load_dataset,
    load_jsonl,
    load_opencqa,
    load_realcqa,
    register_loader,
)
from chartproof.datasets.errors import LoadResult
from chartproof.datasets.loaders.chartbias import income_lists, load_chartbias
from chartproof.types import Answer

WritePng = Callable[..., Path]
SHARED_BIAS = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "chartbias"


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


# ------------------------------------------------------------------ OpenCQA


def _opencqa_entry(n: int, *, article: bool) -> list[str]:
    head = [f"{n}.png", f"title {n}"]
    tail = [f"summary {n}", f"question {n}?", f"abstractive {n}", f"extractive {n}"]
    return head + ([f"article {n}"] if article else []) + tail


def test_opencqa_default_load_counts_each_question_once(
    tmp_path: Path, write_png: WritePng
) -> None:
    """The repository holds the splits and full_dataset_extended.json (all of them again);
    a default load reads the splits only, full_dataset only when named."""
    root = tmp_path / "OpenCQA"
    for n in (1, 2, 3):
        write_png(root / "chart_images" / f"{n}.png")
    ext = root / "etc" / "data(full_summary_article)"
    _dump(ext / "val_extended.json", {"1": _opencqa_entry(1, article=True)})
    _dump(ext / "test_extended.json", {"2": _opencqa_entry(2, article=True),
                                       "3": _opencqa_entry(3, article=True)})  # fmt: skip
    _dump(ext / "full_dataset_extended.json",
          {str(n): _opencqa_entry(n, article=True) for n in (1, 2, 3)})  # fmt: skip
    loaded = load_opencqa(root)
    assert [s.id for s in loaded.samples] == ["opencqa-test-2", "opencqa-test-3", "opencqa-val-1"]
    assert loaded.n_bad == 0
    full = load_opencqa(root, split="full_dataset")
    assert len(full.samples) == 3 and full.samples[0].source["article"] == "article 1"


def test_opencqa_plain_data_folder_without_articles(tmp_path: Path, write_png: WritePng) -> None:
    """`etc/data/<split>.json` lists six fields (no article)."""
    root = tmp_path / "OpenCQA"
    write_png(root / "chart_images" / "7.png")
    _dump(root / "etc" / "data" / "val.json", {"7": _opencqa_entry(7, article=False)})
    _dump(root / "etc" / "data" / "full_dataset.json", {"7": _opencqa_entry(7, article=False)})
    assert detect_format(root) == "opencqa"
    (s,) = load_opencqa(root).samples
    assert s.id == "opencqa-val-7" and s.question == "question 7?"
    assert s.answer == Answer.of_text("abstractive 7") and "article" not in s.source
    assert s.source["summary"] == "summary 7" and s.source["extractive_answer"] == "extractive 7"


# ------------------------------------------------------------------ ChartBias


def _official_chartbias(root: Path, write_png: WritePng) -> Path:
    for polarity, stems in (("Negative", (100, 281)), ("Positive", (103,)), ("Volatile", (101,))):
        for stem in stems:
            write_png(root / "ChartSelected" / polarity / f"vst_{stem}.png")
    (root / "CountriesSelected").mkdir(parents=True)
    for name, countries in (("High", "Germany\nJapan"), ("Middle", "Brazil"), ("Low", "Chad")):
        header = f"{name} Income"
        (root / "CountriesSelected" / f"{name}_Income.csv").write_text(f"{header}\n{countries}\n")
    (root / "LICENSE").write_text("GPL-3.0\n")
    return root


def test_chartbias_official_release_loads(tmp_path: Path, write_png: WritePng) -> None:
    root = _official_chartbias(tmp_path / "ChartBias", write_png)
    assert detect_format(root) == "chartbias"
    loaded = load_dataset(f"chartbias:{root}")
    assert loaded.n_bad == 0
    assert [(s.id, s.image.path, s.groups["polarity"]) for s in loaded.samples] == [
        ("chartbias-vst_100", "ChartSelected/Negative/vst_100.png", "negative"),
        ("chartbias-vst_281", "ChartSelected/Negative/vst_281.png", "negative"),
        ("chartbias-vst_103", "ChartSelected/Positive/vst_103.png", "positive"),
        ("chartbias-vst_101", "ChartSelected/Volatile/vst_101.png", "volatile"),
    ]
    assert all(s.source["audit_only"] is True for s in loaded.samples)
    assert income_lists(root) == {
        "High-income": ("Germany", "Japan"), "Middle-income": ("Brazil",),
        "Low-income": ("Chad",),
    }  # fmt: skip
    (root / "ChartSelected" / "Sideways").mkdir()
    bad = load_chartbias(root)
    assert bad.n_bad == 1 and "Sideways" in bad.errors[0].message


@pytest.mark.skipif(not SHARED_BIAS.is_dir(), reason="../shared/data/chartbias is absent")
def test_chartbias_shared_rebuilt_as_official_release(tmp_path: Path) -> None:
    """The shared charts laid out as the release ships them load as the same 100 samples as
    the derived folder."""
    derived = load_chartbias(SHARED_BIAS)
    root = tmp_path / "ChartBias"
    for s in derived.samples:
        target = (
            root / "ChartSelected" / str(s.groups["polarity"]).title() / Path(s.image.path).name
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SHARED_BIAS / s.image.path, target)
    official = load_chartbias(root)
    assert official.n_bad == 0
    key = lambda r: sorted((s.id, s.groups["polarity"]) for s in r.samples)  # noqa: E731
    assert key(official) == key(derived) and len(official.samples) == 100


# ------------------------------------------------------------------ RealCQA


def test_realcqa_ranked_lists_and_binary_answers(tmp_path: Path, write_png: WritePng) -> None:
    root = tmp_path / "RealCQA"
    write_png(root / "images" / "PMC9_fig1.jpg")
    _dump(
        root / "qa" / "PMC9_fig1.json",
        [
            {"taxonomy id": "3c", "QID": "20", "question": "Rank the boxes by median, highest first.",
             "answer": ["C", "A", "B"], "answer_type": "Ranked List", "qa_id": "r1", "PMC_ID": "PMC9_fig1"},
            {"taxonomy id": "3a", "QID": "9", "question": "Which boxes have a median above 5?",
             "answer": ["A", "C"], "answer_type": "Unranked List", "qa_id": "u1", "PMC_ID": "PMC9_fig1"},
            {"taxonomy id": "4a", "QID": "30", "question": "Is the median of A above B?",
             "answer": "1", "answer_type": "Binary", "qa_id": "b1", "PMC_ID": "PMC9_fig1"},
            {"taxonomy id": "4a", "QID": "31", "question": "Is the median of B above A?",
             "answer": 0, "answer_type": "Binary", "qa_id": "b0", "PMC_ID": "PMC9_fig1"},
            {"taxonomy id": "4a", "QID": "32", "question": "Broken binary?",
             "answer": "maybe", "answer_type": "Binary", "qa_id": "bx", "PMC_ID": "PMC9_fig1"},
            {"taxonomy id": "2b", "QID": "5", "question": "What is the x-axis title?",
             "answer": "Age", "answer_type": "String", "qa_id": "s1", "PMC_ID": "PMC9_fig1"},
        ],
    )  # fmt: skip
    loaded = load_realcqa(root)
    by_id = {s.id: s for s in loaded.samples}
    assert by_id["realcqa-r1"].answer == Answer(kind="ranked_list", value=("C", "A", "B"))
    assert by_id["realcqa-u1"].answer == Answer(kind="list", value=("A", "C"))
    assert by_id["realcqa-b1"].answer == Answer.boolean(True)
    assert by_id["realcqa-b0"].answer == Answer.boolean(False)
    assert by_id["realcqa-s1"].answer == Answer.of_text("Age")
    kinds = {sid: s.source["answer_kind"] for sid, s in by_id.items()}
    assert kinds == {"realcqa-r1": "ranked_list", "realcqa-u1": "unranked_list",
                     "realcqa-b1": "binary", "realcqa-b0": "binary", "realcqa-s1": "string"}  # fmt: skip
    assert loaded.n_bad == 1 and loaded.errors[0].sample_id == "realcqa-bx"
    assert "binary" in loaded.errors[0].message


# ------------------------------------------------------------------ generic JSON / JSONL


def _chartbench_like(tmp_path: Path, write_png: WritePng) -> Path:
    write_png(tmp_path / "img" / "a.png")
    rows = [
        {"id": "q1", "image": "img/a.png",
         "conversations": [{"from": "human", "value": "Is the max 5?"}, {"from": "gpt", "value": "Yes"}]},
    ]  # fmt: skip
    (tmp_path / "data.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return tmp_path / "data.jsonl"


def test_jsonl_dotted_paths_and_nested_fields(tmp_path: Path, write_png: WritePng) -> None:
    file = _chartbench_like(tmp_path, write_png)
    ok = load_dataset(f"jsonl:{file}?question=conversations.0.value&answer=conversations.1.value")
    (s,) = ok.samples
    assert s.question == "Is the max 5?" and s.answer == Answer.boolean(True)
    wrong = load_jsonl(file, question="conversations", answer="conversations.1.value")
    assert not wrong.samples and wrong.n_bad == 1
    message = wrong.errors[0].message
    assert "holds a list" in message and "question=conversations.0.value" in message
    missing = load_jsonl(file, question="conversations.5.value", answer="conversations.1.value")
    assert missing.n_bad == 1 and "question is missing" in missing.errors[0].message


def test_jsonl_on_a_json_array_says_so_once(tmp_path: Path, write_png: WritePng) -> None:
    write_png(tmp_path / "a.png")
    rows = [{"id": str(i), "image": "a.png", "question": f"q{i}", "answer": "1"} for i in range(3)]
    (tmp_path / "data.jsonl").write_text(json.dumps(rows, indent=2))
    with pytest.raises(ValueError, match=r"this is a JSON array, not JSON Lines.*'json:"):
        load_jsonl(tmp_path / "data.jsonl")
    (tmp_path / "data.jsonl").rename(tmp_path / "data.json")
    loaded = load_dataset(f"json:{tmp_path / 'data.json'}")
    assert [s.id for s in loaded.samples] == ["0", "1", "2"] and loaded.n_bad == 0


def test_json_object_keyed_by_id(tmp_path: Path, write_png: WritePng) -> None:
    write_png(tmp_path / "a.png")
    data = {"k1": {"image": "a.png", "question": "q", "answer": "2"}, "k2": "not a record"}
    _dump(tmp_path / "d.json", data)
    loaded = load_dataset(f"json:{tmp_path / 'd.json'}")
    (s,) = loaded.samples
    assert s.id == "k1" and s.answer == Answer.number(2.0)
    assert loaded.n_bad == 1 and loaded.errors[0].line == 2


# ------------------------------------------------------------------ symlinks


def test_symlinked_image_folder_inside_the_root_loads(tmp_path: Path, write_png: WritePng) -> None:
    """A linked image subfolder whose target stays inside the dataset folder is fine; a link
    whose target leaves it is still refused (resolve, then check)."""
    root = tmp_path / "ds"
    write_png(root / "store" / "png" / "a.png")
    (root / "images").symlink_to(root / "store" / "png", target_is_directory=True)
    write_png(tmp_path / "elsewhere" / "b.png")
    (root / "escape").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    rows = [
        {"id": "in", "image": "images/a.png", "question": "q", "answer": "1"},
        {"id": "out", "image": "escape/b.png", "question": "q", "answer": "1"},
    ]
    (root / "d.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    linked_root = tmp_path / "link-to-ds"
    linked_root.symlink_to(root, target_is_directory=True)
    for where in (root, linked_root):
        loaded = load_jsonl(where / "d.jsonl")
        assert [s.id for s in loaded.samples] == ["in"]
        assert loaded.n_bad == 1 and "outside the dataset folder" in loaded.errors[0].message


# ------------------------------------------------------------------ registry


def test_registered_loader_with_detector(tmp_path: Path) -> None:
    marker = tmp_path / "MYBENCH.txt"
    marker.write_text("x")
    calls: list[Path] = []

    @register_loader("mybench-test", detect=lambda p: (p / "MYBENCH.txt").is_file(), order=5)
    def load_mybench(path: Path, *, strict: bool = False, level: str = "1") -> LoadResult:
        calls.append(path)
        return LoadResult(samples=[], errors=[], root=path)

    try:
        assert detect_format(tmp_path) == "mybench-test"
        load_dataset(f"mybench-test:{tmp_path}?level=2")
        assert calls == [tmp_path]
        with pytest.raises(ValueError, match="already registered"):
            register_loader("mybench-test", load_mybench)
        with pytest.raises(ValueError, match=r"takes no option \['nope'\]"):
            load_dataset(f"mybench-test:{tmp_path}?nope=1")
    finally:
        from chartproof.datasets.loaders._registry import unregister_loader

        unregister_loader("mybench-test")
