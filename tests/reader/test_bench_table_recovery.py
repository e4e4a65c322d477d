"""bench_reader's table recovery, the figure issue 15's cell target is measured with: rows
by label, columns by name or by position, values within 5 %."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_reader.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_reader", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GOLD = "Entity,Confid ence,No confidence,Don 't know\nTrump,27,70,0\nPutin,30,62,4\nXi,34,56,15\n"

CASES = [
    # (predicted table, cells right of the 9 numeric gold cells, why)
    (GOLD, 9, "the gold table itself"),
    (
        "Category,Series 1,Series 2,Series 3\nTrump,27,70,0\nPutin,30,62,4\nXi,34,56,15\n",
        9,
        "no name matches: every column by position",
    ),
    (
        "Category,Confidence,Series 2,Series 3\nTrump,27,70,0\nPutin,30,62,4\nXi,34,56,15\n",
        9,
        "one name matches in its place: the others by position",
    ),
    (
        "Category,Series 2,Confidence,Series 3\nTrump,70,27,0\nPutin,62,30,4\nXi,56,34,15\n",
        9,
        "the named column elsewhere: the others in order",
    ),
    (
        "Category,Series 2,Confidence,Series 3\nTrump,0,27,70\nPutin,4,30,62\nXi,15,34,56\n",
        3,
        "the others in order, though read in the other order: only the named one right",
    ),
    (
        "Category,Male\nTrump,27\nPutin,30\nXi,34\n",
        0,
        "one series read and named unlike any: nothing paired (two gold columns are left)",
    ),
    (
        "Category,Confidence,Series 2\nTrump,27,70\nPutin,30,62\nXi,34,56\n",
        3,
        "a series missing: only the named column is scored",
    ),
    (
        "Category,Series 1,Series 2,Series 3\nTrump,27,70,0\nPutin,30,99,4\nXi,34,56,15\n",
        8,
        "a value off by more than 5 %",
    ),
    (
        "Category,Series 1,Series 2,Series 3\nTrump,27,70,0\nPutin,30,62,4\nChina,34,56,15\n",
        6,
        "an unmatched row label scores none of its cells",
    ),
]


@pytest.mark.parametrize(("pred", "right", "why"), CASES)
def test_cells_recovered(bench: ModuleType, pred: str, right: int, why: str) -> None:
    got = bench.table_recovery(bench._gold_table(pred), bench._gold_table(GOLD))
    assert got == (right, 9), why


def test_no_reading_recovers_nothing(bench: ModuleType) -> None:
    assert bench.table_recovery(None, bench._gold_table(GOLD)) == (0, 9)


def test_labels_read_with_subscripts_match_their_mathtext(bench: ModuleType) -> None:
    # The generator writes "$D_{2}$"; at a high resolution the OCR reads the subscript as
    # printed ("D₂"): the same label, as the image shows it.
    gold = bench._gold_table("Detector,Counts\n$D_{1}$,1211\n$D_{2}$,159\n")
    pred = bench._gold_table("Detector,Counts\nD1,1190\nD₂,157\n")
    assert bench.table_recovery(pred, gold) == (2, 2)


def test_the_slowest_charts_are_read_again(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # read_again reads the n slowest charts of a run a second time, slowest first, and
    # keeps each first read's seconds beside the second's.
    again = {"a.png": 0.7, "b.png": 1.9, "c.png": 0.4, "d.png": 1.2}
    reads: list[Path] = []

    def fake_read(path: Path) -> tuple[str, float, float]:
        reads.append(path)
        return "reading", again[path.name] - 0.5, 0.0

    monkeypatch.setattr(bench, "_read_file", fake_read)
    seconds = {"a.png": 1.0, "b.png": 2.3, "c.png": 0.5, "d.png": 1.6}
    got = bench.read_again(Path("/data"), seconds, n=2)
    assert list(got) == ["b.png", "d.png"]
    assert got == {"b.png": [2.3, 1.4], "d.png": [1.6, 0.7]}
    assert reads == [Path("/data/b.png"), Path("/data/d.png")]
    assert bench.read_again(Path("/data"), {}, n=2) == {}


def test_held_out_charts_are_those_the_bench_does_not_read(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # held_out draws from ChartQA's images without a gold table and from OpenCQA's, reads
    # each once (the slowest again), counts those over the 2 s target, and answers the
    # ChartQA questions on the drawn charts beside a constant answer's accuracy.
    import json
    import shutil

    chartqa, opencqa = tmp_path / "chartqa", tmp_path / "opencqa-val"
    (chartqa / "images").mkdir(parents=True)
    (opencqa / "images").mkdir(parents=True)
    rows = [
        {"image": "images/t1.png", "table": "a,b\n1,2"},
        {"image": "images/n1.png", "question": "How many?", "answer": "12"},  # no table
        {"image": "images/t2.png", "table": "a,b\n3,4", "question": "Max?", "answer": "4"},
        {"image": "images/n1.png", "question": "Is it rising?", "answer": "Yes"},
        {"image": "images/n2.png", "question": "How much?", "answer": "12.0"},
        {"image": "images/n2.png"},  # no question: not asked
    ]
    (chartqa / "chartqa.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    for name in ("t1", "t2", "n1", "n2"):
        (chartqa / "images" / f"{name}.png").write_bytes(b"")
    for name in ("o1.png", "o2.jpg", "o3.png", ".hidden.png", "notes.txt"):
        (opencqa / "images" / name).write_bytes(b"")
    times = {"n1": 0.8, "n2": 2.4, "o1": 1.0, "o2": 2.1, "o3": 0.5}
    read: list[str] = []

    def fake_read(path: Path) -> tuple[str, float, float]:
        read.append(path.name)
        return "reading", times[path.stem], 0.0

    monkeypatch.setattr(bench, "_read_file", fake_read)
    got = bench.held_out(tmp_path, n=5)
    assert set(got) == {"chartqa", "opencqa"}
    cq, oc = got["chartqa"], got["opencqa"]
    assert (cq["charts"], cq["over_2s"], cq["max_read_s"]) == (2, 1, 2.4)
    assert cq["slowest"] == "images/n2.png" and cq["median_read_s"] == pytest.approx(1.6)
    assert (oc["charts"], oc["over_2s"], oc["slowest"]) == (3, 1, "images/o2.jpg")
    assert not {"t1.png", "t2.png", ".hidden.png", "notes.txt"} & set(read)
    # the charts came back unread (an error text): every answer wrong; the most common gold
    # answer, "12", is right on both numbers (12.0 within 5 %)
    assert cq["acc"]["image/all"] == (0.0, 3)
    assert cq["acc"]["image/yes/no"] == (0.0, 1)
    assert cq["acc"]["baseline_always_12/all"] == (2.0, 3)
    assert cq["acc"]["baseline_always_no/yes/no"] == (0.0, 1)
    assert oc["acc"] == {}
    assert list(oc["again_s"]) == ["images/o2.jpg", "images/o1.png", "images/o3.png"]
    # the same draw every time; a missing source is left out
    assert bench.held_out(tmp_path, n=2)["opencqa"]["charts"] == 2
    shutil.rmtree(opencqa)
    assert set(bench.held_out(tmp_path, n=1)) == {"chartqa"}
